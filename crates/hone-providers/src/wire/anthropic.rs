//! Anthropic Messages (`POST {base}/messages`): the system prompt, the tool list and the
//! conversation tail are marked for prompt caching, consecutive messages of one role are
//! merged (the API demands strict alternation), and signed thinking blocks are sent back.

#[path = "anthropic_decode.rs"]
mod decode;

use hone_config::{ANTHROPIC_DEFAULT_VERSION, ProviderConfig};
use hone_protocol::{ChatRequest, ContentBlock, HoneError, ImageRef, Message, PromptCache, Role};
use serde_json::{Value, json};

use super::{StreamDecoder, WireFormat, WireRequest, join_url};
use crate::ModelInfo;
use crate::framing::Framing;

/// Output-token limit sent when the request sets none: Anthropic requires `max_tokens`.
const DEFAULT_MAX_TOKENS: u32 = 8192;

/// Smallest thinking budget Anthropic accepts.
const MIN_THINKING_BUDGET: u32 = 1024;

/// The Anthropic Messages wire format.
pub(crate) struct Anthropic;

impl WireFormat for Anthropic {
    fn framing(&self) -> Framing {
        Framing::Sse
    }

    fn build_request(
        &self,
        config: &ProviderConfig,
        request: &ChatRequest,
    ) -> Result<WireRequest, HoneError> {
        let mut max_tokens = request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
        let cache = cache_control(request.cache);
        let mut body = json!({
            "model": request.model,
            "stream": true,
            "messages": messages(&request.messages, cache.as_ref()),
        });
        if let Some(system) = request
            .system
            .as_deref()
            .filter(|text| !text.trim().is_empty())
        {
            let mut block = json!({ "type": "text", "text": system });
            if let Some(cache) = &cache {
                block["cache_control"] = cache.clone();
            }
            body["system"] = json!([block]);
        }
        if !request.tools.is_empty() {
            let mut tools: Vec<Value> = request
                .tools
                .iter()
                .map(|tool| {
                    json!({
                        "name": tool.name,
                        "description": tool.description,
                        "input_schema": tool.parameters,
                    })
                })
                .collect();
            if let Some(last) = tools.last_mut()
                && let Some(cache) = &cache
            {
                last["cache_control"] = cache.clone();
            }
            body["tools"] = Value::Array(tools);
        }
        match request.thinking.filter(|thinking| thinking.is_on()) {
            Some(thinking) => {
                // Thinking counts against `max_tokens`, which must exceed the budget; the
                // requested limit then bounds the answer that follows the thinking. The API
                // refuses a changed temperature or top_p with thinking, so both stay out.
                let budget = thinking
                    .budget_tokens()
                    .unwrap_or(MIN_THINKING_BUDGET)
                    .max(MIN_THINKING_BUDGET);
                if max_tokens <= budget {
                    max_tokens = budget.saturating_add(max_tokens);
                }
                body["thinking"] = json!({ "type": "enabled", "budget_tokens": budget });
            }
            None => {
                if let Some(temperature) = request.temperature {
                    body["temperature"] = super::decimal(temperature);
                }
                if let Some(top_p) = request.top_p {
                    body["top_p"] = super::decimal(top_p);
                }
            }
        }
        body["max_tokens"] = json!(max_tokens);
        Ok(
            WireRequest::post(join_url(&config.base_url, "messages"), body)
                .with_header("anthropic-version", api_version(config)),
        )
    }

    fn decoder(&self) -> Box<dyn StreamDecoder> {
        Box::new(decode::AnthropicDecoder::default())
    }

    fn models_request(&self, config: &ProviderConfig) -> WireRequest {
        WireRequest::get(join_url(&config.base_url, "models?limit=1000"))
            .with_header("anthropic-version", api_version(config))
    }

    fn parse_models(&self, body: &Value) -> Result<Vec<ModelInfo>, HoneError> {
        let data = body
            .get("data")
            .and_then(Value::as_array)
            .ok_or_else(|| HoneError::provider("the model listing has no `data` array"))?;
        Ok(data
            .iter()
            .filter_map(|model| {
                Some(ModelInfo {
                    id: model.get("id")?.as_str()?.to_string(),
                    display_name: model
                        .get("display_name")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    context_window: None,
                })
            })
            .collect())
    }
}

/// The `cache_control` marking a breakpoint: ephemeral by default, with a one-hour lifetime
/// when asked; `None` when caching is off.
fn cache_control(cache: Option<PromptCache>) -> Option<Value> {
    match cache.unwrap_or(PromptCache::FiveMinutes) {
        PromptCache::Off => None,
        PromptCache::FiveMinutes => Some(json!({ "type": "ephemeral" })),
        PromptCache::OneHour => Some(json!({ "type": "ephemeral", "ttl": "1h" })),
    }
}

fn api_version(config: &ProviderConfig) -> String {
    config
        .api_version
        .clone()
        .unwrap_or_else(|| ANTHROPIC_DEFAULT_VERSION.to_string())
}

