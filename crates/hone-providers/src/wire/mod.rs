//! Wire formats: how each API's requests are built and its streamed frames decoded.

mod anthropic;
mod gemini;
mod ollama;
mod openai_chat;
mod openai_responses;

use std::sync::Arc;

use hone_config::{ProviderConfig, WireApi};
use hone_protocol::{ChatRequest, HoneError, StreamEvent};
use reqwest::Method;

use crate::ModelInfo;
use crate::framing::{Frame, Framing};

/// An HTTP request ready to send (authentication and configured headers are added by the transport).
#[derive(Debug, Clone)]
pub(crate) struct WireRequest {
    pub(crate) method: Method,
    pub(crate) url: String,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Option<serde_json::Value>,
}

impl WireRequest {
    pub(crate) fn post(url: String, body: serde_json::Value) -> Self {
        Self {
            method: Method::POST,
            url,
            headers: Vec::new(),
            body: Some(body),
        }
    }

    pub(crate) fn get(url: String) -> Self {
        Self {
            method: Method::GET,
            url,
            headers: Vec::new(),
            body: None,
        }
    }

    pub(crate) fn with_header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_string(), value.into()));
        self
    }
}

/// One wire API: request building, stream decoding, model listing.
pub(crate) trait WireFormat: Send + Sync {
    /// How the streamed body is framed.
    fn framing(&self) -> Framing;

    /// The streaming request for `request`.
    fn build_request(
        &self,
        config: &ProviderConfig,
        request: &ChatRequest,
    ) -> Result<WireRequest, HoneError>;

    /// A fresh decoder for one response.
    fn decoder(&self) -> Box<dyn StreamDecoder>;

    /// The request that lists models.
    fn models_request(&self, config: &ProviderConfig) -> WireRequest;

    /// Models from the listing response body.
    fn parse_models(&self, body: &serde_json::Value) -> Result<Vec<ModelInfo>, HoneError>;

    /// The provider's own error message from an error response body, when it has the usual shape.
    fn error_message(&self, body: &str) -> Option<String> {
        standard_error_message(body)
    }
}

/// Turns frames of one response into events.
///
/// The decoder emits the terminal [`StreamEvent::Completed`] itself (the driver stops
/// reading after any terminal event) and reports malformed frames or in-band errors as
/// `Err`, which the driver turns into [`StreamEvent::Failed`].
pub(crate) trait StreamDecoder: Send {
    /// Decodes one frame, appending events to `out`.
    fn decode(&mut self, frame: &Frame, out: &mut Vec<StreamEvent>) -> Result<(), HoneError>;

    /// Called when the server closed the stream. Emits `Completed` when the response was
    /// complete; otherwise returns the error explaining what is missing.
    fn finish(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), HoneError>;
}

/// `wire_request` with the request's [`ChatRequest::extra_body`] merged into its body
/// (objects key by key, so `options.top_k` joins Ollama's `options` instead of replacing them).
pub(crate) fn with_extra_body(mut wire_request: WireRequest, request: &ChatRequest) -> WireRequest {
    if let Some(body) = &mut wire_request.body
        && !request.extra_body.is_empty()
    {
        hone_protocol::merge_json(body, &serde_json::Value::Object(request.extra_body.clone()));
    }
    wire_request
}

/// The adapter for `api`; `None` for [`WireApi::Local`], which has no wire.
pub(crate) fn for_api(api: WireApi) -> Option<Arc<dyn WireFormat>> {
    Some(match api {
        WireApi::OpenAiChat => Arc::new(openai_chat::OpenAiChat),
        WireApi::OpenAiResponses => Arc::new(openai_responses::OpenAiResponses),
        WireApi::Anthropic => Arc::new(anthropic::Anthropic),
        WireApi::Gemini => Arc::new(gemini::Gemini),
        WireApi::Ollama => Arc::new(ollama::Ollama),
        WireApi::Local => return None,
    })
}

