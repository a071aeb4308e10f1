//! Dot products of one quantized weight row with `R` (1–4) input rows quantized to Q8_K, with
//! AVX2 through pulp's safe intrinsics (the caller holds a [`V3`] token, so the CPU has them).
//!
//! A block's weights are unpacked once for all `R` input rows, which is what makes a pass over
//! several rows (drafts being verified, a short follow-up turn) cost less than that many
//! tokens. Each input row's result is computed by the same operations in the same order
//! whatever `R` is (integer sums are exact; the float steps are per row), so a row's result
//! never depends on the rows it is computed with: verifying drafts in one pass gives exactly
//! the logits of decoding one token at a time.

use core::arch::x86_64::{__m128i, __m256, __m256i, _MM_HINT_T0};

use bytemuck::cast;
use pulp::x86::V3;

use super::blocks::{BlockQ4K, BlockQ6K, BlockQ8K, f16_to_f32};

/// Byte shuffles of a Q6_K block's 16 scales for run `k` of half `n` (at `4n + k`): eight
/// copies of scale `8n + 2k`, then eight of the next.
const SCALE_PAIRS: [[u8; 16]; 8] = {
    let mut masks = [[0u8; 16]; 8];
    let mut run = 0;
    while run < 8 {
        let mut byte = 0;
        while byte < 16 {
            masks[run][byte] = (2 * run + byte / 8) as u8;
            byte += 1;
        }
        run += 1;
    }
    masks
};

/// Byte shuffles that make byte `i` of each 128-bit half every 16-bit lane (zero-extended),
/// at `i`: a Q4_K sub-block's scale for all 16 pairs of a product.
const WORD_BROADCASTS: [[u8; 32]; 8] = {
    let mut masks = [[0x80u8; 32]; 8];
    let mut index = 0;
    while index < 8 {
        let mut lane = 0;
        while lane < 16 {
            masks[index][2 * lane] = index as u8;
            lane += 1;
        }
        index += 1;
    }
    masks
};

/// How far ahead of the weight block being multiplied the next ones are fetched into the
/// cache. Decoding multiplies one input row, streaming every weight from memory once, and
/// the CPU's own prefetcher, which stops at each 4 KiB page, leaves the kernels waiting on
/// loads: on a 2-core Xeon (AVX512-VNNI, AMX) the 1.5B model decoded at 9.5 tokens/s without
/// software prefetching, 13–14 with 1 KiB ahead, 14–15 with 2–8 KiB and 16–17 with 16 KiB
/// (32 and 64 KiB: 15).
const PREFETCH_AHEAD: usize = 16 * 1024;

/// Asks for the cache lines of the block [`PREFETCH_AHEAD`] bytes after `block` (one line
/// more than a block spans, as it may start anywhere in a line). A prefetch never faults, so
/// lines past the end of the matrix cost nothing but the request.
#[inline(always)]
fn prefetch_ahead<T>(simd: V3, block: &T) {
    let ahead = core::ptr::from_ref(block)
        .cast::<i8>()
        .wrapping_add(PREFETCH_AHEAD);
    for line in 0..=size_of::<T>().div_ceil(64) {
        simd.sse
            ._mm_prefetch::<{ _MM_HINT_T0 }>(ahead.wrapping_add(64 * line));
    }
}

/// The sum of the eight lanes, in a fixed order.
#[inline(always)]
fn sum_lanes(acc: __m256) -> f32 {
    let lanes: [f32; 8] = cast(acc);
    ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3]))
        + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]))
}

/// A weight block type with a kernel.
pub(super) trait Dot: Sized {
    /// `Σ w·x` of the weight row `weights` with each input row of `inputs` (as many blocks);
    /// with `fetch_ahead`, the weights [`PREFETCH_AHEAD`] bytes further on are prefetched on
    /// the way (the first rows a weight row is multiplied with ask for them, the others find
    /// them cached).
    fn dot<const R: usize>(
        simd: V3,
        weights: &[Self],
        inputs: [&[BlockQ8K]; R],
        fetch_ahead: bool,
    ) -> [f32; R];
}

