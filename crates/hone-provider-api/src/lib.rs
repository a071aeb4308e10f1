//! The [`Provider`] trait every model backend implements: the HTTP adapters of
//! `hone-providers` and the embedded model of `hone-local`. It sits below both, so neither
//! depends on the other and one factory above them can build every kind.
//!
//! A provider turns a [`ChatRequest`] into a stream of [`StreamEvent`]s that always ends
//! with exactly one terminal event (completed, failed or cancelled).

use std::pin::Pin;

use futures::Stream;
use futures::future::BoxFuture;
use hone_protocol::{ChatRequest, HoneError, StreamEvent};
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

/// A stream of response events that ends with exactly one terminal event.
pub type EventStream = Pin<Box<dyn Stream<Item = StreamEvent> + Send>>;

/// A model a provider offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelInfo {
    /// Identifier to put in requests.
    pub id: String,
    /// Human-readable name, when the API gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// Context window in tokens, when the API reports it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u32>,
}

/// Something that streams completions from a model.
pub trait Provider: Send + Sync {
    /// Instance name (`openai`, `work`, …).
    fn name(&self) -> &str;

    /// Model used when a request leaves [`ChatRequest::model`] empty.
    fn default_model(&self) -> &str;

    /// Streams a completion. Never fails synchronously: problems arrive as a
    /// terminal [`StreamEvent::Failed`]. Cancelling `cancel` ends the stream with
    /// [`StreamEvent::Cancelled`] and closes the connection.
    fn stream(&self, request: ChatRequest, cancel: CancellationToken) -> EventStream;

    /// Lists the models the provider offers.
    fn list_models(&self) -> BoxFuture<'_, Result<Vec<ModelInfo>, HoneError>>;

    /// Whether `model` accepts images, when the provider knows; `None` leaves it to the
    /// model table, then to the API.
    fn accepts_images(&self, model: &str) -> Option<bool> {
        let _ = model;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_info_leaves_unknown_fields_out() {
        let info = ModelInfo {
            id: "m".into(),
            display_name: None,
            context_window: Some(8_192),
        };
        let json = serde_json::to_value(&info).unwrap();
        assert_eq!(json, serde_json::json!({"id": "m", "context_window": 8192}));
        let back: ModelInfo = serde_json::from_value(json).unwrap();
        assert_eq!(back, info);
    }
}
