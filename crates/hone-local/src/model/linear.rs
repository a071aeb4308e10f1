//! Quantized linear layers (`y = x · Wᵀ`) over GGUF weights.
//!
//! candle multiplies quantized weights fastest after repacking them into tiles for the
//! CPU's integer dot-product instructions, but it then keeps the tiles next to the
//! original blocks, more than doubling the memory. hone keeps only the original blocks
//! and multiplies single rows (generation) with candle's generic kernels. Batches of
//! prompt rows, where the tiled kernels are several times faster, get a transient tiled
//! copy of one matrix at a time, re-read from the model file: repacking costs about as
//! much as a few dozen rows, and the memory is released right after.

use std::sync::Arc;

use candle_core::quantized::{GgmlDType, QMatMul, QTensor, QuantizedType};
use candle_core::{CpuStorage, CustomOp1, D, Layout, Module, Result, Shape, Tensor};

use super::kernels::{Blocks, OwnMatMul};
use super::weights::{Extent, WeightFile};

/// Rows from which a batch is multiplied through a transient tiled copy of the weights when
/// candle's generic kernel multiplies the blocks.
pub(crate) const TRANSIENT_MIN_ROWS: usize = 32;

/// The same when hone's own kernels multiply the blocks (Q4_K, Q6_K): re-reading and
/// repacking a matrix costs about as much as 90 rows through them (measured on the 1.5B
/// model: a 49-row follow-up turn took 1.6 s through tiles and 1.15 s through the blocks),
/// so shorter batches, such as a follow-up turn's new tokens, stay on the blocks.
pub(crate) const OWN_TRANSIENT_MIN_ROWS: usize = 96;

/// candle's tiled kernels take whole 256-value superblocks of input features and 16-row
/// tiles of output features.
const TILE_K: usize = 256;
const TILE_N: usize = 16;

/// How a layer's weights are kept in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WeightLayout {
    /// The GGUF blocks as they are (memory stays near the file's size); prompt batches are
    /// multiplied through a transient repacked copy of one matrix at a time.
    #[default]
    Compact,
    /// candle's repacked tiles, kept for good next to the original blocks: generation is up
    /// to twice as fast on CPUs with AVX512-VNNI, but memory grows to about twice the
    /// file's size. On x86 only the matrices whose tiles give one row exactly as several
    /// are repacked (Q4_K, and Q8_0 with VNNI), so speculative decoding stays exact.
    Repacked,
}

/// One quantized weight matrix, `(out_features, in_features)`.
pub(crate) enum QLinear {
    /// The blocks of one tensor, or of several of one block type stacked (see [`Stacked`]).
    Compact {
        op: CompactMatMul,
        extents: Vec<Extent>,
    },
    Repacked(QMatMul),
}

impl QLinear {
    /// Reads the weights at `extents` (the rows of one tensor after the other, all of one
    /// block type), of shape `(out_features, in_features)` in all.
    pub(crate) fn load(
        file: &mut WeightFile,
        extents: &[Extent],
        shape: &[usize],
        layout: WeightLayout,
    ) -> Result<Self> {
        let &[out_features, in_features] = shape else {
            candle_core::bail!("a weight matrix needs two dimensions, not {shape:?}");
        };
        let Some(first) = extents.first() else {
            candle_core::bail!("a weight matrix needs its blocks");
        };
        Ok(match layout {
            WeightLayout::Repacked if keeps_tiles(first.dtype) => {
                QLinear::Repacked(QMatMul::from_arc(Arc::new(file.qtensor(extents, shape)?))?)
            }
            _ => QLinear::Compact {
                op: CompactMatMul {
                    weights: CompactWeights::load(file, extents, out_features, in_features)?,
                    out_features,
                    in_features,
                },
                extents: extents.to_vec(),
            },
        })
    }