impl Dot for BlockQ4K {
    #[inline(always)]
    fn dot<const R: usize>(
        simd: V3,
        weights: &[Self],
        inputs: [&[BlockQ8K]; R],
        fetch_ahead: bool,
    ) -> [f32; R] {
        let (avx, avx2, sse2) = (simd.avx, simd.avx2, simd.sse2);
        let nibble = avx._mm256_set1_epi8(0x0F);
        let mut acc = [avx._mm256_setzero_ps(); R];
        let mut min_terms = [simd.sse._mm_setzero_ps(); R];
        for (b, block) in weights.iter().enumerate() {
            if fetch_ahead {
                prefetch_ahead(simd, block);
            }
            let (d, dmin) = block.factors();
            let (scales, mins) = block.scales_and_mins();
            let scales: __m256i = cast([scales, [0; 8], scales, [0; 8]]);
            let mut sums = [avx._mm256_setzero_si256(); R];
            for (j, packed) in block.qs.iter().enumerate() {
                let packed: __m256i = cast(*packed);
                let low = avx2._mm256_and_si256(packed, nibble);
                let high = avx2._mm256_and_si256(avx2._mm256_srli_epi16::<4>(packed), nibble);
                let low_scale = avx2._mm256_shuffle_epi8(scales, cast(WORD_BROADCASTS[2 * j]));
                let high_scale = avx2._mm256_shuffle_epi8(scales, cast(WORD_BROADCASTS[2 * j + 1]));
                for (sum, input) in sums.iter_mut().zip(inputs) {
                    let y = &input[b];
                    let p_low = avx2._mm256_madd_epi16(
                        avx2._mm256_maddubs_epi16(low, cast(y.qs[2 * j])),
                        low_scale,
                    );
                    let p_high = avx2._mm256_madd_epi16(
                        avx2._mm256_maddubs_epi16(high, cast(y.qs[2 * j + 1])),
                        high_scale,
                    );
                    *sum = avx2._mm256_add_epi32(*sum, avx2._mm256_add_epi32(p_low, p_high));
                }
            }
            let mins = simd.sse4_1._mm_cvtepu8_epi16(cast([mins, [0; 8]]));
            for r in 0..R {
                let y = &inputs[r][b];
                acc[r] = simd.fma._mm256_fmadd_ps(
                    avx._mm256_set1_ps(d * y.d),
                    avx._mm256_cvtepi32_ps(sums[r]),
                    acc[r],
                );
                // Σ min · (the 32 inputs' sum) per sub-block, four lanes of two.
                let min_sums = sse2._mm_madd_epi16(mins, cast(y.pair_sums));
                min_terms[r] = simd.fma._mm_fmadd_ps(
                    simd.sse._mm_set1_ps(dmin * y.d),
                    sse2._mm_cvtepi32_ps(min_sums),
                    min_terms[r],
                );
            }
        }
        core::array::from_fn(|r| {
            let mins: [f32; 4] = cast(min_terms[r]);
            sum_lanes(acc[r]) - ((mins[0] + mins[1]) + (mins[2] + mins[3]))
        })
    }
}

impl Dot for BlockQ6K {
    #[inline(always)]
    fn dot<const R: usize>(
        simd: V3,
        weights: &[Self],
        inputs: [&[BlockQ8K]; R],
        fetch_ahead: bool,
    ) -> [f32; R] {
        let (avx, avx2) = (simd.avx, simd.avx2);
        let nibble = avx._mm256_set1_epi8(0x0F);
        let two_bits = avx._mm256_set1_epi8(3);
        let bits =
            |pair: __m256i| avx2._mm256_slli_epi16::<4>(avx2._mm256_and_si256(pair, two_bits));
        let mut acc = [avx._mm256_setzero_ps(); R];
        let mut offset_terms = [0f32; R];
        for (b, block) in weights.iter().enumerate() {
            if fetch_ahead {
                prefetch_ahead(simd, block);
            }
            let mut sums = [avx._mm256_setzero_si256(); R];
            let all_scales: __m128i = cast(block.scales);
            let wide_scales = avx2._mm256_cvtepi8_epi16(all_scales);
            for n in 0..2 {
                let high: __m256i = cast(block.qh[n]);
                let first: __m256i = cast(block.ql[2 * n]);
                let second: __m256i = cast(block.ql[2 * n + 1]);
                let q = [
                    avx2._mm256_or_si256(avx2._mm256_and_si256(first, nibble), bits(high)),
                    avx2._mm256_or_si256(
                        avx2._mm256_and_si256(second, nibble),
                        bits(avx2._mm256_srli_epi16::<2>(high)),
                    ),
                    avx2._mm256_or_si256(
                        avx2._mm256_and_si256(avx2._mm256_srli_epi16::<4>(first), nibble),
                        bits(avx2._mm256_srli_epi16::<4>(high)),
                    ),
                    avx2._mm256_or_si256(
                        avx2._mm256_and_si256(avx2._mm256_srli_epi16::<4>(second), nibble),
                        bits(avx2._mm256_srli_epi16::<6>(high)),
                    ),
                ];
                // Each 32-weight run spans two 16-weight sub-blocks: the first eight 16-bit
                // lanes of a product hold the first one's pairs.
                let scales: [__m256i; 4] = core::array::from_fn(|k| {
                    let pair = simd
                        .ssse3
                        ._mm_shuffle_epi8(all_scales, cast(SCALE_PAIRS[4 * n + k]));
                    avx2._mm256_cvtepi8_epi16(pair)
                });
                for (sum, input) in sums.iter_mut().zip(inputs) {
                    let y = &input[b];
                    for k in 0..4 {
                        let product = avx2._mm256_madd_epi16(
                            avx2._mm256_maddubs_epi16(q[k], cast(y.qs[4 * n + k])),
                            scales[k],
                        );
                        *sum = avx2._mm256_add_epi32(*sum, product);
                    }
                }
            }
            let d = f16_to_f32(block.d);
            for r in 0..R {
                let y = &inputs[r][b];
                acc[r] = simd.fma._mm256_fmadd_ps(
                    avx._mm256_set1_ps(d * y.d),
                    avx._mm256_cvtepi32_ps(sums[r]),
                    acc[r],
                );
                // The weights are stored as q + 32: take 32 · scale · Σx per sub-block back off
                // (an exact integer sum, in any order).
                let offsets: [i32; 8] = cast(avx2._mm256_madd_epi16(wide_scales, cast(y.bsums)));
                let offset: i32 = offsets.iter().sum();
                offset_terms[r] += d * y.d * (32 * offset) as f32;
            }
        }
        core::array::from_fn(|r| sum_lanes(acc[r]) - offset_terms[r])
    }
}
