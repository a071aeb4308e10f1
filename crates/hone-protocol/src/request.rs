//! What hone asks of a model: the chat request and the tools it may call.

use serde::{Deserialize, Serialize};

use crate::Message;
use crate::generation::{PromptCache, Thinking};
use crate::tokens::{IMAGE_TOKENS, estimate_tokens};

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Unique tool name, e.g. `read_file`.
    pub name: String,
    /// What the tool does and when to use it; the model reads this.
    pub description: String,
    /// JSON Schema (an `object` schema) of the tool's arguments.
    pub parameters: serde_json::Value,
}

/// One request for a streamed completion.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ChatRequest {
    /// Model identifier as the provider knows it.
    pub model: String,
    /// System prompt, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// Conversation so far, oldest first.
    pub messages: Vec<Message>,
    /// Tools the model may call; empty for a plain completion.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolSpec>,
    /// Upper bound on generated tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Reasoning before the answer, when wanted and supported; `None`: the API's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Thinking>,
    /// Nucleus sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f32>,
    /// Prompt caching, for APIs with explicit cache breakpoints; `None`: the wire format's
    /// default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<PromptCache>,
    /// Fields merged into the request body the wire format builds (objects key by key).
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub extra_body: serde_json::Map<String, serde_json::Value>,
}

impl ChatRequest {
    /// A request for `model` with a single user message.
    pub fn new(model: impl Into<String>, user_text: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            messages: vec![Message::user(user_text)],
            ..Self::default()
        }
    }

    /// The request's size in [`estimate_tokens`] tokens: the system prompt, every content
    /// block (an image counts as [`IMAGE_TOKENS`]) and the tool definitions, without the
    /// framing a provider adds.
    pub fn estimated_tokens(&self) -> usize {
        let system = self.system.as_deref().map_or(0, estimate_tokens);
        let messages: usize =
            self.messages
                .iter()
                .flat_map(|message| message.content.iter())
                .map(|block| match block {
                    crate::ContentBlock::Text { text }
                    | crate::ContentBlock::Thinking { text, .. } => estimate_tokens(text),
                    crate::ContentBlock::ToolCall(call) => {
                        estimate_tokens(&call.name) + estimate_tokens(&call.arguments)
                    }
                    crate::ContentBlock::ToolResult(result) => estimate_tokens(&result.content),
                    crate::ContentBlock::Image(_) => IMAGE_TOKENS,
                })
                .sum();
        let tools: usize = self
            .tools
            .iter()
            .map(|tool| {
                estimate_tokens(&tool.name)
                    + estimate_tokens(&tool.description)
                    + estimate_tokens(&tool.parameters.to_string())
            })
            .sum();
        system + messages + tools
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimated_tokens_count_system_messages_and_tools() {
        let mut request = ChatRequest::new("m", "12345");
        assert_eq!(request.estimated_tokens(), 1);
        request.system = Some("abc".into());
        request.tools.push(ToolSpec {
            name: "t".into(),
            description: "d".into(),
            parameters: serde_json::json!({}),
        });
        // "12345", "abc", "t", "d" and `{}` (two symbols in a row count once).
        assert_eq!(request.estimated_tokens(), 5);
    }
}
