//! A per-layer key/value cache that grows in steps and can be cut back.
//!
//! Keys and values are stored sequence-major, `(1, positions, kv_heads, head_dim)`, so the
//! filled part is a contiguous prefix: handing it to attention needs no copy, appending
//! writes in place, and truncating to a shorter prefix only moves the length.

use candle_core::{DType, Device, Result, Tensor};

/// Positions allocated at a time when the cache has to grow.
const GROW_STEP: usize = 512;

/// Keys and values of one layer for positions `0..len`.
#[derive(Debug)]
pub(crate) struct LayerCache {
    keys: Option<Tensor>,
    values: Option<Tensor>,
    len: usize,
    capacity: usize,
    max_positions: usize,
}

impl LayerCache {
    /// An empty cache that never holds more than `max_positions` positions.
    pub(crate) fn new(max_positions: usize) -> Self {
        Self {
            keys: None,
            values: None,
            len: 0,
            capacity: 0,
            max_positions,
        }
    }

    /// Number of cached positions.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Forgets every position from `len` on.
    pub(crate) fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Appends `keys` and `values` of shape `(1, n, kv_heads, head_dim)` and returns the
    /// whole cached sequence, `(1, len + n, kv_heads, head_dim)` each.
    pub(crate) fn append(&mut self, keys: &Tensor, values: &Tensor) -> Result<(Tensor, Tensor)> {
        let (_, added, heads, head_dim) = keys.dims4()?;
        let needed = self.len + added;
        if needed > self.max_positions {
            candle_core::bail!(
                "the context is full: {needed} positions needed, {} allowed",
                self.max_positions
            );
        }
        if needed > self.capacity {
            self.grow(needed, heads, head_dim, keys.dtype(), keys.device())?;
        }
        let (Some(all_keys), Some(all_values)) = (&self.keys, &self.values) else {
            candle_core::bail!("the key/value cache was not allocated");
        };
        all_keys.slice_set(&keys.contiguous()?, 1, self.len)?;
        all_values.slice_set(&values.contiguous()?, 1, self.len)?;
        self.len = needed;
        Ok((
            all_keys.narrow(1, 0, needed)?,
            all_values.narrow(1, 0, needed)?,
        ))
    }

    fn grow(
        &mut self,
        needed: usize,
        heads: usize,
        head_dim: usize,
        dtype: DType,
        device: &Device,
    ) -> Result<()> {
        let capacity = needed
            .div_ceil(GROW_STEP)
            .saturating_mul(GROW_STEP)
            .min(self.max_positions);
        let keys = Tensor::zeros((1, capacity, heads, head_dim), dtype, device)?;
        let values = Tensor::zeros((1, capacity, heads, head_dim), dtype, device)?;
        if let (Some(old_keys), Some(old_values)) = (&self.keys, &self.values)
            && self.len > 0
        {
            keys.slice_set(&old_keys.narrow(1, 0, self.len)?.contiguous()?, 1, 0)?;
            values.slice_set(&old_values.narrow(1, 0, self.len)?.contiguous()?, 1, 0)?;
        }
        self.keys = Some(keys);
        self.values = Some(values);
        self.capacity = capacity;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(start: f32, positions: usize) -> Tensor {
        let data: Vec<f32> = (0..positions * 2 * 3).map(|i| start + i as f32).collect();
        Tensor::from_vec(data, (1, positions, 2, 3), &Device::Cpu).unwrap()
    }

    #[test]
    fn appending_returns_everything_cached_so_far() {
        let mut cache = LayerCache::new(2048);
        let first = block(0.0, 3);
        cache.append(&first, &first).unwrap();
        let second = block(100.0, 2);
        let (keys, values) = cache.append(&second, &second).unwrap();
        assert_eq!(keys.dims(), &[1, 5, 2, 3]);
        let expected = Tensor::cat(&[&first, &second], 1).unwrap();
        let diff = (keys - &expected)
            .unwrap()
            .abs()
            .unwrap()
            .sum_all()
            .unwrap();
        assert_eq!(diff.to_scalar::<f32>().unwrap(), 0.0);
        assert_eq!(values.dims(), &[1, 5, 2, 3]);
        assert_eq!(cache.len(), 5);
    }

    #[test]
    fn truncating_then_appending_overwrites_the_tail() {
        let mut cache = LayerCache::new(2048);
        cache.append(&block(0.0, 4), &block(0.0, 4)).unwrap();
        cache.truncate(1);
        assert_eq!(cache.len(), 1);
        let (keys, _) = cache.append(&block(50.0, 1), &block(50.0, 1)).unwrap();
        let row: Vec<f32> = keys
            .narrow(1, 1, 1)
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1()
            .unwrap();
        assert_eq!(row[0], 50.0);
    }

    #[test]
    fn growing_past_a_step_keeps_the_old_positions() {
        let mut cache = LayerCache::new(4096);
        cache.append(&block(0.0, 500), &block(0.0, 500)).unwrap();
        let (keys, _) = cache.append(&block(7.0, 100), &block(7.0, 100)).unwrap();
        assert_eq!(keys.dims(), &[1, 600, 2, 3]);
        let first: f32 = keys
            .flatten_all()
            .unwrap()
            .get(1)
            .unwrap()
            .to_scalar()
            .unwrap();
        assert_eq!(first, 1.0);
    }

    #[test]
    fn a_full_context_is_an_error() {
        let mut cache = LayerCache::new(4);
        assert!(cache.append(&block(0.0, 5), &block(0.0, 5)).is_err());
    }
}
