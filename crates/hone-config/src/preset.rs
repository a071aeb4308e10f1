//! Built-in provider presets: most providers are data, not code.

use serde::{Deserialize, Serialize};

/// The wire API a provider speaks; each has one adapter in `hone-providers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WireApi {
    /// OpenAI Chat Completions (`/chat/completions`), spoken by most compatible servers.
    OpenAiChat,
    /// OpenAI Responses (`/responses`).
    OpenAiResponses,
    /// Anthropic Messages (`/messages`).
    Anthropic,
    /// Google Gemini (`:streamGenerateContent`).
    Gemini,
    /// Ollama's native API (`/api/chat`).
    Ollama,
    /// No wire: the embedded model runs inside the hone process (`hone-local`, built by the
    /// CLI rather than by `hone-providers`).
    Local,
}

impl WireApi {
    /// Short name used in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            WireApi::OpenAiChat => "openai-chat",
            WireApi::OpenAiResponses => "openai-responses",
            WireApi::Anthropic => "anthropic",
            WireApi::Gemini => "gemini",
            WireApi::Ollama => "ollama",
            WireApi::Local => "local",
        }
    }
}

/// How the API key is presented to the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AuthStyle {
    /// `Authorization: Bearer KEY`.
    Bearer,
    /// `x-api-key: KEY` (Anthropic).
    XApiKey,
    /// `api-key: KEY` (Azure OpenAI).
    ApiKeyHeader,
    /// `x-goog-api-key: KEY` (Gemini).
    GoogApiKey,
}

/// How tools are offered to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToolMode {
    /// The API's own tool-calling fields.
    #[default]
    Native,
    /// Tool schemas in the system prompt, calls parsed from the text stream
    /// (for models or servers without native tool calling).
    Prompt,
}

/// Which field carries the output-token limit in OpenAI-style requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaxTokensField {
    /// `max_tokens` (compatible servers).
    MaxTokens,
    /// `max_completion_tokens` (OpenAI, required by reasoning models).
    MaxCompletionTokens,
}

/// A built-in provider kind: everything needed to talk to it except the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    /// Kind name used in configuration (`kind = "openai"`) and as the default instance name.
    pub name: &'static str,
    /// One-line description shown in help and errors.
    pub description: &'static str,
    /// Wire API.
    pub wire: WireApi,
    /// Default base URL (wire paths such as `/chat/completions` are appended).
    pub base_url: &'static str,
    /// Environment variable that holds the key by convention.
    pub api_key_env: Option<&'static str>,
    /// Whether requests fail without a key (local servers need none).
    pub key_required: bool,
    /// How the key is sent.
    pub auth: AuthStyle,
    /// Model used when none is configured.
    pub default_model: &'static str,
    /// Whether to ask for usage in the stream (`stream_options.include_usage`).
    pub stream_usage: bool,
    /// Field name for the output-token limit (OpenAI-style wires only).
    pub max_tokens_field: MaxTokensField,
    /// Environment variable that overrides the base URL by convention (e.g. `OLLAMA_HOST`).
    pub base_url_env: Option<&'static str>,
}

const fn openai_like(
    name: &'static str,
    description: &'static str,
    base_url: &'static str,
    api_key_env: Option<&'static str>,
    key_required: bool,
    default_model: &'static str,
) -> Preset {
    Preset {
        name,
        description,
        wire: WireApi::OpenAiChat,
        base_url,
        api_key_env,
        key_required,
        auth: AuthStyle::Bearer,
        default_model,
        stream_usage: true,
        max_tokens_field: MaxTokensField::MaxTokens,
        base_url_env: None,
    }
}

