//! Renders a [`Reply`] as an Anthropic Messages stream.

use serde_json::{Value, json};

use crate::reply::{ReplyItem, ReplyStop, fragments, pieces};
use crate::{MockResponse, Reply, sse_event};

const MODEL: &str = "mock-model";

fn event(data: &Value) -> String {
    let name = data.get("type").and_then(Value::as_str);
    sse_event(name, data)
}

fn block_start(index: usize, block: Value) -> String {
    event(&json!({ "type": "content_block_start", "index": index, "content_block": block }))
}

fn block_delta(index: usize, delta: Value) -> String {
    event(&json!({ "type": "content_block_delta", "index": index, "delta": delta }))
}

fn block_stop(index: usize) -> String {
    event(&json!({ "type": "content_block_stop", "index": index }))
}

/// The signature the mock gives the thinking block at content `index`.
fn signature(index: usize) -> String {
    format!("mock-signature-{index}")
}

/// The reply as Anthropic SSE: `message_start` with prompt usage (cached tokens reported
/// as `cache_read_input_tokens`), a `ping` when keep-alive is on, one content block per
/// item (thinking closed by a `signature_delta` of `mock-signature-N`, tool calls with
/// `input_json_delta` fragments), `message_delta` with the stop reason and output usage,
/// then `message_stop`.
pub(crate) fn render(reply: &Reply) -> MockResponse {
    let usage = reply.usage.unwrap_or_default();
    let mut events = vec![event(&json!({
        "type": "message_start",
        "message": {
            "id": "msg_mock",
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": [],
            "stop_reason": null,
            "stop_sequence": null,
            "usage": {
                "input_tokens": usage.input.saturating_sub(usage.cached),
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": usage.cached,
                "output_tokens": 1,
            },
        },
    }))];
    if reply.keep_alive {
        events.push(event(&json!({ "type": "ping" })));
    }
    for (index, item) in reply.items.iter().enumerate() {
        match item {
            ReplyItem::Thinking(text) => {
                events.push(block_start(
                    index,
                    json!({ "type": "thinking", "thinking": "", "signature": "" }),
                ));
                for piece in pieces(text, reply.text_piece_chars) {
                    events.push(block_delta(
                        index,
                        json!({ "type": "thinking_delta", "thinking": piece }),
                    ));
                }
                events.push(block_delta(
                    index,
                    json!({ "type": "signature_delta", "signature": signature(index) }),
                ));
            }
            ReplyItem::Text(text) => {
                events.push(block_start(index, json!({ "type": "text", "text": "" })));
                for piece in pieces(text, reply.text_piece_chars) {
                    events.push(block_delta(
                        index,
                        json!({ "type": "text_delta", "text": piece }),
                    ));
                }
            }
            ReplyItem::ToolCall {
                id,
                name,
                arguments,
            } => {
                events.push(block_start(
                    index,
                    json!({ "type": "tool_use", "id": id, "name": name, "input": {} }),
                ));
                events.push(block_delta(
                    index,
                    json!({ "type": "input_json_delta", "partial_json": "" }),
                ));
                for fragment in fragments(arguments, reply.argument_fragments) {
                    events.push(block_delta(
                        index,
                        json!({ "type": "input_json_delta", "partial_json": fragment }),
                    ));
                }
            }
        }
        events.push(block_stop(index));
    }
    let stop_reason = match (reply.stop, reply.has_tool_calls()) {
        (ReplyStop::MaxTokens, _) => "max_tokens",
        (ReplyStop::Natural, true) => "tool_use",
        (ReplyStop::Natural, false) => "end_turn",
    };
    events.push(event(&json!({
        "type": "message_delta",
        "delta": { "stop_reason": stop_reason, "stop_sequence": null },
        "usage": { "output_tokens": usage.output },
    })));
    events.push(event(&json!({ "type": "message_stop" })));
    MockResponse::sse(events)
}
