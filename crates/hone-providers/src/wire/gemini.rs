//! Google Gemini (`POST {base}/models/{model}:streamGenerateContent?alt=sse`): contents
//! of `user` and `model` parts, function declarations with schemas cut down to the
//! OpenAPI subset Gemini accepts, and function responses addressed by tool name.

#[path = "gemini_decode.rs"]
mod decode;
#[path = "gemini_schema.rs"]
mod schema;

use std::collections::HashMap;

use hone_config::ProviderConfig;
use hone_protocol::{
    ChatRequest, ContentBlock, HoneError, ImageRef, Message, Role, Thinking, ToolResult,
};
use serde_json::{Map, Value, json};

use super::{StreamDecoder, WireFormat, WireRequest, join_url};
use crate::ModelInfo;
use crate::framing::Framing;

/// The Gemini wire format.
pub(crate) struct Gemini;

impl WireFormat for Gemini {
    fn framing(&self) -> Framing {
        Framing::Sse
    }

    fn build_request(
        &self,
        config: &ProviderConfig,
        request: &ChatRequest,
    ) -> Result<WireRequest, HoneError> {
        let mut body = json!({ "contents": contents(&request.messages) });
        // A named cache holds the system prompt and the tools (see `gemini_cache`).
        let cached = request
            .extra_body
            .contains_key(crate::gemini_cache::CACHED_CONTENT_KEY);
        if let Some(system) = request
            .system
            .as_deref()
            .filter(|text| !text.trim().is_empty() && !cached)
        {
            body["systemInstruction"] = json!({ "parts": [{ "text": system }] });
        }
        if !request.tools.is_empty() && !cached {
            let declarations: Vec<Value> = request
                .tools
                .iter()
                .map(|tool| {
                    let mut declaration =
                        json!({ "name": tool.name, "description": tool.description });
                    let parameters = schema::sanitize(&tool.parameters);
                    // Gemini rejects an object schema without properties: leave it out.
                    let has_properties = parameters
                        .get("properties")
                        .and_then(Value::as_object)
                        .is_some_and(|properties| !properties.is_empty());
                    if has_properties {
                        declaration["parameters"] = parameters;
                    }
                    declaration
                })
                .collect();
            body["tools"] = json!([{ "functionDeclarations": declarations }]);
        }
        let mut generation = Map::new();
        if let Some(mut max_tokens) = request.max_tokens {
            // Thoughts count against `maxOutputTokens`: leave the answer room after them.
            if let Some(budget) = request.thinking.and_then(Thinking::budget_tokens)
                && max_tokens <= budget
            {
                max_tokens = budget.saturating_add(max_tokens);
            }
            generation.insert("maxOutputTokens".into(), json!(max_tokens));
        }
        if let Some(temperature) = request.temperature {
            generation.insert("temperature".into(), super::decimal(temperature));
        }
        if let Some(top_p) = request.top_p {
            generation.insert("topP".into(), super::decimal(top_p));
        }
        if let Some(thinking) = request.thinking {
            // Off is a budget of 0, which turns thinking off on the models that allow it.
            let budget = thinking.budget_tokens().unwrap_or(0);
            generation.insert(
                "thinkingConfig".into(),
                json!({ "thinkingBudget": budget, "includeThoughts": budget > 0 }),
            );
        }
        if !generation.is_empty() {
            body["generationConfig"] = Value::Object(generation);
        }
        let path = format!(
            "{}:streamGenerateContent?alt=sse",
            model_path(&request.model)
        );
        Ok(WireRequest::post(join_url(&config.base_url, &path), body))
    }

    fn decoder(&self) -> Box<dyn StreamDecoder> {
        Box::new(decode::GeminiDecoder::default())
    }

    fn models_request(&self, config: &ProviderConfig) -> WireRequest {
        WireRequest::get(join_url(&config.base_url, "models?pageSize=1000"))
    }

    fn parse_models(&self, body: &Value) -> Result<Vec<ModelInfo>, HoneError> {
        let models = body
            .get("models")
            .and_then(Value::as_array)
            .ok_or_else(|| HoneError::provider("the model listing has no `models` array"))?;
        Ok(models
            .iter()
            .filter(|model| generates_content(model))
            .filter_map(|model| {
                let name = model.get("name")?.as_str()?;
                Some(ModelInfo {
                    id: name.strip_prefix("models/").unwrap_or(name).to_string(),
                    display_name: model
                        .get("displayName")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    context_window: model
                        .get("inputTokenLimit")
                        .and_then(Value::as_u64)
                        .and_then(|limit| u32::try_from(limit).ok()),
                })
            })
            .collect())
    }
}

/// Whether a listed model can chat; embedding and other models are left out. A listing
/// without `supportedGenerationMethods` (proxies) keeps every model.
fn generates_content(model: &Value) -> bool {
    match model
        .get("supportedGenerationMethods")
        .and_then(Value::as_array)
    {
        Some(methods) => methods.iter().any(|method| {
            matches!(
                method.as_str(),
                Some("generateContent" | "streamGenerateContent")
            )
        }),
        None => true,
    }
}

/// `models/NAME` for a bare model name; names that already carry a collection
/// (`models/…`, `tunedModels/…`) are used as they are.
fn model_path(model: &str) -> String {
    let model = model.trim().trim_start_matches('/');
    if model.contains('/') {
        model.to_string()
    } else {
        format!("models/{model}")
    }
}

