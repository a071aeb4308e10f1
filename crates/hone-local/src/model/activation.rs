//! The feed-forward block's activation, `silu(gate) · up`, in one pass, and the exponential
//! it and the attention's softmax share.
//!
//! candle computes `silu` with a call to libm's `exp` per value and the product as a second
//! pass (each a hand-off to its threads); here each value takes a few vector instructions
//! and both happen at once. Every value is computed alone, so a row's result never depends
//! on the rows it is computed with.

use candle_core::{CpuStorage, CustomOp2, Layout, Result, Shape};

/// Values from which the rows are split among candle's threads (below, one thread is faster
/// than the hand-off).
const PARALLEL_MIN_VALUES: usize = 1 << 16;

/// `e^x` for `x ≤ 0`, within a few units in the last place, by operations that compile to
/// vector instructions (the standard library's `exp` is a call per value, and so would be
/// `mul_add` where the CPU's fused multiply-add is not known at compile time): `x = n·ln 2 + r`
/// with `|r| ≤ ln 2 / 2`, Cephes' polynomial for `e^r`, and `2^n` put in the exponent bits.
/// Below −87 it gives `e^−87` (a normal float, never a slow subnormal one), which adds
/// nothing next to `e^0 = 1`.
#[inline(always)]
pub(crate) fn exp_non_positive(x: f32) -> f32 {
    const SMALLEST: f32 = -87.0;
    // 1.5 · 2²³: adding it rounds to an integer, which lands in the low mantissa bits.
    const ROUND: f32 = 12_582_912.0;
    // ln 2 in two parts: the first has few mantissa bits, so `n · LN2_HIGH` is exact.
    const LN2_HIGH: f32 = 0.693_359_4;
    const LN2_LOW: f32 = -2.121_944_4e-4;
    let x = if x > SMALLEST { x } else { SMALLEST };
    let shifted = x * std::f32::consts::LOG2_E + ROUND;
    let n = shifted - ROUND;
    let r = x - n * LN2_HIGH - n * LN2_LOW;
    let mut p = 1.987_569_1e-4f32;
    for coefficient in [1.398_2e-3, 8.333_452e-3, 4.166_579_6e-2, 0.166_666_65, 0.5] {
        p = p * r + coefficient;
    }
    let e_r = p * (r * r) + r + 1.0;
    // `n` (−126 ≤ n ≤ 0, and `e^r ≥ 1` when it is −126) is the difference of the two floats'
    // bits.
    let n_bits = shifted.to_bits().wrapping_sub(ROUND.to_bits());
    let power = f32::from_bits(n_bits.wrapping_add(127) << 23);
    e_r * power
}

/// `silu(g) · u = g · u / (1 + e^−g)`, with the exponential of `−|g|` only (so it never
/// overflows): `g / (1 + t)` for `g ≥ 0`, `g · t / (1 + t)` below, where `t = e^−|g|`.
#[inline(always)]
fn silu_times(gate: f32, up: f32) -> f32 {
    let t = exp_non_positive(-gate.abs());
    let numerator = if gate >= 0.0 { gate } else { gate * t };
    numerator / (1.0 + t) * up
}

/// `silu(gate) · up` of two tensors of the same shape, as one contiguous f32 tensor.
pub(crate) struct SwiGlu;

/// Where each row (the last dimension) of a tensor starts in its storage, and its length;
/// `None` unless each row's values are adjacent.
fn rows(layout: &Layout) -> Option<(Vec<usize>, usize)> {
    let dims = layout.dims();
    let (&width, leading) = dims.split_last()?;
    let strides = layout.stride();
    if width > 1 && strides.last() != Some(&1) {
        return None;
    }
    let mut starts = vec![layout.start_offset()];
    for (&dim, &stride) in leading.iter().zip(&strides[..leading.len()]).rev() {
        starts = (0..dim)
            .flat_map(|i| starts.iter().map(move |start| start + i * stride))
            .collect();
    }
    Some((starts, width))
}

impl CustomOp2 for SwiGlu {
    fn name(&self) -> &'static str {
        "hone-swiglu"
    }

    fn cpu_fwd(
        &self,
        gate_storage: &CpuStorage,
        gate_layout: &Layout,
        up_storage: &CpuStorage,
        up_layout: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let (CpuStorage::F32(gate), CpuStorage::F32(up)) = (gate_storage, up_storage) else {
            candle_core::bail!("swiglu expects f32 inputs");
        };
        let shape = gate_layout.shape();
        let (Some((gate_rows, width)), Some((up_rows, up_width))) =
            (rows(gate_layout), rows(up_layout))
        else {
            candle_core::bail!("swiglu expects rows of adjacent values");
        };
        if shape != up_layout.shape() || width != up_width {
            candle_core::bail!(
                "swiglu of a {shape:?} gate and a {:?} up projection",
                up_layout.shape()
            );
        }
        let mut out = vec![0f32; shape.elem_count()];
        let fill = |row: usize, out: &mut [f32]| {
            let gate = &gate[gate_rows[row]..][..width];
            let up = &up[up_rows[row]..][..width];
            for ((out, &g), &u) in out.iter_mut().zip(gate).zip(up) {
                *out = silu_times(g, u);
            }
        };
        if width == 0 {
            return Ok((CpuStorage::F32(out), shape.clone()));
        }
        if out.len() < PARALLEL_MIN_VALUES {
            for (row, piece) in out.chunks_mut(width).enumerate() {
                fill(row, piece);
            }
        } else {
            let pieces: Vec<std::sync::Mutex<&mut [f32]>> =
                out.chunks_mut(width).map(std::sync::Mutex::new).collect();
            candle_core::utils::barrier_pool().execute_chunked(pieces.len(), |range| {
                for row in range {
                    let mut piece = pieces[row]
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    fill(row, &mut piece);
                }
            });
        }
        Ok((CpuStorage::F32(out), shape.clone()))
    }
}

