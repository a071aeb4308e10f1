//! What the server tells faces about a session beyond its turns: the conversation so far,
//! the MCP servers, the effective settings and the index's symbols.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::types::ModelPrice;

/// One piece of a saved conversation, as a face shows it again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HistoryEntry {
    /// What the user wrote.
    User {
        /// The text.
        text: String,
    },
    /// What the model answered.
    Assistant {
        /// The text.
        text: String,
    },
    /// The model's reasoning.
    Thinking {
        /// The text.
        text: String,
    },
    /// A tool call the model made.
    ToolCall {
        /// Call identifier.
        call_id: String,
        /// Tool name.
        name: String,
        /// The arguments (the JSON object the model sent, or a string holding its raw text).
        arguments: serde_json::Value,
    },
    /// A tool call's result.
    ToolResult {
        /// The call it answers.
        call_id: String,
        /// What the model received.
        output: String,
        /// Whether it failed.
        is_error: bool,
    },
}

/// Where an MCP server stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum McpServerState {
    /// `enabled = false` in the configuration.
    Disabled,
    /// Starting; its tools appear once it is ready.
    Starting,
    /// Ready; its tools are offered.
    Ready,
    /// It could not start or it stopped (`error` says why); the next call starts it again.
    Failed,
}

/// One MCP server of a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpServerStatus {
    /// The configured name.
    pub name: String,
    /// How it is reached (`command args…` or the URL).
    pub target: String,
    /// Where it stands.
    pub state: McpServerState,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Its tools, as the model calls them (`NAME__tool`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// Its prompts (`/NAME:prompt`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<String>,
}

/// The effective settings of a running session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionSettings {
    /// Provider instance name.
    pub provider: String,
    /// Model.
    pub model: String,
    /// Approval mode (`read-only`, `ask`, `auto-edit`, `full-auto`).
    pub approval: String,
    /// The model's context window in tokens, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u32>,
    /// One line about the code index.
    pub index: String,
    /// One line about the commands' sandbox.
    pub sandbox: String,
    /// The model's price, when known (free for the embedded model and Ollama).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<ModelPrice>,
    /// Project root.
    pub root: String,
}

/// A symbol of the code index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SymbolMatch {
    /// Its name.
    pub name: String,
    /// Its kind and place (`function src/a.rs:12`).
    pub location: String,
}