/// The conversation as Gemini contents, consecutive messages of one role merged.
fn contents(history: &[Message]) -> Vec<Value> {
    let call_names: HashMap<&str, &str> = history
        .iter()
        .flat_map(Message::tool_calls)
        .map(|call| (call.id.as_str(), call.name.as_str()))
        .collect();
    let mut merged: Vec<(Role, Vec<Value>)> = Vec::new();
    for message in history {
        let parts = parts(message, &call_names);
        if parts.is_empty() {
            continue;
        }
        match merged.last_mut() {
            Some((role, existing)) if *role == message.role => existing.extend(parts),
            _ => merged.push((message.role, parts)),
        }
    }
    merged
        .into_iter()
        .map(|(role, parts)| {
            let role = match role {
                Role::User => "user",
                Role::Assistant => "model",
            };
            json!({ "role": role, "parts": parts })
        })
        .collect()
}

/// One message's parts. Thought text is not sent back, but a thought signature is
/// attached to the function call that follows it (Gemini requires it there), or else
/// to the last text part.
fn parts(message: &Message, call_names: &HashMap<&str, &str>) -> Vec<Value> {
    let mut parts = Vec::new();
    let mut signature: Option<&str> = None;
    for block in &message.content {
        match block {
            ContentBlock::Text { text } if text.is_empty() => {}
            ContentBlock::Text { text } => parts.push(json!({ "text": text })),
            ContentBlock::Image(image) => parts.push(image_part(image)),
            ContentBlock::ToolCall(call) => {
                let mut part = json!({
                    "functionCall": { "name": call.name, "args": call.arguments_object() },
                });
                if let Some(signature) = signature.take() {
                    part["thoughtSignature"] = json!(signature);
                }
                parts.push(part);
            }
            ContentBlock::ToolResult(result) => parts.push(function_response(result, call_names)),
            ContentBlock::Thinking {
                signature: Some(signed),
                ..
            } => signature = Some(signed),
            ContentBlock::Thinking {
                signature: None, ..
            } => {}
        }
    }
    if let Some(signature) = signature
        && let Some(last) = parts.last_mut().filter(|part| part.get("text").is_some())
    {
        last["thoughtSignature"] = json!(signature);
    }
    parts
}

/// A tool result, addressed by the tool's name (looked up from its call when missing).
/// Gemini reads `error` in a function response as a failure report.
fn function_response(result: &ToolResult, call_names: &HashMap<&str, &str>) -> Value {
    let name = if result.name.is_empty() {
        call_names
            .get(result.call_id.as_str())
            .copied()
            .unwrap_or("")
    } else {
        result.name.as_str()
    };
    let response = if result.is_error {
        json!({ "error": result.content })
    } else {
        json!({ "content": result.content })
    };
    json!({ "functionResponse": { "name": name, "response": response } })
}

fn image_part(image: &ImageRef) -> Value {
    match image {
        ImageRef::Base64 { media_type, data } => {
            json!({ "inlineData": { "mimeType": media_type, "data": data } })
        }
        ImageRef::Url { url } => {
            if let Some((media_type, data)) = url
                .strip_prefix("data:")
                .and_then(|rest| rest.split_once(";base64,"))
            {
                return json!({ "inlineData": { "mimeType": media_type, "data": data } });
            }
            let mut file = json!({ "fileUri": url });
            if let Some(media_type) = guess_image_type(url) {
                file["mimeType"] = json!(media_type);
            }
            json!({ "fileData": file })
        }
    }
}

fn guess_image_type(url: &str) -> Option<&'static str> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let extension = path.rsplit_once('.')?.1.to_ascii_lowercase();
    match extension.as_str() {
        "png" => Some("image/png"),
        "jpg" | "jpeg" => Some("image/jpeg"),
        "gif" => Some("image/gif"),
        "webp" => Some("image/webp"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hone_protocol::ToolCall;

    #[test]
    fn model_names_get_exactly_one_collection_prefix() {
        assert_eq!(model_path("gemini-2.5-flash"), "models/gemini-2.5-flash");
        assert_eq!(
            model_path("models/gemini-2.5-flash"),
            "models/gemini-2.5-flash"
        );
        assert_eq!(model_path("tunedModels/mine"), "tunedModels/mine");
    }

    #[test]
    fn a_thought_signature_rides_on_the_following_function_call() {
        let message = Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::Thinking {
                    text: "plan".into(),
                    signature: Some("sig".into()),
                },
                ContentBlock::ToolCall(ToolCall {
                    id: "call_0".into(),
                    name: "read_file".into(),
                    arguments: "{}".into(),
                }),
            ],
        };
        let parts = parts(&message, &HashMap::new());
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0]["thoughtSignature"], "sig");
        assert_eq!(parts[0]["functionCall"]["args"], json!({}));
    }

    #[test]
    fn images_become_inline_or_file_data() {
        let inline = image_part(&ImageRef::Url {
            url: "data:image/png;base64,AAAA".into(),
        });
        assert_eq!(inline["inlineData"]["mimeType"], "image/png");
        let file = image_part(&ImageRef::Url {
            url: "https://x.test/a.JPG?x=1".into(),
        });
        assert_eq!(file["fileData"]["mimeType"], "image/jpeg");
    }

    #[test]
    fn listing_keeps_only_chat_models_and_strips_the_prefix() {
        let models = Gemini
            .parse_models(&json!({ "models": [
                { "name": "models/gemini-2.5-pro", "displayName": "Gemini 2.5 Pro",
                  "inputTokenLimit": 1_048_576, "supportedGenerationMethods": ["generateContent"] },
                { "name": "models/text-embedding-004", "supportedGenerationMethods": ["embedContent"] },
            ]}))
            .unwrap();
        assert_eq!(models.len(), 1);
        assert_eq!(models[0].id, "gemini-2.5-pro");
        assert_eq!(models[0].context_window, Some(1_048_576));
    }
}
