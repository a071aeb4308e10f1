//! The resolved settings of one provider instance, as the provider layer consumes them.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use crate::preset::{AuthStyle, MaxTokensField, ToolMode, WireApi};

/// An API key. Its `Debug` and `Display` never show the value; only [`ApiKey::expose`] does.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The key itself, for building the request header. Never log the result.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// A masked form safe to print, e.g. `sk-p…(51 chars)`.
    pub fn masked(&self) -> String {
        let prefix: String = self.0.chars().take(4).collect();
        if self.0.chars().count() <= 8 {
            return "****".to_string();
        }
        format!("{prefix}…({} chars)", self.0.chars().count())
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKey({})", self.masked())
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.masked())
    }
}

/// Timeouts and retry policy for provider requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NetworkConfig {
    /// Retries after the first attempt on 429, 5xx and connection errors.
    pub max_retries: u32,
    /// First backoff delay; doubled on every retry, with ±10 % jitter.
    pub retry_base_delay: Duration,
    /// Longest backoff delay (also caps a server's `Retry-After`).
    pub retry_max_delay: Duration,
    /// A stream that sends nothing for this long fails as a network error.
    pub idle_timeout: Duration,
    /// Time allowed to establish a connection.
    pub connect_timeout: Duration,
    /// Time allowed, once a request is sent, for the response headers to arrive.
    pub header_timeout: Duration,
}

impl Default for NetworkConfig {
    fn default() -> Self {
        Self {
            max_retries: 4,
            retry_base_delay: Duration::from_millis(200),
            retry_max_delay: Duration::from_secs(60),
            idle_timeout: Duration::from_secs(120),
            connect_timeout: Duration::from_secs(10),
            header_timeout: Duration::from_secs(120),
        }
    }
}

/// Everything the provider layer needs to talk to one provider instance.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderConfig {
    /// Instance name (`[providers.NAME]`, or the preset name for built-ins).
    pub name: String,
    /// Preset kind the instance is based on (`openai`, `lmstudio`, …).
    pub kind: String,
    /// Wire API spoken.
    pub wire: WireApi,
    /// Base URL without a trailing slash; wire paths are appended.
    pub base_url: String,
    /// The key, when one was found.
    pub api_key: Option<ApiKey>,
    /// Where the key is expected (an environment variable name), for error messages.
    pub api_key_env: Option<String>,
    /// Whether the provider refuses requests without a key.
    pub key_required: bool,
    /// How the key is sent.
    pub auth: AuthStyle,
    /// Model to use.
    pub model: String,
    /// Extra HTTP headers sent with every request.
    pub headers: BTreeMap<String, String>,
    /// API version: Azure's `api-version` query parameter or Anthropic's `anthropic-version` header.
    pub api_version: Option<String>,
    /// Native or prompt-level tool calling.
    pub tool_mode: ToolMode,
    /// Context window override in tokens; `None` uses the known-models table.
    pub context_window: Option<u32>,
    /// Ask OpenAI-style servers to report usage in the stream.
    pub stream_usage: bool,
    /// Field carrying the output-token limit on OpenAI-style wires.
    pub max_tokens_field: MaxTokensField,
    /// Timeouts and retries.
    pub network: NetworkConfig,
}

impl ProviderConfig {
    /// Settings for a preset with its defaults and no key, e.g. for tests against a local mock.
    pub fn from_preset(preset: &crate::Preset) -> Self {
        Self {
            name: preset.name.to_string(),
            kind: preset.name.to_string(),
            wire: preset.wire,
            base_url: preset.base_url.trim_end_matches('/').to_string(),
            api_key: None,
            api_key_env: preset.api_key_env.map(str::to_string),
            key_required: preset.key_required,
            auth: preset.auth,
            model: preset.default_model.to_string(),
            headers: BTreeMap::new(),
            api_version: None,
            tool_mode: ToolMode::Native,
            context_window: None,
            stream_usage: preset.stream_usage,
            max_tokens_field: preset.max_tokens_field,
            network: NetworkConfig::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_key_never_prints_its_value() {
        let key = ApiKey::new("sk-proj-abcdefghijklmnop");
        assert_eq!(format!("{key}"), "sk-p…(24 chars)");
        assert!(!format!("{key:?}").contains("abcdefgh"));
        assert_eq!(ApiKey::new("short").masked(), "****");
        assert_eq!(key.expose(), "sk-proj-abcdefghijklmnop");
    }

    #[test]
    fn from_preset_copies_the_preset_defaults() {
        let config = ProviderConfig::from_preset(crate::preset("lmstudio").unwrap());
        assert_eq!(config.base_url, "http://localhost:1234/v1");
        assert_eq!(config.wire, WireApi::OpenAiChat);
        assert!(config.api_key.is_none());
    }
}
