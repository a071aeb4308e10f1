//! The vocabulary every layer of hone shares.
//!
//! Providers turn a [`ChatRequest`] into a stream of [`StreamEvent`]s that ends in
//! exactly one terminal event (completed, failed or cancelled); failures carry a
//! [`HoneError`] whose [`ErrorCategory`] tells a front end what to do about it.
//!
//! ```
//! use hone_protocol::{ChatRequest, ResponseCollector, StopReason, StreamEvent};
//!
//! let request = ChatRequest::new("gpt-4o-mini", "Say hi");
//! assert_eq!(request.messages.len(), 1);
//!
//! let mut collector = ResponseCollector::new();
//! collector.push(&StreamEvent::TextDelta { text: "Hi".into() });
//! collector.push(&StreamEvent::Completed { stop_reason: StopReason::EndTurn, usage: None });
//! assert_eq!(collector.message().text(), "Hi");
//! ```

mod collect;
mod error;
mod event;
mod generation;
mod hooks;
mod json_repair;
mod language;
mod message;
mod redact;
mod request;
mod test_paths;
mod tokens;

pub use collect::{Outcome, ResponseCollector};
pub use error::{ErrorCategory, HoneError};
pub use event::{StopReason, StreamEvent, Usage};
pub use generation::{
    GenerationSettings, PROMPT_CACHE_NAMES, PromptCache, SystemPrompt, SystemPromptMode,
    THINKING_LEVELS, Thinking, merge_json,
};
pub use hooks::{HookEvent, ToolMatcher};
pub use json_repair::repair_json;
pub use language::Language;
pub use message::{ContentBlock, ImageRef, Message, Role, ToolCall, ToolEffect, ToolResult};
pub use redact::{REDACTED, Redactor};
pub use request::{ChatRequest, ToolSpec};
pub use test_paths::is_test_path;
pub use tokens::{IMAGE_TOKENS, estimate_tokens};
