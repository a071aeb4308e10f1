//! Settings of a local model.

use crate::model::WeightLayout;

/// How a local model runs and samples.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalOptions {
    /// Threads of hone's inference pool (element-wise work, normalisation); `None` uses
    /// as many as candle's kernels ([`kernel_threads`]).
    ///
    /// candle's quantized matrix kernels, where nearly all the time goes, run on a
    /// process-wide pool that candle sizes once, from `CANDLE_NUM_THREADS` (or
    /// `RAYON_NUM_THREADS`) or else the number of physical cores; set that variable before
    /// hone starts to change it. On a machine whose cores are busy with other work, fewer
    /// threads than cores are faster, because threads waiting for each other spin.
    pub threads: Option<usize>,
    /// Context window in tokens (prompt plus answer), capped at the model's own.
    pub context_size: u32,
    /// Sampling temperature; 0 picks the most likely token every time (greedy).
    pub temperature: f64,
    /// Nucleus sampling: sample only from the most likely tokens whose probabilities
    /// add up to this; `None` samples from all.
    pub top_p: Option<f64>,
    /// Seed of the sampler for the first chat request; each later request uses the next
    /// number, so asking again samples anew while a session replays the same answers.
    pub seed: u64,
    /// Most tokens generated per answer, unless the request sets `max_tokens`.
    pub max_output_tokens: u32,
    /// Prompt tokens computed per batch while reading the prompt.
    pub prompt_batch: usize,
    /// How the weights are kept in memory (see [`WeightLayout`]).
    pub weight_layout: WeightLayout,
    /// Constrain tool calls: once the model writes `<tool_call>`, only tokens that keep
    /// the call valid JSON naming an offered tool, with arguments matching its schema,
    /// can be sampled.
    pub constrained_tools: bool,
    /// Speculative decoding from the context: when the last tokens occurred earlier in the
    /// prompt or answer, the tokens that followed them are verified in one forward pass
    /// and those the model agrees with are kept. The answer is exactly the same as without
    /// (every token is still the one the sampler picks from the model's own logits); only
    /// faster when the answer repeats the context, as edits of the code shown do. On by
    /// default: the draft length follows the measured cost of a verified row and the
    /// acceptance rate, and drafting stops where it would not pay (with compact weights,
    /// whose kernels charge a verified row nearly a whole decoded token, it mostly does).
    pub speculative_decoding: bool,
    /// The cost of a drafted row in a verifying pass, as a fraction of a one-token pass,
    /// taken as given instead of measured (`None`, the default, measures it while
    /// decoding). Fixed, the draft lengths depend only on what is accepted: for tests.
    pub draft_row_cost: Option<f64>,
    /// A directory where the keys and values of prompts' stable starts (the system prompt
    /// with the tools and the repository map) are kept between processes, one
    /// subdirectory per model file, at most 2 GiB each; the next process that sends the
    /// same start reads them instead of computing them. `None` (the default) keeps them
    /// in memory only, for the life of the process.
    pub prompt_cache: Option<std::path::PathBuf>,
}

impl Default for LocalOptions {
    fn default() -> Self {
        Self {
            threads: None,
            context_size: 8192,
            temperature: 0.2,
            top_p: Some(0.9),
            seed: 42,
            max_output_tokens: 1024,
            prompt_batch: 512,
            weight_layout: WeightLayout::default(),
            constrained_tools: true,
            speculative_decoding: true,
            draft_row_cost: None,
            prompt_cache: None,
        }
    }
}

impl LocalOptions {
    /// The thread count to use: the configured one, or as many as candle's kernels use.
    pub fn effective_threads(&self) -> usize {
        self.threads
            .filter(|&threads| threads > 0)
            .unwrap_or_else(kernel_threads)
            .max(1)
    }
}

/// Threads candle's quantized kernels run on (its process-wide pool plus the caller).
pub fn kernel_threads() -> usize {
    candle_core::utils::barrier_pool().n_workers() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_sensible() {
        let options = LocalOptions::default();
        assert_eq!(options.context_size, 8192);
        assert!(options.constrained_tools);
        assert!(options.speculative_decoding);
        assert!(options.temperature > 0.0 && options.temperature < 1.0);
        assert!(options.effective_threads() >= 1);
        let explicit = LocalOptions {
            threads: Some(3),
            ..LocalOptions::default()
        };
        assert_eq!(explicit.effective_threads(), 3);
    }
}
