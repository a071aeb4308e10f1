//! Renders a [`Reply`] as an OpenAI Chat Completions stream.

use serde_json::{Value, json};

use crate::reply::{ReplyItem, ReplyStop, fragments, pieces};
use crate::{MockResponse, Reply, SSE_KEEP_ALIVE, sse_event};

const MODEL: &str = "mock-model";

fn chunk(delta: Value, finish_reason: Option<&str>) -> String {
    sse_event(
        None,
        &json!({
            "id": "chatcmpl-mock",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": MODEL,
            "choices": [{ "index": 0, "delta": delta, "finish_reason": finish_reason }],
        }),
    )
}

/// The reply as Chat Completions SSE: a role chunk, content/reasoning pieces, tool calls
/// with fragmented arguments (parallel calls keep their `index`), a finish chunk, a
/// usage chunk with empty `choices`, then `[DONE]`.
pub(crate) fn render(reply: &Reply) -> MockResponse {
    let mut events = Vec::new();
    if reply.keep_alive {
        events.push(SSE_KEEP_ALIVE.to_string());
    }
    events.push(chunk(json!({ "role": "assistant", "content": "" }), None));
    let mut call_index = 0;
    for item in &reply.items {
        match item {
            ReplyItem::Thinking(text) => {
                for piece in pieces(text, reply.text_piece_chars) {
                    events.push(chunk(json!({ "reasoning_content": piece }), None));
                }
            }
            ReplyItem::Text(text) => {
                for piece in pieces(text, reply.text_piece_chars) {
                    events.push(chunk(json!({ "content": piece }), None));
                }
            }
            ReplyItem::ToolCall {
                id,
                name,
                arguments,
            } => {
                events.push(chunk(
                    json!({ "tool_calls": [{
                        "index": call_index,
                        "id": id,
                        "type": "function",
                        "function": { "name": name, "arguments": "" },
                    }] }),
                    None,
                ));
                for fragment in fragments(arguments, reply.argument_fragments) {
                    events.push(chunk(
                        json!({ "tool_calls": [{
                            "index": call_index,
                            "function": { "arguments": fragment },
                        }] }),
                        None,
                    ));
                }
                call_index += 1;
            }
        }
    }
    let finish = match (reply.stop, reply.has_tool_calls()) {
        (ReplyStop::MaxTokens, _) => "length",
        (ReplyStop::Natural, true) => "tool_calls",
        (ReplyStop::Natural, false) => "stop",
    };
    events.push(chunk(json!({}), Some(finish)));
    if let Some(usage) = reply.usage {
        events.push(sse_event(
            None,
            &json!({
                "id": "chatcmpl-mock",
                "object": "chat.completion.chunk",
                "model": MODEL,
                "choices": [],
                "usage": {
                    "prompt_tokens": usage.input,
                    "completion_tokens": usage.output,
                    "total_tokens": usage.input + usage.output,
                    "prompt_tokens_details": { "cached_tokens": usage.cached },
                    "completion_tokens_details": { "reasoning_tokens": usage.reasoning },
                },
            }),
        ));
    }
    events.push("data: [DONE]\n\n".to_string());
    MockResponse::sse(events)
}
