//! Token accounting: a real tokenizer for OpenAI-family models, a calibrated estimate
//! elsewhere, both corrected by what the provider reports.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use hone_protocol::{ContentBlock, IMAGE_TOKENS, Message, ToolSpec};
use serde::{Deserialize, Serialize};

/// Tokens added per message for role markers and separators.
pub(crate) const MESSAGE_OVERHEAD: usize = 4;
/// Tokens added per request (priming of the reply).
const REQUEST_OVERHEAD: usize = 3;
/// Texts longer than this are tokenized in part and extrapolated (tiktoken's regex gets slow
/// on very long inputs, and the exact figure does not matter at that size).
const EXACT_LIMIT: usize = 64 * 1024;
/// Bounds of one calibration sample (reported ÷ estimated); outside them the report is not
/// about the same text (cached prompts, provider-side templates) and is clamped.
const SAMPLE_BOUNDS: (f64, f64) = (0.5, 2.0);
/// Weight of a new sample in the smoothed ratio.
const SAMPLE_WEIGHT: f64 = 0.5;
/// Cached message counts kept at most.
const CACHE_LIMIT: usize = 50_000;

/// How text is turned into a token count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tokenizer {
    /// OpenAI's `o200k_base` (GPT-4o, GPT-4.1, GPT-5, o-series, gpt-oss).
    O200k,
    /// OpenAI's `cl100k_base` (GPT-4, GPT-3.5).
    Cl100k,
    /// [`hone_protocol::estimate_tokens`] (word pieces and symbols), for every other model.
    Estimate,
}

impl Tokenizer {
    /// The tokenizer of `model` (an organisation prefix such as `openai/` is ignored).
    ///
    /// ```
    /// use hone_context::Tokenizer;
    /// assert_eq!(Tokenizer::for_model("gpt-4o-mini"), Tokenizer::O200k);
    /// assert_eq!(Tokenizer::for_model("openai/gpt-4"), Tokenizer::Cl100k);
    /// assert_eq!(Tokenizer::for_model("qwen2.5-coder:7b"), Tokenizer::Estimate);
    /// ```
    pub fn for_model(model: &str) -> Self {
        let name = model
            .rsplit('/')
            .next()
            .unwrap_or(model)
            .to_ascii_lowercase();
        const O200K: &[&str] = &[
            "gpt-4o",
            "chatgpt-4o",
            "gpt-4.1",
            "gpt-4.5",
            "gpt-5",
            "gpt-oss",
            "o1",
            "o3",
            "o4",
            "codex-",
        ];
        if O200K.iter().any(|prefix| name.starts_with(prefix)) {
            Tokenizer::O200k
        } else if name.starts_with("gpt-4") || name.starts_with("gpt-3.5") {
            Tokenizer::Cl100k
        } else {
            Tokenizer::Estimate
        }
    }

    /// Tokens in `text` (uncalibrated).
    pub fn count(self, text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        if text.len() > EXACT_LIMIT && self != Tokenizer::Estimate {
            let mut cut = EXACT_LIMIT;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            let sample = self.count(&text[..cut]);
            return scale(sample, text.len(), cut);
        }
        match self {
            Tokenizer::O200k => tiktoken_rs::o200k_base_singleton().count_ordinary(text),
            Tokenizer::Cl100k => tiktoken_rs::cl100k_base_singleton().count_ordinary(text),
            Tokenizer::Estimate => hone_protocol::estimate_tokens(text),
        }
    }
}

fn scale(tokens: usize, total: usize, sampled: usize) -> usize {
    let ratio = total as f64 / sampled.max(1) as f64;
    (tokens as f64 * ratio).ceil() as usize
}

/// The smoothed ratio of provider-reported to estimated input tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// Multiplier applied to raw estimates.
    pub ratio: f64,
    /// Reports folded in so far.
    pub samples: u32,
}

impl Default for Calibration {
    fn default() -> Self {
        Self {
            ratio: 1.0,
            samples: 0,
        }
    }
}

