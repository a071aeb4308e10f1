//! The request/event protocol between the core and every front end.
//!
//! Front ends send [`Request`]s and receive [`Event`]s; nothing else crosses the boundary.
//! Events serialise with a dotted `type` tag (`turn.started`, `tool.completed`, …), the
//! format `hone exec --json` prints.

use hone_context::localize::LocalizedItem;
use hone_context::{CompactionMethod, TrackedInfo};

use crate::guidance::TaskKind;
use hone_memory::UndoEntry;
use hone_protocol::{HoneError, Usage};
use serde::{Deserialize, Serialize};

/// What a front end asks of a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Request {
    /// Start a turn with this user message (queued if a turn is running).
    UserMessage {
        /// What the user typed.
        text: String,
    },
    /// Answer an [`Event::ApprovalNeeded`].
    Approval {
        /// The call being answered.
        call_id: String,
        /// The answer.
        decision: ApprovalDecision,
    },
    /// Cancel the running turn (no effect when idle).
    Cancel,
    /// Undo the latest `count` applied edits of the project (all or none; with a session
    /// store the journal spans sessions and restarts). Answered by [`Event::UndoCompleted`]
    /// or [`Event::UndoFailed`].
    Undo {
        /// How many edits to take back.
        count: usize,
    },
    /// List the undo stack; answered by [`Event::UndoStack`].
    ListUndo,
    /// End the session.
    Shutdown,
    /// Compact the conversation now: stale file contents are stubbed and all but the latest
    /// turn are summarised. Answered by [`Event::ContextCompacted`] (or an [`Event::Error`]
    /// when there is nothing to compact).
    Compact,
    /// Pin files into the context by path, directory or glob (`src/**/*.rs`): in full, or
    /// as outlines with `summary`. Their snapshots go with the next message and are
    /// refreshed after tool rounds that change them. Answered by [`Event::FilesTracked`].
    TrackFiles {
        /// Paths, directories or globs relative to the project root.
        patterns: Vec<String>,
        /// Outlines instead of full contents.
        #[serde(default)]
        summary: bool,
    },
    /// Unpin tracked files (paths, directories or globs). Answered by [`Event::FilesTracked`].
    UntrackFiles {
        /// Paths, directories or globs.
        patterns: Vec<String>,
    },
    /// Answer an [`Event::TurnError`].
    ErrorChoice {
        /// What to do about the failed model request.
        choice: ErrorChoice,
    },
    /// Answer an [`Event::EditConflict`].
    ConflictChoice {
        /// What to do about the edit.
        choice: ConflictChoice,
    },
}

/// What to do about an edit whose file changed since the model read it (or since the
/// edit was planned), in an interactive session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConflictChoice {
    /// Write the proposed change over the file as it is now.
    ApplyAnyway,
    /// Do not apply it; the model is told the user skipped it.
    Skip,
    /// Do not apply it; the model is asked to read the file again and redo the change.
    Regenerate,
}

impl ConflictChoice {
    /// Every choice, in the order front ends offer them.
    pub const ALL: [ConflictChoice; 3] = [
        ConflictChoice::ApplyAnyway,
        ConflictChoice::Skip,
        ConflictChoice::Regenerate,
    ];
}

/// What to do after a model request failed in an interactive session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorChoice {
    /// Send the same request again.
    Retry,
    /// End the turn without an answer (the conversation stays as it is).
    Skip,
    /// Fail the turn.
    Abort,
}

impl ErrorChoice {
    /// Every choice, in the order front ends offer them.
    pub const ALL: [ErrorChoice; 3] = [ErrorChoice::Retry, ErrorChoice::Skip, ErrorChoice::Abort];
}

/// The user's answer to an approval request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum ApprovalDecision {
    /// Run it this once.
    Approve,
    /// Do not run it; the optional message is passed to the model.
    Deny {
        /// Why, for the model.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// Run this edited version instead: the command text, or the new file content.
    Edit {
        /// The replacement.
        replacement: String,
    },
    /// Run it, and from now on this tool (writes) or this command prefix without asking.
    AlwaysForSession,
}

/// How a call came to be allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovedBy {
    /// The policy allowed it without asking.
    Policy,
    /// The user approved it.
    User,
    /// An "always for this session" grant covered it.
    SessionGrant,
}

/// Why a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnEnd {
    /// The model answered without calling tools.
    Answered,
    /// `max_tool_rounds` was reached; the model was told to answer with what it had.
    RoundLimit,
    /// The same failing call was repeated too often.
    RepeatedFailure,
    /// A model request failed and the user chose to skip the rest of the turn.
    Skipped,
    /// The model answered, but the checks after its edits still fail after the repair
    /// rounds allowed (`[checks] max_repair_rounds`).
    ChecksFailed,
}

/// How one check after edits went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    /// It ran and succeeded.
    Passed,
    /// It ran and failed (or could not start).
    Failed,
    /// It did not run (the policy refused it, or it needed an approval no one could give).
    Skipped,
}

/// One check after edits: the syntax check, a project check or the tests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckResult {
    /// Short name: `syntax`, `cargo check`, `tsc`, `pytest`, or the configured command.
    pub name: String,
    /// The command line (empty for the syntax check).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub command: String,
    /// How it went.
    pub status: CheckStatus,
    /// Wall time in milliseconds.
    pub duration_ms: u64,
    /// For a failure, its first error line; for a skip, why.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

/// Totals of one turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TurnStats {
    /// Model requests made.
    pub model_requests: u32,
    /// Tool calls made.
    pub tool_calls: u32,
    /// Token usage summed over the turn's requests.
    pub usage: Usage,
    /// Wall time in milliseconds.
    pub duration_ms: u64,
}

/// What a session tells its front end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Event {
    /// The session is ready.
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
    },
    /// A turn began.
    #[serde(rename = "turn.started")]
    TurnStarted {
        /// 1-based turn number in this session.
        turn: u32,
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
        /// Raw arguments.
        arguments: String,
    },
    /// A call needs the user's decision; answer with [`Request::Approval`].
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
        /// Wall time in milliseconds.
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
        error: HoneError,
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
        error: HoneError,
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
    /// The undo stack, answering [`Request::ListUndo`].
    #[serde(rename = "undo.stack")]
    UndoStack {
        /// Edits that can be undone, newest first.
        entries: Vec<UndoEntry>,
    },
    /// A model request failed; the turn waits for a [`Request::ErrorChoice`] (interactive
    /// sessions only: otherwise the turn fails at once).
    #[serde(rename = "turn.error")]
    TurnError {
        /// What went wrong.
        error: HoneError,
        /// What the front end may answer.
        choices: Vec<ErrorChoice>,
    },
    /// An edit's file changed since the model read it or since the edit was planned; the
    /// call waits for a [`Request::ConflictChoice`] (interactive sessions only: otherwise
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
    /// The tracked files changed (answering [`Request::TrackFiles`] or
    /// [`Request::UntrackFiles`]).
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_serialise_with_dotted_type_tags() {
        let event = Event::TurnStarted { turn: 1 };
        let json = serde_json::to_value(&event).unwrap();
        assert_eq!(json["type"], "turn.started");
        let back: Event = serde_json::from_value(json).unwrap();
        assert_eq!(back, event);
    }

    #[test]
    fn approval_requests_round_trip() {
        let request = Request::Approval {
            call_id: "c1".into(),
            decision: ApprovalDecision::Deny {
                message: Some("use cargo check".into()),
            },
        };
        let json = serde_json::to_string(&request).unwrap();
        assert_eq!(serde_json::from_str::<Request>(&json).unwrap(), request);
    }
}
