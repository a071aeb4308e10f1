//! What front ends send: [`Request`]s, each in a [`RequestFrame`] with the front end's id.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::ImageAttachment;
use crate::types::{ApprovalDecision, ConflictChoice, ErrorChoice};

/// One request with the id the front end gave it. On the wire the id sits beside the
/// request's own fields: `{"id":"7","type":"user.message","text":"fix the tests"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RequestFrame {
    /// Chosen by the front end, unique among its requests; the events that answer the
    /// request carry it as `request_id`.
    pub id: String,
    /// The request.
    #[serde(flatten)]
    pub request: Request,
}

impl RequestFrame {
    /// `request` with `id`.
    pub fn new(id: impl Into<String>, request: Request) -> Self {
        Self {
            id: id.into(),
            request,
        }
    }
}

/// What a front end asks of a session, or of the session manager (`session.*`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type")]
pub enum Request {
    /// Start a turn with this user message (queued if a turn is running). Every event of
    /// the turn carries this request's id.
    #[serde(rename = "user.message")]
    UserMessage {
        /// What the user typed.
        text: String,
        /// Images attached to the message, sent to the model after the text.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<ImageAttachment>,
    },
    /// Answer an `approval.needed` event.
    #[serde(rename = "approval.answer")]
    Approval {
        /// The call being answered.
        call_id: String,
        /// The answer.
        decision: ApprovalDecision,
    },
    /// Cancel the running turn (no effect when idle); the turn ends with `turn.cancelled`.
    #[serde(rename = "turn.cancel")]
    Cancel,
    /// Answer a `turn.error` event.
    #[serde(rename = "error.answer")]
    ErrorChoice {
        /// What to do about the failed model request.
        choice: ErrorChoice,
    },
    /// Answer an `edit.conflict` event.
    #[serde(rename = "conflict.answer")]
    ConflictChoice {
        /// What to do about the edit.
        choice: ConflictChoice,
    },
    /// Write a file for the user (the terminal UI's `/init` writes `AGENTS.md`): shown as
    /// `diff.proposed`, decided by the approval policy (`approval.needed` when it asks),
    /// applied and journaled like the model's edits; ends with `tool.completed` (tool
    /// `write_file`).
    #[serde(rename = "file.write")]
    WriteFile {
        /// Path relative to the project root.
        path: String,
        /// The complete new content.
        content: String,
    },
    /// Undo the latest `count` applied edits of the project (all or none; with a session
    /// store the journal spans sessions and restarts). Answered by `undo.completed` or
    /// `undo.failed`.
    #[serde(rename = "undo.apply")]
    Undo {
        /// How many edits to take back.
        count: usize,
    },
    /// List the undo stack; answered by `undo.stack`.
    #[serde(rename = "undo.list")]
    ListUndo,
    /// Compact the conversation now: stale file contents are stubbed and all but the latest
    /// turn are summarised. Answered by `context.compacted` (or an `error` when there is
    /// nothing to compact).
    #[serde(rename = "context.compact")]
    Compact,
    /// What the model would receive with the next request, part by part (instructions,
    /// tools, pinned files, the repo map, localised code, history, tool results) with the
    /// tokens of each, built as a turn builds it. Answered by `context.inspected`.
    #[serde(rename = "context.inspect")]
    InspectContext {
        /// A message about to be sent: the request as it would be with it (its localised
        /// code is found only when the turn starts). Absent: the conversation as it stands.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// The project's files as hone's file tools see them (ignored files and `.git/` left
    /// out), sorted. Answered by `project.files`.
    #[serde(rename = "project.files")]
    ProjectFiles {
        /// At most this many (5000 when absent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<u32>,
    },
    /// A project file's text with its outline, read-only, through the same path checks as
    /// the model's tools (inside the project, symlinks not followed; files that may hold
    /// secrets refused). Answered by `file.content`, or an `error`.
    #[serde(rename = "file.read")]
    ReadFile {
        /// Path relative to the project root.
        path: String,
    },
    /// The repository map the session's system prompt holds. Answered by `project.map`.
    #[serde(rename = "project.map")]
    RepoMap,
    /// This session's entries of an audit log under `.hone/logs/` (the model requests and
    /// responses, or the tool calls with their results), oldest first, as written: secrets
    /// redacted. The session's entries are those of its current run and, for a saved
    /// session, of its earlier runs. Answered by `logs.entries`.
    #[serde(rename = "logs.read")]
    ReadLogs {
        /// `comms` or `tools`.
        kind: crate::LogKind,
        /// Only entries written after this time (milliseconds since the Unix epoch: the
        /// `time_ms` of the newest entry already shown).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after_ms: Option<u64>,
        /// At most this many, the newest (200 when absent, at most 1000).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<u32>,
    },
    /// Pin files into the context by path, directory or glob (`src/**/*.rs`): in full, or
    /// as outlines with `summary`. Their snapshots go with the next message and are
    /// refreshed after tool rounds that change them. Answered by `files.tracked`.
    #[serde(rename = "files.track")]
    TrackFiles {
        /// Paths, directories or globs relative to the project root.
        patterns: Vec<String>,
        /// Outlines instead of full contents.
        #[serde(default)]
        summary: bool,
    },
    /// Unpin tracked files (paths, directories or globs). Answered by `files.tracked`.
    #[serde(rename = "files.untrack")]
    UntrackFiles {
        /// Paths, directories or globs.
        patterns: Vec<String>,
    },
    /// Start a new session in the project, replacing the running one. Answered by
    /// `session.started`.
    #[serde(rename = "session.new")]
    NewSession {
        /// Use this model instead of the configured one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
        /// Where the user is (an absolute path): the session runs in the project around
        /// it (found as `hone` finds it). Absent: the server's project.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
        /// Run the session as this role of `[roles]` (e.g. `refactor`): its profile, or its
        /// model and provider. A role that is not set leaves the session as configured.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        role: Option<String>,
    },
    /// Continue a saved session, replacing the running one. Answered by `session.started`,
    /// or an `error` when no session matches. On `hone app-server`, a session another
    /// client already runs is joined: both receive its events.
    #[serde(rename = "session.resume")]
    ResumeSession {
        /// A session id, a unique prefix of one, or `last` for the project's latest.
        session_id: String,
        /// Use this model instead of the one the session last used.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
        /// Where the user is (an absolute path), as for `session.new`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
    },
    /// Copy a saved session's conversation into a new session and continue there (the
    /// original stays as it is). Answered by `session.started` (with `forked_from`).
    #[serde(rename = "session.fork")]
    ForkSession {
        /// A session id, a unique prefix of one, or `last`.
        session_id: String,
    },
    /// The user's prompts in the running session, oldest first, as points to rewind to.
    /// Answered by `session.rewind_points`.
    #[serde(rename = "session.rewind_points")]
    RewindPoints,
    /// Rewind the running session to before one of its prompts: the messages from that
    /// prompt on are dropped and the files the session changed since are restored through
    /// the undo journal (all or none: a file changed since by someone else refuses the
    /// rewind, changing nothing). Answered by `session.rewound`, then `session.started` for
    /// the session that goes on (the fork, or the same session reloaded).
    #[serde(rename = "session.rewind")]
    Rewind {
        /// The prompt's number (`prompt` of a `session.rewind_points` entry).
        prompt: u32,
        /// Go on in a new session (a fork ending before the prompt); the original keeps
        /// every message.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        fork: bool,
        /// Leave the files as they are: only the conversation goes back.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        keep_files: bool,
    },
    /// List the project's saved sessions, newest first. Answered by `session.listed`.
    #[serde(rename = "session.list")]
    ListSessions {
        /// At most this many (all when absent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<u32>,
    },
    /// Delete a saved session and its messages (not the running one). Answered by
    /// `session.deleted`.
    #[serde(rename = "session.delete")]
    DeleteSession {
        /// A session id or a unique prefix of one.
        session_id: String,
    },
    /// Go on with the running session's conversation on another model. Answered by
    /// `session.started` (same `session_id`, the new `model`).
    #[serde(rename = "session.set_model")]
    SetModel {
        /// The model name.
        model: String,
    },
    /// End the session (a running turn is cancelled first).
    #[serde(rename = "session.shutdown")]
    Shutdown,
    /// The running session's conversation so far (what a face shows when it opens a saved
    /// session). Answered by `session.history`.
    #[serde(rename = "session.history")]
    History,
    /// A saved session's full transcript. Answered by `session.exported`.
    #[serde(rename = "session.export")]
    ExportSession {
        /// A session id, a unique prefix of one, or `last`.
        session_id: String,
        /// `markdown` (the default) or `json`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        format: Option<String>,
    },
    /// Change the running session's approval mode (its command sandbox stays as started).
    /// Answered by `approval.mode`.
    #[serde(rename = "session.set_approval")]
    SetApproval {
        /// `read-only`, `ask`, `auto-edit` or `full-auto`.
        mode: String,
    },
    /// Change how much the model reasons in the running session's agent requests (a guided
    /// step's role keeps its own profile). Answered by `thinking.level`.
    #[serde(rename = "session.set_thinking")]
    SetThinking {
        /// `off`, `low`, `medium`, `high`, or a token budget such as `4096`.
        level: String,
    },
    /// Expand the `@path` mentions of a message (files and directory listings of the
    /// project, within the mention budget). Answered by `mentions.expanded`.
    #[serde(rename = "mentions.expand")]
    ExpandMentions {
        /// The message as typed.
        text: String,
    },
    /// The project's earlier inputs, oldest first. Answered by `history.listed`.
    #[serde(rename = "history.list")]
    InputHistory {
        /// At most this many of the latest (500 when absent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<u32>,
    },
    /// Store one input in the project's history. Answered by `history.listed` with the
    /// stored entry.
    #[serde(rename = "history.add")]
    RememberInput {
        /// What the user typed.
        text: String,
    },
    /// Where the code index stands. Answered by `index.status`.
    #[serde(rename = "index.status")]
    IndexStatus,
    /// Bring the code index up to date now. Answered by `index.status`.
    #[serde(rename = "index.update")]
    Reindex,
    /// Symbols from the code index whose names start with `prefix` (completion).
    /// Answered by `index.symbols`.
    #[serde(rename = "index.symbols")]
    Symbols {
        /// The start of the name.
        prefix: String,
        /// At most this many (20 when absent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<u32>,
    },
    /// A first `AGENTS.md` for the project (languages, layout, entry points, build and test
    /// commands), drafted, not written: send it back with `file.write`. Answered by
    /// `init.drafted`.
    #[serde(rename = "project.init")]
    DraftInstructions,
    /// The running session's MCP servers: state, tools and prompts. Answered by
    /// `mcp.status`.
    #[serde(rename = "mcp.status")]
    McpStatus,
    /// The text of a prompt of one of the session's MCP servers, to send as a message.
    /// Answered by `mcp.prompt`.
    #[serde(rename = "mcp.prompt")]
    McpPrompt {
        /// The server's configured name.
        server: String,
        /// The prompt's name.
        prompt: String,
        /// `key=value` words.
        #[serde(default)]
        arguments: String,
    },
    /// The effective settings of the running session (provider, model, approval mode,
    /// context window, index, sandbox, price). Answered by `settings`.
    #[serde(rename = "settings.get")]
    Settings,
}

impl Request {
    /// Every request's wire name, in the order of the variants.
    pub const METHODS: [&'static str; 38] = [
        "user.message",
        "approval.answer",
        "turn.cancel",
        "error.answer",
        "conflict.answer",
        "file.write",
        "undo.apply",
        "undo.list",
        "context.compact",
        "context.inspect",
        "project.files",
        "file.read",
        "project.map",
        "logs.read",
        "files.track",
        "files.untrack",
        "session.new",
        "session.resume",
        "session.fork",
        "session.rewind_points",
        "session.rewind",
        "session.list",
        "session.delete",
        "session.set_model",
        "session.shutdown",
        "session.history",
        "session.export",
        "session.set_approval",
        "mentions.expand",
        "history.list",
        "history.add",
        "index.status",
        "index.update",
        "index.symbols",
        "project.init",
        "mcp.status",
        "mcp.prompt",
        "settings.get",
    ];

