//! The context inspector's vocabulary (what the model receives with the next request, part
//! by part, with the tokens of each) and the project view's (a file's outline).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a part of a request is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ContextPartKind {
    /// hone's own instructions: the system prompt's rules (and the request's framing).
    System,
    /// The repository map in the system prompt.
    RepoMap,
    /// The project's instruction files (`AGENTS.md`, …).
    Instructions,
    /// The task memory (once older messages were compacted or trimmed).
    Task,
    /// The summary of compacted turns.
    Summary,
    /// The tool definitions.
    Tools,
    /// A pinned (tracked) file's latest snapshot.
    Tracked,
    /// Code localisation attached to a request.
    Localized,
    /// The conversation: the user's messages, the model's replies and tool calls.
    History,
    /// What tools returned.
    ToolResults,
}

/// One part of the next request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ContextPart {
    /// What it is.
    pub kind: ContextPartKind,
    /// A short name (`AGENTS.md`, `src/main.rs`, `14 tool definitions`).
    pub label: String,
    /// Why the model receives it, in one line.
    pub why: String,
    /// Its share of the request's estimated tokens (calibrated; the parts add up to the
    /// request's `tokens`).
    pub tokens: u64,
    /// For a pinned file: its root-relative path (to unpin it with `files.untrack`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// One definition in a file's outline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OutlineItem {
    /// Its name (`add`, `Cart`, `Display for Cart`).
    pub name: String,
    /// `function`, `class`, `type` or `field`.
    pub kind: String,
    /// The 1-based line its declaration starts on.
    pub line: u32,
    /// 0 for a top-level definition, 1 for a member, …
    pub depth: u32,
}

/// Which audit log `logs.read` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LogKind {
    /// `comms.jsonl`: every model request (the messages new since the previous one) and
    /// response.
    Comms,
    /// `tools.jsonl`: every tool call with its full result.
    Tools,
}

/// One line of an audit log, as written (secrets already redacted).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LogEntry {
    /// When it was written, in milliseconds since the Unix epoch.
    pub time_ms: u64,
    /// For the comms log: `request`, `response`, `compaction request` or `compaction
    /// response`; for the tools log: the tool's name.
    pub label: String,
    /// One line about it: the model and the new messages of a request, the tokens and the
    /// outcome of a response, the arguments of a tool call.
    pub summary: String,
    /// A failed response or a tool call that failed.
    #[serde(default)]
    pub is_error: bool,
    /// The line's size in bytes.
    pub bytes: u64,
    /// The whole line as JSON; absent when it is too large to send (then `bytes` says how
    /// large, and the file under `.hone/logs/` holds it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<serde_json::Value>,
}
