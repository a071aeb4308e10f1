//! Ollama's native chat API (`POST {base}/api/chat`), streamed as newline-delimited JSON.
//!
//! Unlike Ollama's OpenAI-compatible endpoint, the native API lets hone size the context
//! window (`options.num_ctx`) to the prompt, so long prompts are not silently truncated.

use hone_config::ProviderConfig;
use hone_protocol::{
    ChatRequest, ContentBlock, HoneError, ImageRef, Message, Role, StopReason, StreamEvent, Usage,
};
use serde_json::{Value, json};

use super::{
    StreamDecoder, ToolCallAssembler, WireFormat, WireRequest, ended_early, join_url, parse_json,
    u64_at,
};
use crate::ModelInfo;
use crate::framing::{Frame, Framing};

/// The Ollama native wire format.
pub(crate) struct Ollama;

impl WireFormat for Ollama {
    fn framing(&self) -> Framing {
        Framing::Ndjson
    }

    fn build_request(
        &self,
        config: &ProviderConfig,
        request: &ChatRequest,
    ) -> Result<WireRequest, HoneError> {
        let window = config
            .context_window
            .or_else(|| hone_config::known_context_window(&request.model));
        let mut options = json!({ "num_ctx": crate::ollama_num_ctx(request, window) });
        if let Some(max_tokens) = request.max_tokens {
            options["num_predict"] = json!(max_tokens);
        }
        if let Some(temperature) = request.temperature {
            options["temperature"] = super::decimal(temperature);
        }
        if let Some(top_p) = request.top_p {
            options["top_p"] = super::decimal(top_p);
        }
        let mut body = json!({
            "model": request.model,
            "messages": messages(request)?,
            "stream": true,
            "options": options,
        });
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
        if let Some(thinking) = request.thinking {
            body["think"] = json!(thinking.is_on());
        }
        Ok(WireRequest::post(
            join_url(&config.base_url, "api/chat"),
            body,
        ))
    }

    fn decoder(&self) -> Box<dyn StreamDecoder> {
        Box::new(OllamaDecoder::default())
    }

    fn models_request(&self, config: &ProviderConfig) -> WireRequest {
        WireRequest::get(join_url(&config.base_url, "api/tags"))
    }

    fn parse_models(&self, body: &Value) -> Result<Vec<ModelInfo>, HoneError> {
        let models = body
            .get("models")
            .and_then(Value::as_array)
            .ok_or_else(|| HoneError::provider("the Ollama model listing has no `models` array"))?;
        Ok(models
            .iter()
            .filter_map(|model| {
                let name = ["name", "model"]
                    .iter()
                    .find_map(|key| model.get(*key).and_then(Value::as_str))?;
                let display_name = model
                    .pointer("/details/parameter_size")
                    .and_then(Value::as_str)
                    .filter(|size| !size.is_empty())
                    .map(|size| format!("{name} ({size})"));
                Some(ModelInfo {
                    id: name.to_string(),
                    display_name,
                    context_window: None,
                })
            })
            .collect())
    }
}

fn messages(request: &ChatRequest) -> Result<Vec<Value>, HoneError> {
    let mut out = Vec::new();
    if let Some(system) = request
        .system
        .as_deref()
        .filter(|system| !system.is_empty())
    {
        out.push(json!({ "role": "system", "content": system }));
    }
    for message in &request.messages {
        match message.role {
            Role::User => user_messages(message, &mut out)?,
            Role::Assistant => out.push(assistant_message(message)),
        }
    }
    Ok(out)
}

/// A user message becomes `tool` messages for its results (addressed by tool name),
/// then one user message with its text and inline images.
fn user_messages(message: &Message, out: &mut Vec<Value>) -> Result<(), HoneError> {
    let mut texts = Vec::new();
    let mut images = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::ToolResult(result) => out.push(json!({
                "role": "tool",
                "content": result.content,
                "tool_name": result.name,
            })),
            ContentBlock::Text { text } => texts.push(text.as_str()),
            ContentBlock::Image(image) => images.push(inline_image(image)?),
            ContentBlock::ToolCall(_) | ContentBlock::Thinking { .. } => {}
        }
    }
    if texts.is_empty() && images.is_empty() {
        return Ok(());
    }
    let mut value = json!({ "role": "user", "content": texts.join("\n") });
    if !images.is_empty() {
        value["images"] = json!(images);
    }
    out.push(value);
    Ok(())
}

/// Ollama takes images as bare base64 only; `data:` URLs are unwrapped, other URLs refused.
fn inline_image(image: &ImageRef) -> Result<String, HoneError> {
    match image {
        ImageRef::Base64 { data, .. } => Ok(data.clone()),
        ImageRef::Url { url } => url
            .strip_prefix("data:")
            .and_then(|rest| rest.split_once(";base64,"))
            .map(|(_, data)| data.to_string())
            .ok_or_else(|| {
                HoneError::validation(format!(
                    "Ollama accepts only inline images, not the URL {url}; attach the image file instead"
                ))
            }),
    }
}

/// An assistant message: its text, and its tool calls with arguments as JSON objects.
/// Thinking is not sent back; Ollama's chat templates drop earlier reasoning anyway.
fn assistant_message(message: &Message) -> Value {
    let mut value = json!({ "role": "assistant", "content": message.text() });
    let calls: Vec<Value> = message
        .tool_calls()
        .map(|call| {
            json!({
                "function": { "name": call.name, "arguments": call.arguments_object() },
            })
        })
        .collect();
    if !calls.is_empty() {
        value["tool_calls"] = Value::Array(calls);
    }
    value
}

