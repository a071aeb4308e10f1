//! Attention of a few new positions (a decoded token, or drafts being verified) over the
//! cached keys and values, each row exactly as it would be computed alone.
//!
//! Every key/value head is a work item for candle's thread pool; an item reads the cached
//! keys and values in blocks of four positions, each block once for all the query heads that
//! share it and all of their rows. A row's scores, softmax and weighted sum only ever involve
//! that row and the positions it may see, always by the same operations in the same order
//! (blocks start at position 0 whatever the batch; a row's last, partial block goes one
//! position at a time), so a row's result never depends on how many rows share the pass:
//! verifying drafts gives bit for bit the logits of decoding one token at a time. The loops
//! use the CPU's vector registers through pulp (eight lanes with AVX2 on x86-64), with four
//! independent sums per row so the multiply-adds do not wait on each other, and two rows
//! at a time, so each key and value vector read serves both (a row's sums are its own, so
//! pairing changes no result).

use std::sync::{Mutex, PoisonError};

use candle_core::{CpuStorage, CustomOp3, Layout, Result, Shape};

use super::activation::exp_non_positive;

/// The attention of `count` new rows, the last `count` of the cached positions.
pub(crate) struct RowAttention {
    /// Factor of the scores, `1/√head_dim`.
    pub(crate) scale: f32,
}

/// The f32 data of a contiguous input.
fn contiguous<'a>(storage: &'a CpuStorage, layout: &Layout, what: &str) -> Result<&'a [f32]> {
    let CpuStorage::F32(data) = storage else {
        candle_core::bail!("attention expects f32 {what}");
    };
    let Some((start, end)) = layout.contiguous_offsets() else {
        candle_core::bail!("attention expects contiguous {what}");
    };
    Ok(&data[start..end])
}

impl CustomOp3 for RowAttention {
    fn name(&self) -> &'static str {
        "hone-row-attention"
    }

    /// `q` `(1, count, heads, head_dim)`, `keys` and `values` `(1, positions, kv_heads,
    /// head_dim)`; returns `(1, count, heads · head_dim)`.
    fn cpu_fwd(
        &self,
        q_storage: &CpuStorage,
        q_layout: &Layout,
        k_storage: &CpuStorage,
        k_layout: &Layout,
        v_storage: &CpuStorage,
        v_layout: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let (_, count, heads, head_dim) = q_layout.shape().dims4()?;
        let (_, positions, kv_heads, key_dim) = k_layout.shape().dims4()?;
        if key_dim != head_dim
            || v_layout.shape() != k_layout.shape()
            || count > positions
            || kv_heads == 0
            || !heads.is_multiple_of(kv_heads)
        {
            candle_core::bail!(
                "attention of {:?} queries over {:?} keys and {:?} values",
                q_layout.shape(),
                k_layout.shape(),
                v_layout.shape()
            );
        }
        let shape = Geometry {
            count,
            heads,
            kv_heads,
            head_dim,
            positions,
        };
        let q = contiguous(q_storage, q_layout, "queries")?;
        let keys = contiguous(k_storage, k_layout, "keys")?;
        let values = contiguous(v_storage, v_layout, "values")?;
        // Head-major while computing (each item writes one piece), row-major at the end.
        let mut by_head = vec![0f32; heads * count * head_dim];
        let group = heads / kv_heads;
        let items: Vec<Mutex<&mut [f32]>> = by_head
            .chunks_mut(group * count * head_dim)
            .map(Mutex::new)
            .collect();
        candle_core::utils::barrier_pool().execute_chunked(kv_heads, |range| {
            for kv_head in range {
                let mut out = items[kv_head]
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                pulp::Arch::new().dispatch(Group {
                    shape: &shape,
                    kv_head,
                    scale: self.scale,
                    q,
                    keys,
                    values,
                    out: &mut out,
                });
            }
        });
        drop(items);
        let mut out = vec![0f32; count * heads * head_dim];
        for (head, rows) in by_head.chunks_exact(count * head_dim).enumerate() {
            for (row, values) in rows.chunks_exact(head_dim).enumerate() {
                let at = (row * heads + head) * head_dim;
                out[at..at + head_dim].copy_from_slice(values);
            }
        }
        Ok((
            CpuStorage::F32(out),
            Shape::from((1, count, heads * head_dim)),
        ))
    }
}

/// The sizes of one attention.
struct Geometry {
    count: usize,
    heads: usize,
    kv_heads: usize,
    head_dim: usize,
    positions: usize,
}

