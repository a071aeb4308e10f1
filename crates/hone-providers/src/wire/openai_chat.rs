//! OpenAI Chat Completions (`POST {base}/chat/completions`), also spoken by Azure,
//! LM Studio, llama.cpp, vLLM, OpenRouter, Mistral, DeepSeek and Groq.

use hone_config::{MaxTokensField, ProviderConfig};
use hone_protocol::{
    ChatRequest, ContentBlock, HoneError, Message, Role, StopReason, StreamEvent, Thinking, Usage,
};
use serde_json::{Value, json};

use super::{
    StreamDecoder, ToolCallAssembler, WireFormat, WireRequest, ended_early, join_url, parse_json,
    u64_at,
};
use crate::ModelInfo;
use crate::framing::{Frame, Framing};

/// The Chat Completions wire format.
pub(crate) struct OpenAiChat;

impl WireFormat for OpenAiChat {
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
            "messages": messages(request),
            "stream": true,
        });
        if config.stream_usage {
            body["stream_options"] = json!({ "include_usage": true });
        }
        if !request.tools.is_empty() {
            body["tools"] = request
                .tools
                .iter()
                .map(|tool| {
                    json!({
                        "type": "function",
                        "function": {
                            "name": tool.name,
                            "description": tool.description,
                            "parameters": tool.parameters,
                        }
                    })
                })
                .collect();
        }
        if let Some(max_tokens) = request.max_tokens {
            let field = match config.max_tokens_field {
                MaxTokensField::MaxTokens => "max_tokens",
                MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
            };
            body[field] = json!(max_tokens);
        }
        if let Some(temperature) = request.temperature {
            body["temperature"] = super::decimal(temperature);
        }
        if let Some(top_p) = request.top_p {
            body["top_p"] = super::decimal(top_p);
        }
        if let Some(effort) = request.thinking.and_then(Thinking::effort) {
            body["reasoning_effort"] = json!(effort);
        }
        Ok(WireRequest::post(chat_url(config), body))
    }

    fn decoder(&self) -> Box<dyn StreamDecoder> {
        Box::new(ChatDecoder::default())
    }

    fn models_request(&self, config: &ProviderConfig) -> WireRequest {
        WireRequest::get(with_api_version(
            config,
            join_url(&config.base_url, "models"),
        ))
    }

    fn parse_models(&self, body: &Value) -> Result<Vec<ModelInfo>, HoneError> {
        let data = body
            .get("data")
            .and_then(Value::as_array)
            .ok_or_else(|| HoneError::provider("the model listing has no `data` array"))?;
        Ok(data
            .iter()
            .filter_map(|model| {
                let id = model.get("id")?.as_str()?.to_string();
                let context_window = ["context_length", "context_window", "max_model_len"]
                    .iter()
                    .find_map(|key| model.get(*key).and_then(Value::as_u64))
                    .and_then(|window| u32::try_from(window).ok());
                Some(ModelInfo {
                    id,
                    display_name: model
                        .get("name")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    context_window,
                })
            })
            .collect())
    }
}

fn chat_url(config: &ProviderConfig) -> String {
    with_api_version(config, join_url(&config.base_url, "chat/completions"))
}

/// Azure addresses the API version as a query parameter.
fn with_api_version(config: &ProviderConfig, url: String) -> String {
    match (&config.api_version, config.auth) {
        (Some(version), hone_config::AuthStyle::ApiKeyHeader) => {
            format!("{url}?api-version={version}")
        }
        _ => url,
    }
}

fn messages(request: &ChatRequest) -> Vec<Value> {
    let mut out = Vec::new();
    if let Some(system) = &request.system {
        out.push(json!({ "role": "system", "content": system }));
    }
    for message in &request.messages {
        match message.role {
            Role::User => user_messages(message, &mut out),
            Role::Assistant => out.push(assistant_message(message)),
        }
    }
    out
}

