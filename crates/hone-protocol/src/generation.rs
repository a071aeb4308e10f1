//! How a model should answer: reasoning, sampling, output length, prompt caching and extra
//! request-body fields. A profile of the configuration sets them; each wire format maps them
//! onto its own API.

use serde::{Deserialize, Serialize};

use crate::ChatRequest;

/// How much the model may reason before answering, for APIs that support it.
///
/// A level maps onto a token budget for the APIs that take one ([`Thinking::budget_tokens`])
/// and a budget onto the nearest level for the APIs that take an effort ([`Thinking::effort`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Thinking {
    /// No reasoning: sent as "disabled" where the API can say so (Gemini, Ollama).
    Off,
    /// Little reasoning.
    Low,
    /// Some reasoning.
    Medium,
    /// Much reasoning.
    High,
    /// An explicit token budget.
    Budget(u32),
}

/// The reasoning levels, as named in configuration files and flags.
pub const THINKING_LEVELS: [&str; 4] = ["off", "low", "medium", "high"];

impl Thinking {
    /// Token budget of [`Thinking::Low`].
    pub const LOW_BUDGET: u32 = 1_024;
    /// Token budget of [`Thinking::Medium`].
    pub const MEDIUM_BUDGET: u32 = 8_192;
    /// Token budget of [`Thinking::High`].
    pub const HIGH_BUDGET: u32 = 24_576;

    /// The level named `name` (`off`, `low`, `medium`, `high`) or a budget written as a
    /// whole number of tokens.
    pub fn parse(name: &str) -> Option<Self> {
        match name.trim() {
            "off" => Some(Self::Off),
            "low" => Some(Self::Low),
            "medium" => Some(Self::Medium),
            "high" => Some(Self::High),
            other => other.parse().ok().map(Self::Budget),
        }
    }

    /// The token budget (Anthropic `budget_tokens`, Gemini `thinkingBudget`); `None` when off.
    pub fn budget_tokens(self) -> Option<u32> {
        match self {
            Self::Off => None,
            Self::Low => Some(Self::LOW_BUDGET),
            Self::Medium => Some(Self::MEDIUM_BUDGET),
            Self::High => Some(Self::HIGH_BUDGET),
            Self::Budget(tokens) => Some(tokens),
        }
    }

    /// The effort level (OpenAI `reasoning_effort`): `low`, `medium` or `high`, a budget
    /// taking the level whose budget it reaches; `None` when off.
    pub fn effort(self) -> Option<&'static str> {
        match self {
            Self::Off | Self::Budget(0) => None,
            Self::Low => Some("low"),
            Self::Medium => Some("medium"),
            Self::High => Some("high"),
            Self::Budget(tokens) if tokens >= Self::HIGH_BUDGET => Some("high"),
            Self::Budget(tokens) if tokens >= Self::MEDIUM_BUDGET => Some("medium"),
            Self::Budget(_) => Some("low"),
        }
    }

    /// Whether the model is asked to reason.
    pub fn is_on(self) -> bool {
        self.budget_tokens().is_some_and(|tokens| tokens > 0)
    }
}

impl std::fmt::Display for Thinking {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Off => formatter.write_str("off"),
            Self::Low => formatter.write_str("low"),
            Self::Medium => formatter.write_str("medium"),
            Self::High => formatter.write_str("high"),
            Self::Budget(tokens) => write!(formatter, "{tokens}"),
        }
    }
}

/// How long a cached prompt prefix lives, for APIs with explicit cache breakpoints
/// (Anthropic's `cache_control`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PromptCache {
    /// No cache breakpoints.
    #[serde(rename = "off")]
    Off,
    /// The API's default lifetime, five minutes.
    #[serde(rename = "5m")]
    FiveMinutes,
    /// One hour (written at a higher price, read as cheaply).
    #[serde(rename = "1h")]
    OneHour,
}

/// The names [`PromptCache::parse`] accepts.
pub const PROMPT_CACHE_NAMES: [&str; 3] = ["off", "5m", "1h"];

impl PromptCache {
    /// The setting named `name` (`off`, `5m`, `1h`).
    pub fn parse(name: &str) -> Option<Self> {
        match name.trim() {
            "off" => Some(Self::Off),
            "5m" => Some(Self::FiveMinutes),
            "1h" => Some(Self::OneHour),
            _ => None,
        }
    }

    /// The name as written in configuration files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::FiveMinutes => "5m",
            Self::OneHour => "1h",
        }
    }
}

/// How a profile's system prompt combines with hone's built-in prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SystemPromptMode {
    /// After the built-in prompt (the default).
    #[default]
    Append,
    /// Instead of the built-in prompt.
    Replace,
}

impl SystemPromptMode {
    /// The name as written in configuration files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Append => "append",
            Self::Replace => "replace",
        }
    }
}

/// A system prompt a profile adds to, or puts instead of, hone's built-in one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SystemPrompt {
    /// The text.
    pub text: String,
    /// Whether it follows or replaces the built-in prompt.
    pub mode: SystemPromptMode,
}