    /// `x · Wᵀ` for `x` of shape `(…, in_features)`.
    pub(crate) fn forward(&self, x: &Tensor, file: &mut WeightFile) -> Result<Tensor> {
        match self {
            QLinear::Compact { op, extents } => {
                let Some(dtype) = extents.first().map(|extent| extent.dtype) else {
                    candle_core::bail!("a weight matrix needs its blocks");
                };
                let rows = x.elem_count() / op.in_features.max(1);
                let padded = op.in_features.next_multiple_of(TILE_K);
                // Q8_0 blocks are 32 wide: a matrix whose rows are not whole superblocks
                // (the 0.5B model's 896 features) gets zero blocks appended to each row,
                // and the input zero features to match.
                let fits = padded == op.in_features || dtype == GgmlDType::Q8_0;
                if rows >= op.transient_min_rows()
                    && fits
                    && op.out_features.is_multiple_of(TILE_N)
                    && has_tiled_kernels(dtype)
                {
                    let shape = [op.out_features, op.in_features];
                    let tiled: QTensor = file.qtensor_padded(extents, &shape, padded)?;
                    let x = if padded == op.in_features {
                        x.clone()
                    } else {
                        x.pad_with_zeros(D::Minus1, 0, padded - op.in_features)?
                    };
                    QMatMul::from_qtensor(tiled)?.forward(&x)
                } else {
                    x.contiguous()?.apply_op1_no_bwd(op)
                }
            }
            QLinear::Repacked(matmul) => matmul.forward(x),
        }
    }
}

/// Whether a [`WeightLayout::Repacked`] matrix of `dtype` keeps candle's tiles. On x86 candle
/// multiplies a matrix either through its tiles for any number of rows below 32 (Q4_K;
/// Q8_0 with VNNI), one row exactly as several, or through the blocks for one row and
/// tiles for several (Q6_K): those stay compact, so that verifying drafts in one pass
/// gives the logits of decoding one token at a time. Elsewhere every matrix is repacked.
pub(crate) fn keeps_tiles(dtype: GgmlDType) -> bool {
    if cfg!(target_arch = "x86_64") {
        dtype != GgmlDType::Q6K && has_tiled_kernels(dtype)
    } else {
        true
    }
}

/// Whether candle has tiled kernels for `dtype` on this CPU.
fn has_tiled_kernels(dtype: GgmlDType) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        let avx2 = has!("avx2") && has!("fma");
        // Q8_0 tiles need the integer dot-product instructions (VNNI).
        let vnni = (has!("avx512f") && has!("avx512vnni")) || (avx2 && has!("avxvnni"));
        match dtype {
            GgmlDType::Q4K | GgmlDType::Q6K => avx2,
            GgmlDType::Q8_0 => vnni,
            _ => false,
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        matches!(
            dtype,
            GgmlDType::Q4_0 | GgmlDType::Q4K | GgmlDType::Q5K | GgmlDType::Q6K | GgmlDType::Q8_0
        ) && std::arch::is_aarch64_feature_detected!("dotprod")
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = dtype;
        false
    }
}

/// The weights in their GGUF block format, multiplied by hone's kernels where it has them
/// for the block type and CPU, else by candle's generic `matmul_t`.
pub(crate) struct CompactMatMul {
    weights: CompactWeights,
    out_features: usize,
    in_features: usize,
}

impl CompactMatMul {
    /// Rows from which a batch goes through a transient tiled copy instead.
    fn transient_min_rows(&self) -> usize {
        match self.weights {
            CompactWeights::Own(_) => OWN_TRANSIENT_MIN_ROWS,
            CompactWeights::Candle(_) => TRANSIENT_MIN_ROWS,
        }
    }
}

/// Who multiplies a [`CompactMatMul`]'s blocks.
enum CompactWeights {
    Own(OwnMatMul),
    Candle(Box<dyn QuantizedType>),
}

impl CompactWeights {
    fn load(
        file: &mut WeightFile,
        extents: &[Extent],
        out_features: usize,
        in_features: usize,
    ) -> Result<Self> {
        let Some(dtype) = extents.first().map(|extent| extent.dtype) else {
            candle_core::bail!("a weight matrix needs its blocks");
        };
        if !OwnMatMul::supports(dtype, in_features) {
            return Ok(Self::Candle(file.compact(extents)?));
        }
        let blocks = match dtype {
            GgmlDType::Q4K => Blocks::Q4K(file.blocks(extents)?),
            _ => Blocks::Q6K(file.blocks(extents)?),
        };
        Ok(Self::Own(OwnMatMul::new(
            blocks,
            out_features,
            in_features,
        )?))
    }
}