/// A user message becomes `tool` messages for its results, then one user message for the rest.
fn user_messages(message: &Message, out: &mut Vec<Value>) {
    let mut parts = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::ToolResult(result) => out.push(json!({
                "role": "tool",
                "tool_call_id": result.call_id,
                "content": result.content,
            })),
            ContentBlock::Text { text } => parts.push(json!({ "type": "text", "text": text })),
            ContentBlock::Image(image) => parts.push(json!({
                "type": "image_url",
                "image_url": { "url": image.to_url() },
            })),
            ContentBlock::ToolCall(_) | ContentBlock::Thinking { .. } => {}
        }
    }
    if parts.is_empty() {
        return;
    }
    let only_text = parts.iter().all(|part| part["type"] == "text");
    let content = if only_text {
        Value::String(
            parts
                .iter()
                .filter_map(|part| part["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
        )
    } else {
        Value::Array(parts)
    };
    out.push(json!({ "role": "user", "content": content }));
}

fn assistant_message(message: &Message) -> Value {
    let text = message.text();
    let mut value = json!({
        "role": "assistant",
        "content": if text.is_empty() { Value::Null } else { Value::String(text) },
    });
    let calls: Vec<Value> = message
        .tool_calls()
        .map(|call| {
            json!({
                "id": call.id,
                "type": "function",
                "function": { "name": call.name, "arguments": call.arguments },
            })
        })
        .collect();
    if !calls.is_empty() {
        value["tool_calls"] = Value::Array(calls);
    }
    value
}

/// Decoder state for one Chat Completions stream.
#[derive(Default)]
struct ChatDecoder {
    calls: ToolCallAssembler,
    stop_reason: Option<StopReason>,
    usage: Option<Usage>,
}

impl ChatDecoder {
    fn completed(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), HoneError> {
        self.calls.end_all(out);
        let stop_reason = self.stop_reason.take().ok_or_else(ended_early)?;
        let stop_reason = match stop_reason {
            StopReason::EndTurn if self.calls.any() => StopReason::ToolUse,
            other => other,
        };
        out.push(StreamEvent::Completed {
            stop_reason,
            usage: self.usage,
        });
        Ok(())
    }
}

impl StreamDecoder for ChatDecoder {
    fn decode(&mut self, frame: &Frame, out: &mut Vec<StreamEvent>) -> Result<(), HoneError> {
        if frame.data.trim() == "[DONE]" {
            return self.completed(out);
        }
        let chunk = parse_json(frame)?;
        if let Some(error) = chunk.get("error") {
            return Err(in_band_error(error));
        }
        if let Some(usage) = chunk.get("usage").filter(|usage| usage.is_object()) {
            let usage = Usage {
                input_tokens: u64_at(usage, "/prompt_tokens"),
                output_tokens: u64_at(usage, "/completion_tokens"),
                cached_input_tokens: u64_at(usage, "/prompt_tokens_details/cached_tokens"),
                reasoning_tokens: u64_at(usage, "/completion_tokens_details/reasoning_tokens"),
                ..Usage::default()
            };
            self.usage = Some(usage);
            out.push(StreamEvent::Usage { usage });
        }
        let choices = chunk.get("choices").and_then(Value::as_array);
        for choice in choices.into_iter().flatten() {
            if let Some(delta) = choice.get("delta") {
                self.decode_delta(delta, out);
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                self.calls.end_all(out);
                self.stop_reason = Some(stop_reason(reason));
            }
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), HoneError> {
        // Some compatible servers close the stream without `[DONE]`; a finish reason suffices.
        self.completed(out)
    }
}

impl ChatDecoder {
    fn decode_delta(&mut self, delta: &Value, out: &mut Vec<StreamEvent>) {
        for key in ["reasoning_content", "reasoning"] {
            if let Some(text) = delta.get(key).and_then(Value::as_str)
                && !text.is_empty()
            {
                out.push(StreamEvent::ThinkingDelta {
                    text: text.to_string(),
                });
            }
        }
        if let Some(text) = delta.get("content").and_then(Value::as_str)
            && !text.is_empty()
        {
            out.push(StreamEvent::TextDelta {
                text: text.to_string(),
            });
        }
        let tool_calls = delta.get("tool_calls").and_then(Value::as_array);
        for (position, call) in tool_calls.into_iter().flatten().enumerate() {
            let key = call
                .get("index")
                .and_then(Value::as_u64)
                .map_or_else(|| position.to_string(), |index| index.to_string());
            let name = call
                .pointer("/function/name")
                .and_then(Value::as_str)
                .unwrap_or("");
            let index = match self.calls.index_of(&key) {
                Some(index) => {
                    self.calls.set_name_if_empty(index, name);
                    index
                }
                None => {
                    let id = call.get("id").and_then(Value::as_str).unwrap_or("");
                    self.calls.start(&key, id, name, out)
                }
            };
            if let Some(fragment) = call.pointer("/function/arguments").and_then(Value::as_str) {
                self.calls.append(index, fragment, out);
            }
        }
    }
}

fn stop_reason(reason: &str) -> StopReason {
    match reason {
        "stop" | "eos" => StopReason::EndTurn,
        "tool_calls" | "function_call" => StopReason::ToolUse,
        "length" => StopReason::MaxTokens,
        "content_filter" => StopReason::ContentFilter,
        other => StopReason::Other(other.to_string()),
    }
}

fn in_band_error(error: &Value) -> HoneError {
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .or_else(|| error.as_str())
        .unwrap_or("unknown error");
    HoneError::provider(format!(
        "the provider reported an error mid-stream: {message}"
    ))
    .with_detail(error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(frames: &[&str]) -> (Vec<StreamEvent>, Result<(), HoneError>) {
        crate::wire::decode_frames(&mut ChatDecoder::default(), frames)
    }

    #[test]
    fn reasoning_content_becomes_thinking() {
        let (events, result) = decode_all(&[
            r#"{"choices":[{"delta":{"reasoning_content":"hmm"}}]}"#,
            r#"{"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}"#,
        ]);
        assert!(result.is_ok());
        assert_eq!(events[0], StreamEvent::ThinkingDelta { text: "hmm".into() });
        assert_eq!(events[1], StreamEvent::TextDelta { text: "ok".into() });
        assert!(matches!(
            events.last(),
            Some(StreamEvent::Completed {
                stop_reason: StopReason::EndTurn,
                ..
            })
        ));
    }

    #[test]
    fn a_stream_without_finish_reason_is_incomplete() {
        let (_, result) = decode_all(&[r#"{"choices":[{"delta":{"content":"o"}}]}"#]);
        assert_eq!(
            result.unwrap_err().category,
            hone_protocol::ErrorCategory::Network
        );
    }

    #[test]
    fn azure_gets_the_api_version_query() {
        let mut config = ProviderConfig::from_preset(hone_config::preset("azure").unwrap());
        config.base_url = "https://r.openai.azure.com/openai/deployments/d".into();
        config.api_version = Some("2024-10-21".into());
        assert_eq!(
            chat_url(&config),
            "https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21"
        );
    }
}
