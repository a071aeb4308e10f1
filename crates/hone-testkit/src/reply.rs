//! A wire-independent script of one model reply, rendered into any provider's stream.

use serde_json::Value;

use crate::MockResponse;

/// One piece of a scripted reply, in the order the model produces it.
#[derive(Debug, Clone, PartialEq)]
pub enum ReplyItem {
    /// Reasoning text.
    Thinking(String),
    /// Answer text.
    Text(String),
    /// A tool call with its arguments as JSON text.
    ToolCall {
        /// Call identifier.
        id: String,
        /// Tool name.
        name: String,
        /// Arguments as compact JSON text.
        arguments: String,
    },
}

/// Why the scripted reply stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyStop {
    /// Natural end (or tool use when the reply holds calls).
    Natural,
    /// Output token limit.
    MaxTokens,
}

/// Token usage reported at the end of the reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReplyUsage {
    /// Prompt tokens.
    pub input: u64,
    /// Generated tokens.
    pub output: u64,
    /// Prompt tokens served from cache.
    pub cached: u64,
    /// Reasoning tokens.
    pub reasoning: u64,
}

/// A scripted reply: text, thinking and tool calls, plus how to cut them into chunks.
///
/// ```
/// use hone_testkit::Reply;
/// let reply = Reply::new()
///     .text("Hello, world")
///     .tool_call("read_file", serde_json::json!({"path": "src/main.rs"}))
///     .usage(12, 7);
/// let response = reply.openai_chat();
/// assert!(response.chunk_count() > 5);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The pieces, in order.
    pub items: Vec<ReplyItem>,
    /// Usage reported in the final chunk.
    pub usage: Option<ReplyUsage>,
    /// How the reply stops.
    pub stop: ReplyStop,
    /// Text and thinking are cut into pieces of this many characters (mid-word).
    pub text_piece_chars: usize,
    /// Tool-call arguments are cut into this many fragments.
    pub argument_fragments: usize,
    /// Whether a keep-alive comment/ping is sent before the first event.
    pub keep_alive: bool,
}

impl Default for Reply {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            usage: None,
            stop: ReplyStop::Natural,
            text_piece_chars: 3,
            argument_fragments: 6,
            keep_alive: true,
        }
    }
}

impl Reply {
    /// An empty reply cut into 3-character text pieces and 6 argument fragments.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds answer text.
    #[must_use]
    pub fn text(mut self, text: &str) -> Self {
        self.items.push(ReplyItem::Text(text.to_string()));
        self
    }

    /// Adds reasoning text.
    #[must_use]
    pub fn thinking(mut self, text: &str) -> Self {
        self.items.push(ReplyItem::Thinking(text.to_string()));
        self
    }

    /// Adds a tool call; its id is `call_N` in order of appearance.
    #[must_use]
    pub fn tool_call(mut self, name: &str, arguments: Value) -> Self {
        let id = format!("call_{}", self.tool_calls().count());
        self.items.push(ReplyItem::ToolCall {
            id,
            name: name.to_string(),
            arguments: arguments.to_string(),
        });
        self
    }

    /// Reports usage at the end of the stream.
    #[must_use]
    pub fn usage(mut self, input: u64, output: u64) -> Self {
        self.usage = Some(ReplyUsage {
            input,
            output,
            ..ReplyUsage::default()
        });
        self
    }

    /// Reports usage including cached prompt tokens and reasoning tokens.
    #[must_use]
    pub fn full_usage(mut self, usage: ReplyUsage) -> Self {
        self.usage = Some(usage);
        self
    }

    /// Stops because of the output token limit.
    #[must_use]
    pub fn max_tokens(mut self) -> Self {
        self.stop = ReplyStop::MaxTokens;
        self
    }

    /// Cuts text into pieces of `chars` characters.
    #[must_use]
    pub fn text_pieces(mut self, chars: usize) -> Self {
        self.text_piece_chars = chars.max(1);
        self
    }

    /// Cuts each call's arguments into `count` fragments.
    #[must_use]
    pub fn argument_fragments(mut self, count: usize) -> Self {
        self.argument_fragments = count.max(1);
        self
    }

    /// The tool calls of the reply as `(id, name, arguments)`.
    pub fn tool_calls(&self) -> impl Iterator<Item = (&str, &str, &str)> {
        self.items.iter().filter_map(|item| match item {
            ReplyItem::ToolCall {
                id,
                name,
                arguments,
            } => Some((id.as_str(), name.as_str(), arguments.as_str())),
            _ => None,
        })
    }

    /// All answer text joined.
    pub fn full_text(&self) -> String {
        self.items
            .iter()
            .filter_map(|item| match item {
                ReplyItem::Text(text) => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// Whether the reply ends in tool calls.
    pub fn has_tool_calls(&self) -> bool {
        self.tool_calls().next().is_some()
    }

    /// Rendered as an OpenAI Chat Completions SSE stream.
    pub fn openai_chat(&self) -> MockResponse {
        crate::wire::openai_chat::render(self)
    }

    /// Rendered as an OpenAI Responses SSE stream.
    pub fn openai_responses(&self) -> MockResponse {
        crate::wire::openai_responses::render(self)
    }

    /// Rendered as an Anthropic Messages SSE stream.
    pub fn anthropic(&self) -> MockResponse {
        crate::wire::anthropic::render(self)
    }

    /// Rendered as a Gemini `streamGenerateContent?alt=sse` stream.
    pub fn gemini(&self) -> MockResponse {
        crate::wire::gemini::render(self)
    }

    /// Rendered as an Ollama `/api/chat` NDJSON stream.
    pub fn ollama(&self) -> MockResponse {
        crate::wire::ollama::render(self)
    }
}

/// Cuts `text` into pieces of at most `chars` characters.
pub fn pieces(text: &str, chars: usize) -> Vec<String> {
    let characters: Vec<char> = text.chars().collect();
    characters
        .chunks(chars.max(1))
        .map(|piece| piece.iter().collect())
        .collect()
}

/// Cuts `text` into `count` fragments of roughly equal length (fewer when it is short).
pub fn fragments(text: &str, count: usize) -> Vec<String> {
    let length = text.chars().count();
    let size = length.div_ceil(count.max(1)).max(1);
    pieces(text, size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_split_mid_word_and_keep_unicode_whole() {
        assert_eq!(pieces("héllo", 2), ["hé", "ll", "o"]);
        assert_eq!(fragments("{\"path\":\"a.rs\"}", 5).len(), 5);
        assert_eq!(fragments("{}", 6), ["{", "}"]);
    }

    #[test]
    fn tool_calls_get_sequential_ids() {
        let reply = Reply::new()
            .tool_call("a", serde_json::json!({}))
            .tool_call("b", serde_json::json!({"x": 1}));
        let ids: Vec<_> = reply
            .tool_calls()
            .map(|(id, _, _)| id.to_string())
            .collect();
        assert_eq!(ids, ["call_0", "call_1"]);
        assert!(reply.has_tool_calls());
    }
}
