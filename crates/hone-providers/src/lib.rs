//! hone's provider layer: one adapter per wire API behind the [`Provider`] trait (defined in
//! `hone-provider-api`, re-exported here).
//!
//! A provider turns a [`ChatRequest`] into a stream of [`StreamEvent`](hone_protocol::StreamEvent)s that always ends
//! with exactly one terminal event (completed, failed or cancelled). Adapters differ only
//! in how they build the HTTP request and decode the streamed frames; transport, retries,
//! idle timeouts and cancellation are shared (see [`build_provider`]).
//!
//! ```no_run
//! use futures::StreamExt;
//! use hone_config::{ProviderConfig, preset};
//! use hone_protocol::{ChatRequest, StreamEvent};
//! use tokio_util::sync::CancellationToken;
//!
//! # async fn demo() -> Result<(), hone_protocol::HoneError> {
//! let config = ProviderConfig::from_preset(preset("ollama").ok_or_else(|| hone_protocol::HoneError::config("no preset"))?);
//! let provider = hone_providers::build_provider(config)?;
//! let mut events = provider.stream(ChatRequest::new("", "Say hi"), CancellationToken::new());
//! while let Some(event) = events.next().await {
//!     if let StreamEvent::TextDelta { text } = &event {
//!         print!("{text}");
//!     }
//! }
//! # Ok(())
//! # }
//! ```

mod driver;
mod framing;
mod gemini_cache;
mod http;
mod ollama_ctx;
pub mod pricing;
mod retry;
mod wire;

use std::sync::Arc;

use futures::StreamExt;
use futures::future::BoxFuture;
use hone_config::{ProviderConfig, ToolMode};
use hone_protocol::{ChatRequest, HoneError};

use crate::gemini_cache::GeminiCache;
use tokio_util::sync::CancellationToken;

pub use driver::replay;
pub use hone_provider_api::{EventStream, ModelInfo, Provider};
pub use ollama_ctx::ollama_num_ctx;
pub use retry::{backoff_delay, parse_retry_after};

/// Builds the provider described by `config`.
///
/// Fails with a [`hone_protocol::ErrorCategory::Config`] error when the provider needs
/// an API key and none was configured (the message names the variable to set), and for
/// kind `local`: the embedded model runs in-process and is built by the hone CLI
/// (`hone-local`), not here.
pub fn build_provider(config: ProviderConfig) -> Result<Arc<dyn Provider>, HoneError> {
    let Some(wire) = wire::for_api(config.wire) else {
        return Err(HoneError::config(format!(
            "provider `{}` is the embedded model (kind `local`): it runs inside the hone \
             command-line program and cannot be built by hone-providers",
            config.name
        )));
    };
    if config.key_required && config.api_key.is_none() {
        let variable = config
            .api_key_env
            .as_deref()
            .unwrap_or("an API key variable");
        return Err(HoneError::config(format!(
            "no API key for provider `{}`: set {variable}",
            config.name
        )));
    }
    if config.base_url.trim().is_empty() {
        return Err(HoneError::config(format!(
            "provider `{}` has no base_url; set base_url in [providers.{}]",
            config.name, config.name
        )));
    }
    let client = http::build_client(&config)?;
    let gemini_cache =
        (config.wire == hone_config::WireApi::Gemini).then(|| Arc::new(GeminiCache::default()));
    Ok(Arc::new(WireProvider {
        config: Arc::new(config),
        wire,
        client,
        gemini_cache,
    }))
}

/// A provider made of the shared HTTP driver and one wire format.
struct WireProvider {
    config: Arc<ProviderConfig>,
    wire: Arc<dyn wire::WireFormat>,
    client: reqwest::Client,
    /// Gemini's explicit cache of the prompt start (Gemini instances only).
    gemini_cache: Option<Arc<GeminiCache>>,
}

impl Provider for WireProvider {
    fn name(&self) -> &str {
        &self.config.name
    }

    fn default_model(&self) -> &str {
        &self.config.model
    }

    fn stream(&self, mut request: ChatRequest, cancel: CancellationToken) -> EventStream {
        if request.model.trim().is_empty() {
            request.model.clone_from(&self.config.model);
        }
        if let Some(cache) = &self.gemini_cache
            && request.cache.is_some()
            && self.config.tool_mode == ToolMode::Native
        {
            let (cache, client, config, wire) = (
                Arc::clone(cache),
                self.client.clone(),
                Arc::clone(&self.config),
                Arc::clone(&self.wire),
            );
            return Box::pin(
                futures::stream::once(async move {
                    let request = cache.apply(&client, &config, &wire, request, &cancel).await;
                    driver::run(client, config, wire, request, cancel)
                })
                .flatten(),
            );
        }
        match self.config.tool_mode {
            ToolMode::Native => driver::run(
                self.client.clone(),
                Arc::clone(&self.config),
                Arc::clone(&self.wire),
                request,
                cancel,
            ),
            ToolMode::Prompt => {
                let known_tools = request.tools.iter().map(|tool| tool.name.clone()).collect();
                let rewritten = hone_prompt_tools::rewrite_request(&request);
                let inner = driver::run(
                    self.client.clone(),
                    Arc::clone(&self.config),
                    Arc::clone(&self.wire),
                    rewritten,
                    cancel,
                );
                Box::pin(hone_prompt_tools::wrap_stream(inner, known_tools))
            }
        }
    }

    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, HoneError>> {
        Box::pin(driver::list_models(
            self.client.clone(),
            Arc::clone(&self.config),
            Arc::clone(&self.wire),
        ))
    }
}