/// The rows of the query heads that share one key/value head.
struct Group<'a> {
    shape: &'a Geometry,
    kv_head: usize,
    scale: f32,
    q: &'a [f32],
    keys: &'a [f32],
    values: &'a [f32],
    /// `(group heads, count, head_dim)`.
    out: &'a mut [f32],
}

impl<'a> pulp::WithSimd for Group<'a> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, simd: S) {
        let Group {
            shape,
            kv_head,
            scale,
            q,
            keys,
            values,
            out,
        } = self;
        let Geometry {
            count,
            heads,
            kv_heads,
            head_dim,
            positions,
        } = *shape;
        let group = heads / kv_heads;
        let first = positions - count;
        // Query `(local head, row)`, for the group's heads `kv_head · group + local`; the
        // rows of `(local, row)` go at `index = local · count + row`, and row `r` sees
        // positions `0..first + r + 1`.
        let query = |index: usize| {
            let (local, row) = (index / count, index % count);
            &q[(row * heads + kv_head * group + local) * head_dim..][..head_dim]
        };
        let visible = |index: usize| first + index % count + 1;
        let cached = |data: &'a [f32], position: usize| {
            &data[(position * kv_heads + kv_head) * head_dim..][..head_dim]
        };
        let rows = group * count;
        // Positions go in blocks of `BLOCK`, each read once for every row that sees all of
        // it; a row's last, partial block goes one position at a time. Blocks start at 0
        // whatever the batch, and a score or sum involves the same operations either way.
        let mut scores = vec![0f32; rows * positions];
        for start in (0..positions).step_by(BLOCK) {
            let block: [&[f32]; BLOCK] =
                core::array::from_fn(|j| cached(keys, (start + j).min(positions - 1)));
            let whole = |index: usize| start + BLOCK <= visible(index);
            let mut index = 0;
            while index < rows {
                // Two rows that see the whole block share each key read.
                if index + 1 < rows && whole(index) && whole(index + 1) {
                    let dots = dot_block(simd, [query(index), query(index + 1)], block);
                    for (row, values) in dots.into_iter().enumerate() {
                        let row_scores = &mut scores[(index + row) * positions + start..];
                        for (score, value) in row_scores.iter_mut().zip(values) {
                            *score = value * scale;
                        }
                    }
                    index += 2;
                    continue;
                }
                let seen = visible(index);
                let row_scores = &mut scores[index * positions..];
                if whole(index) {
                    let [dots] = dot_block(simd, [query(index)], block);
                    for (j, value) in dots.into_iter().enumerate() {
                        row_scores[start + j] = value * scale;
                    }
                } else {
                    for (position, score) in
                        row_scores.iter_mut().enumerate().take(seen).skip(start)
                    {
                        let [[value]] = dot_block(simd, [query(index)], [cached(keys, position)]);
                        *score = value * scale;
                    }
                }
                index += 1;
            }
        }
        let totals: Vec<f32> = (0..rows)
            .map(|index| exponentiate(&mut scores[index * positions..][..visible(index)]))
            .collect();
        out.fill(0.0);
        for start in (0..positions).step_by(BLOCK) {
            let block: [&[f32]; BLOCK] =
                core::array::from_fn(|j| cached(values, (start + j).min(positions - 1)));
            let whole = |index: usize| start + BLOCK <= visible(index);
            let block_weights = |index: usize| -> [f32; BLOCK] {
                core::array::from_fn(|j| scores[index * positions + start + j])
            };
            let mut index = 0;
            while index < rows {
                // Two rows that see the whole block share each value read.
                if index + 1 < rows && whole(index) && whole(index + 1) {
                    let weights = [block_weights(index), block_weights(index + 1)];
                    let (first, second) =
                        out[index * head_dim..(index + 2) * head_dim].split_at_mut(head_dim);
                    accumulate(simd, [first, second], weights, block);
                    index += 2;
                    continue;
                }
                let seen = visible(index);
                let acc = &mut out[index * head_dim..(index + 1) * head_dim];
                if whole(index) {
                    accumulate(simd, [acc], [block_weights(index)], block);
                } else {
                    let weights = &scores[index * positions..];
                    for (position, &weight) in weights.iter().enumerate().take(seen).skip(start) {
                        accumulate(simd, [&mut *acc], [[weight]], [cached(values, position)]);
                    }
                }
                index += 1;
            }
        }
        for (acc, total) in out.chunks_exact_mut(head_dim).zip(totals) {
            let inverse = 1.0 / total;
            for a in acc {
                *a *= inverse;
            }
        }
    }
}

