//! hone's own kernels for the quantized matrices of generation: Q4_K and Q6_K weights (most
//! of a Q4_K_M model) times input rows quantized to 8 bits, on x86-64 CPUs with AVX2 (through
//! pulp's safe intrinsics, detected at run time).
//!
//! candle's generic kernel unpacks the weights again for every input row, so a pass over a
//! few rows (drafts being verified, a short follow-up turn) costs nearly as much per row as
//! one decoded token. These unpack each weight block once for up to four rows and give each
//! row exactly the result it gets alone (see `avx2.rs`), so speculative decoding verifies
//! drafts in one pass without changing a token. Other block types, and CPUs without AVX2,
//! keep candle's kernels.

mod blocks;

#[cfg(target_arch = "x86_64")]
mod avx2;

use std::sync::{Mutex, PoisonError};

use candle_core::Result;
use candle_core::quantized::GgmlDType;

use blocks::QK_K;
pub(crate) use blocks::{BlockQ4K, BlockQ6K, BlockQ8K, quantize_q8k};

/// The CPU features the kernels need, as a token proving they are there.
#[cfg(target_arch = "x86_64")]
type Features = pulp::x86::V3;

/// Without x86-64 there are no kernels: the token can never be had.
#[cfg(not(target_arch = "x86_64"))]
#[derive(Debug, Clone, Copy)]
struct Features;

#[cfg(not(target_arch = "x86_64"))]
impl Features {
    fn try_new() -> Option<Self> {
        None
    }
}

/// Output features a work item of the thread pool computes.
const COLUMNS_PER_ITEM: usize = 16;

/// The weight blocks of a matrix, `out_features` rows of `in_features / 256` blocks each.
pub(crate) enum Blocks {
    Q4K(Vec<BlockQ4K>),
    Q6K(Vec<BlockQ6K>),
}

/// A quantized weight matrix `(out_features, in_features)` multiplied by hone's kernels.
pub(crate) struct OwnMatMul {
    blocks: Blocks,
    out_features: usize,
    in_features: usize,
    features: Features,
    /// Present when the CPU has AVX-512: the same AVX2 operations then run compiled for it,
    /// with 32 vector registers instead of 16 (four rows' sums and a block's unpacked weights
    /// fit without spilling), and give the same results.
    #[cfg(target_arch = "x86_64")]
    wide: Option<pulp::x86::V4>,
}

impl OwnMatMul {
    /// Whether this CPU has kernels for a `dtype` matrix with `in_features` inputs.
    pub(crate) fn supports(dtype: GgmlDType, in_features: usize) -> bool {
        matches!(dtype, GgmlDType::Q4K | GgmlDType::Q6K)
            && in_features.is_multiple_of(QK_K)
            && Features::try_new().is_some()
    }

    /// The matrix of `blocks`; `None` when this CPU has no kernels for them.
    pub(crate) fn new(blocks: Blocks, out_features: usize, in_features: usize) -> Result<Self> {
        let Some(features) = Features::try_new() else {
            candle_core::bail!("this CPU has no AVX2 for hone's quantized kernels");
        };
        let count = match &blocks {
            Blocks::Q4K(blocks) => blocks.len(),
            Blocks::Q6K(blocks) => blocks.len(),
        };
        if !in_features.is_multiple_of(QK_K) || count != out_features * (in_features / QK_K) {
            candle_core::bail!(
                "{count} blocks are not a {out_features}×{in_features} matrix of 256-value blocks"
            );
        }
        Ok(Self {
            blocks,
            out_features,
            in_features,
            features,
            #[cfg(target_arch = "x86_64")]
            wide: pulp::x86::V4::try_new(),
        })
    }

