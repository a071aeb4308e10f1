//! What hone asks of a model: the chat request and the tools it may call.

use serde::{Deserialize, Serialize};

use crate::Message;

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

/// How much the model may think before answering, for APIs that support it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThinkingConfig {
    /// Token budget for reasoning (Anthropic `budget_tokens`, Gemini `thinkingBudget`).
    pub budget_tokens: u32,
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
    /// Extended thinking, when wanted and supported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<ThinkingConfig>,
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

    /// Rough size of the request in characters (system prompt, messages, tool schemas);
    /// used to size context windows before a real tokenizer is involved.
    pub fn approximate_chars(&self) -> usize {
        let system = self.system.as_ref().map_or(0, String::len);
        let messages: usize =
            self.messages
                .iter()
                .flat_map(|message| message.content.iter())
                .map(|block| match block {
                    crate::ContentBlock::Text { text }
                    | crate::ContentBlock::Thinking { text, .. } => text.len(),
                    crate::ContentBlock::ToolCall(call) => call.name.len() + call.arguments.len(),
                    crate::ContentBlock::ToolResult(result) => result.content.len(),
                    crate::ContentBlock::Image(_) => 3_000,
                })
                .sum();
        let tools: usize = self
            .tools
            .iter()
            .map(|tool| {
                tool.name.len() + tool.description.len() + tool.parameters.to_string().len()
            })
            .sum();
        system + messages + tools
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approximate_chars_counts_system_messages_and_tools() {
        let mut request = ChatRequest::new("m", "12345");
        assert_eq!(request.approximate_chars(), 5);
        request.system = Some("abc".into());
        request.tools.push(ToolSpec {
            name: "t".into(),
            description: "d".into(),
            parameters: serde_json::json!({}),
        });
        assert_eq!(request.approximate_chars(), 5 + 3 + 1 + 1 + 2);
    }
}