/// Positions whose keys or values a row takes together.
const BLOCK: usize = 4;

/// Interleaved partial sums of a row's exponentials (added up in a fixed order at the end),
/// so the additions neither wait on each other nor keep the loop from using vector
/// instructions.
const SUM_LANES: usize = 16;

/// Replaces each of a row's scores by `e^(score − largest score)` and returns their sum (the
/// softmax's numerators and denominator). Only the row's own scores are involved, always in
/// the same order.
#[inline(always)]
fn exponentiate(scores: &mut [f32]) -> f32 {
    // The largest score, lanes at a time (max is exact in any order; the comparison, unlike
    // `f32::max`, becomes one vector instruction).
    let larger = |a: f32, b: f32| if b > a { b } else { a };
    let mut highest = [f32::NEG_INFINITY; SUM_LANES];
    let mut chunks = scores.chunks_exact(SUM_LANES);
    for chunk in &mut chunks {
        for (lane, &score) in highest.iter_mut().zip(chunk) {
            *lane = larger(*lane, score);
        }
    }
    let largest = chunks
        .remainder()
        .iter()
        .chain(&highest)
        .fold(f32::NEG_INFINITY, |max, &score| larger(max, score));
    let mut sums = [0f32; SUM_LANES];
    let mut chunks = scores.chunks_exact_mut(SUM_LANES);
    for chunk in &mut chunks {
        for (sum, score) in sums.iter_mut().zip(chunk) {
            *score = exp_non_positive(*score - largest);
            *sum += *score;
        }
    }
    let mut width = SUM_LANES;
    while width > 1 {
        width /= 2;
        for lane in 0..width {
            sums[lane] += sums[lane + width];
        }
    }
    let mut total = sums[0];
    for score in chunks.into_remainder() {
        *score = exp_non_positive(*score - largest);
        total += *score;
    }
    total
}

/// `Σ query·key` for each of `queries` and each of `keys`: one vector of partial sums per
/// query and key (fused multiply-adds in order), added up across the lanes, then the features
/// past the last whole vector. A query's results are the same whatever it is computed with.
#[inline(always)]
fn dot_block<S: pulp::Simd, const M: usize, const N: usize>(
    simd: S,
    queries: [&[f32]; M],
    keys: [&[f32]; N],
) -> [[f32; N]; M] {
    let queries = queries.map(S::as_simd_f32s);
    let keys = keys.map(S::as_simd_f32s);
    let mut sums = [[simd.splat_f32s(0.0); N]; M];
    for lane in 0..queries[0].0.len() {
        for (row_sums, (query, _)) in sums.iter_mut().zip(&queries) {
            let x = query[lane];
            for (sum, (key, _)) in row_sums.iter_mut().zip(&keys) {
                *sum = simd.mul_add_e_f32s(x, key[lane], *sum);
            }
        }
    }
    core::array::from_fn(|m| {
        core::array::from_fn(|j| {
            let tail: f32 = queries[m].1.iter().zip(keys[j].1).map(|(x, y)| x * y).sum();
            simd.reduce_sum_f32s(sums[m][j]) + tail
        })
    })
}