#[cfg(test)]
mod tests {
    use candle_core::{D, Device, Tensor};

    use super::*;

    #[test]
    fn the_exponential_is_within_a_few_ulp_of_the_standard_library_s() {
        let mut x = 0.0f32;
        while x > -87.0 {
            let (ours, exact) = (exp_non_positive(x), x.exp());
            let ulp = (i64::from(ours.to_bits()) - i64::from(exact.to_bits())).abs();
            assert!(ulp <= 3, "e^{x}: {ours} vs {exact} ({ulp} ulp)");
            x -= 0.000_731;
        }
        assert_eq!(exp_non_positive(0.0), 1.0);
        // Further down, e^−87: a normal float, never zero, a subnormal or a NaN.
        for x in [-87.0, -88.0, -1000.0, f32::NEG_INFINITY, f32::NAN] {
            let ours = exp_non_positive(x);
            assert!(ours.is_normal(), "e^{x}: {ours}");
            let ulp = (i64::from(ours.to_bits()) - i64::from((-87f32).exp().to_bits())).abs();
            assert!(ulp <= 3, "e^{x}: {ours}");
        }
    }

    fn candle_swiglu(gate: &Tensor, up: &Tensor) -> Vec<f32> {
        (candle_nn::ops::silu(gate).unwrap() * up)
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1()
            .unwrap()
    }

    fn assert_close(ours: &[f32], theirs: &[f32]) {
        assert_eq!(ours.len(), theirs.len());
        for (a, b) in ours.iter().zip(theirs) {
            assert!((a - b).abs() <= 2e-6 * b.abs().max(1e-3), "{a} vs {b}");
        }
    }

    #[test]
    fn matches_candle_on_the_halves_of_a_stacked_projection() {
        // The compact layout's gate and up are the two halves of one product's rows, as
        // large as the prompt path's (split among the threads) and as one decoded token's.
        for rows in [1, 40] {
            let stacked = (Tensor::randn(0f32, 4.0, (1, rows, 2 * 2000), &Device::Cpu).unwrap()
                * 3.0)
                .unwrap();
            let gate = stacked.narrow(D::Minus1, 0, 2000).unwrap();
            let up = stacked.narrow(D::Minus1, 2000, 2000).unwrap();
            let ours = gate.apply_op2_no_bwd(&up, &SwiGlu).unwrap();
            assert_eq!(ours.dims(), &[1, rows, 2000]);
            assert_close(
                &ours.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
                &candle_swiglu(&gate, &up),
            );
        }
    }

    #[test]
    fn extreme_gates_give_finite_products() {
        let gate =
            Tensor::new(&[[-1e30f32, -100.0, -0.0, 0.0, 100.0, 1e30]], &Device::Cpu).unwrap();
        let up = Tensor::ones((1, 6), candle_core::DType::F32, &Device::Cpu).unwrap();
        let ours: Vec<f32> = gate
            .apply_op2_no_bwd(&up, &SwiGlu)
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1()
            .unwrap();
        assert!(ours.iter().all(|v| v.is_finite()), "{ours:?}");
        assert_eq!(&ours[2..5], &[0.0, 0.0, 100.0]);
        assert_eq!(ours[5], 1e30);
        assert!(ours[0].abs() < 1e-6 && ours[1].abs() < 1e-6, "{ours:?}");
    }

    #[test]
    fn mismatched_or_scattered_inputs_are_errors() {
        let a = Tensor::zeros((2, 3), candle_core::DType::F32, &Device::Cpu).unwrap();
        let b = Tensor::zeros((3, 2), candle_core::DType::F32, &Device::Cpu).unwrap();
        assert!(a.apply_op2_no_bwd(&b, &SwiGlu).is_err());
        // A transposed tensor's rows are not adjacent values.
        assert!(a.apply_op2_no_bwd(&b.t().unwrap(), &SwiGlu).is_err());
        let ints = Tensor::zeros((2, 3), candle_core::DType::U32, &Device::Cpu).unwrap();
        assert!(ints.apply_op2_no_bwd(&ints, &SwiGlu).is_err());
    }
}
