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
use candle_core::{CpuStorage, CustomOp1, Layout, Module, Result, Shape, Tensor};

use super::weights::{Extent, WeightFile};

/// Rows from which a batch is multiplied through a transient tiled copy of the weights.
const TRANSIENT_MIN_ROWS: usize = 32;

/// How a layer's weights are kept in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WeightLayout {
    /// The GGUF blocks as they are (memory stays near the file's size); prompt batches are
    /// multiplied through a transient repacked copy of one matrix at a time.
    #[default]
    Compact,
    /// candle's repacked tiles, kept for good next to the original blocks: generation is up
    /// to twice as fast on CPUs with AVX512-VNNI, but memory grows to about three times
    /// the file's size.
    Repacked,
}

/// One quantized weight matrix, `(out_features, in_features)`.
pub(crate) enum QLinear {
    Compact { op: CompactMatMul, extent: Extent },
    Repacked(QMatMul),
}

impl QLinear {
    /// Reads the weights at `extent`, of shape `(out_features, in_features)`.
    pub(crate) fn load(
        file: &mut WeightFile,
        extent: Extent,
        shape: &[usize],
        layout: WeightLayout,
    ) -> Result<Self> {
        let &[out_features, in_features] = shape else {
            candle_core::bail!("a weight matrix needs two dimensions, not {shape:?}");
        };
        Ok(match layout {
            WeightLayout::Compact => QLinear::Compact {
                op: CompactMatMul {
                    weights: file.compact(extent)?,
                    out_features,
                    in_features,
                },
                extent,
            },
            WeightLayout::Repacked => {
                QLinear::Repacked(QMatMul::from_arc(Arc::new(file.qtensor(extent, shape)?))?)
            }
        })
    }

    /// `x · Wᵀ` for `x` of shape `(…, in_features)`.
    pub(crate) fn forward(&self, x: &Tensor, file: &mut WeightFile) -> Result<Tensor> {
        match self {
            QLinear::Compact { op, extent } => {
                let rows = x.elem_count() / op.in_features.max(1);
                if rows >= TRANSIENT_MIN_ROWS && has_tiled_kernels(extent.dtype) {
                    let shape = [op.out_features, op.in_features];
                    let tiled: QTensor = file.qtensor(*extent, &shape)?;
                    QMatMul::from_qtensor(tiled)?.forward(x)
                } else {
                    x.contiguous()?.apply_op1_no_bwd(op)
                }
            }
            QLinear::Repacked(matmul) => matmul.forward(x),
        }
    }
}

/// Whether candle has tiled kernels for `dtype` on this CPU.
fn has_tiled_kernels(dtype: GgmlDType) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        matches!(dtype, GgmlDType::Q4K | GgmlDType::Q6K | GgmlDType::Q8_0)
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
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

/// The weights in their GGUF block format, multiplied by candle's generic `matmul_t`.
pub(crate) struct CompactMatMul {
    weights: Box<dyn QuantizedType>,
    out_features: usize,
    in_features: usize,
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
        self.weights.matmul_t(
            (rows, self.in_features, self.out_features),
            &data[start..end],
            &mut out,
        )?;
        let mut out_dims = dims.to_vec();
        if let Some(last) = out_dims.last_mut() {
            *last = self.out_features;
        }
        Ok((CpuStorage::F32(out), Shape::from(out_dims)))
    }
}