    /// `out = input · Wᵀ` for `rows` input rows of `in_features` (row-major, `out` is
    /// `rows × out_features`).
    pub(crate) fn matmul(&self, rows: usize, input: &[f32], out: &mut [f32]) -> Result<()> {
        let n = self.out_features;
        if input.len() != rows * self.in_features || out.len() != rows * n {
            candle_core::bail!(
                "a {rows}-row product of a {n}×{} matrix got {} inputs and {} outputs",
                self.in_features,
                input.len(),
                out.len()
            );
        }
        if rows == 0 {
            return Ok(());
        }
        let mut quantized = Vec::with_capacity(rows * self.in_features / QK_K);
        for row in input.chunks_exact(self.in_features) {
            quantize_q8k(row, &mut quantized);
        }
        // A work item owns a run of output features: its piece of every output row.
        let mut row_pieces: Vec<_> = out
            .chunks_mut(n)
            .map(|row| row.chunks_mut(COLUMNS_PER_ITEM))
            .collect();
        let item_count = n.div_ceil(COLUMNS_PER_ITEM);
        let mut pieces: Vec<&mut [f32]> = Vec::with_capacity(item_count * rows);
        for _ in 0..item_count {
            pieces.extend(row_pieces.iter_mut().filter_map(Iterator::next));
        }
        let items: Vec<Mutex<&mut [&mut [f32]]>> =
            pieces.chunks_mut(rows).map(Mutex::new).collect();
        candle_core::utils::barrier_pool().execute_chunked(items.len(), |range| {
            for item in range {
                let mut pieces = items[item].lock().unwrap_or_else(PoisonError::into_inner);
                self.columns(item * COLUMNS_PER_ITEM, &quantized, rows, &mut pieces);
            }
        });
        Ok(())
    }

    /// Output features `first..` for every input row, into `out` (one piece of output
    /// features per row).
    fn columns(&self, first: usize, inputs: &[BlockQ8K], rows: usize, out: &mut [&mut [f32]]) {
        let k_blocks = self.in_features / QK_K;
        #[cfg(target_arch = "x86_64")]
        {
            let columns = Columns {
                matrix: self,
                k_blocks,
                inputs,
                rows,
                first,
                out,
            };
            match self.wide {
                Some(wide) => pulp::Simd::vectorize(wide, columns),
                None => pulp::Simd::vectorize(self.features, columns),
            };
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (first, inputs, rows, out, k_blocks, self.features);
        }
    }
}

/// One work item's products, run with the CPU features enabled (see [`pulp::WithSimd`]).
#[cfg(target_arch = "x86_64")]
struct Columns<'a, 'b> {
    matrix: &'a OwnMatMul,
    k_blocks: usize,
    inputs: &'a [BlockQ8K],
    rows: usize,
    first: usize,
    out: &'a mut [&'b mut [f32]],
}

#[cfg(target_arch = "x86_64")]
impl pulp::WithSimd for Columns<'_, '_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) {
        let Columns {
            matrix,
            k_blocks,
            inputs,
            rows,
            first,
            out,
        } = self;
        let simd = matrix.features;
        match &matrix.blocks {
            Blocks::Q4K(weights) => fill(simd, weights, k_blocks, inputs, rows, first, out),
            Blocks::Q6K(weights) => fill(simd, weights, k_blocks, inputs, rows, first, out),
        }
    }
}

/// Fills `out` (a piece of output features per input row) with the products of output
/// features `first..` and every input row, four input rows at a time, then the rest.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn fill<T: avx2::Dot>(
    simd: Features,
    weights: &[T],
    k_blocks: usize,
    inputs: &[BlockQ8K],
    rows: usize,
    first: usize,
    out: &mut [&mut [f32]],
) {
    let input = |row: usize| &inputs[row * k_blocks..(row + 1) * k_blocks];
    let width = out.first().map_or(0, |piece| piece.len());
    for offset in 0..width {
        let start = (first + offset) * k_blocks;
        let w = &weights[start..start + k_blocks];
        let mut store = |row: usize, values: &[f32]| {
            for (piece, &value) in out[row..].iter_mut().zip(values) {
                piece[offset] = value;
            }
        };
        let mut row = 0;
        while row + 4 <= rows {
            let values = T::dot::<4>(
                simd,
                w,
                [input(row), input(row + 1), input(row + 2), input(row + 3)],
                row == 0,
            );
            store(row, &values);
            row += 4;
        }
        let fetch_ahead = row == 0;
        match rows - row {
            3 => store(
                row,
                &T::dot::<3>(
                    simd,
                    w,
                    [input(row), input(row + 1), input(row + 2)],
                    fetch_ahead,
                ),
            ),
            2 => store(
                row,
                &T::dot::<2>(simd, w, [input(row), input(row + 1)], fetch_ahead),
            ),
            1 => store(row, &T::dot::<1>(simd, w, [input(row)], fetch_ahead)),
            _ => {}
        }
    }
}

#[cfg(test)]
#[cfg(target_arch = "x86_64")]
mod tests;
