//! Renders a [`Reply`] as an Ollama `/api/chat` NDJSON stream.

use serde_json::{Value, json};

use crate::reply::{ReplyItem, ReplyStop, pieces};
use crate::{MockResponse, Reply};

const MODEL: &str = "mock-model";
const CREATED_AT: &str = "2025-01-01T00:00:00.000000Z";

fn line(message: Value) -> Value {
    json!({
        "model": MODEL,
        "created_at": CREATED_AT,
        "message": message,
        "done": false,
    })
}

/// The reply as Ollama NDJSON: one line per text or thinking piece (`message.content` /
/// `message.thinking`), one line per tool call carrying the whole call with its arguments
/// as an object, and a final `"done": true` line with `done_reason`, durations and the
/// token counts. Ollama sends no keep-alives, so `keep_alive` is ignored.
pub(crate) fn render(reply: &Reply) -> MockResponse {
    let mut lines = Vec::new();
    let mut call_index = 0;
    for item in &reply.items {
        match item {
            ReplyItem::Thinking(text) => {
                for piece in pieces(text, reply.text_piece_chars) {
                    lines.push(line(
                        json!({ "role": "assistant", "content": "", "thinking": piece }),
                    ));
                }
            }
            ReplyItem::Text(text) => {
                for piece in pieces(text, reply.text_piece_chars) {
                    lines.push(line(json!({ "role": "assistant", "content": piece })));
                }
            }
            ReplyItem::ToolCall {
                name, arguments, ..
            } => {
                let arguments: Value =
                    serde_json::from_str(arguments).unwrap_or_else(|_| json!({}));
                lines.push(line(json!({
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [{
                        "function": { "index": call_index, "name": name, "arguments": arguments },
                    }],
                })));
                call_index += 1;
            }
        }
    }
    let done_reason = match reply.stop {
        ReplyStop::Natural => "stop",
        ReplyStop::MaxTokens => "length",
    };
    let mut done = json!({
        "model": MODEL,
        "created_at": CREATED_AT,
        "message": { "role": "assistant", "content": "" },
        "done": true,
        "done_reason": done_reason,
        "total_duration": 1_234_567_890_u64,
        "load_duration": 12_345_678_u64,
        "prompt_eval_duration": 123_456_789_u64,
        "eval_duration": 987_654_321_u64,
    });
    if let Some(usage) = reply.usage {
        done["prompt_eval_count"] = json!(usage.input);
        done["eval_count"] = json!(usage.output);
    }
    lines.push(done);
    MockResponse::ndjson(lines)
}