    /// A user message of `text` without images.
    pub fn user_message(text: impl Into<String>) -> Self {
        Request::UserMessage {
            text: text.into(),
            images: Vec::new(),
        }
    }

    /// The request's wire name (its `type`, the JSON-RPC `method`).
    pub fn method(&self) -> &'static str {
        match self {
            Request::UserMessage { .. } => "user.message",
            Request::Approval { .. } => "approval.answer",
            Request::Cancel => "turn.cancel",
            Request::ErrorChoice { .. } => "error.answer",
            Request::ConflictChoice { .. } => "conflict.answer",
            Request::WriteFile { .. } => "file.write",
            Request::Undo { .. } => "undo.apply",
            Request::ListUndo => "undo.list",
            Request::Compact => "context.compact",
            Request::InspectContext { .. } => "context.inspect",
            Request::ProjectFiles { .. } => "project.files",
            Request::ReadFile { .. } => "file.read",
            Request::RepoMap => "project.map",
            Request::ReadLogs { .. } => "logs.read",
            Request::TrackFiles { .. } => "files.track",
            Request::UntrackFiles { .. } => "files.untrack",
            Request::NewSession { .. } => "session.new",
            Request::ResumeSession { .. } => "session.resume",
            Request::ForkSession { .. } => "session.fork",
            Request::RewindPoints => "session.rewind_points",
            Request::Rewind { .. } => "session.rewind",
            Request::ListSessions { .. } => "session.list",
            Request::DeleteSession { .. } => "session.delete",
            Request::SetModel { .. } => "session.set_model",
            Request::Shutdown => "session.shutdown",
            Request::History => "session.history",
            Request::ExportSession { .. } => "session.export",
            Request::SetApproval { .. } => "session.set_approval",
            Request::SetThinking { .. } => "session.set_thinking",
            Request::ExpandMentions { .. } => "mentions.expand",
            Request::InputHistory { .. } => "history.list",
            Request::RememberInput { .. } => "history.add",
            Request::IndexStatus => "index.status",
            Request::Reindex => "index.update",
            Request::Symbols { .. } => "index.symbols",
            Request::DraftInstructions => "project.init",
            Request::McpStatus => "mcp.status",
            Request::McpPrompt { .. } => "mcp.prompt",
            Request::Settings => "settings.get",
        }
    }
}
