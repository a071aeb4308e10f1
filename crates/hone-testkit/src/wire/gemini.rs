//! Renders a [`Reply`] as a Gemini `streamGenerateContent?alt=sse` stream.

use serde_json::{Value, json};

use crate::reply::{ReplyItem, ReplyStop, ReplyUsage, pieces};
use crate::{MockResponse, Reply};

const MODEL_VERSION: &str = "gemini-2.5-flash";

/// The signature the mock puts on the first function call of a reply that thinks.
const THOUGHT_SIGNATURE: &str = "mock-thought-signature";

/// One SSE event as Gemini frames it (`data:` and CRLF line endings, no event name).
fn event(data: &Value) -> String {
    format!("data: {data}\r\n\r\n")
}

fn chunk(parts: Vec<Value>, finish_reason: Option<&str>, usage: Option<Value>) -> Value {
    let mut candidate = json!({
        "content": { "parts": parts, "role": "model" },
        "index": 0,
    });
    if let Some(reason) = finish_reason {
        candidate["finishReason"] = json!(reason);
    }
    let mut chunk = json!({
        "candidates": [candidate],
        "modelVersion": MODEL_VERSION,
        "responseId": "mock-response-id",
    });
    if let Some(usage) = usage {
        chunk["usageMetadata"] = usage;
    }
    chunk
}

/// What intermediate chunks report: the prompt only.
fn running_usage(usage: ReplyUsage) -> Value {
    json!({ "promptTokenCount": usage.input, "totalTokenCount": usage.input })
}

/// What the final chunk reports; `candidatesTokenCount` excludes thinking tokens.
fn final_usage(usage: ReplyUsage) -> Value {
    let mut metadata = json!({
        "promptTokenCount": usage.input,
        "candidatesTokenCount": usage.output.saturating_sub(usage.reasoning),
        "totalTokenCount": usage.input + usage.output,
    });
    if usage.cached > 0 {
        metadata["cachedContentTokenCount"] = json!(usage.cached);
    }
    if usage.reasoning > 0 {
        metadata["thoughtsTokenCount"] = json!(usage.reasoning);
    }
    metadata
}

/// The reply as Gemini SSE: one chunk per text or thought piece (thoughts carry
/// `"thought": true`), consecutive tool calls as whole `functionCall` parts of one chunk
/// (the first signed with `thoughtSignature` when the reply thinks), and the
/// `finishReason` (`STOP` or `MAX_TOKENS`) with the final `usageMetadata` on the last
/// chunk. There is no terminator: the stream just closes.
pub(crate) fn render(reply: &Reply) -> MockResponse {
    let thinks = reply
        .items
        .iter()
        .any(|item| matches!(item, ReplyItem::Thinking(_)));
    let mut signature = thinks.then_some(THOUGHT_SIGNATURE);
    let mut chunks: Vec<Vec<Value>> = Vec::new();
    let mut calls_open = false;
    for item in &reply.items {
        match item {
            ReplyItem::Thinking(text) => {
                for piece in pieces(text, reply.text_piece_chars) {
                    chunks.push(vec![json!({ "text": piece, "thought": true })]);
                }
                calls_open = false;
            }
            ReplyItem::Text(text) => {
                for piece in pieces(text, reply.text_piece_chars) {
                    chunks.push(vec![json!({ "text": piece })]);
                }
                calls_open = false;
            }
            ReplyItem::ToolCall {
                name, arguments, ..
            } => {
                let args: Value = serde_json::from_str(arguments).unwrap_or_else(|_| json!({}));
                let mut part = json!({ "functionCall": { "name": name, "args": args } });
                if let Some(signature) = signature.take() {
                    part["thoughtSignature"] = json!(signature);
                }
                match chunks.last_mut() {
                    Some(parts) if calls_open => parts.push(part),
                    _ => chunks.push(vec![part]),
                }
                calls_open = true;
            }
        }
    }
    let last_parts = chunks.pop().unwrap_or_else(|| vec![json!({ "text": "" })]);
    let mut events: Vec<String> = chunks
        .into_iter()
        .map(|parts| event(&chunk(parts, None, reply.usage.map(running_usage))))
        .collect();
    let finish_reason = match reply.stop {
        ReplyStop::Natural => "STOP",
        ReplyStop::MaxTokens => "MAX_TOKENS",
    };
    events.push(event(&chunk(
        last_parts,
        Some(finish_reason),
        reply.usage.map(final_usage),
    )));
    MockResponse::sse(events)
}
