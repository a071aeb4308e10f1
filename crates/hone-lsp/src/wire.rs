//! Fill-in-the-middle over HTTP, one request per completion (not streamed: a completion
//! is short and is shown whole): OpenAI-compatible `/completions` with `suffix` (vLLM, LM
//! Studio, any compatible server), Ollama's `/api/generate` with `suffix`, llama.cpp's
//! `/infill` and Codestral's `/fim/completions`.

use std::time::Duration;

use hone_config::{AuthStyle, ProviderConfig, WireApi};
use serde_json::{Value, json};

use crate::model::{CompletionError, FimPrompt};

/// The request timeout of one completion.
const TIMEOUT: Duration = Duration::from_secs(30);

/// Which fill-in-the-middle endpoint a server has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FimWire {
    /// `POST {base}/completions` with `prompt` and `suffix`.
    OpenAiCompletions,
    /// `POST {base}/api/generate` with `prompt`, `suffix` and `raw`.
    Ollama,
    /// `POST {base without /v1}/infill` with `input_prefix` and `input_suffix`.
    LlamaCpp,
    /// `POST {base}/fim/completions` (Mistral's Codestral).
    Codestral,
}

impl FimWire {
    /// The endpoint of the provider instance `settings`; `None` for providers whose
    /// models only chat (OpenAI, Anthropic, Gemini, Azure, Groq, OpenRouter, DeepSeek).
    pub(crate) fn for_provider(settings: &ProviderConfig) -> Option<Self> {
        match (settings.wire, settings.kind.as_str()) {
            (WireApi::Ollama, _) => Some(Self::Ollama),
            (WireApi::OpenAiChat, "llamacpp") => Some(Self::LlamaCpp),
            (WireApi::OpenAiChat, "mistral") => Some(Self::Codestral),
            (WireApi::OpenAiChat, "openai-compatible" | "lmstudio" | "vllm") => {
                Some(Self::OpenAiCompletions)
            }
            _ => None,
        }
    }
}

/// A server asked for completions.
pub(crate) struct HttpFim {
    wire: FimWire,
    url: String,
    model: String,
    provider: String,
    auth: Option<(&'static str, String)>,
    client: reqwest::Client,
}

impl HttpFim {
    /// The endpoint of `wire` on the server `settings` describe (its key, if any, sent as
    /// the provider's auth style says).
    pub(crate) fn new(wire: FimWire, settings: &ProviderConfig) -> Result<Self, CompletionError> {
        let base = settings.base_url.trim_end_matches('/');
        let url = match wire {
            FimWire::OpenAiCompletions => format!("{base}/completions"),
            FimWire::Ollama => format!("{base}/api/generate"),
            FimWire::LlamaCpp => format!("{}/infill", base.trim_end_matches("/v1")),
            FimWire::Codestral => format!("{base}/fim/completions"),
        };
        let auth = settings.api_key.as_ref().map(|key| match settings.auth {
            AuthStyle::Bearer => ("authorization", format!("Bearer {}", key.expose())),
            AuthStyle::XApiKey => ("x-api-key", key.expose().to_string()),
            AuthStyle::ApiKeyHeader => ("api-key", key.expose().to_string()),
            AuthStyle::GoogApiKey => ("x-goog-api-key", key.expose().to_string()),
        });
        let client = reqwest::Client::builder()
            .connect_timeout(settings.network.connect_timeout)
            .timeout(TIMEOUT)
            .build()
            .map_err(|error| CompletionError::Model(format!("HTTP client: {error}")))?;
        Ok(Self {
            wire,
            url,
            model: settings.model.clone(),
            provider: settings.name.clone(),
            auth,
            client,
        })
    }

    /// For the log: the model and where it is asked.
    pub(crate) fn describe(&self) -> String {
        format!("{} on {} ({})", self.model, self.provider, self.url)
    }

    /// The body of one request.
    fn body(&self, prompt: &FimPrompt) -> Value {
        match self.wire {
            FimWire::OpenAiCompletions | FimWire::Codestral => json!({
                "model": self.model,
                "prompt": prompt.prefix_with_files(),
                "suffix": prompt.suffix,
                "max_tokens": prompt.max_tokens,
                "temperature": 0.2,
                "stream": false,
            }),
            FimWire::Ollama => json!({
                "model": self.model,
                "prompt": prompt.prefix_with_files(),
                "suffix": prompt.suffix,
                "stream": false,
                "options": {"num_predict": prompt.max_tokens, "temperature": 0.2},
            }),
            FimWire::LlamaCpp => json!({
                "input_prefix": prompt.prefix,
                "input_suffix": prompt.suffix,
                "input_extra": prompt
                    .files
                    .iter()
                    .map(|(path, text)| json!({"filename": path, "text": text}))
                    .collect::<Vec<_>>(),
                "n_predict": prompt.max_tokens,
                "temperature": 0.2,
                "stream": false,
            }),
        }
    }