/// Every built-in provider kind.
pub const PRESETS: &[Preset] = &[
    Preset {
        max_tokens_field: MaxTokensField::MaxCompletionTokens,
        ..openai_like(
            "openai",
            "OpenAI Chat Completions",
            "https://api.openai.com/v1",
            Some("OPENAI_API_KEY"),
            true,
            "gpt-4.1-mini",
        )
    },
    Preset {
        wire: WireApi::OpenAiResponses,
        max_tokens_field: MaxTokensField::MaxCompletionTokens,
        ..openai_like(
            "openai-responses",
            "OpenAI Responses API",
            "https://api.openai.com/v1",
            Some("OPENAI_API_KEY"),
            true,
            "gpt-4.1-mini",
        )
    },
    Preset {
        name: "anthropic",
        description: "Anthropic Messages API",
        wire: WireApi::Anthropic,
        base_url: "https://api.anthropic.com/v1",
        api_key_env: Some("ANTHROPIC_API_KEY"),
        key_required: true,
        auth: AuthStyle::XApiKey,
        default_model: "claude-sonnet-4-5",
        stream_usage: true,
        max_tokens_field: MaxTokensField::MaxTokens,
        base_url_env: None,
    },
    Preset {
        name: "gemini",
        description: "Google Gemini API",
        wire: WireApi::Gemini,
        base_url: "https://generativelanguage.googleapis.com/v1beta",
        api_key_env: Some("GEMINI_API_KEY"),
        key_required: true,
        auth: AuthStyle::GoogApiKey,
        default_model: "gemini-2.5-flash",
        stream_usage: true,
        max_tokens_field: MaxTokensField::MaxTokens,
        base_url_env: None,
    },
    Preset {
        name: "ollama",
        description: "Ollama native API (local)",
        wire: WireApi::Ollama,
        base_url: "http://localhost:11434",
        api_key_env: None,
        key_required: false,
        auth: AuthStyle::Bearer,
        default_model: "qwen2.5-coder:7b",
        stream_usage: true,
        max_tokens_field: MaxTokensField::MaxTokens,
        base_url_env: Some("OLLAMA_HOST"),
    },
    openai_like(
        "openai-compatible",
        "Any OpenAI-compatible server (set base_url)",
        "http://localhost:8000/v1",
        Some("OPENAI_API_KEY"),
        false,
        "default",
    ),
    openai_like(
        "lmstudio",
        "LM Studio local server",
        "http://localhost:1234/v1",
        None,
        false,
        "qwen2.5-coder-7b-instruct",
    ),
    openai_like(
        "llamacpp",
        "llama.cpp server (llama-server)",
        "http://localhost:8080/v1",
        None,
        false,
        "default",
    ),
    openai_like(
        "vllm",
        "vLLM OpenAI-compatible server",
        "http://localhost:8000/v1",
        Some("VLLM_API_KEY"),
        false,
        "Qwen/Qwen2.5-Coder-7B-Instruct",
    ),
    openai_like(
        "openrouter",
        "OpenRouter",
        "https://openrouter.ai/api/v1",
        Some("OPENROUTER_API_KEY"),
        true,
        "qwen/qwen-2.5-coder-32b-instruct",
    ),
    Preset {
        stream_usage: false,
        ..openai_like(
            "mistral",
            "Mistral La Plateforme",
            "https://api.mistral.ai/v1",
            Some("MISTRAL_API_KEY"),
            true,
            "codestral-latest",
        )
    },
    openai_like(
        "deepseek",
        "DeepSeek",
        "https://api.deepseek.com/v1",
        Some("DEEPSEEK_API_KEY"),
        true,
        "deepseek-chat",
    ),
    openai_like(
        "groq",
        "Groq",
        "https://api.groq.com/openai/v1",
        Some("GROQ_API_KEY"),
        true,
        "llama-3.3-70b-versatile",
    ),
    Preset {
        auth: AuthStyle::ApiKeyHeader,
        max_tokens_field: MaxTokensField::MaxCompletionTokens,
        base_url_env: Some("AZURE_OPENAI_ENDPOINT"),
        ..openai_like(
            "azure",
            "Azure OpenAI (base_url = https://RESOURCE.openai.azure.com/openai/deployments/DEPLOYMENT)",
            "",
            Some("AZURE_OPENAI_API_KEY"),
            true,
            "gpt-4.1-mini",
        )
    },
    Preset {
        name: "local",
        description: "Embedded model running inside hone (no server, no key; hone model pull)",
        wire: WireApi::Local,
        base_url: "",
        api_key_env: None,
        key_required: false,
        auth: AuthStyle::Bearer,
        default_model: LOCAL_DEFAULT_MODEL,
        stream_usage: false,
        max_tokens_field: MaxTokensField::MaxTokens,
        base_url_env: None,
    },
];

/// The embedded model used when `[local] model` and the other model settings are unset: a
/// name from `hone model list` (the first entry of `hone_models::CATALOG`).
pub const LOCAL_DEFAULT_MODEL: &str = "qwen2.5-coder-1.5b";

/// Default `api-version` query parameter for Azure OpenAI.
pub const AZURE_DEFAULT_API_VERSION: &str = "2024-10-21";

/// Default `anthropic-version` header.
pub const ANTHROPIC_DEFAULT_VERSION: &str = "2023-06-01";

/// The preset called `name`, if there is one.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|preset| preset.name == name)
}

/// Names of all presets, for "did you mean" style messages.
pub fn preset_names() -> impl Iterator<Item = &'static str> {
    PRESETS.iter().map(|preset| preset.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_name_is_unique_and_found() {
        for preset_entry in PRESETS {
            assert_eq!(preset(preset_entry.name), Some(preset_entry));
        }
        let mut names: Vec<_> = preset_names().collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count);
    }

    #[test]
    fn local_servers_need_no_key_and_clouds_do() {
        assert!(!preset("lmstudio").unwrap().key_required);
        assert!(!preset("llamacpp").unwrap().key_required);
        assert!(!preset("ollama").unwrap().key_required);
        assert!(preset("anthropic").unwrap().key_required);
        assert_eq!(preset("azure").unwrap().auth, AuthStyle::ApiKeyHeader);
        assert_eq!(preset("gemini").unwrap().wire, WireApi::Gemini);
        let local = preset("local").unwrap();
        assert!(!local.key_required && local.api_key_env.is_none());
        assert_eq!(local.wire, WireApi::Local);
        assert_eq!(local.default_model, LOCAL_DEFAULT_MODEL);
    }
}