/// Extracts `error.message`, `error` (string) or `message` from a JSON error body.
pub(crate) fn standard_error_message(body: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(body).ok()?;
    let value = match &value {
        serde_json::Value::Array(items) => items.first()?.clone(),
        _ => value,
    };
    let message = match value.get("error") {
        Some(serde_json::Value::String(text)) => Some(text.clone()),
        Some(error) => error
            .get("message")
            .and_then(serde_json::Value::as_str)
            .map(str::to_string),
        None => None,
    };
    message.or_else(|| {
        value
            .get("message")
            .and_then(serde_json::Value::as_str)
            .map(str::to_string)
    })
}

/// Parses a frame's data as JSON, reporting malformed data as a provider error.
pub(crate) fn parse_json(frame: &Frame) -> Result<serde_json::Value, HoneError> {
    serde_json::from_str(&frame.data).map_err(|error| {
        HoneError::provider("the provider sent a malformed JSON chunk in the stream").with_detail(
            format!("{error}: {}", crate::http::excerpt(&frame.data, 300)),
        )
    })
}

/// The error for a stream that closed before the response was complete.
pub(crate) fn ended_early() -> HoneError {
    HoneError::network("the response stream ended before the response was complete")
}

/// Reads a `u64` field, treating absent or non-numeric values as zero.
pub(crate) fn u64_at(value: &serde_json::Value, pointer: &str) -> u64 {
    value
        .pointer(pointer)
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(0)
}

/// Tracks tool calls whose arguments arrive in fragments, keyed by the wire's own index,
/// and assigns each a stable protocol index in order of appearance.
#[derive(Debug, Default)]
pub(crate) struct ToolCallAssembler {
    calls: Vec<PendingCall>,
}

#[derive(Debug)]
struct PendingCall {
    key: String,
    id: String,
    name: String,
    arguments: String,
    ended: bool,
}

impl ToolCallAssembler {
    /// Starts a call (or returns the index of an already started one with the same key).
    pub(crate) fn start(
        &mut self,
        key: &str,
        id: &str,
        name: &str,
        out: &mut Vec<StreamEvent>,
    ) -> usize {
        if let Some(index) = self.index_of(key) {
            return index;
        }
        let index = self.calls.len();
        let id = if id.is_empty() {
            format!("call_{index}")
        } else {
            id.to_string()
        };
        out.push(StreamEvent::ToolCallStart {
            index,
            id: id.clone(),
            name: name.to_string(),
        });
        self.calls.push(PendingCall {
            key: key.to_string(),
            id,
            name: name.to_string(),
            arguments: String::new(),
            ended: false,
        });
        index
    }

    /// The protocol index of the call with `key`.
    pub(crate) fn index_of(&self, key: &str) -> Option<usize> {
        self.calls.iter().position(|call| call.key == key)
    }

    /// Appends an argument fragment.
    pub(crate) fn append(&mut self, index: usize, fragment: &str, out: &mut Vec<StreamEvent>) {
        if fragment.is_empty() {
            return;
        }
        if let Some(call) = self.calls.get_mut(index) {
            call.arguments.push_str(fragment);
            out.push(StreamEvent::ToolCallDelta {
                index,
                arguments: fragment.to_string(),
            });
        }
    }

    /// Fills in a name that arrived after the start (some servers send it late).
    pub(crate) fn set_name_if_empty(&mut self, index: usize, name: &str) {
        if let Some(call) = self.calls.get_mut(index)
            && call.name.is_empty()
        {
            call.name = name.to_string();
        }
    }

    /// Ends one call, emitting its reassembled arguments.
    pub(crate) fn end(&mut self, index: usize, out: &mut Vec<StreamEvent>) {
        if let Some(call) = self.calls.get_mut(index)
            && !call.ended
        {
            call.ended = true;
            out.push(StreamEvent::ToolCallEnd {
                index,
                id: call.id.clone(),
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            });
        }
    }

