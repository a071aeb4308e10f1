//! The GGUF blocks hone multiplies with its own kernels (Q4_K, Q6_K), and the 8-bit blocks
//! (Q8_K) input rows are quantized to first. The layouts are ggml's, byte for byte, so the
//! weights are read from the file as they are.

use bytemuck::{Pod, Zeroable};

/// Values in a superblock.
pub(crate) const QK_K: usize = 256;

/// A Q4_K superblock: 256 weights in eight sub-blocks of 32, each with a 6-bit scale and a
/// 6-bit min; weight = `d · scale · q − dmin · min` with 4-bit `q`.
#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
pub(crate) struct BlockQ4K {
    /// `d`, as f16 bits.
    pub(crate) d: u16,
    /// `dmin`, as f16 bits.
    pub(crate) dmin: u16,
    /// The eight scales and eight mins, 6 bits each, packed.
    pub(crate) scales: [u8; 12],
    /// Chunk `j`: the low nibbles are weights `64j..64j+32`, the high ones `64j+32..64j+64`.
    pub(crate) qs: [[u8; 32]; 4],
}

impl BlockQ4K {
    /// The eight 6-bit scales and the eight 6-bit mins (ggml's `get_scale_min_k4`, on four
    /// bytes at a time).
    #[inline(always)]
    pub(crate) fn scales_and_mins(&self) -> ([u8; 8], [u8; 8]) {
        const LOW_SIX: u32 = 0x3f3f_3f3f;
        const LOW_FOUR: u32 = 0x0f0f_0f0f;
        const LOW_TWO: u32 = 0x0303_0303;
        let word = |i: usize| {
            u32::from_le_bytes([
                self.scales[4 * i],
                self.scales[4 * i + 1],
                self.scales[4 * i + 2],
                self.scales[4 * i + 3],
            ])
        };
        let (a, b, c) = (word(0), word(1), word(2));
        let scales_low = a & LOW_SIX;
        let scales_high = (c & LOW_FOUR) | (((a >> 6) & LOW_TWO) << 4);
        let mins_low = b & LOW_SIX;
        let mins_high = ((c >> 4) & LOW_FOUR) | (((b >> 6) & LOW_TWO) << 4);
        let join = |low: u32, high: u32| {
            let (low, high) = (low.to_le_bytes(), high.to_le_bytes());
            [
                low[0], low[1], low[2], low[3], high[0], high[1], high[2], high[3],
            ]
        };
        (join(scales_low, scales_high), join(mins_low, mins_high))
    }

    /// `d` and `dmin` as f32.
    #[inline(always)]
    pub(crate) fn factors(&self) -> (f32, f32) {
        (f16_to_f32(self.d), f16_to_f32(self.dmin))
    }
}

/// An f16 (as bits) as f32, exactly; inlined into the kernels (`half`'s conversion is a call
/// behind a CPU check).
#[inline(always)]
pub(crate) fn f16_to_f32(bits: u16) -> f32 {
    let bits = u32::from(bits);
    let sign = (bits & 0x8000) << 16;
    let exponent = (bits >> 10) & 0x1f;
    let mantissa = bits & 0x3ff;
    match exponent {
        0 => {
            // Zero or subnormal: mantissa · 2⁻²⁴.
            let magnitude = mantissa as f32 * (1.0 / 16_777_216.0);
            f32::from_bits(sign | magnitude.to_bits())
        }
        31 => f32::from_bits(sign | 0x7f80_0000 | (mantissa << 13)),
        _ => f32::from_bits(sign | ((exponent + 112) << 23) | (mantissa << 13)),
    }
}

