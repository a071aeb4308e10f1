//! Prompt-level tool calling, for models or servers without native tool calling.
//!
//! Hone's format is the Hermes/Qwen one: [`rewrite_request`] describes the tools in
//! the system prompt and asks for `<tool_call>{"name": …, "arguments": …}</tool_call>`
//! blocks, with earlier calls and results turned into the same kind of text.
//! [`ToolCallParser`] finds the calls in the model's streamed answer — leniently,
//! since small models also write them as fenced or bare JSON — and [`wrap_stream`]
//! turns a provider's event stream into one with ordinary tool-call events
//! ([`ToolCallEvents`] does the same one event at a time, for a producer that stops
//! generating when the model starts repeating a call).
//!
//! ```
//! use hone_prompt_tools::{Parsed, ToolCallParser, rewrite_request};
//! use hone_protocol::{ChatRequest, ToolSpec};
//!
//! let mut request = ChatRequest::new("qwen2.5-coder:1.5b", "Show me main.rs");
//! request.tools.push(ToolSpec {
//!     name: "read_file".into(),
//!     description: "Read a file".into(),
//!     parameters: serde_json::json!({"type": "object"}),
//! });
//! let rewritten = rewrite_request(&request);
//! assert!(rewritten.tools.is_empty());
//! assert!(rewritten.system.unwrap_or_default().contains("<tools>"));
//!
//! let mut parser = ToolCallParser::new(["read_file"]);
//! let mut parsed = parser.push("Sure.\n```json\n{\"name\": \"read_file\", ");
//! parsed.extend(parser.push("\"arguments\": {\"path\": \"main.rs\"}}\n```"));
//! parsed.extend(parser.finish());
//! assert_eq!(
//!     parsed,
//!     vec![
//!         Parsed::Text("Sure.\n".into()),
//!         Parsed::Call { name: "read_file".into(), arguments: r#"{"path":"main.rs"}"#.into() },
//!     ]
//! );
//! ```

mod json;
mod parser;
mod render;
mod request;
mod stream;

pub use parser::{MAX_HELD_BYTES, Parsed, ToolCallParser};
pub use render::{render_tool_call, render_tool_result, render_tools_prompt};
pub use request::rewrite_request;
pub use stream::{ToolCallEvents, wrap_stream};