/// The request settings a profile chooses; unset fields keep the provider's defaults.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GenerationSettings {
    /// Reasoning before the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Thinking>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Nucleus sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f32>,
    /// Upper bound on generated tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    /// Prompt caching.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<PromptCache>,
    /// Fields merged into the request body (e.g. an OpenAI-compatible server's own options).
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub extra_body: serde_json::Map<String, serde_json::Value>,
}

impl GenerationSettings {
    /// Whether nothing is set.
    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }

    /// Sets on `request` what these settings choose; a value the request already has (e.g. a
    /// retry's wider temperature) is kept.
    pub fn apply_to(&self, request: &mut ChatRequest) {
        request.thinking = request.thinking.or(self.thinking);
        request.temperature = request.temperature.or(self.temperature);
        request.top_p = request.top_p.or(self.top_p);
        request.max_tokens = request.max_tokens.or(self.max_output_tokens);
        request.cache = request.cache.or(self.cache);
        for (key, value) in &self.extra_body {
            request
                .extra_body
                .entry(key.clone())
                .or_insert_with(|| value.clone());
        }
    }

    /// These settings with `over`'s set fields on top (a per-run `--thinking`, a role's
    /// profile); body fields are merged key by key.
    pub fn overlaid(&self, over: &Self) -> Self {
        let mut extra_body = self.extra_body.clone();
        for (key, value) in &over.extra_body {
            merge_json(
                extra_body
                    .entry(key.clone())
                    .or_insert(serde_json::Value::Null),
                value,
            );
        }
        Self {
            thinking: over.thinking.or(self.thinking),
            temperature: over.temperature.or(self.temperature),
            top_p: over.top_p.or(self.top_p),
            max_output_tokens: over.max_output_tokens.or(self.max_output_tokens),
            cache: over.cache.or(self.cache),
            extra_body,
        }
    }
}

/// Merges `over` into `base`: objects key by key, recursively; anything else replaces.
pub fn merge_json(base: &mut serde_json::Value, over: &serde_json::Value) {
    match (base, over) {
        (serde_json::Value::Object(base), serde_json::Value::Object(over)) => {
            for (key, value) in over {
                merge_json(
                    base.entry(key.clone()).or_insert(serde_json::Value::Null),
                    value,
                );
            }
        }
        (base, over) => *base = over.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn levels_and_budgets_map_onto_each_other() {
        assert_eq!(Thinking::parse("high"), Some(Thinking::High));
        assert_eq!(Thinking::parse("3000"), Some(Thinking::Budget(3000)));
        assert_eq!(Thinking::parse("hgh"), None);
        assert_eq!(Thinking::Medium.budget_tokens(), Some(8_192));
        assert_eq!(Thinking::Off.budget_tokens(), None);
        assert_eq!(Thinking::Budget(3000).effort(), Some("low"));
        assert_eq!(Thinking::Budget(10_000).effort(), Some("medium"));
        assert_eq!(Thinking::Budget(30_000).effort(), Some("high"));
        assert_eq!(Thinking::Budget(0).effort(), None);
        assert!(!Thinking::Budget(0).is_on());
        assert_eq!(Thinking::Budget(5).to_string(), "5");
    }

    #[test]
    fn settings_fill_what_the_request_leaves_unset() {
        let settings = GenerationSettings {
            thinking: Some(Thinking::High),
            temperature: Some(0.3),
            top_p: Some(0.9),
            max_output_tokens: Some(500),
            cache: Some(PromptCache::OneHour),
            extra_body: json!({"seed": 7}).as_object().cloned().unwrap_or_default(),
        };
        let mut request = ChatRequest::new("m", "hi");
        request.temperature = Some(1.0);
        settings.apply_to(&mut request);
        assert_eq!(request.temperature, Some(1.0));
        assert_eq!(request.top_p, Some(0.9));
        assert_eq!(request.max_tokens, Some(500));
        assert_eq!(request.thinking, Some(Thinking::High));
        assert_eq!(request.cache, Some(PromptCache::OneHour));
        assert_eq!(request.extra_body["seed"], 7);
    }

    #[test]
    fn overlays_merge_body_fields_deeply() {
        let base = GenerationSettings {
            temperature: Some(0.2),
            extra_body: json!({"options": {"a": 1, "b": 2}})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            ..GenerationSettings::default()
        };
        let over = GenerationSettings {
            thinking: Some(Thinking::Off),
            extra_body: json!({"options": {"b": 3}})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            ..GenerationSettings::default()
        };
        let merged = base.overlaid(&over);
        assert_eq!(merged.temperature, Some(0.2));
        assert_eq!(merged.thinking, Some(Thinking::Off));
        assert_eq!(
            serde_json::Value::Object(merged.extra_body),
            json!({"options": {"a": 1, "b": 3}})
        );
        assert!(GenerationSettings::default().is_empty());
    }
}