/// A Q6_K superblock: 256 weights in sixteen sub-blocks of 16, each with an 8-bit scale;
/// weight = `d · scale · (q − 32)` with 6-bit `q` (4 low bits in `ql`, 2 high in `qh`).
#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
pub(crate) struct BlockQ6K {
    /// Half `n` uses chunks `2n` and `2n + 1`: low nibbles of chunk `2n` are weights
    /// `128n..128n+32`, of `2n + 1` the next 32; high nibbles the 64 after those.
    pub(crate) ql: [[u8; 32]; 4],
    /// Half `n`: bit pairs 0–1, 2–3, 4–5, 6–7 of byte `l` are the high bits of its four
    /// 32-weight runs.
    pub(crate) qh: [[u8; 32]; 2],
    /// One scale per 16 weights.
    pub(crate) scales: [i8; 16],
    /// `d`, as f16 bits.
    pub(crate) d: u16,
}

/// An input superblock quantized to 8 bits: value = `d · q`, with the sums of each 16 `q`s.
#[derive(Clone, Copy, Pod, Zeroable)]
#[repr(C)]
pub(crate) struct BlockQ8K {
    pub(crate) d: f32,
    /// 256 values in chunks of 32.
    pub(crate) qs: [[i8; 32]; 8],
    /// Sum of each 16 consecutive `qs`.
    pub(crate) bsums: [i16; 16],
    /// Sum of each 32 consecutive `qs`.
    pub(crate) pair_sums: [i16; 8],
}

/// Quantizes `input` (whole superblocks) to Q8_K blocks, one per 256 values, into `out`,
/// with the CPU's vector instructions where pulp finds them.
pub(crate) fn quantize_q8k(input: &[f32], out: &mut Vec<BlockQ8K>) {
    pulp::Arch::new().dispatch(Quantize { input, out });
}

/// [`quantize_q8k`]'s work, run with the CPU features enabled.
struct Quantize<'a> {
    input: &'a [f32],
    out: &'a mut Vec<BlockQ8K>,
}

impl pulp::WithSimd for Quantize<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) {
        for values in self.input.chunks_exact(QK_K) {
            // The largest magnitude, eight lanes at a time (max is exact in any order; the
            // comparison, unlike `f32::max`, becomes one vector instruction).
            let mut lanes = [0f32; 8];
            for eight in values.chunks_exact(8) {
                for (lane, value) in lanes.iter_mut().zip(eight) {
                    let magnitude = value.abs();
                    *lane = if magnitude > *lane { magnitude } else { *lane };
                }
            }
            let largest = lanes.iter().fold(0f32, |max, &lane| max.max(lane));
            let mut block = BlockQ8K::zeroed();
            if largest > 0.0 {
                let inverse = 127.0 / largest;
                block.d = largest / 127.0;
                for (chunk, values) in block.qs.iter_mut().zip(values.chunks_exact(32)) {
                    for (q, value) in chunk.iter_mut().zip(values) {
                        // |value · inverse| ≤ 127: the cast never saturates.
                        *q = (value * inverse).round_ties_even() as i8;
                    }
                }
                for (sum, sixteen) in block
                    .bsums
                    .iter_mut()
                    .zip(block.qs.as_flattened().chunks_exact(16))
                {
                    *sum = sixteen.iter().map(|&q| i16::from(q)).sum();
                }
                for (pair, sums) in block.pair_sums.iter_mut().zip(block.bsums.chunks_exact(2)) {
                    *pair = sums[0] + sums[1];
                }
            }
            self.out.push(block);
        }
    }
}

#[cfg(test)]
pub(crate) mod reference {
    //! Plain dequantization, for checking the kernels.

    use half::f16;

    use super::*;

    /// The 256 weights of a Q4_K block.
    pub(crate) fn dequantize_q4k(block: &BlockQ4K) -> Vec<f32> {
        let (d, dmin) = block.factors();
        let (scales, mins) = block.scales_and_mins();
        let mut out = vec![0f32; QK_K];
        for (j, chunk) in block.qs.iter().enumerate() {
            for (l, &byte) in chunk.iter().enumerate() {
                let low = 2 * j;
                let high = 2 * j + 1;
                out[64 * j + l] = d * f32::from(scales[low]) * f32::from(byte & 0xF)
                    - dmin * f32::from(mins[low]);
                out[64 * j + 32 + l] = d * f32::from(scales[high]) * f32::from(byte >> 4)
                    - dmin * f32::from(mins[high]);
            }
        }
        out
    }