/// The conversation as alternating Anthropic messages. Messages left without content
/// (e.g. only unsigned thinking) are skipped, consecutive messages of one role merged,
/// tool results moved to the front of their user message (the API requires it), and
/// the last block marked as a cache breakpoint so the conversation prefix is reused.
fn messages(history: &[Message], cache: Option<&Value>) -> Vec<Value> {
    let mut merged: Vec<(Role, Vec<Value>)> = Vec::new();
    for message in history {
        let blocks = content_blocks(message);
        if blocks.is_empty() {
            continue;
        }
        match merged.last_mut() {
            Some((role, content)) if *role == message.role => content.extend(blocks),
            _ => merged.push((message.role, blocks)),
        }
    }
    for (role, content) in &mut merged {
        if *role == Role::User {
            content.sort_by_key(|block| block["type"] != "tool_result");
        }
    }
    if let Some(last) = merged
        .last_mut()
        .and_then(|(_, content)| content.last_mut())
        && last["type"] != "thinking"
        && let Some(cache) = cache
    {
        last["cache_control"] = cache.clone();
    }
    merged
        .into_iter()
        .map(|(role, content)| {
            let role = match role {
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            json!({ "role": role, "content": content })
        })
        .collect()
}

fn content_blocks(message: &Message) -> Vec<Value> {
    message
        .content
        .iter()
        .filter_map(|block| match block {
            // The API rejects empty and whitespace-only text blocks.
            ContentBlock::Text { text } if text.trim().is_empty() => None,
            ContentBlock::Text { text } => Some(json!({ "type": "text", "text": text })),
            ContentBlock::Image(image) => {
                Some(json!({ "type": "image", "source": image_source(image) }))
            }
            ContentBlock::ToolCall(call) => Some(json!({
                "type": "tool_use",
                "id": call.id,
                "name": call.name,
                "input": call.arguments_object(),
            })),
            ContentBlock::ToolResult(result) => Some(json!({
                "type": "tool_result",
                "tool_use_id": result.call_id,
                // The API refuses an empty error result.
                "content": if result.is_error && result.content.trim().is_empty() {
                    "the tool failed without a message"
                } else {
                    result.content.as_str()
                },
                "is_error": result.is_error,
            })),
            // Anthropic verifies thinking it receives; unsigned thinking came from elsewhere.
            ContentBlock::Thinking {
                text,
                signature: Some(signature),
            } => Some(json!({ "type": "thinking", "thinking": text, "signature": signature })),
            ContentBlock::Thinking {
                signature: None, ..
            } => None,
        })
        .collect()
}

fn image_source(image: &ImageRef) -> Value {
    match image {
        ImageRef::Base64 { media_type, data } => {
            json!({ "type": "base64", "media_type": media_type, "data": data })
        }
        ImageRef::Url { url } => json!({ "type": "url", "url": url }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hone_protocol::{Thinking, ToolCall, ToolResult};

    fn body(request: &ChatRequest) -> Value {
        let config = ProviderConfig::from_preset(hone_config::preset("anthropic").unwrap());
        Anthropic
            .build_request(&config, request)
            .unwrap()
            .body
            .unwrap()
    }

    #[test]
    fn max_tokens_defaults_and_grows_past_the_thinking_budget() {
        let mut request = ChatRequest::new("claude", "hi");
        assert_eq!(body(&request)["max_tokens"], DEFAULT_MAX_TOKENS);
        request.max_tokens = Some(2000);
        request.temperature = Some(0.5);
        request.thinking = Some(Thinking::Budget(4000));
        let sent = body(&request);
        assert_eq!(sent["max_tokens"], 6000);
        assert_eq!(sent["thinking"]["budget_tokens"], 4000);
        assert!(sent.get("temperature").is_none());
    }

    #[test]
    fn tool_results_lead_their_user_message_and_the_tail_is_cached() {
        let request = ChatRequest {
            model: "claude".into(),
            messages: vec![
                Message {
                    role: Role::Assistant,
                    content: vec![ContentBlock::ToolCall(ToolCall {
                        id: "t1".into(),
                        name: "read_file".into(),
                        arguments: "not json".into(),
                    })],
                },
                Message::user("and also"),
                Message {
                    role: Role::User,
                    content: vec![ContentBlock::ToolResult(ToolResult {
                        call_id: "t1".into(),
                        name: "read_file".into(),
                        content: "contents".into(),
                        is_error: false,
                        effect: Default::default(),
                    })],
                },
            ],
            ..ChatRequest::default()
        };
        let sent = body(&request);
        let messages = sent["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 2);
        assert_eq!(
            messages[0]["content"][0]["input"],
            json!({"_raw": "not json"})
        );
        assert_eq!(messages[1]["content"][0]["type"], "tool_result");
        assert_eq!(messages[1]["content"][1]["text"], "and also");
        assert_eq!(
            messages[1]["content"][1]["cache_control"]["type"],
            "ephemeral"
        );
    }
}
