//! The key/value cache of all layers, truncatable for prefix reuse.
//!
//! Keys and values live in one tensor each, `(layers, positions, kv_heads, head_dim)`:
//! a layer's filled part is a contiguous prefix, so attention reads it without a copy,
//! appending writes in place and truncating only moves the length. The tensors are
//! allocated zeroed for the whole context at once; zeroed memory is only mapped in as
//! positions are written, so memory grows with the context actually used.

use candle_core::{DType, Device, Result, Tensor};

/// Keys and values of every layer for positions `0..len`.
#[derive(Debug)]
pub(crate) struct KvCache {
    keys: Option<Tensor>,
    values: Option<Tensor>,
    layers: usize,
    kv_heads: usize,
    head_dim: usize,
    len: usize,
    capacity: usize,
    max_positions: usize,
}

impl KvCache {
    /// An empty cache that never holds more than `max_positions` positions.
    pub(crate) fn new(
        layers: usize,
        kv_heads: usize,
        head_dim: usize,
        max_positions: usize,
    ) -> Self {
        Self {
            keys: None,
            values: None,
            layers,
            kv_heads,
            head_dim,
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

    /// Makes room for `positions` (capped at the maximum), keeping what is cached.
    pub(crate) fn reserve(&mut self, positions: usize) -> Result<()> {
        let positions = positions.min(self.max_positions);
        if positions <= self.capacity {
            return Ok(());
        }
        let shape = (self.layers, positions, self.kv_heads, self.head_dim);
        let keys = Tensor::zeros(shape, DType::F32, &Device::Cpu)?;
        let values = Tensor::zeros(shape, DType::F32, &Device::Cpu)?;
        if let (Some(old_keys), Some(old_values)) = (&self.keys, &self.values)
            && self.len > 0
        {
            keys.slice_set(&old_keys.narrow(1, 0, self.len)?.contiguous()?, 1, 0)?;
            values.slice_set(&old_values.narrow(1, 0, self.len)?.contiguous()?, 1, 0)?;
        }
        self.keys = Some(keys);
        self.values = Some(values);
        self.capacity = positions;
        Ok(())
    }

    /// Writes `keys` and `values` of shape `(1, n, kv_heads, head_dim)` for `layer` at the
    /// positions after the cached ones and returns the layer's whole sequence,
    /// `(1, len + n, kv_heads, head_dim)` each. The cached length moves on with
    /// [`KvCache::advance`] once every layer has appended.
    pub(crate) fn append(
        &mut self,
        layer: usize,
        keys: &Tensor,
        values: &Tensor,
    ) -> Result<(Tensor, Tensor)> {
        let added = keys.dim(1)?;
        let needed = self.len + added;
        if needed > self.max_positions {
            candle_core::bail!(
                "the context is full: {needed} positions needed, {} allowed",
                self.max_positions
            );
        }
        if needed > self.capacity {
            self.reserve(needed.max(self.capacity.saturating_mul(2)))?;
        }
        let (Some(all_keys), Some(all_values)) = (&self.keys, &self.values) else {
            candle_core::bail!("the key/value cache was not allocated");
        };
        let layer_keys = all_keys.get(layer)?;
        let layer_values = all_values.get(layer)?;
        layer_keys.slice_set(&keys.squeeze(0)?.contiguous()?, 0, self.len)?;
        layer_values.slice_set(&values.squeeze(0)?.contiguous()?, 0, self.len)?;
        Ok((
            layer_keys.narrow(0, 0, needed)?.unsqueeze(0)?,
            layer_values.narrow(0, 0, needed)?.unsqueeze(0)?,
        ))
    }

    /// Counts `added` more positions as cached (after every layer appended them).
    pub(crate) fn advance(&mut self, added: usize) {
        self.len = (self.len + added).min(self.capacity);
    }

    /// The shape of one position in every layer: `(layers, kv_heads, head_dim)`.
    pub(crate) fn geometry(&self) -> [usize; 3] {
        [self.layers, self.kv_heads, self.head_dim]
    }

    /// Keys and values of the first `len` cached positions, each flattened in the order
    /// `(layers, len, kv_heads, head_dim)`.
    pub(crate) fn export(&self, len: usize) -> Result<(Vec<f32>, Vec<f32>)> {
        if len > self.len {
            candle_core::bail!("{len} positions asked for, {} cached", self.len);
        }
        let (Some(keys), Some(values)) = (&self.keys, &self.values) else {
            return Ok((Vec::new(), Vec::new()));
        };
        let flat = |all: &Tensor| all.narrow(1, 0, len)?.flatten_all()?.to_vec1::<f32>();
        Ok((flat(keys)?, flat(values)?))
    }

    /// Replaces the cache with `len` positions whose keys and values are flattened as
    /// [`KvCache::export`] gives them.
    pub(crate) fn import(&mut self, len: usize, keys: Vec<f32>, values: Vec<f32>) -> Result<()> {
        let shape = (self.layers, len, self.kv_heads, self.head_dim);
        if len > self.max_positions {
            candle_core::bail!("{len} positions do not fit {}", self.max_positions);
        }
        let keys = Tensor::from_vec(keys, shape, &Device::Cpu)?;
        let values = Tensor::from_vec(values, shape, &Device::Cpu)?;
        self.len = 0;
        self.reserve(len)?;
        let (Some(all_keys), Some(all_values)) = (&self.keys, &self.values) else {
            candle_core::bail!("the key/value cache was not allocated");
        };
        if len > 0 {
            all_keys.slice_set(&keys, 1, 0)?;
            all_values.slice_set(&values, 1, 0)?;
        }
        self.len = len;
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

    fn append_all(cache: &mut KvCache, block: &Tensor) -> Vec<(Tensor, Tensor)> {
        let out = (0..2)
            .map(|layer| cache.append(layer, block, block).unwrap())
            .collect();
        cache.advance(block.dim(1).unwrap());
        out
    }

    #[test]
    fn appending_returns_everything_cached_so_far() {
        let mut cache = KvCache::new(2, 2, 3, 2048);
        let first = block(0.0, 3);
        append_all(&mut cache, &first);
        let second = block(100.0, 2);
        let out = append_all(&mut cache, &second);
        let expected = Tensor::cat(&[&first, &second], 1).unwrap();
        for (keys, values) in out {
            assert_eq!(keys.dims(), &[1, 5, 2, 3]);
            let diff = (keys - &expected)
                .unwrap()
                .abs()
                .unwrap()
                .sum_all()
                .unwrap();
            assert_eq!(diff.to_scalar::<f32>().unwrap(), 0.0);
            assert_eq!(values.dims(), &[1, 5, 2, 3]);
        }
        assert_eq!(cache.len(), 5);
    }

    #[test]
    fn truncating_then_appending_overwrites_the_tail() {
        let mut cache = KvCache::new(2, 2, 3, 2048);
        append_all(&mut cache, &block(0.0, 4));
        cache.truncate(1);
        assert_eq!(cache.len(), 1);
        let out = append_all(&mut cache, &block(50.0, 1));
        let row: Vec<f32> = out[1]
            .0
            .narrow(1, 1, 1)
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1()
            .unwrap();
        assert_eq!(row[0], 50.0);
        assert_eq!(cache.len(), 2);
    }

    #[test]
    fn growing_keeps_the_old_positions() {
        let mut cache = KvCache::new(2, 2, 3, 4096);
        cache.reserve(8).unwrap();
        append_all(&mut cache, &block(0.0, 6));
        let out = append_all(&mut cache, &block(7.0, 100));
        assert_eq!(out[0].0.dims(), &[1, 106, 2, 3]);
        let first: f32 = out[0]
            .0
            .flatten_all()
            .unwrap()
            .get(1)
            .unwrap()
            .to_scalar()
            .unwrap();
        assert_eq!(first, 1.0);
        assert_eq!(cache.len(), 106);
    }

    #[test]
    fn exported_positions_import_into_a_fresh_cache() {
        let mut cache = KvCache::new(2, 2, 3, 64);
        append_all(&mut cache, &block(0.0, 5));
        let (keys, values) = cache.export(3).unwrap();
        assert_eq!(keys.len(), 2 * 3 * 2 * 3);
        assert!(cache.export(6).is_err());

        let mut fresh = KvCache::new(2, 2, 3, 64);
        fresh.import(3, keys.clone(), values).unwrap();
        assert_eq!(fresh.len(), 3);
        assert_eq!(fresh.export(3).unwrap().0, keys);
        // Appending after an import continues at position 3.
        let out = append_all(&mut fresh, &block(9.0, 1));
        assert_eq!(out[0].0.dims(), &[1, 4, 2, 3]);
        assert!(fresh.import(2, vec![0.0; 5], vec![0.0; 5]).is_err());
    }

    #[test]
    fn a_full_context_is_an_error() {
        let mut cache = KvCache::new(1, 2, 3, 4);
        assert!(cache.append(0, &block(0.0, 5), &block(0.0, 5)).is_err());
    }
}
