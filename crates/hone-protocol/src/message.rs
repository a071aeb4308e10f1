//! Conversation messages and their content blocks.

use serde::{Deserialize, Serialize};

/// Who authored a message. The system prompt is not a message: it lives in
/// [`crate::ChatRequest::system`] because every wire API treats it specially.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The human (and tool results fed back to the model).
    User,
    /// The model.
    Assistant,
}

/// One message of a conversation: a role and an ordered list of content blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Author of the message.
    pub role: Role,
    /// Ordered content; a message may mix text, tool calls, tool results and images.
    pub content: Vec<ContentBlock>,
}

impl Message {
    /// A user message holding one text block.
    pub fn user(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: vec![ContentBlock::Text { text: text.into() }],
        }
    }

    /// An assistant message holding one text block.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: vec![ContentBlock::Text { text: text.into() }],
        }
    }

    /// Concatenation of the message's text blocks (tool calls, results and images are skipped).
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The tool calls this message contains, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.content.iter().filter_map(|block| match block {
            ContentBlock::ToolCall(call) => Some(call),
            _ => None,
        })
    }
}

/// One piece of message content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Plain text (markdown for assistant messages).
    Text {
        /// The text.
        text: String,
    },
    /// A request by the model to run a tool.
    ToolCall(ToolCall),
    /// The outcome of a tool call, sent back to the model.
    ToolResult(ToolResult),
    /// An image shown to the model.
    Image(ImageRef),
    /// The model's visible reasoning ("thinking" in Anthropic's API, "reasoning" elsewhere).
    Thinking {
        /// Reasoning text.
        text: String,
        /// Opaque integrity signature some APIs require when the block is sent back.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
}

/// A tool invocation requested by the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Identifier that pairs the call with its result (synthesised when the API has none).
    pub id: String,
    /// Name of the tool.
    pub name: String,
    /// Arguments exactly as the model produced them: usually a JSON object, but a
    /// model can emit anything, so they are kept raw and validated by the tool layer.
    pub arguments: String,
}

impl ToolCall {
    /// Parses the raw arguments as JSON. Empty arguments count as an empty object,
    /// because several APIs send `""` for tools without parameters.
    pub fn parse_arguments(&self) -> Result<serde_json::Value, serde_json::Error> {
        if self.arguments.trim().is_empty() {
            return Ok(serde_json::Value::Object(serde_json::Map::new()));
        }
        serde_json::from_str(&self.arguments)
    }

    /// The arguments as a JSON object for APIs that require one. Arguments that are
    /// not a JSON object are wrapped as `{"_raw": "<text>"}` so nothing the model said is lost.
    pub fn arguments_object(&self) -> serde_json::Value {
        match self.parse_arguments() {
            Ok(value @ serde_json::Value::Object(_)) => value,
            _ => serde_json::json!({ "_raw": self.arguments }),
        }
    }
}

/// The result of running a tool, fed back to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The [`ToolCall::id`] this result answers.
    pub call_id: String,
    /// Name of the tool that ran (Gemini and Ollama address results by name).
    pub name: String,
    /// What the tool produced, or the error message shown to the model.
    pub content: String,
    /// True when the tool failed; the content then explains why.
    #[serde(default)]
    pub is_error: bool,
    /// What the call did to the project, as the tool declared it (for the context manager's
    /// summaries; never sent to a provider).
    #[serde(default, skip_serializing_if = "ToolEffect::is_none")]
    pub effect: ToolEffect,
}

/// What a tool call did besides answering: the files it wrote, the command it ran.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolEffect {
    /// Root-relative paths of the files the call changed, created, deleted or moved (both
    /// ends of a move), when it got as far as proposing the change.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub written: Vec<String>,
    /// The command the call ran (or asked to run), as shown to the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

impl ToolEffect {
    /// A call that wrote `paths`.
    pub fn written(paths: impl IntoIterator<Item = String>) -> Self {
        Self {
            written: paths.into_iter().collect(),
            command: None,
        }
    }

    /// A call that ran `command`.
    pub fn command(command: impl Into<String>) -> Self {
        Self {
            written: Vec::new(),
            command: Some(command.into()),
        }
    }

    /// True for a call without effects (a read).
    pub fn is_none(&self) -> bool {
        self.written.is_empty() && self.command.is_none()
    }
}

/// An image given to the model, either inline or by URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum ImageRef {
    /// Base64-encoded image bytes.
    Base64 {
        /// MIME type such as `image/png`.
        media_type: String,
        /// Base64 data without a `data:` prefix.
        data: String,
    },
    /// An image the provider fetches itself.
    Url {
        /// Absolute URL.
        url: String,
    },
}

impl ImageRef {
    /// The image as a `data:` URL or its URL, the form OpenAI-style APIs accept.
    pub fn to_url(&self) -> String {
        match self {
            ImageRef::Base64 { media_type, data } => format!("data:{media_type};base64,{data}"),
            ImageRef::Url { url } => url.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_arguments_parse_as_empty_object() {
        let call = ToolCall {
            id: "1".into(),
            name: "list_dir".into(),
            arguments: "  ".into(),
        };
        assert_eq!(call.parse_arguments().unwrap(), serde_json::json!({}));
    }

    #[test]
    fn non_object_arguments_are_kept_raw() {
        let call = ToolCall {
            id: "1".into(),
            name: "read_file".into(),
            arguments: "{\"path\": ".into(),
        };
        assert!(call.parse_arguments().is_err());
        assert_eq!(
            call.arguments_object(),
            serde_json::json!({"_raw": "{\"path\": "})
        );
    }

    #[test]
    fn content_blocks_round_trip_through_json() {
        let message = Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::Thinking {
                    text: "hmm".into(),
                    signature: Some("sig".into()),
                },
                ContentBlock::Text { text: "hi".into() },
                ContentBlock::ToolCall(ToolCall {
                    id: "c1".into(),
                    name: "read_file".into(),
                    arguments: "{}".into(),
                }),
            ],
        };
        let json = serde_json::to_string(&message).unwrap();
        assert!(json.contains("\"type\":\"tool_call\""));
        let back: Message = serde_json::from_str(&json).unwrap();
        assert_eq!(back, message);
        assert_eq!(back.text(), "hi");
        assert_eq!(back.tool_calls().count(), 1);
    }

    #[test]
    fn effects_are_stored_only_when_there_are_some() {
        let mut result = ToolResult {
            call_id: "c".into(),
            name: "read_file".into(),
            content: "x".into(),
            is_error: false,
            effect: ToolEffect::default(),
        };
        let json = serde_json::to_value(&result).unwrap();
        assert!(json.get("effect").is_none(), "{json}");
        result.effect = ToolEffect::written(["src/a.rs".to_string()]);
        let json = serde_json::to_value(&result).unwrap();
        assert_eq!(json["effect"]["written"][0], "src/a.rs");
        assert!(json["effect"].get("command").is_none(), "{json}");
        let back: ToolResult = serde_json::from_value(json).unwrap();
        assert_eq!(back, result);
        assert!(ToolEffect::default().is_none());
        assert!(!ToolEffect::command("make").is_none());
    }
}