    /// Ends every call still open.
    pub(crate) fn end_all(&mut self, out: &mut Vec<StreamEvent>) {
        for index in 0..self.calls.len() {
            self.end(index, out);
        }
    }

    /// Whether any call was seen.
    pub(crate) fn any(&self) -> bool {
        !self.calls.is_empty()
    }
}

/// Joins `base` and `path` with exactly one slash.
/// A sampling setting as the JSON number the user wrote: `0.3`, not the
/// `0.30000001192092896` its `f32` widens to.
pub(crate) fn decimal(value: f32) -> serde_json::Value {
    value
        .to_string()
        .parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map_or(serde_json::Value::Null, serde_json::Value::Number)
}

pub(crate) fn join_url(base: &str, path: &str) -> String {
    format!(
        "{}/{}",
        base.trim_end_matches('/'),
        path.trim_start_matches('/')
    )
}

/// Feeds SSE data payloads to `decoder` the way the driver does (stopping after a
/// terminal event) and returns the events with the outcome; for decoder unit tests.
#[cfg(test)]
pub(crate) fn decode_frames(
    decoder: &mut dyn StreamDecoder,
    frames: &[&str],
) -> (Vec<StreamEvent>, Result<(), HoneError>) {
    let mut out = Vec::new();
    for data in frames {
        let frame = Frame {
            event: "message".into(),
            data: (*data).to_string(),
        };
        if let Err(error) = decoder.decode(&frame, &mut out) {
            return (out, Err(error));
        }
        if out.last().is_some_and(StreamEvent::is_terminal) {
            return (out, Ok(()));
        }
    }
    let result = decoder.finish(&mut out);
    (out, result)
}

#[cfg(test)]
mod tests {
    #[test]
    fn sampling_settings_keep_their_decimal() {
        assert_eq!(super::decimal(0.3).to_string(), "0.3");
        assert_eq!(super::decimal(1.0).to_string(), "1.0");
        assert_eq!(super::decimal(f32::NAN), serde_json::Value::Null);
    }

    use super::*;

    #[test]
    fn standard_error_message_reads_the_common_shapes() {
        assert_eq!(
            standard_error_message(r#"{"error":{"message":"bad key","type":"x"}}"#).as_deref(),
            Some("bad key")
        );
        assert_eq!(
            standard_error_message(r#"{"error":"model not found"}"#).as_deref(),
            Some("model not found")
        );
        assert_eq!(
            standard_error_message(r#"[{"error":{"code":404,"message":"nope"}}]"#).as_deref(),
            Some("nope")
        );
        assert_eq!(standard_error_message("<html>"), None);
    }

    #[test]
    fn assembler_reassembles_fragments_and_synthesises_ids() {
        let mut assembler = ToolCallAssembler::default();
        let mut out = Vec::new();
        let first = assembler.start("0", "", "read_file", &mut out);
        let second = assembler.start("1", "id-b", "list_dir", &mut out);
        assert_eq!(assembler.start("0", "", "read_file", &mut out), first);
        assembler.append(first, "{\"pa", &mut out);
        assembler.append(second, "{}", &mut out);
        assembler.append(first, "th\":\"a\"}", &mut out);
        assembler.end_all(&mut out);
        assembler.end_all(&mut out);
        let ends: Vec<_> = out
            .iter()
            .filter_map(|event| match event {
                StreamEvent::ToolCallEnd { id, arguments, .. } => {
                    Some((id.as_str(), arguments.as_str()))
                }
                _ => None,
            })
            .collect();
        assert_eq!(ends, [("call_0", "{\"path\":\"a\"}"), ("id-b", "{}")]);
    }

    #[test]
    fn join_url_uses_one_slash() {
        assert_eq!(join_url("http://h/v1/", "/chat"), "http://h/v1/chat");
        assert_eq!(join_url("http://h/v1", "chat"), "http://h/v1/chat");
    }
}
