//! Gemini's explicit cache (`cachedContents`) for a long, stable prompt start.
//!
//! When a request asks for prompt caching (a profile's `cache = "5m"` or `"1h"`) and its
//! system prompt and tool declarations are long enough to be worth it, the first request
//! stores them as a `cachedContents` resource with that lifetime; later requests with the
//! same start name it (`cachedContent`) instead of sending it again, and pay the cached rate
//! for those tokens. A changed start (another model, system prompt or tool list) or a cache
//! near its end makes a new one (the old one is deleted). When the API will not make one (a
//! start under the model's minimum, a model without explicit caching), the start goes inline
//! as before, and hone does not ask again for that start until the lifetime has passed.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hone_config::ProviderConfig;
use hone_protocol::{ChatRequest, PromptCache, estimate_tokens};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use crate::http;
use crate::wire::{WireFormat, WireRequest, join_url};

/// The smallest prompt start, in estimated tokens, worth a cache (Gemini's own minimum for
/// explicit caching is 1,024 to 4,096 tokens, by model).
pub(crate) const MIN_CACHED_TOKENS: usize = 2_048;

/// How long before its end a cache is replaced rather than used.
const RENEW_MARGIN: Duration = Duration::from_secs(30);

/// The body key that names the cache in a request ([`crate::wire`]'s Gemini format leaves
/// the system prompt and tools out when it is set).
pub(crate) const CACHED_CONTENT_KEY: &str = "cachedContent";

/// The cache of one provider instance: the start it holds, by hash.
#[derive(Debug, Default)]
pub(crate) struct GeminiCache {
    held: Mutex<Option<Held>>,
}

/// One cached start, or a start the API would not cache.
#[derive(Debug, Clone)]
struct Held {
    key: String,
    /// The resource's name (`cachedContents/…`); `None`: the API refused, send inline.
    name: Option<String>,
    until: Instant,
}

