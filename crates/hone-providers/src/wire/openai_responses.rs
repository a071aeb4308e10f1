//! OpenAI Responses API (`POST {base}/responses`): typed input items in, typed
//! semantic events (`response.output_text.delta`, `response.completed`, …) out.

use hone_config::ProviderConfig;
use hone_protocol::{
    ChatRequest, ContentBlock, ErrorCategory, HoneError, Message, Role, StopReason, StreamEvent,
    Thinking, Usage,
};
use serde_json::{Value, json};

use super::openai_chat::OpenAiChat;
use super::{
    StreamDecoder, ToolCallAssembler, WireFormat, WireRequest, ended_early, join_url, parse_json,
    u64_at,
};
use crate::ModelInfo;
use crate::framing::{Frame, Framing};

/// The Responses wire format.
pub(crate) struct OpenAiResponses;

impl WireFormat for OpenAiResponses {
    fn framing(&self) -> Framing {
        Framing::Sse
    }

    fn build_request(
        &self,
        config: &ProviderConfig,
        request: &ChatRequest,
    ) -> Result<WireRequest, HoneError> {
        let mut body = json!({
            "model": request.model,
            "input": input_items(request),
            "stream": true,
            // hone keeps the conversation itself; nothing needs to live on OpenAI's side.
            "store": false,
        });
        if let Some(system) = request
            .system
            .as_deref()
            .filter(|system| !system.is_empty())
        {
            body["instructions"] = json!(system);
        }
        if !request.tools.is_empty() {
            body["tools"] = request
                .tools
                .iter()
                .map(|tool| {
                    json!({
                        "type": "function",
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": tool.parameters,
                        // Responses functions are strict by default, which rejects schemas
                        // with optional properties; hone's tools validate their own arguments.
                        "strict": false,
                    })
                })
                .collect();
        }
        if let Some(max_tokens) = request.max_tokens {
            body["max_output_tokens"] = json!(max_tokens);
        }
        if let Some(temperature) = request.temperature {
            body["temperature"] = super::decimal(temperature);
        }
        if let Some(top_p) = request.top_p {
            body["top_p"] = super::decimal(top_p);
        }
        if let Some(effort) = request.thinking.and_then(Thinking::effort) {
            body["reasoning"] = json!({ "effort": effort, "summary": "auto" });
        }
        Ok(WireRequest::post(
            join_url(&config.base_url, "responses"),
            body,
        ))
    }

    fn decoder(&self) -> Box<dyn StreamDecoder> {
        Box::new(ResponsesDecoder::default())
    }

    fn models_request(&self, config: &ProviderConfig) -> WireRequest {
        WireRequest::get(join_url(&config.base_url, "models"))
    }

    fn parse_models(&self, body: &Value) -> Result<Vec<ModelInfo>, HoneError> {
        // Same `/models` listing as Chat Completions.
        OpenAiChat.parse_models(body)
    }
}

/// The conversation as Responses input items. Thinking blocks are dropped: reasoning
/// items can only be sent back with encrypted content, which hone does not keep.
fn input_items(request: &ChatRequest) -> Vec<Value> {
    let mut items = Vec::new();
    for message in &request.messages {
        match message.role {
            Role::User => user_items(message, &mut items),
            Role::Assistant => assistant_items(message, &mut items),
        }
    }
    items
}

/// A user message becomes `function_call_output` items for its tool results, then one
/// user message for its text and images.
fn user_items(message: &Message, items: &mut Vec<Value>) {
    let mut parts = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::ToolResult(result) => items.push(json!({
                "type": "function_call_output",
                "call_id": result.call_id,
                "output": result.content,
            })),
            ContentBlock::Text { text } => {
                parts.push(json!({ "type": "input_text", "text": text }));
            }
            ContentBlock::Image(image) => parts.push(json!({
                "type": "input_image",
                "image_url": image.to_url(),
            })),
            ContentBlock::ToolCall(_) | ContentBlock::Thinking { .. } => {}
        }
    }
    if !parts.is_empty() {
        items.push(json!({ "type": "message", "role": "user", "content": parts }));
    }
}

/// An assistant message becomes output-text messages and `function_call` items, in order.
fn assistant_items(message: &Message, items: &mut Vec<Value>) {
    let mut text = String::new();
    for block in &message.content {
        match block {
            ContentBlock::Text { text: piece } => text.push_str(piece),
            ContentBlock::ToolCall(call) => {
                flush_assistant_text(&mut text, items);
                items.push(json!({
                    "type": "function_call",
                    "call_id": call.id,
                    "name": call.name,
                    "arguments": call.arguments,
                }));
            }
            ContentBlock::Thinking { .. }
            | ContentBlock::ToolResult(_)
            | ContentBlock::Image(_) => {}
        }
    }
    flush_assistant_text(&mut text, items);
}

fn flush_assistant_text(text: &mut String, items: &mut Vec<Value>) {
    if text.is_empty() {
        return;
    }
    items.push(json!({
        "type": "message",
        "role": "assistant",
        "content": [{ "type": "output_text", "text": std::mem::take(text) }],
    }));
}