/// Decoder state for one `/api/chat` stream.
#[derive(Default)]
struct OllamaDecoder {
    calls: ToolCallAssembler,
    /// Tool calls seen so far; Ollama sends each call whole, so each gets a fresh key.
    call_count: usize,
}

impl StreamDecoder for OllamaDecoder {
    fn decode(&mut self, frame: &Frame, out: &mut Vec<StreamEvent>) -> Result<(), HoneError> {
        let line = parse_json(frame)?;
        if let Some(error) = line.get("error").filter(|error| !error.is_null()) {
            return Err(stream_error(error));
        }
        if let Some(message) = line.get("message") {
            self.decode_message(message, out);
        }
        if line.get("done").and_then(Value::as_bool) == Some(true) {
            self.completed(&line, out);
        }
        Ok(())
    }

    fn finish(&mut self, _out: &mut Vec<StreamEvent>) -> Result<(), HoneError> {
        // A complete response always ends with a `"done": true` line.
        Err(ended_early())
    }
}

impl OllamaDecoder {
    fn decode_message(&mut self, message: &Value, out: &mut Vec<StreamEvent>) {
        if let Some(text) = non_empty(message, "thinking") {
            out.push(StreamEvent::ThinkingDelta { text });
        }
        if let Some(text) = non_empty(message, "content") {
            out.push(StreamEvent::TextDelta { text });
        }
        let tool_calls = message.get("tool_calls").and_then(Value::as_array);
        for call in tool_calls.into_iter().flatten() {
            let key = self.call_count.to_string();
            self.call_count += 1;
            let id = call.get("id").and_then(Value::as_str).unwrap_or("");
            let name = call
                .pointer("/function/name")
                .and_then(Value::as_str)
                .unwrap_or("");
            let arguments = match call.pointer("/function/arguments") {
                Some(Value::String(text)) => text.clone(),
                None | Some(Value::Null) => "{}".to_string(),
                Some(other) => other.to_string(),
            };
            let index = self.calls.start(&key, id, name, out);
            self.calls.append(index, &arguments, out);
            self.calls.end(index, out);
        }
    }

    fn completed(&mut self, line: &Value, out: &mut Vec<StreamEvent>) {
        self.calls.end_all(out);
        let reason = line
            .get("done_reason")
            .and_then(Value::as_str)
            .unwrap_or("stop");
        let stop_reason = match reason {
            "stop" if self.calls.any() => StopReason::ToolUse,
            "stop" => StopReason::EndTurn,
            "length" => StopReason::MaxTokens,
            other => StopReason::Other(other.to_string()),
        };
        let reported = line.get("prompt_eval_count").is_some() || line.get("eval_count").is_some();
        let usage = reported.then(|| Usage {
            input_tokens: u64_at(line, "/prompt_eval_count"),
            output_tokens: u64_at(line, "/eval_count"),
            ..Usage::default()
        });
        out.push(StreamEvent::Completed { stop_reason, usage });
    }
}

fn non_empty(message: &Value, key: &str) -> Option<String> {
    message
        .get(key)
        .and_then(Value::as_str)
        .filter(|text| !text.is_empty())
        .map(str::to_string)
}

/// An in-band `{"error": "…"}` line; a missing model becomes a configuration error
/// telling the user how to pull it.
fn stream_error(error: &Value) -> HoneError {
    let text = match error {
        Value::String(text) => text.clone(),
        other => other
            .get("message")
            .and_then(Value::as_str)
            .map_or_else(|| other.to_string(), str::to_string),
    };
    match missing_model(&text) {
        Some(model) => HoneError::config(format!(
            "Ollama does not have model `{model}`: run `ollama pull {model}` (or pick one from `ollama list`)"
        ))
        .with_detail(text),
        None => HoneError::provider(format!("Ollama reported an error: {text}")).with_detail(text),
    }
}

/// The model name in Ollama's `model "x" not found, try pulling it first`.
fn missing_model(text: &str) -> Option<String> {
    text.match_indices("model ").find_map(|(start, prefix)| {
        let rest = &text[start + prefix.len()..];
        let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        let rest = &rest[quote.len_utf8()..];
        let end = rest.find(quote)?;
        let name = &rest[..end];
        let after = rest[end + quote.len_utf8()..].trim_start();
        (after.starts_with("not found") && !name.is_empty()).then(|| name.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_model_names_are_read_from_ollama_errors() {
        assert_eq!(
            missing_model(r#"model "qwen3:8b" not found, try pulling it first"#).as_deref(),
            Some("qwen3:8b")
        );
        assert_eq!(
            missing_model("model 'llama3' not found").as_deref(),
            Some("llama3")
        );
        assert_eq!(missing_model("model requires more system memory"), None);
        assert_eq!(missing_model("out of memory"), None);
    }

    #[test]
    fn data_urls_are_unwrapped_and_remote_urls_refused() {
        let data = ImageRef::Url {
            url: "data:image/png;base64,iVBORw0".into(),
        };
        assert_eq!(inline_image(&data).unwrap(), "iVBORw0");
        let remote = ImageRef::Url {
            url: "https://example.com/cat.png".into(),
        };
        let error = inline_image(&remote).unwrap_err();
        assert_eq!(error.category, hone_protocol::ErrorCategory::Validation);
    }
}
