//! Choosing the next token from the logits: greedy, or temperature with nucleus (top-p).

use rand::SeedableRng;
use rand::rngs::StdRng;

use crate::model::argmax;

/// Candidates looked at first for nucleus sampling; the full vocabulary is sorted only
/// when these do not reach `top_p` (a very flat distribution).
const NUCLEUS_CANDIDATES: usize = 64;

/// A seeded token sampler.
pub(crate) struct Sampler {
    temperature: f64,
    top_p: Option<f64>,
    rng: StdRng,
    scratch: Vec<(u32, f32)>,
}

impl Sampler {
    /// Greedy when `temperature` is 0 (or not a positive number).
    pub(crate) fn new(temperature: f64, top_p: Option<f64>, seed: u64) -> Self {
        Self {
            temperature,
            top_p: top_p.filter(|p| *p > 0.0 && *p < 1.0),
            rng: StdRng::seed_from_u64(seed),
            scratch: Vec::new(),
        }
    }

    /// The next token; `None` when `logits` is empty.
    pub(crate) fn sample(&mut self, logits: &[f32]) -> Option<u32> {
        let greedy = self.temperature.is_nan() || self.temperature <= 1e-6;
        if greedy {
            return argmax(logits).and_then(|index| u32::try_from(index).ok());
        }
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        if !max.is_finite() {
            return argmax(logits).and_then(|index| u32::try_from(index).ok());
        }
        let inverse = (1.0 / self.temperature) as f32;
        self.scratch.clear();
        self.scratch.extend(
            logits
                .iter()
                .enumerate()
                .map(|(index, &logit)| (index as u32, ((logit - max) * inverse).exp())),
        );
        let total: f32 = self.scratch.iter().map(|&(_, weight)| weight).sum();
        if let Some(top_p) = self.top_p {
            keep_nucleus(&mut self.scratch, total * top_p as f32);
        }
        let kept: f32 = self.scratch.iter().map(|&(_, weight)| weight).sum();
        let mut target = rand::Rng::random::<f32>(&mut self.rng) * kept;
        for &(token, weight) in &self.scratch {
            if target < weight {
                return Some(token);
            }
            target -= weight;
        }
        self.scratch.last().map(|&(token, _)| token)
    }
}

/// Applies a token mask before sampling: the logit of every token whose bit is clear in
/// `allowed` (bit `i % 32` of word `i / 32`; tokens past its end are disallowed) becomes
/// −∞, so neither greedy nor temperature sampling can pick it.
pub(crate) fn mask_logits(logits: &mut [f32], allowed: &[u32]) {
    for (index, chunk) in logits.chunks_mut(32).enumerate() {
        let word = allowed.get(index).copied().unwrap_or(0);
        if word == u32::MAX {
            continue;
        }
        for (bit, logit) in chunk.iter_mut().enumerate() {
            if word & (1 << bit) == 0 {
                *logit = f32::NEG_INFINITY;
            }
        }
    }
}

/// Keeps the most likely candidates whose weights add up to `mass` (at least one), most
/// likely first.
fn keep_nucleus(candidates: &mut Vec<(u32, f32)>, mass: f32) {
    let by_weight = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1);
    if candidates.len() > NUCLEUS_CANDIDATES {
        candidates.select_nth_unstable_by(NUCLEUS_CANDIDATES, by_weight);
        let head: f32 = candidates[..NUCLEUS_CANDIDATES]
            .iter()
            .map(|&(_, weight)| weight)
            .sum();
        if head >= mass {
            candidates.truncate(NUCLEUS_CANDIDATES);
        }
    }
    candidates.sort_unstable_by(by_weight);
    let mut sum = 0.0;
    let mut keep = candidates.len();
    for (index, &(_, weight)) in candidates.iter().enumerate() {
        sum += weight;
        if sum >= mass {
            keep = index + 1;
            break;
        }
    }
    candidates.truncate(keep.max(1));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_temperature_is_greedy() {
        let mut sampler = Sampler::new(0.0, Some(0.9), 1);
        assert_eq!(sampler.sample(&[0.1, 2.0, 1.9]), Some(1));
        assert_eq!(sampler.sample(&[]), None);
    }

    #[test]
    fn a_small_nucleus_keeps_only_the_top_token() {
        let mut logits = vec![0.0f32; 1000];
        logits[7] = 20.0;
        let mut sampler = Sampler::new(1.0, Some(0.5), 3);
        for _ in 0..20 {
            assert_eq!(sampler.sample(&logits), Some(7));
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_tokens() {
        let logits: Vec<f32> = (0..500).map(|i| ((i * 37) % 11) as f32 * 0.3).collect();
        let run = |seed| {
            let mut sampler = Sampler::new(0.8, Some(0.95), seed);
            (0..30).map(|_| sampler.sample(&logits)).collect::<Vec<_>>()
        };
        assert_eq!(run(5), run(5));
        assert_ne!(run(5), run(6));
    }

    #[test]
    fn masked_tokens_are_never_sampled() {
        let mut logits: Vec<f32> = (0..70).map(|i| i as f32).collect();
        // Allowed: 3 and 33 only; 64.. are past the mask.
        mask_logits(&mut logits, &[1 << 3, 1 << 1]);
        let allowed: Vec<usize> = (0..70).filter(|&i| logits[i].is_finite()).collect();
        assert_eq!(allowed, vec![3, 33]);
        assert_eq!(Sampler::new(0.0, None, 1).sample(&logits), Some(33));
        let mut sampler = Sampler::new(1.5, Some(0.99), 7);
        for _ in 0..50 {
            assert!(matches!(sampler.sample(&logits), Some(3 | 33)));
        }
    }

    #[test]
    fn nucleus_keeps_the_most_likely_until_the_mass_is_reached() {
        let mut candidates = vec![(0, 0.1), (1, 0.5), (2, 0.3), (3, 0.1)];
        keep_nucleus(&mut candidates, 0.75);
        assert_eq!(candidates, vec![(1, 0.5), (2, 0.3)]);
    }
}
