//! What sessions tell front ends: [`Event`]s, each in an [`EventFrame`] with the id of the
//! request it answers.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::inspect::{ContextPart, OutlineItem};
use crate::rewind::RewindPoint;
use crate::status::{HistoryEntry, McpServerStatus, SessionSettings, SymbolMatch};
use crate::types::{
    ApprovedBy, CheckResult, CompactionMethod, ConflictChoice, ErrorChoice, ErrorInfo,
    LocalizedItem, RunStatus, SessionSummary, TaskKind, TrackedInfo, TurnEnd, TurnStats, UndoEntry,
    Usage,
};

/// One event with the id of the request it answers. On the wire the id sits beside the
/// event's own fields: `{"request_id":"7","type":"turn.started","turn":1}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EventFrame {
    /// The id of the request this event answers; for the events of a turn, the id of the
    /// `user.message` that started it. Absent on events no request asked for (a session
    /// started with the front end, an error before any request).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The event.
    #[serde(flatten)]
    pub event: Event,
}

impl EventFrame {
    /// `event` answering the request `request_id`.
    pub fn new(request_id: Option<String>, event: Event) -> Self {
        Self { request_id, event }
    }
}

/// What a session tells its front end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type")]
pub enum Event {
    /// The session is ready: the first event of a session, and the answer to
    /// `session.new`, `session.resume`, `session.fork` and `session.set_model`.
    #[serde(rename = "session.started")]
    SessionStarted {
        /// Provider instance name.
        provider: String,
        /// Model.
        model: String,
        /// Approval mode.
        approval: String,
        /// Project root.
        root: String,
        /// The id of the saved session (none when the session is not saved).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session_id: Option<String>,
        /// The saved session it was forked from.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        forked_from: Option<String>,
    },
    /// The project's saved sessions, answering `session.list`.
    #[serde(rename = "session.listed")]
    SessionList {
        /// Newest first.
        sessions: Vec<SessionSummary>,
    },
    /// A saved session was deleted, answering `session.delete`.
    #[serde(rename = "session.deleted")]
    SessionDeleted {
        /// The full id of the deleted session.
        session_id: String,
    },
    /// A turn began.
    #[serde(rename = "turn.started")]
    TurnStarted {
        /// 1-based turn number in this session.
        turn: u32,
    },
    /// The model request failed with a transient error (rate limit, overload, connection)
    /// and is sent again after `delay_ms`; sent when the wait starts.
    #[serde(rename = "model.retrying")]
    ModelRetrying {
        /// Which retry this is (1 for the first).
        attempt: u32,
        /// How long hone waits before sending again, in milliseconds.
        delay_ms: u64,
        /// The HTTP status that caused it (429, 503, …); `None` for a connection failure.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<u16>,
        /// What went wrong, in one line.
        reason: String,
    },
    /// More answer text.
    #[serde(rename = "message.delta")]
    MessageDelta {
        /// The new text.
        text: String,
    },
    /// More reasoning text.
    #[serde(rename = "thinking.delta")]
    ThinkingDelta {
        /// The new text.
        text: String,
    },
    /// One model reply is complete (it may be followed by tool calls).
    #[serde(rename = "message.completed")]
    MessageCompleted {
        /// The reply's full text.
        text: String,
    },
    /// The model asked for a tool call.
    #[serde(rename = "tool.requested")]
    ToolRequested {
        /// Call identifier.
        call_id: String,
        /// Tool name.
        name: String,
        /// The arguments: the JSON object the model sent (a string holding its raw text
        /// when that was not JSON).
        arguments: serde_json::Value,
    },
    /// A call needs the user's decision; answer with an `approval.answer` request.
    #[serde(rename = "approval.needed")]
    ApprovalNeeded {
        /// Call identifier.
        call_id: String,
        /// Tool name.
        name: String,
        /// One line: what would happen.
        summary: String,
        /// Why it asks (policy reason, destructive rewrite, …).
        reason: String,
        /// The unified diff of a proposed edit.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        diff: Option<String>,
        /// The command that would run.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        command: Option<String>,
        /// For a single-file edit, the proposed new content (what an "edit first" answer replaces).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<String>,
    },
    /// A call was allowed.
    #[serde(rename = "tool.approved")]
    ToolApproved {
        /// Call identifier.
        call_id: String,
        /// Who allowed it.
        by: ApprovedBy,
    },
    /// A call was refused (by policy or the user); the model is told why.
    #[serde(rename = "tool.denied")]
    ToolDenied {
        /// Call identifier.
        call_id: String,
        /// Why.
        reason: String,
    },
    /// An edit's diff, shown before it is applied.
    #[serde(rename = "diff.proposed")]
    DiffProposed {
        /// Call identifier.
        call_id: String,
        /// Unified diff.
        diff: String,
    },
    /// An edit was written to disk.
    #[serde(rename = "diff.applied")]
    DiffApplied {
        /// Call identifier.
        call_id: String,
        /// Root-relative paths written.
        paths: Vec<String>,
        /// Unified diff.
        diff: String,
    },
    /// A tool call finished.
    #[serde(rename = "tool.completed")]
    ToolCompleted {
        /// Call identifier.
        call_id: String,
        /// Tool name.
        name: String,
        /// What the model receives.
        output: String,
        /// Whether it failed.
        is_error: bool,
        /// For a command that ran to its end, its exit code (absent for other tools, and
        /// for a command that was killed, timed out or started in the background).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit_code: Option<i32>,
        /// Time the call took to run, in milliseconds; time spent waiting for the user's
        /// approval or choice is not counted.
        duration_ms: u64,
    },
    /// Token usage of one model request.
    #[serde(rename = "usage")]
    Usage {
        /// Usage of the request.
        usage: Usage,
    },
    /// The turn ended normally.
    #[serde(rename = "turn.completed")]
    TurnCompleted {
        /// Why it ended.
        end: TurnEnd,
        /// Totals.
        stats: TurnStats,
    },
    /// The turn failed.
    #[serde(rename = "turn.failed")]
    TurnFailed {
        /// What went wrong.
        error: ErrorInfo,
        /// Totals so far.
        stats: TurnStats,
    },
    /// The turn was cancelled.
    #[serde(rename = "turn.cancelled")]
    TurnCancelled {
        /// Totals so far.
        stats: TurnStats,
    },
    /// Something the user should know that did not end the turn.
    #[serde(rename = "error")]
    Error {
        /// What happened.
        error: ErrorInfo,
    },
    /// Edits were undone.
    #[serde(rename = "undo.completed")]
    UndoCompleted {
        /// Summaries of the edits taken back, newest first (empty: nothing to undo).
        undone: Vec<String>,
    },
    /// An undo was refused or failed; no file was changed.
    #[serde(rename = "undo.failed")]
    UndoFailed {
        /// What went wrong, e.g. which file changed after the edit.
        message: String,
        /// Whether a file changed after the edit (undo would have lost that change).
        conflict: bool,
    },
    /// The undo stack, answering an `undo.list` request.
    #[serde(rename = "undo.stack")]
    UndoStack {
        /// Edits that can be undone, newest first.
        entries: Vec<UndoEntry>,
    },
    /// A model request failed; the turn waits for a an `error.answer` (interactive
    /// sessions only: otherwise the turn fails at once).
    #[serde(rename = "turn.error")]
    TurnError {
        /// What went wrong.
        error: ErrorInfo,
        /// What the front end may answer.
        choices: Vec<ErrorChoice>,
    },
    /// An edit's file changed since the model read it or since the edit was planned; the
    /// call waits for a a `conflict.answer` (interactive sessions only: otherwise
    /// the model is told to read the file again).
    #[serde(rename = "edit.conflict")]
    EditConflict {
        /// The edit's tool call.
        call_id: String,
        /// What changed, e.g. `src/a.rs changed after it was read (…)`.
        message: String,
        /// What the front end may answer.
        choices: Vec<ConflictChoice>,
    },
    /// Code the request names was found and attached to it (localisation), before the
    /// turn's first model request.
    #[serde(rename = "context.localized")]
    ContextLocalized {
        /// The attached pieces: file, lines, symbols and why each was picked.
        items: Vec<LocalizedItem>,
        /// Estimated tokens of the attached text.
        tokens: u64,
    },
    /// How the guided flow handles the turn (only in the guided flow).
    #[serde(rename = "turn.step")]
    TurnStep {
        /// What the request asks for; `None` when neither the rules nor a planner could
        /// tell.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        task: Option<TaskKind>,
        /// Whether a purpose-made step without tools runs (else the agent loop).
        guided: bool,
    },
    /// Compaction starts (automatic, near the window's end, or asked for); a
    /// `context.compacted` follows when something was compacted.
    #[serde(rename = "context.compacting")]
    ContextCompacting {
        /// Estimated tokens of the request before.
        before_tokens: u64,
        /// Whether the user asked for it (`/compact`), else hone started it.
        manual: bool,
    },
    /// Older turns were compacted to keep the conversation inside the context window.
    #[serde(rename = "context.compacted")]
    ContextCompacted {
        /// Estimated tokens of the request before.
        before_tokens: u64,
        /// Estimated tokens of the request after.
        after_tokens: u64,
        /// Who wrote the summary: the model, or hone's rules (also when only stale tool
        /// results were dropped).
        method: CompactionMethod,
    },
    /// What the model would receive with the next request, answering `context.inspect`.
    #[serde(rename = "context.inspected")]
    ContextInspected {
        /// The parts in the order the request holds them; their tokens add up to `tokens`.
        parts: Vec<ContextPart>,
        /// hone's estimate of the whole request (calibrated by the provider's reports).
        tokens: u64,
        /// The model's context window, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        window: Option<u32>,
        /// Older messages left out to fit the window (compaction makes room before that).
        #[serde(default)]
        trimmed: u64,
        /// Pinned files whose snapshot goes with the next message (not counted yet).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pending: Vec<String>,
    },
    /// The project's files, answering `project.files`.
    #[serde(rename = "project.files")]
    ProjectFiles {
        /// Root-relative paths, `/`-separated, sorted.
        files: Vec<String>,
        /// Whether there were more than the limit.
        #[serde(default)]
        truncated: bool,
    },
    /// A project file, answering `file.read`.
    #[serde(rename = "file.content")]
    FileContent {
        /// Root-relative path.
        path: String,
        /// Its text.
        content: String,
        /// Its definitions in order (empty when the language is not known).
        outline: Vec<OutlineItem>,
    },
    /// The repository map, answering `project.map`.
    #[serde(rename = "project.map")]
    RepoMap {
        /// The map as the system prompt holds it; absent when the session has none (no
        /// code index when it started).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        map: Option<String>,
    },
    /// Entries of an audit log, answering `logs.read`.
    #[serde(rename = "logs.entries")]
    LogEntries {
        /// The log they come from.
        kind: crate::LogKind,
        /// Oldest first.
        entries: Vec<crate::LogEntry>,
        /// Whether older entries of the session were left out (the limit, or the size of
        /// one answer).
        #[serde(default)]
        truncated: bool,
        /// Whether this session writes audit logs at all (not when the project's `.hone`
        /// is a symlink, nor in helper sessions).
        enabled: bool,
    },
    /// How full the context window is, after each model response.
    #[serde(rename = "context.usage")]
    ContextUsage {
        /// Tokens in use (the provider's count when reported, else hone's estimate).
        used: u64,
        /// The model's context window, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        window: Option<u32>,
        /// `used` as a percentage of `window`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        percent: Option<f64>,
    },
    /// Checks after edits are starting (the turn changed files).
    #[serde(rename = "checks.started")]
    ChecksStarted {
        /// Root-relative paths changed since the last checks.
        files: Vec<String>,
    },
    /// Checks after edits finished.
    #[serde(rename = "checks.completed")]
    ChecksCompleted {
        /// Whether every check that ran passed.
        passed: bool,
        /// Every check, in the order they ran (skipped ones included).
        checks: Vec<CheckResult>,
        /// One line per failing check: `name: first error line`.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        failures: Vec<String>,
        /// When they failed and the model is asked to fix them: which repair round this is
        /// (1-based); none when the result is final.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        repair_round: Option<u32>,
        /// The repair rounds allowed per turn.
        max_repair_rounds: u32,
    },
    /// One attempt at a change a check reproduced before it (`[checks] attempts`) ended:
    /// kept when every check passed (or it was the last one allowed), else rolled back
    /// through the undo journal (the files as they were) and followed by a fresh attempt.
    #[serde(rename = "attempt.completed")]
    AttemptCompleted {
        /// Which attempt this was (1-based).
        attempt: u32,
        /// The attempts allowed per turn.
        attempts: u32,
        /// Whether every check passed after it.
        passed: bool,
        /// The files put back as they were; empty when the change was kept.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        rolled_back: Vec<String>,
        /// One line per failing check: `name: first error line`.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        failures: Vec<String>,
        /// The attempt changed no file (the model wrote the code back as it was), so the
        /// failure it should have fixed is still there.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        unchanged: bool,
    },
    /// The tracked files changed (answering `files.track` or
    /// `files.untrack`).
    #[serde(rename = "files.tracked")]
    FilesTracked {
        /// Every tracked file now.
        files: Vec<TrackedInfo>,
        /// Paths just added.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        added: Vec<String>,
        /// Paths just removed.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        removed: Vec<String>,
        /// Patterns that named nothing.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        unmatched: Vec<String>,
        /// Files that could not be tracked, with the reason.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        skipped: Vec<String>,
    },
    /// Something the user should know about how the session runs (no code index, MCP
    /// servers of an untrusted project file ignored, …); nothing stopped.
    #[serde(rename = "warning")]
    Warning {
        /// One line, without a `warning:` prefix.
        message: String,
    },
    /// The session's conversation so far, answering `session.history`.
    #[serde(rename = "session.history")]
    SessionHistory {
        /// Oldest first.
        entries: Vec<HistoryEntry>,
    },
    /// The running session's prompts, oldest first, answering `session.rewind_points`.
    #[serde(rename = "session.rewind_points")]
    RewindPoints {
        /// The prompts it can be rewound to.
        points: Vec<RewindPoint>,
    },
    /// A session was rewound, answering `session.rewind`.
    #[serde(rename = "session.rewound")]
    Rewound {
        /// The session that now ends before the prompt (a new one when forked).
        session_id: String,
        /// The session it was forked from, when forked.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        forked_from: Option<String>,
        /// The prompt's text, to edit and send again.
        text: String,
        /// The edits taken back, newest first.
        undone: Vec<UndoEntry>,
    },
    /// A saved session's transcript, answering `session.export`.
    #[serde(rename = "session.exported")]
    SessionExported {
        /// The full id of the session.
        session_id: String,
        /// `markdown` or `json`.
        format: String,
        /// The transcript.
        text: String,
    },
    /// The session's approval mode, answering `session.set_approval`.
    #[serde(rename = "approval.mode")]
    ApprovalMode {
        /// `read-only`, `ask`, `auto-edit` or `full-auto`.
        mode: String,
    },
    /// The session's reasoning level, answering `session.set_thinking`.
    #[serde(rename = "thinking.level")]
    ThinkingLevel {
        /// `off`, `low`, `medium`, `high`, or a token budget.
        level: String,
    },
    /// A message with its `@path` mentions expanded, answering `mentions.expand`.
    #[serde(rename = "mentions.expanded")]
    MentionsExpanded {
        /// The text to send: the message with the attached files after it.
        text: String,
        /// What was attached, one line each (`src/a.rs (40 lines)`).
        attached: Vec<String>,
        /// Mentions that were not attached, and why.
        problems: Vec<String>,
    },
    /// The project's input history, answering `history.list` and `history.add`.
    #[serde(rename = "history.listed")]
    InputHistory {
        /// Oldest first.
        entries: Vec<String>,
    },
    /// Where the code index stands, answering `index.status` and `index.update`.
    #[serde(rename = "index.status")]
    IndexStatus {
        /// One line (`412 files indexed`, `no code index: …`).
        status: String,
        /// While the index is being built: how far (`indexing 40% (…)`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        progress: Option<String>,
        /// For `index.update`: what changed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        updated: Option<String>,
    },
    /// Symbols whose names start with the prefix, answering `index.symbols`.
    #[serde(rename = "index.symbols")]
    Symbols {
        /// Best first.
        symbols: Vec<SymbolMatch>,
    },
    /// A first `AGENTS.md`, answering `project.init` (nothing is written yet).
    #[serde(rename = "init.drafted")]
    InstructionsDrafted {
        /// Root-relative path it is meant for (`AGENTS.md`).
        path: String,
        /// The drafted content.
        content: String,
    },
    /// The session's MCP servers, answering `mcp.status`; also sent unasked, without a
    /// `request_id`, once every configured server of a new session is ready or failed.
    #[serde(rename = "mcp.status")]
    McpStatus {
        /// In configuration order.
        servers: Vec<McpServerStatus>,
    },
    /// The text of an MCP server's prompt, answering `mcp.prompt`.
    #[serde(rename = "mcp.prompt")]
    McpPrompt {
        /// Every message of the prompt, in order.
        text: String,
    },
    /// The session's effective settings, answering `settings.get`.
    #[serde(rename = "settings")]
    Settings {
        /// The settings.
        settings: SessionSettings,
    },
    /// The last event of a one-shot run (`hone exec --json`, `hone ask --json`): how it
    /// ended and what it produced. Also printed after an error that stopped the run before
    /// a session started.
    #[serde(rename = "result")]
    Result {
        /// How it ended.
        status: RunStatus,
        /// The process's exit status (0 when completed; see the exit codes in docs/scripting.md).
        exit_code: u8,
        /// The final answer: the text of the last model reply (empty when there was none).
        text: String,
        /// The id of the saved session (null when the run was not saved).
        session_id: Option<String>,
        /// Token usage summed over the run's model requests.
        usage: Usage,
        /// What the run cost in US dollars, when the model's price is known (null
        /// otherwise).
        cost: Option<f64>,
        /// Wall time in milliseconds.
        duration_ms: u64,
        /// What went wrong, when the run failed with an error.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<ErrorInfo>,
    },
}
