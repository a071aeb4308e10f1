//! Matrices that multiply the same input, stacked into one where their blocks allow.

use candle_core::{D, Result, Tensor};

use super::linear::{QLinear, WeightLayout};
use super::weights::{Extent, WeightFile};

/// Matrices that multiply the same input: a layer's query, key and value projections, or
/// its gate and up projections. In the compact layout, neighbours of one block type are
/// stacked into one matrix (their rows one after the other, no extra memory), so a decoded
/// token quantizes the input and candle's threads meet once for them instead of once per
/// matrix. Each output is exactly that of its matrix alone: an output feature is the dot
/// product of one weight row with the input row, whichever matrix the row sits in.
pub(crate) struct Stacked {
    /// Each stacked matrix, with the output widths of the tensors in it.
    parts: Vec<(QLinear, Vec<usize>)>,
}

impl Stacked {
    /// Reads `tensors`, each an extent and its shape `(out_features, in_features)`.
    pub(crate) fn load(
        file: &mut WeightFile,
        tensors: &[(Extent, Vec<usize>)],
        layout: WeightLayout,
    ) -> Result<Self> {
        let mut parts = Vec::new();
        let mut start = 0;
        while let Some((first, shape)) = tensors.get(start) {
            let &[_, in_features] = shape.as_slice() else {
                candle_core::bail!("a weight matrix needs two dimensions, not {shape:?}");
            };
            let mut end = start + 1;
            if layout == WeightLayout::Compact {
                while let Some((next, next_shape)) = tensors.get(end) {
                    if next.dtype != first.dtype || next_shape.get(1) != Some(&in_features) {
                        break;
                    }
                    end += 1;
                }
            }
            let group = &tensors[start..end];
            let extents: Vec<Extent> = group.iter().map(|(extent, _)| *extent).collect();
            let widths = group
                .iter()
                .map(|(_, shape)| match shape.as_slice() {
                    &[rows, _] => Ok(rows),
                    _ => candle_core::bail!("a weight matrix needs two dimensions, not {shape:?}"),
                })
                .collect::<Result<Vec<usize>>>()?;
            let shape = [widths.iter().sum(), in_features];
            parts.push((QLinear::load(file, &extents, &shape, layout)?, widths));
            start = end;
        }
        Ok(Self { parts })
    }

    /// `x · Wᵀ` for each matrix, in the order they were loaded.
    pub(crate) fn forward(&self, x: &Tensor, file: &mut WeightFile) -> Result<Vec<Tensor>> {
        let mut outputs = Vec::new();
        for (linear, widths) in &self.parts {
            let y = linear.forward(x, file)?;
            if let &[_] = widths.as_slice() {
                outputs.push(y);
                continue;
            }
            let mut start = 0;
            for &width in widths {
                outputs.push(y.narrow(D::Minus1, start, width)?);
                start += width;
            }
        }
        Ok(outputs)
    }