impl Calibration {
    /// Folds in one report: the provider counted `reported` input tokens for a request
    /// estimated at `estimated` raw tokens. The first report sets the ratio; later ones are
    /// averaged in with weight ½. Each sample is clamped to ½–2.
    pub fn observe(&mut self, estimated: usize, reported: u64) {
        if estimated == 0 || reported == 0 {
            return;
        }
        let sample = (reported as f64 / estimated as f64).clamp(SAMPLE_BOUNDS.0, SAMPLE_BOUNDS.1);
        self.ratio = if self.samples == 0 {
            sample
        } else {
            self.ratio * (1.0 - SAMPLE_WEIGHT) + sample * SAMPLE_WEIGHT
        };
        self.samples = self.samples.saturating_add(1);
    }

    /// `raw` tokens corrected by the ratio, rounded up.
    pub fn apply(&self, raw: usize) -> usize {
        (raw as f64 * self.ratio).ceil() as usize
    }
}

/// Counts tokens of messages, system prompts and tool schemas, caching message counts.
#[derive(Debug, Clone)]
pub struct TokenCounter {
    tokenizer: Tokenizer,
    calibration: Calibration,
    cache: HashMap<u64, usize>,
}

impl TokenCounter {
    /// A counter using `tokenizer`, uncalibrated.
    pub fn new(tokenizer: Tokenizer) -> Self {
        Self {
            tokenizer,
            calibration: Calibration::default(),
            cache: HashMap::new(),
        }
    }

    /// A counter for `model` ([`Tokenizer::for_model`]).
    pub fn for_model(model: &str) -> Self {
        Self::new(Tokenizer::for_model(model))
    }

    /// The tokenizer in use.
    pub fn tokenizer(&self) -> Tokenizer {
        self.tokenizer
    }

    /// The current calibration.
    pub fn calibration(&self) -> Calibration {
        self.calibration
    }

    /// Replaces the calibration (e.g. restored from a saved session).
    pub fn set_calibration(&mut self, calibration: Calibration) {
        self.calibration = calibration;
    }

    /// Folds in a provider report; see [`Calibration::observe`].
    pub fn observe(&mut self, estimated_raw: usize, reported: u64) {
        self.calibration.observe(estimated_raw, reported);
    }

    /// Raw tokens of `text`.
    pub fn text_raw(&self, text: &str) -> usize {
        self.tokenizer.count(text)
    }

    /// Calibrated tokens of `text`.
    pub fn text(&self, text: &str) -> usize {
        self.calibration.apply(self.text_raw(text))
    }

    /// Raw tokens of one message, including its framing; cached by content.
    pub fn message_raw(&mut self, message: &Message) -> usize {
        let key = fingerprint(message);
        if let Some(tokens) = self.cache.get(&key) {
            return *tokens;
        }
        let tokens = MESSAGE_OVERHEAD
            + message
                .content
                .iter()
                .map(|block| self.block_raw(block))
                .sum::<usize>();
        self.remember(key, tokens);
        tokens
    }

    pub(crate) fn block_raw(&self, block: &ContentBlock) -> usize {
        match block {
            ContentBlock::Text { text } | ContentBlock::Thinking { text, .. } => {
                self.text_raw(text)
            }
            ContentBlock::ToolCall(call) => {
                MESSAGE_OVERHEAD + self.text_raw(&call.name) + self.text_raw(&call.arguments)
            }
            ContentBlock::ToolResult(result) => MESSAGE_OVERHEAD + self.text_raw(&result.content),
            ContentBlock::Image(_) => IMAGE_TOKENS,
        }
    }

    /// Raw tokens of `text`, cached by content (for texts that repeat, such as the parts
    /// of the system prompt).
    pub fn text_cached(&mut self, text: &str) -> usize {
        let mut hasher = DefaultHasher::new();
        (5u8, text).hash(&mut hasher);
        let key = hasher.finish();
        if let Some(tokens) = self.cache.get(&key) {
            return *tokens;
        }
        let tokens = self.text_raw(text);
        self.remember(key, tokens);
        tokens
    }

    fn remember(&mut self, key: u64, tokens: usize) {
        if self.cache.len() >= CACHE_LIMIT {
            self.cache.clear();
        }
        self.cache.insert(key, tokens);
    }

    /// Raw tokens of the tool schemas; cached by content.
    pub fn tools_raw(&mut self, tools: &[ToolSpec]) -> usize {
        tools
            .iter()
            .map(|tool| {
                let parameters = tool.parameters.to_string();
                let mut hasher = DefaultHasher::new();
                (6u8, &tool.name, &tool.description, &parameters).hash(&mut hasher);
                let key = hasher.finish();
                if let Some(tokens) = self.cache.get(&key) {
                    return *tokens;
                }
                let tokens = MESSAGE_OVERHEAD
                    + self.text_raw(&tool.name)
                    + self.text_raw(&tool.description)
                    + self.text_raw(&parameters);
                self.remember(key, tokens);
                tokens
            })
            .sum()
    }

