//! Attention of a few new positions (a decoded token, or drafts being verified) over the
//! cached keys and values, each row exactly as it would be computed alone.
//!
//! Every key/value head is a work item for candle's thread pool; an item reads each cached
//! key and value once for all the query heads that share it and all of their rows. A row's scores, softmax and weighted sum only ever
//! involve that row and the positions it may see, always in the same order, so a row's
//! result never depends on how many rows share the pass: verifying drafts gives bit for bit
//! the logits of decoding one token at a time. The loops run with the CPU's vector
//! instructions where pulp finds them (AVX2 on x86-64), eight lanes at a time.

use std::sync::{Mutex, PoisonError};

use candle_core::{CpuStorage, CustomOp3, Layout, Result, Shape};

/// Lanes of the partial sums: one AVX register of f32.
const LANES: usize = 8;

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
    fn with_simd<S: pulp::Simd>(self, _: S) {
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
        // Query `(local head, row)`, for the group's heads `kv_head · group + local`.
        let query = |local: usize, row: usize| {
            &q[(row * heads + kv_head * group + local) * head_dim..][..head_dim]
        };
        let cached = |data: &'a [f32], position: usize| {
            &data[(position * kv_heads + kv_head) * head_dim..][..head_dim]
        };
        // Scores of `(local head, row)` at `(local · count + row) · positions`; row `r`
        // sees positions `0..first + r + 1`.
        let mut scores = vec![0f32; group * count * positions];
        for position in 0..positions {
            let key = cached(keys, position);
            for local in 0..group {
                for row in position.saturating_sub(first)..count {
                    scores[(local * count + row) * positions + position] =
                        dot(query(local, row), key) * scale;
                }
            }
        }
        let mut totals = vec![0f32; group * count];
        for (index, total) in totals.iter_mut().enumerate() {
            let row = index % count;
            let visible = &mut scores[index * positions..index * positions + first + row + 1];
            let largest = visible.iter().fold(f32::NEG_INFINITY, |max, &s| max.max(s));
            for score in visible.iter_mut() {
                *score = (*score - largest).exp();
                *total += *score;
            }
        }
        out.fill(0.0);
        for position in 0..positions {
            let value = cached(values, position);
            for local in 0..group {
                for row in position.saturating_sub(first)..count {
                    let index = local * count + row;
                    let weight = scores[index * positions + position];
                    let acc = &mut out[index * head_dim..(index + 1) * head_dim];
                    for (a, v) in acc.iter_mut().zip(value) {
                        *a += weight * v;
                    }
                }
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

/// `Σ a·b` in [`LANES`] partial sums, added up in a fixed order.
#[inline(always)]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut sums = [0f32; LANES];
    let (a_lanes, a_rest) = a.as_chunks::<LANES>();
    let (b_lanes, b_rest) = b.as_chunks::<LANES>();
    for (x, y) in a_lanes.iter().zip(b_lanes) {
        for lane in 0..LANES {
            sums[lane] += x[lane] * y[lane];
        }
    }
    let tail: f32 = a_rest.iter().zip(b_rest).map(|(x, y)| x * y).sum();
    ((sums[0] + sums[1]) + (sums[2] + sums[3])) + ((sums[4] + sums[5]) + (sums[6] + sums[7])) + tail
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
        let (heads, kv_heads, head_dim, positions) = (4, 2, 24, 50);
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