    /// How many matrices are multiplied (after stacking).
    #[cfg(test)]
    pub(crate) fn matrices(&self) -> usize {
        self.parts.len()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use candle_core::Device;
    use candle_core::quantized::{GgmlDType, QTensor};

    use super::*;
    use crate::model::linear::{OWN_TRANSIENT_MIN_ROWS, TRANSIENT_MIN_ROWS};

    /// Random matrices of the given block types and shapes written one after the other to a
    /// file, with their extents and shapes.
    fn matrices(specs: &[(GgmlDType, usize, usize)]) -> (WeightFile, Vec<(Extent, Vec<usize>)>) {
        let mut file = tempfile::tempfile().unwrap();
        let mut offset = 0u64;
        let mut tensors = Vec::new();
        for &(dtype, rows, features) in specs {
            let dense = Tensor::randn(0f32, 1.0, (rows, features), &Device::Cpu).unwrap();
            let quantized = QTensor::quantize(&dense, dtype).unwrap();
            let bytes = quantized.data().unwrap();
            file.write_all(&bytes).unwrap();
            let extent = Extent {
                dtype,
                offset,
                len: bytes.len(),
            };
            offset += bytes.len() as u64;
            tensors.push((extent, vec![rows, features]));
        }
        (WeightFile::new(file), tensors)
    }

    fn input(rows: usize, features: usize) -> Tensor {
        Tensor::randn(0f32, 1.0, (1, rows, features), &Device::Cpu).unwrap()
    }

    fn values(tensor: &Tensor) -> Vec<f32> {
        tensor.flatten_all().unwrap().to_vec1().unwrap()
    }

    /// Multiplies `x` by `stacked` one row at a time and returns each output's rows joined.
    fn row_by_row(stacked: &Stacked, x: &Tensor, file: &mut WeightFile) -> Vec<Vec<f32>> {
        let mut joined: Vec<Vec<f32>> = Vec::new();
        for row in 0..x.dim(1).unwrap() {
            let one = x.narrow(1, row, 1).unwrap();
            let outputs = stacked.forward(&one, file).unwrap();
            joined.resize(outputs.len(), Vec::new());
            for (all, output) in joined.iter_mut().zip(&outputs) {
                all.extend(values(output));
            }
        }
        joined
    }

    #[test]
    fn a_batch_of_rows_gives_each_row_exactly_as_alone() {
        // What verifying drafts in one pass relies on: below the transient tiled batches
        // every row is multiplied exactly as a decoded token is.
        for (dtype, features) in [
            (GgmlDType::Q4K, 512),
            (GgmlDType::Q6K, 512),
            (GgmlDType::Q8_0, 896),
        ] {
            let (mut file, tensors) = matrices(&[(dtype, 40, features)]);
            let stacked = Stacked::load(&mut file, &tensors, WeightLayout::Compact).unwrap();
            // hone's own kernels (Q4_K, Q6_K on x86-64) keep batches on the blocks longer.
            let own = cfg!(target_arch = "x86_64") && dtype != GgmlDType::Q8_0;
            let most = if own {
                OWN_TRANSIENT_MIN_ROWS
            } else {
                TRANSIENT_MIN_ROWS
            } - 1;
            for rows in [2, 5, TRANSIENT_MIN_ROWS - 1, most] {
                let x = input(rows, features);
                let batch = stacked.forward(&x, &mut file).unwrap();
                assert_eq!(batch[0].dims(), &[1, rows, 40]);
                let alone = row_by_row(&stacked, &x, &mut file);
                assert_eq!(values(&batch[0]), alone[0], "{dtype:?}, {rows} rows");
            }
        }
    }

    #[test]
    fn stacked_matrices_give_exactly_what_each_gives_alone() {
        let specs = [
            (GgmlDType::Q4K, 64, 512),
            (GgmlDType::Q4K, 16, 512),
            (GgmlDType::Q6K, 16, 512),
        ];
        let (mut file, tensors) = matrices(&specs);
        let stacked = Stacked::load(&mut file, &tensors, WeightLayout::Compact).unwrap();
        // The two Q4_K matrices are one; the Q6_K one stays apart.
        assert_eq!(stacked.matrices(), 2);
        for rows in [1, 3, TRANSIENT_MIN_ROWS + 2] {
            let x = input(rows, 512);
            let outputs = stacked.forward(&x, &mut file).unwrap();
            assert_eq!(outputs.len(), 3);
            for ((output, tensor), (_, width, _)) in outputs.iter().zip(&tensors).zip(specs) {
                let alone = Stacked::load(
                    &mut file,
                    std::slice::from_ref(tensor),
                    WeightLayout::Compact,
                )
                .unwrap();
                assert_eq!(alone.matrices(), 1);
                let expected = alone.forward(&x, &mut file).unwrap();
                assert_eq!(output.dims(), &[1, rows, width]);
                assert_eq!(values(output), values(&expected[0]), "{rows} rows");
            }
        }
    }

    #[test]
    fn repacked_matrices_stay_apart() {
        let (mut file, tensors) = matrices(&[(GgmlDType::Q4K, 16, 256), (GgmlDType::Q4K, 16, 256)]);
        let stacked = Stacked::load(&mut file, &tensors, WeightLayout::Repacked).unwrap();
        assert_eq!(stacked.matrices(), 2);
        assert_eq!(stacked.forward(&input(1, 256), &mut file).unwrap().len(), 2);
    }

    #[test]
    fn matrices_of_other_widths_or_shapes_are_not_stacked() {
        let (mut file, tensors) =
            matrices(&[(GgmlDType::Q8_0, 16, 256), (GgmlDType::Q8_0, 16, 512)]);
        let stacked = Stacked::load(&mut file, &tensors, WeightLayout::Compact).unwrap();
        assert_eq!(stacked.matrices(), 2);
        let mut flat = tensors.clone();
        flat[1].1 = vec![16 * 512];
        assert!(Stacked::load(&mut file, &flat, WeightLayout::Compact).is_err());
        // Blocks of two types cannot be read as one matrix.
        let (mut file, mixed) = matrices(&[(GgmlDType::Q8_0, 16, 256), (GgmlDType::Q4K, 16, 256)]);
        let extents: Vec<Extent> = mixed.iter().map(|(extent, _)| *extent).collect();
        assert!(file.compact(&extents).is_err());
        assert!(file.compact(&[]).is_err());
    }
}