    /// The 256 weights of a Q6_K block.
    pub(crate) fn dequantize_q6k(block: &BlockQ6K) -> Vec<f32> {
        let d = f16::from_bits(block.d).to_f32();
        let mut out = vec![0f32; QK_K];
        for n in 0..2 {
            for l in 0..32 {
                let h = block.qh[n][l];
                let low = block.ql[2 * n][l];
                let next = block.ql[2 * n + 1][l];
                let q = [
                    (low & 0xF) | ((h & 3) << 4),
                    (next & 0xF) | (((h >> 2) & 3) << 4),
                    (low >> 4) | (((h >> 4) & 3) << 4),
                    (next >> 4) | (((h >> 6) & 3) << 4),
                ];
                for (k, q) in q.into_iter().enumerate() {
                    let index = 128 * n + 32 * k + l;
                    let scale = f32::from(block.scales[index / 16]);
                    out[index] = d * scale * (f32::from(q) - 32.0);
                }
            }
        }
        out
    }

    /// The 256 values a Q8_K block stands for.
    pub(crate) fn dequantize_q8k(block: &BlockQ8K) -> Vec<f32> {
        block
            .qs
            .iter()
            .flatten()
            .map(|&q| block.d * f32::from(q))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use half::f16;

    use super::reference::dequantize_q8k;
    use super::*;

    #[test]
    fn q8k_keeps_values_within_half_a_step_and_sums_sixteen() {
        let input: Vec<f32> = (0..2 * QK_K)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0)
            .collect();
        let mut blocks = Vec::new();
        quantize_q8k(&input, &mut blocks);
        assert_eq!(blocks.len(), 2);
        for (block, values) in blocks.iter().zip(input.chunks_exact(QK_K)) {
            let back = dequantize_q8k(block);
            for (a, b) in back.iter().zip(values) {
                assert!((a - b).abs() <= block.d / 2.0 + 1e-6, "{a} vs {b}");
            }
            let flat: &[i8; QK_K] = bytemuck::cast_ref(&block.qs);
            let first: i16 = flat[..16].iter().map(|&q| i16::from(q)).sum();
            assert_eq!(block.bsums[0], first);
        }
    }

    #[test]
    fn a_zero_row_quantizes_to_zero() {
        let mut blocks = Vec::new();
        quantize_q8k(&[0.0; QK_K], &mut blocks);
        assert_eq!(blocks[0].d, 0.0);
        assert!(blocks[0].qs.iter().flatten().all(|&q| q == 0));
    }

    #[test]
    fn f16_conversion_matches_half_s_for_every_value() {
        for bits in 0..=u16::MAX {
            let ours = f16_to_f32(bits);
            let theirs = f16::from_bits(bits).to_f32();
            assert!(
                ours.to_bits() == theirs.to_bits() || (ours.is_nan() && theirs.is_nan()),
                "{bits:#x}: {ours} vs {theirs}"
            );
        }
    }

    #[test]
    fn packed_scales_unpack_as_ggml_does() {
        let mut block = BlockQ4K::zeroed();
        for (i, byte) in block.scales.iter_mut().enumerate() {
            *byte = (i as u8).wrapping_mul(53).wrapping_add(17);
        }
        let s = block.scales;
        let (scales, mins) = block.scales_and_mins();
        for j in 0..8 {
            let (scale, min) = if j < 4 {
                (s[j] & 63, s[j + 4] & 63)
            } else {
                (
                    (s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4),
                    (s[j + 4] >> 4) | ((s[j] >> 6) << 4),
                )
            };
            assert_eq!((scales[j], mins[j]), (scale, min), "sub-block {j}");
        }
    }

    #[test]
    fn block_sizes_are_ggml_s() {
        assert_eq!(std::mem::size_of::<BlockQ4K>(), 144);
        assert_eq!(std::mem::size_of::<BlockQ6K>(), 210);
    }
}