impl GeminiCache {
    /// `request` with its cached start named, making the cache first when there is none for
    /// this start; unchanged when it asks for no caching, its start is short, or the API
    /// will not cache it.
    pub(crate) async fn apply(
        &self,
        client: &reqwest::Client,
        config: &ProviderConfig,
        wire: &Arc<dyn WireFormat>,
        mut request: ChatRequest,
        cancel: &CancellationToken,
    ) -> ChatRequest {
        let Some(ttl) = lifetime(request.cache) else {
            return request;
        };
        if request.extra_body.contains_key(CACHED_CONTENT_KEY)
            || start_tokens(&request) < MIN_CACHED_TOKENS
        {
            return request;
        }
        let key = start_key(&request);
        let now = Instant::now();
        let held = self.lock().clone();
        let name = match held {
            Some(held) if held.key == key && now + RENEW_MARGIN < held.until => held.name,
            previous => {
                let name = create(client, config, wire.as_ref(), &request, ttl, cancel).await;
                *self.lock() = Some(Held {
                    key,
                    name: name.clone(),
                    until: now + ttl,
                });
                if let Some(old) = previous.and_then(|held| held.name) {
                    delete(client.clone(), config.clone(), Arc::clone(wire), old);
                }
                name
            }
        };
        if let Some(name) = name {
            request
                .extra_body
                .insert(CACHED_CONTENT_KEY.to_string(), Value::String(name));
        }
        request
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Held>> {
        self.held
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The cache lifetime `cache` asks for; `None` when it asks for none.
fn lifetime(cache: Option<PromptCache>) -> Option<Duration> {
    match cache? {
        PromptCache::Off => None,
        PromptCache::FiveMinutes => Some(Duration::from_secs(300)),
        PromptCache::OneHour => Some(Duration::from_secs(3_600)),
    }
}

/// The estimated tokens of the start a cache would hold: the system prompt and the tools.
fn start_tokens(request: &ChatRequest) -> usize {
    let system = request.system.as_deref().map_or(0, estimate_tokens);
    let tools: usize = request
        .tools
        .iter()
        .map(|tool| {
            estimate_tokens(&tool.name)
                + estimate_tokens(&tool.description)
                + estimate_tokens(&tool.parameters.to_string())
        })
        .sum();
    system + tools
}

/// What identifies a start: the model, the system prompt and the tool declarations.
fn start_key(request: &ChatRequest) -> String {
    let mut hash = Sha256::new();
    hash.update(request.model.as_bytes());
    hash.update([0]);
    hash.update(request.system.as_deref().unwrap_or_default().as_bytes());
    for tool in &request.tools {
        hash.update([0]);
        hash.update(tool.name.as_bytes());
        hash.update(tool.description.as_bytes());
        hash.update(tool.parameters.to_string().as_bytes());
    }
    format!("{:x}", hash.finalize())
}

/// Makes the cache of `request`'s start; `None` when the API will not (logged, not shown:
/// the request goes inline and works as before).
async fn create(
    client: &reqwest::Client,
    config: &ProviderConfig,
    wire: &dyn WireFormat,
    request: &ChatRequest,
    ttl: Duration,
    cancel: &CancellationToken,
) -> Option<String> {
    // The start as the wire format writes it, so the cache holds exactly what would be sent.
    let mut start = request.clone();
    start.messages.clear();
    let built = wire.build_request(config, &start).ok()?;
    let body = built.body?;
    let mut cache = json!({
        "model": model_name(&request.model),
        "ttl": format!("{}s", ttl.as_secs()),
    });
    for key in ["systemInstruction", "tools", "toolConfig"] {
        if let Some(value) = body.get(key) {
            cache[key] = value.clone();
        }
    }
    let wire_request = WireRequest::post(join_url(&config.base_url, "cachedContents"), cache);
    let response = http::send_with_retries(client, config, wire, &wire_request, cancel, None)
        .await
        .inspect_err(|error| tracing::debug!(%error, "Gemini would not cache the prompt start"))
        .ok()?;
    let created: Value = response.json().await.ok()?;
    created
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// Deletes a replaced cache in the background (it would expire anyway).
fn delete(
    client: reqwest::Client,
    config: ProviderConfig,
    wire: Arc<dyn WireFormat>,
    name: String,
) {
    tokio::spawn(async move {
        let mut request = WireRequest::get(join_url(&config.base_url, &name));
        request.method = reqwest::Method::DELETE;
        let cancel = CancellationToken::new();
        let _ =
            http::send_with_retries(&client, &config, wire.as_ref(), &request, &cancel, None).await;
    });
}

/// `models/NAME` for a bare model name.
fn model_name(model: &str) -> String {
    let model = model.trim().trim_start_matches('/');
    if model.contains('/') {
        model.to_string()
    } else {
        format!("models/{model}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hone_protocol::ToolSpec;

    fn long_request() -> ChatRequest {
        let mut request = ChatRequest::new("gemini-2.5-flash", "hi");
        request.system = Some("rules ".repeat(4_000));
        request.cache = Some(PromptCache::FiveMinutes);
        request
    }

    #[test]
    fn only_long_starts_that_ask_for_caching_qualify() {
        assert!(start_tokens(&long_request()) >= MIN_CACHED_TOKENS);
        assert!(start_tokens(&ChatRequest::new("m", "hi")) < MIN_CACHED_TOKENS);
        assert_eq!(
            lifetime(Some(PromptCache::OneHour)),
            Some(Duration::from_secs(3_600))
        );
        assert_eq!(lifetime(Some(PromptCache::Off)), None);
        assert_eq!(lifetime(None), None);
    }

    #[test]
    fn the_key_follows_the_model_system_prompt_and_tools_only() {
        let request = long_request();
        let mut later = request.clone();
        later.messages.push(hone_protocol::Message::user("more"));
        assert_eq!(start_key(&request), start_key(&later));
        let mut other_tools = request.clone();
        other_tools.tools.push(ToolSpec {
            name: "read_file".into(),
            description: "reads".into(),
            parameters: json!({}),
        });
        assert_ne!(start_key(&request), start_key(&other_tools));
        let mut other_model = request.clone();
        other_model.model = "gemini-2.5-pro".into();
        assert_ne!(start_key(&request), start_key(&other_model));
        assert_eq!(model_name("gemini-2.5-pro"), "models/gemini-2.5-pro");
        assert_eq!(model_name("tunedModels/x"), "tunedModels/x");
    }
}