    /// Raw tokens of a whole request.
    pub fn request_raw(&mut self, system: &str, messages: &[Message], tools: &[ToolSpec]) -> usize {
        let messages: usize = messages
            .iter()
            .map(|message| self.message_raw(message))
            .sum();
        REQUEST_OVERHEAD + self.text_raw(system) + self.tools_raw(tools) + messages
    }

    /// Calibrated tokens of a raw count.
    pub fn calibrated(&self, raw: usize) -> usize {
        self.calibration.apply(raw)
    }
}

/// A stable hash of a message's content (the same on every run of the same binary).
fn fingerprint(message: &Message) -> u64 {
    let mut hasher = DefaultHasher::new();
    (message.role as u8).hash(&mut hasher);
    for block in &message.content {
        match block {
            ContentBlock::Text { text } => (0u8, text).hash(&mut hasher),
            ContentBlock::Thinking { text, .. } => (1u8, text).hash(&mut hasher),
            ContentBlock::ToolCall(call) => {
                (2u8, &call.id, &call.name, &call.arguments).hash(&mut hasher);
            }
            ContentBlock::ToolResult(result) => {
                (3u8, &result.call_id, &result.content).hash(&mut hasher);
            }
            ContentBlock::Image(_) => 4u8.hash(&mut hasher),
        }
    }
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_models_use_a_real_tokenizer() {
        assert_eq!(Tokenizer::for_model("gpt-5-codex"), Tokenizer::O200k);
        assert_eq!(Tokenizer::for_model("o4-mini"), Tokenizer::O200k);
        assert_eq!(Tokenizer::for_model("gpt-3.5-turbo"), Tokenizer::Cl100k);
        assert_eq!(
            Tokenizer::for_model("claude-sonnet-4-5"),
            Tokenizer::Estimate
        );
        assert_eq!(Tokenizer::O200k.count("hello world"), 2);
        assert_eq!(Tokenizer::Cl100k.count("hello world"), 2);
        assert_eq!(Tokenizer::Estimate.count("hello world"), 2);
        assert_eq!(Tokenizer::O200k.count(""), 0);
    }

    #[test]
    fn long_texts_are_extrapolated_from_a_prefix() {
        let text = "fn main() { println!(\"hi\"); }\n".repeat(10_000);
        let counted = Tokenizer::O200k.count(&text);
        let per_line = Tokenizer::O200k.count("fn main() { println!(\"hi\"); }\n");
        let exact = per_line * 10_000;
        assert!(counted.abs_diff(exact) * 20 < exact, "{counted} vs {exact}");
    }

    #[test]
    fn calibration_follows_reports_smoothly_and_within_bounds() {
        let mut calibration = Calibration::default();
        assert_eq!(calibration.apply(100), 100);
        calibration.observe(100, 120);
        assert!((calibration.ratio - 1.2).abs() < 1e-9);
        calibration.observe(100, 100);
        assert!((calibration.ratio - 1.1).abs() < 1e-9);
        calibration.observe(100, 10_000);
        assert!((calibration.ratio - 1.55).abs() < 1e-9, "clamped to 2");
        calibration.observe(0, 50);
        calibration.observe(50, 0);
        assert_eq!(calibration.samples, 3);
        assert_eq!(calibration.apply(100), 155);
    }

    #[test]
    fn message_counts_are_cached_and_include_framing() {
        let mut counter = TokenCounter::new(Tokenizer::O200k);
        let message = Message::user("hello world");
        assert_eq!(counter.message_raw(&message), 2 + MESSAGE_OVERHEAD);
        assert_eq!(counter.message_raw(&message), 2 + MESSAGE_OVERHEAD);
        assert_eq!(counter.cache.len(), 1);
        let total = counter.request_raw("hello world", &[message], &[]);
        assert_eq!(total, REQUEST_OVERHEAD + 2 + 2 + MESSAGE_OVERHEAD);
        counter.observe(total, (total * 2) as u64);
        assert_eq!(counter.calibrated(10), 20);
        assert_eq!(counter.text("hello world"), 4);
    }
}
