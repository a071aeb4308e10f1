//! The ranking graph as the index caches it ([`crate::IndexStore::rank_cache`]): building it
//! reads every symbol of the project, loading it a few hundred kilobytes.
//!
//! Encoding (little-endian): a version, the node count, each node's path (length, UTF-8),
//! the row offsets, the edge count, the targets and the weights (`f64` bits). Out-weights are
//! summed again on loading, in the order they were summed when built, so a loaded graph ranks
//! exactly as the one it was stored from.

use super::rank::RankGraph;

/// Changes whenever the encoding does; other versions are not read.
const VERSION: u32 = 1;

impl RankGraph {
    /// The graph's bytes for the cache.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        number(&mut bytes, VERSION as usize);
        number(&mut bytes, self.nodes.len());
        for node in &self.nodes {
            number(&mut bytes, node.len());
            bytes.extend_from_slice(node.as_bytes());
        }
        for offset in &self.offsets {
            number(&mut bytes, *offset);
        }
        number(&mut bytes, self.targets.len());
        for target in &self.targets {
            bytes.extend_from_slice(&target.to_le_bytes());
        }
        for weight in &self.weights {
            bytes.extend_from_slice(&weight.to_bits().to_le_bytes());
        }
        bytes
    }

    /// The graph stored as `bytes`; `None` when they are not a graph of this version.
    pub(crate) fn decode(bytes: &[u8]) -> Option<Self> {
        let mut reader = Reader(bytes);
        if reader.u32()? != VERSION {
            return None;
        }
        let node_count = reader.len()?;
        let mut nodes = Vec::with_capacity(node_count.min(bytes.len()));
        for _ in 0..node_count {
            let len = reader.len()?;
            nodes.push(String::from_utf8(reader.take(len)?.to_vec()).ok()?);
        }
        let offsets = (0..=node_count)
            .map(|_| reader.len())
            .collect::<Option<Vec<usize>>>()?;
        let edge_count = reader.len()?;
        let targets = (0..edge_count)
            .map(|_| reader.u32())
            .collect::<Option<Vec<u32>>>()?;
        let weights = (0..edge_count)
            .map(|_| {
                Some(f64::from_bits(u64::from_le_bytes(
                    reader.take(8)?.try_into().ok()?,
                )))
            })
            .collect::<Option<Vec<f64>>>()?;
        let consistent = reader.0.is_empty()
            && offsets.first() == Some(&0)
            && offsets.last() == Some(&edge_count)
            && offsets.windows(2).all(|pair| pair[0] <= pair[1])
            && targets.iter().all(|target| (*target as usize) < node_count);
        consistent.then(|| Self::from_parts(nodes, offsets, targets, weights))
    }
}

/// Appends `value` as four bytes (saturating: a graph never has four billion of anything).
fn number(bytes: &mut Vec<u8>, value: usize) {
    bytes.extend_from_slice(&u32::try_from(value).unwrap_or(u32::MAX).to_le_bytes());
}

/// Reads numbers and byte strings off the front of a slice.
struct Reader<'b>(&'b [u8]);

impl<'b> Reader<'b> {
    fn take(&mut self, len: usize) -> Option<&'b [u8]> {
        if self.0.len() < len {
            return None;
        }
        let (head, rest) = self.0.split_at(len);
        self.0 = rest;
        Some(head)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn len(&mut self) -> Option<usize> {
        usize::try_from(self.u32()?).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph() -> RankGraph {
        RankGraph::from_parts(
            vec!["a.ts".to_string(), "b.ts".to_string(), "ü.ts".to_string()],
            vec![0, 2, 2, 3],
            vec![1, 2, 0],
            vec![0.5, 1.25, 3.0],
        )
    }

    #[test]
    fn a_graph_round_trips_and_ranks_the_same() {
        let original = graph();
        let loaded = RankGraph::decode(&original.encode()).unwrap();
        assert_eq!(loaded.nodes, original.nodes);
        let jump = vec![1.0 / 3.0; 3];
        assert_eq!(loaded.pagerank(&jump), original.pagerank(&jump));
    }

    #[test]
    fn damaged_or_foreign_bytes_are_not_a_graph() {
        let bytes = graph().encode();
        assert!(RankGraph::decode(&bytes[..bytes.len() - 1]).is_none());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(RankGraph::decode(&longer).is_none());
        let mut other_version = bytes.clone();
        other_version[0] = 2;
        assert!(RankGraph::decode(&other_version).is_none());
        // A target beyond the nodes.
        let mut bad_target = bytes.clone();
        let targets_at = bytes.len() - 3 * 8 - 3 * 4;
        bad_target[targets_at] = 9;
        assert!(RankGraph::decode(&bad_target).is_none());
        assert!(RankGraph::decode(&[]).is_none());
    }
}