impl CustomOp1 for CompactMatMul {
    fn name(&self) -> &'static str {
        "hone-compact-qmatmul"
    }

    fn cpu_fwd(&self, storage: &CpuStorage, layout: &Layout) -> Result<(CpuStorage, Shape)> {
        let CpuStorage::F32(data) = storage else {
            candle_core::bail!("quantized matmul expects f32 input");
        };
        let Some((start, end)) = layout.contiguous_offsets() else {
            candle_core::bail!("quantized matmul expects a contiguous input");
        };
        let dims = layout.shape().dims();
        let Some((&last, batch)) = dims.split_last() else {
            candle_core::bail!("quantized matmul expects at least one dimension");
        };
        if last != self.in_features {
            candle_core::bail!(
                "quantized matmul input has {last} features, the weights {}",
                self.in_features
            );
        }
        let rows: usize = batch.iter().product();
        let mut out = vec![0f32; rows * self.out_features];
        match &self.weights {
            CompactWeights::Own(matrix) => matrix.matmul(rows, &data[start..end], &mut out)?,
            CompactWeights::Candle(weights) => weights.matmul_t(
                (rows, self.in_features, self.out_features),
                &data[start..end],
                &mut out,
            )?,
        }
        let mut out_dims = dims.to_vec();
        if let Some(last) = out_dims.last_mut() {
            *last = self.out_features;
        }
        Ok((CpuStorage::F32(out), Shape::from(out_dims)))
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use candle_core::Device;

    use super::*;

    /// A `(out, in)` Q8_0 layer read from a file holding only its blocks, and the
    /// dequantized weights it holds.
    fn q8_0_layer(out_features: usize, in_features: usize) -> (QLinear, WeightFile, Tensor) {
        let weights = Tensor::randn(0f32, 1.0, (out_features, in_features), &Device::Cpu).unwrap();
        let quantized = QTensor::quantize(&weights, GgmlDType::Q8_0).unwrap();
        let bytes = quantized.data().unwrap();
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(&bytes).unwrap();
        let extent = Extent {
            dtype: GgmlDType::Q8_0,
            offset: 0,
            len: bytes.len(),
        };
        let mut file = WeightFile::new(file);
        let shape = [out_features, in_features];
        let layer = QLinear::load(&mut file, &[extent], &shape, WeightLayout::Compact).unwrap();
        (layer, file, quantized.dequantize(&Device::Cpu).unwrap())
    }

    fn max_difference(a: &Tensor, b: &Tensor) -> f32 {
        (a - b)
            .unwrap()
            .abs()
            .unwrap()
            .max_all()
            .unwrap()
            .to_scalar()
            .unwrap()
    }

    #[test]
    fn rows_of_partial_superblocks_multiply_like_the_dense_weights() {
        // 896 input features (the 0.5B model's width) are 3.5 superblocks: batches go
        // through zero-padded tiles, single rows through the blocks as they are.
        let (layer, mut file, dense) = q8_0_layer(48, 896);
        for rows in [1, TRANSIENT_MIN_ROWS + 3] {
            let x = Tensor::randn(0f32, 1.0, (1, rows, 896), &Device::Cpu).unwrap();
            let got = layer.forward(&x, &mut file).unwrap();
            assert_eq!(got.dims(), &[1, rows, 48]);
            let expected = x.broadcast_matmul(&dense.t().unwrap()).unwrap();
            let scale: f32 = expected
                .abs()
                .unwrap()
                .max_all()
                .unwrap()
                .to_scalar()
                .unwrap();
            // Activations are quantized to 8 bits too: about 1% of the largest output.
            let difference = max_difference(&got, &expected);
            assert!(
                difference < 0.02 * scale,
                "{rows} rows: {difference} of {scale}"
            );
        }
    }

    #[test]
    fn padding_appends_zero_blocks_to_every_row() {
        let (_, mut file, dense) = q8_0_layer(16, 96);
        let extent = Extent {
            dtype: GgmlDType::Q8_0,
            offset: 0,
            len: 16 * 3 * GgmlDType::Q8_0.type_size(),
        };
        let padded = file
            .qtensor_padded(&[extent], &[16, 96], 256)
            .unwrap()
            .dequantize(&Device::Cpu)
            .unwrap();
        assert_eq!(padded.dims(), &[16, 256]);
        assert_eq!(
            max_difference(&padded.narrow(1, 0, 96).unwrap(), &dense),
            0.0
        );
        let tail = padded.narrow(1, 96, 160).unwrap();
        assert_eq!(max_difference(&tail, &tail.zeros_like().unwrap()), 0.0);
        assert!(file.qtensor_padded(&[extent], &[16, 96], 100).is_err());
    }
}
