//! Causal attention for a batch of prompt positions, as matrix products.
//!
//! Generation (one query) uses candle-nn's flash attention, which streams the keys once.
//! A prompt batch has hundreds of queries, where the same work as blocked matrix products
//! (gemm) is several times faster. Queries go in blocks so the score matrix stays small,
//! and each block only looks at the keys up to its last position.

use candle_core::{Device, Result, Tensor};

/// Queries per block: bounds the scores to `heads × QUERY_BLOCK × positions` floats.
const QUERY_BLOCK: usize = 128;

/// Attention of `q` `(1, n, heads, head_dim)` — the last `n` of the cached positions — over
/// `keys` and `values` `(1, positions, kv_heads, head_dim)`, scaled by `scale`. Returns
/// `(1, n, heads × head_dim)`.
pub(crate) fn prompt_attention(
    q: &Tensor,
    keys: &Tensor,
    values: &Tensor,
    scale: f64,
) -> Result<Tensor> {
    let (_, count, heads, head_dim) = q.dims4()?;
    let (_, positions, kv_heads, _) = keys.dims4()?;
    let group = heads / kv_heads;
    let offset = positions - count;
    // (kv_heads, positions, head_dim): each key/value head's sequence is contiguous.
    let keys = keys.squeeze(0)?.transpose(0, 1)?.contiguous()?;
    let values = values.squeeze(0)?.transpose(0, 1)?.contiguous()?;
    // (heads, n, head_dim), scaled once here instead of on every score.
    let q = (q.squeeze(0)?.transpose(0, 1)?.contiguous()? * scale)?;
    let mut blocks = Vec::with_capacity(count.div_ceil(QUERY_BLOCK));
    for start in (0..count).step_by(QUERY_BLOCK) {
        let rows = QUERY_BLOCK.min(count - start);
        let visible = offset + start + rows;
        // Heads sharing a key/value head are adjacent: group them as rows of one product.
        let block =
            q.narrow(1, start, rows)?
                .contiguous()?
                .reshape((kv_heads, group * rows, head_dim))?;
        let block_keys = keys.narrow(1, 0, visible)?;
        let scores = block.matmul(&block_keys.t()?)?;
        let mask = causal_mask(rows, visible, offset + start)?;
        let scores = scores
            .reshape((kv_heads, group, rows, visible))?
            .broadcast_add(&mask)?;
        let weights = candle_nn::ops::softmax_last_dim(&scores)?.reshape((
            kv_heads,
            group * rows,
            visible,
        ))?;
        let out = weights.matmul(&values.narrow(1, 0, visible)?.contiguous()?)?;
        blocks.push(out.reshape((heads, rows, head_dim))?);
    }
    let out = Tensor::cat(&blocks, 1)?;
    out.transpose(0, 1)?.reshape((1, count, heads * head_dim))
}

/// `(rows, visible)`: 0 where query `i` (at position `first + i`) may see key `j`
/// (`j ≤ first + i`), −∞ elsewhere.
fn causal_mask(rows: usize, visible: usize, first: usize) -> Result<Tensor> {
    let mask: Vec<f32> = (0..rows)
        .flat_map(|i| {
            (0..visible).map(move |j| {
                if j <= first + i {
                    0.0
                } else {
                    f32::NEG_INFINITY
                }
            })
        })
        .collect();
    Tensor::from_vec(mask, (rows, visible), &Device::Cpu)
}

#[cfg(test)]
mod tests {
    use candle_core::D;

    use super::*;

    /// Reference attention, one query at a time, for the tests.
    fn naive(q: &Tensor, keys: &Tensor, values: &Tensor, scale: f64) -> Result<Tensor> {
        let (_, count, heads, head_dim) = q.dims4()?;
        let (_, positions, kv_heads, _) = keys.dims4()?;
        let group = heads / kv_heads;
        let offset = positions - count;
        let mut rows = Vec::new();
        for i in 0..count {
            let mut per_head = Vec::new();
            for h in 0..heads {
                let query = q.get(0)?.get(i)?.get(h)?;
                let seen = offset + i + 1;
                let k = keys
                    .get(0)?
                    .narrow(0, 0, seen)?
                    .narrow(1, h / group, 1)?
                    .squeeze(1)?;
                let v = values
                    .get(0)?
                    .narrow(0, 0, seen)?
                    .narrow(1, h / group, 1)?
                    .squeeze(1)?;
                let scores = (k.matmul(&query.unsqueeze(1)?)?.squeeze(1)? * scale)?;
                let weights = candle_nn::ops::softmax(&scores, D::Minus1)?;
                per_head.push(weights.unsqueeze(0)?.matmul(&v)?.squeeze(0)?);
            }
            rows.push(Tensor::cat(&per_head, 0)?);
        }
        Tensor::stack(&rows, 0)?.reshape((1, count, heads * head_dim))
    }

    #[test]
    fn blocks_and_groups_match_attention_one_query_at_a_time() {
        let (heads, kv_heads, head_dim) = (6, 2, 8);
        for (count, positions) in [(5, 5), (3, 9), (QUERY_BLOCK + 7, QUERY_BLOCK + 20)] {
            let q = Tensor::randn(0f32, 1.0, (1, count, heads, head_dim), &Device::Cpu).unwrap();
            let k =
                Tensor::randn(0f32, 1.0, (1, positions, kv_heads, head_dim), &Device::Cpu).unwrap();
            let v =
                Tensor::randn(0f32, 1.0, (1, positions, kv_heads, head_dim), &Device::Cpu).unwrap();
            let fast = prompt_attention(&q, &k, &v, 0.35).unwrap();
            let slow = naive(&q, &k, &v, 0.35).unwrap();
            assert_eq!(fast.dims(), slow.dims());
            let diff: f32 = (fast - slow)
                .unwrap()
                .abs()
                .unwrap()
                .max_all()
                .unwrap()
                .to_scalar()
                .unwrap();
            assert!(diff < 1e-4, "count {count}, positions {positions}: {diff}");
        }
    }
}