/// Decoder state for one Responses stream.
#[derive(Default)]
struct ResponsesDecoder {
    calls: ToolCallAssembler,
    /// Protocol indexes of calls whose arguments already arrived (as deltas or whole).
    has_arguments: Vec<usize>,
}

impl StreamDecoder for ResponsesDecoder {
    fn decode(&mut self, frame: &Frame, out: &mut Vec<StreamEvent>) -> Result<(), HoneError> {
        if frame.data.trim() == "[DONE]" {
            return Ok(());
        }
        let event = parse_json(frame)?;
        let kind = event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(frame.event.as_str());
        match kind {
            "response.output_item.added" => {
                let item = &event["item"];
                if item["type"] == "function_call" {
                    self.start_call(&event, item, out);
                }
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                if let Some(text) = delta(&event) {
                    out.push(StreamEvent::TextDelta { text });
                }
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                if let Some(text) = delta(&event) {
                    out.push(StreamEvent::ThinkingDelta { text });
                }
            }
            "response.reasoning_summary_part.added" if u64_at(&event, "/summary_index") > 0 => {
                // Summaries come in parts (paragraphs); keep them apart.
                out.push(StreamEvent::ThinkingDelta {
                    text: "\n\n".into(),
                });
            }
            "response.function_call_arguments.delta" => {
                let index = self.call_index(&event, out);
                if let Some(fragment) = delta(&event) {
                    self.calls.append(index, &fragment, out);
                    self.mark_arguments(index);
                }
            }
            "response.function_call_arguments.done" => {
                let index = self.call_index(&event, out);
                if let Some(name) = event.get("name").and_then(Value::as_str) {
                    self.calls.set_name_if_empty(index, name);
                }
                self.end_call(index, event.get("arguments"), out);
            }
            "response.output_item.done" => {
                let item = &event["item"];
                if item["type"] == "function_call" {
                    let index = self.start_call(&event, item, out);
                    self.end_call(index, item.get("arguments"), out);
                }
            }
            "response.completed" | "response.incomplete" => {
                self.completed(kind, &event["response"], out);
            }
            "response.failed" => {
                let response = &event["response"];
                let error = match response.get("error") {
                    Some(error) if error.is_object() => error,
                    _ => response,
                };
                return Err(stream_error(error));
            }
            "error" => {
                let error = match event.get("error") {
                    Some(error) if error.is_object() => error,
                    _ => &event,
                };
                return Err(stream_error(error));
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(&mut self, _out: &mut Vec<StreamEvent>) -> Result<(), HoneError> {
        // Every complete response ends with response.completed, .incomplete or .failed.
        Err(ended_early())
    }
}

impl ResponsesDecoder {
    /// Starts (or finds) the call described by a `function_call` item.
    fn start_call(&mut self, event: &Value, item: &Value, out: &mut Vec<StreamEvent>) -> usize {
        let key = item_key(item.get("id"), event);
        let call_id = item.get("call_id").and_then(Value::as_str).unwrap_or("");
        let name = item.get("name").and_then(Value::as_str).unwrap_or("");
        match self.calls.index_of(&key) {
            Some(index) => {
                self.calls.set_name_if_empty(index, name);
                index
            }
            None => self.calls.start(&key, call_id, name, out),
        }
    }

    /// The call an argument event refers to, started on the fly when its item was never announced.
    fn call_index(&mut self, event: &Value, out: &mut Vec<StreamEvent>) -> usize {
        let key = item_key(event.get("item_id"), event);
        match self.calls.index_of(&key) {
            Some(index) => index,
            None => self.calls.start(&key, "", "", out),
        }
    }

    /// Ends a call, taking the complete `arguments` when no fragment arrived before.
    fn end_call(&mut self, index: usize, arguments: Option<&Value>, out: &mut Vec<StreamEvent>) {
        if !self.has_arguments.contains(&index)
            && let Some(arguments) = arguments.and_then(Value::as_str)
        {
            self.calls.append(index, arguments, out);
            self.mark_arguments(index);
        }
        self.calls.end(index, out);
    }

    fn mark_arguments(&mut self, index: usize) {
        if !self.has_arguments.contains(&index) {
            self.has_arguments.push(index);
        }
    }

    fn completed(&mut self, kind: &str, response: &Value, out: &mut Vec<StreamEvent>) {
        self.calls.end_all(out);
        let incomplete = kind == "response.incomplete" || response["status"] == "incomplete";
        let stop_reason = if incomplete {
            let reason = response
                .pointer("/incomplete_details/reason")
                .and_then(Value::as_str)
                .unwrap_or("incomplete");
            match reason {
                "max_output_tokens" => StopReason::MaxTokens,
                "content_filter" => StopReason::ContentFilter,
                other => StopReason::Other(other.to_string()),
            }
        } else if self.calls.any() {
            StopReason::ToolUse
        } else {
            StopReason::EndTurn
        };
        let usage = response
            .get("usage")
            .filter(|usage| usage.is_object())
            .map(|usage| Usage {
                input_tokens: u64_at(usage, "/input_tokens"),
                output_tokens: u64_at(usage, "/output_tokens"),
                cached_input_tokens: u64_at(usage, "/input_tokens_details/cached_tokens"),
                reasoning_tokens: u64_at(usage, "/output_tokens_details/reasoning_tokens"),
                ..Usage::default()
            });
        out.push(StreamEvent::Completed { stop_reason, usage });
    }
}

/// The non-empty `delta` text of an event.
fn delta(event: &Value) -> Option<String> {
    event
        .get("delta")
        .and_then(Value::as_str)
        .filter(|text| !text.is_empty())
        .map(str::to_string)
}

/// Identifies an output item by its id, or by its position when a server sends no id.
fn item_key(id: Option<&Value>, event: &Value) -> String {
    match id.and_then(Value::as_str).filter(|id| !id.is_empty()) {
        Some(id) => id.to_string(),
        None => format!("#{}", u64_at(event, "/output_index")),
    }
}

/// An `error` event or a failed response's `error` object as a categorised error.
fn stream_error(error: &Value) -> HoneError {
    let code = ["code", "type"]
        .iter()
        .find_map(|key| error.get(*key).and_then(Value::as_str))
        .unwrap_or("");
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("unknown error");
    let message = if code.is_empty() || code == "error" {
        format!("the provider reported an error mid-stream: {message}")
    } else {
        format!("the provider reported an error mid-stream ({code}): {message}")
    };
    HoneError::new(error_category(code), message).with_detail(error.to_string())
}

/// The category of a Responses error code.
fn error_category(code: &str) -> ErrorCategory {
    match code {
        "rate_limit_exceeded" | "rate_limit_error" | "insufficient_quota" => {
            ErrorCategory::RateLimit
        }
        "invalid_api_key" | "authentication_error" | "permission_denied" | "unauthorized" => {
            ErrorCategory::Auth
        }
        "model_not_found" => ErrorCategory::Config,
        "context_length_exceeded"
        | "bad_request"
        | "invalid_request_error"
        | "empty_image_file"
        | "failed_to_download_image" => ErrorCategory::Validation,
        code if code.starts_with("invalid_")
            || code.starts_with("image_")
            || code.starts_with("unsupported_") =>
        {
            ErrorCategory::Validation
        }
        _ => ErrorCategory::Provider,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(frames: &[&str]) -> (Vec<StreamEvent>, Result<(), HoneError>) {
        crate::wire::decode_frames(&mut ResponsesDecoder::default(), frames)
    }

    #[test]
    fn error_codes_map_to_categories() {
        assert_eq!(
            error_category("rate_limit_exceeded"),
            ErrorCategory::RateLimit
        );
        assert_eq!(
            error_category("insufficient_quota"),
            ErrorCategory::RateLimit
        );
        assert_eq!(error_category("server_error"), ErrorCategory::Provider);
        assert_eq!(
            error_category("vector_store_timeout"),
            ErrorCategory::Provider
        );
        assert_eq!(error_category("invalid_prompt"), ErrorCategory::Validation);
        assert_eq!(error_category("image_too_large"), ErrorCategory::Validation);
        assert_eq!(
            error_category("context_length_exceeded"),
            ErrorCategory::Validation
        );
        assert_eq!(error_category("model_not_found"), ErrorCategory::Config);
        assert_eq!(error_category(""), ErrorCategory::Provider);
    }

    #[test]
    fn calls_announced_only_when_done_still_end_with_their_arguments() {
        let (events, result) = decode_all(&[
            r#"{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_a","name":"list_dir","arguments":"{\"path\":\".\"}"}}"#,
            r#"{"type":"response.completed","response":{"status":"completed"}}"#,
        ]);
        assert!(result.is_ok());
        assert!(events.contains(&StreamEvent::ToolCallEnd {
            index: 0,
            id: "call_a".into(),
            name: "list_dir".into(),
            arguments: "{\"path\":\".\"}".into(),
        }));
        assert!(matches!(
            events.last(),
            Some(StreamEvent::Completed {
                stop_reason: StopReason::ToolUse,
                usage: None
            })
        ));
    }

    #[test]
    fn arguments_are_not_doubled_when_deltas_and_done_both_arrive() {
        let (events, _) = decode_all(&[
            r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_a","name":"t","arguments":""}}"#,
            r#"{"type":"response.function_call_arguments.delta","output_index":0,"item_id":"fc_1","delta":"{}"}"#,
            r#"{"type":"response.function_call_arguments.done","output_index":0,"item_id":"fc_1","arguments":"{}"}"#,
            r#"{"type":"response.output_item.done","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_a","name":"t","arguments":"{}"}}"#,
        ]);
        let ends: Vec<_> = events
            .iter()
            .filter_map(|event| match event {
                StreamEvent::ToolCallEnd { arguments, .. } => Some(arguments.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(ends, ["{}"]);
    }

    #[test]
    fn a_stream_without_a_terminal_event_is_incomplete() {
        let (_, result) =
            decode_all(&[r#"{"type":"response.output_text.delta","item_id":"m","delta":"o"}"#]);
        assert_eq!(result.unwrap_err().category, ErrorCategory::Network);
    }
}