/// `acc += Σ weight · value` for each of `accs` with its weights, over the positions in
/// order, one fused multiply-add per position; each value is read once for all of them.
#[inline(always)]
fn accumulate<S: pulp::Simd, const M: usize, const N: usize>(
    simd: S,
    accs: [&mut [f32]; M],
    weights: [[f32; N]; M],
    values: [&[f32]; N],
) {
    let mut accs = accs.map(S::as_mut_simd_f32s);
    let values = values.map(S::as_simd_f32s);
    let splats = weights.map(|row| row.map(|weight| simd.splat_f32s(weight)));
    for lane in 0..values[0].0.len() {
        for ((acc, _), row_splats) in accs.iter_mut().zip(&splats) {
            let mut sum = acc[lane];
            for (weight, (value, _)) in row_splats.iter().zip(&values) {
                sum = simd.mul_add_e_f32s(*weight, value[lane], sum);
            }
            acc[lane] = sum;
        }
    }
    for ((_, acc_tail), row_weights) in accs.iter_mut().zip(&weights) {
        for (feature, a) in acc_tail.iter_mut().enumerate() {
            for (weight, (_, value)) in row_weights.iter().zip(&values) {
                *a += weight * value[feature];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use candle_core::{Device, Tensor};
    use candle_nn::attention::{AttnMask, flash_attn};

    use super::*;

    fn attend(q: &Tensor, k: &Tensor, v: &Tensor, scale: f32) -> Tensor {
        q.apply_op3_no_bwd(k, v, &RowAttention { scale }).unwrap()
    }

    fn random(shape: (usize, usize, usize, usize)) -> Tensor {
        Tensor::randn(0f32, 1.0, shape, &Device::Cpu).unwrap()
    }

    #[test]
    fn one_row_matches_candle_s_flash_attention() {
        let (heads, kv_heads, head_dim, positions) = (6, 2, 16, 37);
        let q = random((1, 1, heads, head_dim));
        let k = random((1, positions, kv_heads, head_dim));
        let v = random((1, positions, kv_heads, head_dim));
        let ours = attend(&q, &k, &v, 0.25);
        let theirs = flash_attn::<f32>(
            &q,
            &k,
            &v,
            0.25,
            AttnMask::causal_with_offset(positions - 1),
            None,
            None,
        )
        .unwrap()
        .reshape((1, 1, heads * head_dim))
        .unwrap();
        let diff: f32 = (ours - theirs)
            .unwrap()
            .abs()
            .unwrap()
            .max_all()
            .unwrap()
            .to_scalar()
            .unwrap();
        assert!(diff < 1e-5, "{diff}");
    }

    #[test]
    fn each_row_of_a_pass_is_exactly_the_row_alone() {
        // 20 features leave a tail past the last whole vector; the rows end in every
        // position of a block of four.
        for head_dim in [24, 20] {
            rows_alone_and_together(head_dim);
        }
    }

    fn rows_alone_and_together(head_dim: usize) {
        let (heads, kv_heads, positions) = (4, 2, 50);
        let count = 7;
        let q = random((1, count, heads, head_dim));
        let k = random((1, positions, kv_heads, head_dim));
        let v = random((1, positions, kv_heads, head_dim));
        let together: Vec<f32> = attend(&q, &k, &v, 0.3)
            .flatten_all()
            .unwrap()
            .to_vec1()
            .unwrap();
        let first = positions - count;
        for row in 0..count {
            let seen = first + row + 1;
            let alone: Vec<f32> = attend(
                &q.narrow(1, row, 1).unwrap(),
                &k.narrow(1, 0, seen).unwrap(),
                &v.narrow(1, 0, seen).unwrap(),
                0.3,
            )
            .flatten_all()
            .unwrap()
            .to_vec1()
            .unwrap();
            let width = heads * head_dim;
            assert_eq!(
                together[row * width..(row + 1) * width]
                    .iter()
                    .map(|x| x.to_bits())
                    .collect::<Vec<_>>(),
                alone.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                "row {row}"
            );
        }
    }

    #[test]
    fn a_row_s_exponentials_and_their_sum_match_the_standard_library_s() {
        for len in [1, 5, 16, 37, 300] {
            let original: Vec<f32> = (0..len)
                .map(|i| ((i * 7919) % 113) as f32 * 0.37 - 20.0)
                .collect();
            let mut scores = original.clone();
            let total = exponentiate(&mut scores);
            let largest = original.iter().fold(f32::NEG_INFINITY, |m, &s| m.max(s));
            let exact: Vec<f64> = original
                .iter()
                .map(|&s| f64::from(s - largest).exp())
                .collect();
            for (got, want) in scores.iter().zip(&exact) {
                assert!(
                    (f64::from(*got) - want).abs() <= 1e-6 * want.max(1e-30),
                    "{got} vs {want}"
                );
            }
            let want: f64 = exact.iter().sum();
            assert!(
                (f64::from(total) - want).abs() <= 1e-5 * want,
                "{len}: {total} vs {want}"
            );
        }
    }

    #[test]
    fn mismatched_shapes_are_errors() {
        let q = random((1, 3, 4, 8));
        let k = random((1, 2, 2, 8));
        assert!(
            q.apply_op3_no_bwd(&k, &k, &RowAttention { scale: 1.0 })
                .is_err()
        );
        let k = random((1, 5, 3, 8));
        assert!(
            q.apply_op3_no_bwd(&k, &k, &RowAttention { scale: 1.0 })
                .is_err()
        );
    }
}