    /// The text of an answer.
    fn text(&self, answer: &Value) -> Option<String> {
        let text = match self.wire {
            FimWire::OpenAiCompletions => answer["choices"][0]["text"].as_str(),
            FimWire::Codestral => answer["choices"][0]["message"]["content"]
                .as_str()
                .or_else(|| answer["choices"][0]["text"].as_str()),
            FimWire::Ollama => answer["response"].as_str(),
            FimWire::LlamaCpp => answer["content"].as_str(),
        };
        text.map(str::to_string)
    }

    /// Asks for the middle of `prompt`.
    pub(crate) async fn fill(&self, prompt: &FimPrompt) -> Result<String, CompletionError> {
        let mut request = self.client.post(&self.url).json(&self.body(prompt));
        if let Some((header, value)) = &self.auth {
            request = request.header(*header, value);
        }
        let failed = |what: String| CompletionError::Model(format!("{}: {what}", self.provider));
        let response = request
            .send()
            .await
            .map_err(|error| failed(format!("{} did not answer: {error}", self.url)))?;
        let status = response.status();
        let body = response
            .text()
            .await
            .map_err(|error| failed(format!("reading the answer: {error}")))?;
        if !status.is_success() {
            let detail: String = body.chars().take(300).collect();
            return Err(failed(format!(
                "HTTP {} from {}: {detail}",
                status.as_u16(),
                self.url
            )));
        }
        let answer: Value = serde_json::from_str(&body)
            .map_err(|error| failed(format!("the answer is not JSON: {error}")))?;
        self.text(&answer)
            .ok_or_else(|| failed("the answer holds no completion text".to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hone_testkit::{MockResponse, MockServer};

    fn settings(kind: &str, base_url: &str) -> ProviderConfig {
        let preset = hone_config::preset(kind).unwrap();
        let mut settings = ProviderConfig::from_preset(preset);
        settings.base_url = base_url.to_string();
        settings.model = "coder".into();
        settings
    }

    fn prompt() -> FimPrompt {
        FimPrompt {
            files: vec![("src/lib.rs".into(), "pub const ONE: i32 = 1;\n".into())],
            path: "src/add.rs".into(),
            prefix: "fn add(a: i32, b: i32) -> i32 {\n    ".into(),
            suffix: "\n}\n".into(),
            language: "rust".into(),
            max_tokens: 64,
        }
    }

    #[tokio::test]
    async fn each_wire_sends_prefix_and_suffix_and_reads_its_answer() {
        let cases = [
            (
                "ollama",
                "/api/generate",
                json!({"response": "a + b"}),
                "suffix",
            ),
            (
                "llamacpp",
                "/infill",
                json!({"content": "a + b"}),
                "input_suffix",
            ),
            (
                "vllm",
                "/v1/completions",
                json!({"choices": [{"text": "a + b"}]}),
                "suffix",
            ),
            (
                "mistral",
                "/v1/fim/completions",
                json!({"choices": [{"message": {"content": "a + b"}}]}),
                "suffix",
            ),
        ];
        for (kind, path, answer, suffix_field) in cases {
            let server = MockServer::start().await;
            server.enqueue(MockResponse::json(200, &answer));
            let base = if kind == "ollama" {
                server.url()
            } else {
                format!("{}/v1", server.url())
            };
            let settings = settings(kind, &base);
            let wire = FimWire::for_provider(&settings).unwrap();
            let http = HttpFim::new(wire, &settings).unwrap();
            assert_eq!(http.fill(&prompt()).await.unwrap(), "a + b", "{kind}");
            let sent = server.last_request();
            assert!(sent.path.ends_with(path), "{kind}: {}", sent.path);
            let body = sent.json();
            assert_eq!(body[suffix_field], "\n}\n", "{kind}");
            // Other files: llama.cpp takes them as extra input, the others as comments.
            if kind == "llamacpp" {
                assert_eq!(body["input_extra"][0]["filename"], "src/lib.rs");
                assert_eq!(body["input_extra"][0]["text"], "pub const ONE: i32 = 1;\n");
            } else {
                let prompt = body["prompt"].as_str().unwrap();
                assert!(
                    prompt.starts_with("// src/lib.rs:\n// pub const ONE: i32 = 1;\n\nfn add("),
                    "{kind}: {prompt}"
                );
            }
        }
    }

    #[tokio::test]
    async fn a_failing_server_is_an_error_naming_the_status() {
        let server = MockServer::start().await;
        server.enqueue(MockResponse::status(500));
        let settings = settings("ollama", &server.url());
        let http = HttpFim::new(FimWire::Ollama, &settings).unwrap();
        let error = http.fill(&prompt()).await.unwrap_err().to_string();
        assert!(error.contains("HTTP 500"), "{error}");
        server.enqueue(MockResponse::json(200, &json!({"nothing": true})));
        let error = http.fill(&prompt()).await.unwrap_err().to_string();
        assert!(error.contains("no completion text"), "{error}");
    }

    #[test]
    fn chat_only_providers_have_no_fim_wire() {
        for kind in ["openai", "anthropic", "gemini", "groq"] {
            assert_eq!(
                FimWire::for_provider(&settings(kind, "http://x")),
                None,
                "{kind}"
            );
        }
    }
}
