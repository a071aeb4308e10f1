//! Renders a [`Reply`] as an OpenAI Responses stream.

use serde_json::{Value, json};

use crate::reply::{ReplyItem, ReplyStop, fragments, pieces};
use crate::{MockResponse, Reply, SSE_KEEP_ALIVE, sse_event};

const MODEL: &str = "mock-model";
const RESPONSE_ID: &str = "resp_mock";

/// Collects SSE events, each with an `event:` line plus `type` and `sequence_number` fields.
struct Events {
    out: Vec<String>,
    sequence: u64,
}

impl Events {
    fn push(&mut self, kind: &str, mut data: Value) {
        data["type"] = json!(kind);
        data["sequence_number"] = json!(self.sequence);
        self.sequence += 1;
        self.out.push(sse_event(Some(kind), &data));
    }
}

fn response(status: &str, output: &[Value], usage: Value, incomplete: Value) -> Value {
    json!({
        "id": RESPONSE_ID,
        "object": "response",
        "created_at": 1_700_000_000,
        "status": status,
        "error": null,
        "incomplete_details": incomplete,
        "instructions": null,
        "model": MODEL,
        "output": output,
        "parallel_tool_calls": true,
        "store": false,
        "usage": usage,
    })
}

/// The reply as Responses SSE: `response.created` and `.in_progress`, then one output item
/// per reply item — reasoning with summary-text deltas, a message with output-text deltas,
/// or a function call with fragmented argument deltas — each framed by
/// `output_item.added`/`.done`, and finally `response.completed` with usage
/// (`response.incomplete` with reason `max_output_tokens` when the reply hits the limit).
pub(crate) fn render(reply: &Reply) -> MockResponse {
    let mut events = Events {
        out: Vec::new(),
        sequence: 0,
    };
    if reply.keep_alive {
        events.out.push(SSE_KEEP_ALIVE.to_string());
    }
    let empty = response("in_progress", &[], Value::Null, Value::Null);
    events.push("response.created", json!({ "response": empty }));
    events.push("response.in_progress", json!({ "response": empty }));
    let mut output = Vec::new();
    for item in &reply.items {
        let output_index = output.len();
        let done = match item {
            ReplyItem::Thinking(text) => reasoning(&mut events, reply, output_index, text),
            ReplyItem::Text(text) => message(&mut events, reply, output_index, text),
            ReplyItem::ToolCall {
                id,
                name,
                arguments,
            } => function_call(&mut events, reply, output_index, id, name, arguments),
        };
        output.push(done);
    }
    let usage = reply.usage.map_or(Value::Null, |usage| {
        json!({
            "input_tokens": usage.input,
            "input_tokens_details": { "cached_tokens": usage.cached },
            "output_tokens": usage.output,
            "output_tokens_details": { "reasoning_tokens": usage.reasoning },
            "total_tokens": usage.input + usage.output,
        })
    });
    match reply.stop {
        ReplyStop::Natural => events.push(
            "response.completed",
            json!({ "response": response("completed", &output, usage, Value::Null) }),
        ),
        ReplyStop::MaxTokens => events.push(
            "response.incomplete",
            json!({ "response": response(
                "incomplete",
                &output,
                usage,
                json!({ "reason": "max_output_tokens" }),
            ) }),
        ),
    }
    MockResponse::sse(events.out)
}

fn reasoning(events: &mut Events, reply: &Reply, output_index: usize, text: &str) -> Value {
    let id = format!("rs_mock_{output_index}");
    events.push(
        "response.output_item.added",
        json!({
            "output_index": output_index,
            "item": { "id": id, "type": "reasoning", "summary": [] },
        }),
    );
    let located = json!({ "item_id": id, "output_index": output_index, "summary_index": 0 });
    let mut part = located.clone();
    part["part"] = json!({ "type": "summary_text", "text": "" });
    events.push("response.reasoning_summary_part.added", part);
    for piece in pieces(text, reply.text_piece_chars) {
        let mut delta = located.clone();
        delta["delta"] = json!(piece);
        events.push("response.reasoning_summary_text.delta", delta);
    }
    let mut text_done = located.clone();
    text_done["text"] = json!(text);
    events.push("response.reasoning_summary_text.done", text_done);
    let mut part_done = located;
    part_done["part"] = json!({ "type": "summary_text", "text": text });
    events.push("response.reasoning_summary_part.done", part_done);
    let item = json!({
        "id": id,
        "type": "reasoning",
        "summary": [{ "type": "summary_text", "text": text }],
    });
    events.push(
        "response.output_item.done",
        json!({ "output_index": output_index, "item": item }),
    );
    item
}

fn message(events: &mut Events, reply: &Reply, output_index: usize, text: &str) -> Value {
    let id = format!("msg_mock_{output_index}");
    events.push(
        "response.output_item.added",
        json!({
            "output_index": output_index,
            "item": {
                "id": id, "type": "message", "status": "in_progress",
                "role": "assistant", "content": [],
            },
        }),
    );
    let located = json!({ "item_id": id, "output_index": output_index, "content_index": 0 });
    let mut part = located.clone();
    part["part"] = json!({ "type": "output_text", "text": "", "annotations": [] });
    events.push("response.content_part.added", part);
    for piece in pieces(text, reply.text_piece_chars) {
        let mut delta = located.clone();
        delta["delta"] = json!(piece);
        delta["logprobs"] = json!([]);
        events.push("response.output_text.delta", delta);
    }
    let mut text_done = located.clone();
    text_done["text"] = json!(text);
    text_done["logprobs"] = json!([]);
    events.push("response.output_text.done", text_done);
    let finished_part = json!({ "type": "output_text", "text": text, "annotations": [] });
    let mut part_done = located;
    part_done["part"] = finished_part.clone();
    events.push("response.content_part.done", part_done);
    let item = json!({
        "id": id, "type": "message", "status": "completed",
        "role": "assistant", "content": [finished_part],
    });
    events.push(
        "response.output_item.done",
        json!({ "output_index": output_index, "item": item }),
    );
    item
}

fn function_call(
    events: &mut Events,
    reply: &Reply,
    output_index: usize,
    call_id: &str,
    name: &str,
    arguments: &str,
) -> Value {
    let id = format!("fc_mock_{output_index}");
    events.push(
        "response.output_item.added",
        json!({
            "output_index": output_index,
            "item": {
                "id": id, "type": "function_call", "status": "in_progress",
                "arguments": "", "call_id": call_id, "name": name,
            },
        }),
    );
    for fragment in fragments(arguments, reply.argument_fragments) {
        events.push(
            "response.function_call_arguments.delta",
            json!({ "item_id": id, "output_index": output_index, "delta": fragment }),
        );
    }
    events.push(
        "response.function_call_arguments.done",
        json!({ "item_id": id, "output_index": output_index, "arguments": arguments }),
    );
    let item = json!({
        "id": id, "type": "function_call", "status": "completed",
        "arguments": arguments, "call_id": call_id, "name": name,
    });
    events.push(
        "response.output_item.done",
        json!({ "output_index": output_index, "item": item }),
    );
    item
}
