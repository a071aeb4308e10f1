//! The data the requests and events carry: plain values, no behaviour beyond wording.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Token usage, normalised across providers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct Usage {
    /// Prompt tokens, including cached ones.
    pub input_tokens: u64,
    /// Generated tokens, including reasoning tokens.
    pub output_tokens: u64,
    /// Prompt tokens served from the provider's cache.
    #[serde(default)]
    pub cached_input_tokens: u64,
    /// Generated tokens spent on reasoning.
    #[serde(default)]
    pub reasoning_tokens: u64,
    /// Tokens drafted for speculative decoding (the embedded engine guesses the next
    /// tokens from the context and has the model check several in one pass).
    #[serde(default)]
    pub drafted_tokens: u64,
    /// Drafted tokens the model confirmed: generated without a forward pass of their own.
    #[serde(default)]
    pub accepted_tokens: u64,
    /// Whether some of these counts are hone's estimate, because a server reported no usage
    /// for a request (shown as `~1,200 tokens`); absent when every count was reported.
    #[serde(default, skip_serializing_if = "is_false")]
    pub estimated: bool,
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl Usage {
    /// Combines two partial reports (APIs split usage over several events):
    /// each field keeps the larger value, since reports are cumulative, never deltas.
    #[must_use]
    pub fn merge(self, other: Usage) -> Usage {
        Usage {
            input_tokens: self.input_tokens.max(other.input_tokens),
            output_tokens: self.output_tokens.max(other.output_tokens),
            cached_input_tokens: self.cached_input_tokens.max(other.cached_input_tokens),
            reasoning_tokens: self.reasoning_tokens.max(other.reasoning_tokens),
            drafted_tokens: self.drafted_tokens.max(other.drafted_tokens),
            accepted_tokens: self.accepted_tokens.max(other.accepted_tokens),
            estimated: self.estimated || other.estimated,
        }
    }
}

/// A model's price in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct ModelPrice {
    /// Per million prompt tokens not served from the provider's cache.
    pub input: f64,
    /// Per million prompt tokens served from the provider's cache.
    pub cached_input: f64,
    /// Per million generated tokens (reasoning tokens included).
    pub output: f64,
}

impl ModelPrice {
    /// A model that costs nothing (the embedded model, Ollama).
    pub const FREE: Self = Self {
        input: 0.0,
        cached_input: 0.0,
        output: 0.0,
    };

    /// What `usage` costs in US dollars.
    ///
    /// ```
    /// use hone_api::{ModelPrice, Usage};
    /// let price = ModelPrice { input: 2.0, cached_input: 0.5, output: 8.0 };
    /// let usage = Usage { input_tokens: 1_000_000, cached_input_tokens: 500_000, output_tokens: 100_000, ..Usage::default() };
    /// assert!((price.cost(&usage) - 2.05).abs() < 1e-9);
    /// ```
    pub fn cost(&self, usage: &Usage) -> f64 {
        let cached = usage.cached_input_tokens.min(usage.input_tokens);
        let fresh = usage.input_tokens - cached;
        (tokens(fresh) * self.input
            + tokens(cached) * self.cached_input
            + tokens(usage.output_tokens) * self.output)
            / 1_000_000.0
    }
}

/// A count for people, `1234567` as `1,234,567`.
///
/// ```
/// assert_eq!(hone_api::thousands(999), "999");
/// assert_eq!(hone_api::thousands(1_234_567), "1,234,567");
/// ```
pub fn thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (position, digit) in digits.chars().enumerate() {
        if position > 0 && (digits.len() - position).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// US dollars for people: `$0.0042` below a cent, `$1.27` below a hundred, `$312` above.
///
/// ```
/// assert_eq!(hone_api::dollars(0.000_42), "$0.0004");
/// assert_eq!(hone_api::dollars(1.271), "$1.27");
/// assert_eq!(hone_api::dollars(312.4), "$312");
/// ```
pub fn dollars(amount: f64) -> String {
    if amount < 0.01 {
        format!("${amount:.4}")
    } else if amount < 100.0 {
        format!("${amount:.2}")
    } else {
        format!("${amount:.0}")
    }
}

/// A token count as a float; exact below 2^53, far beyond any session.
fn tokens(count: u64) -> f64 {
    count as f64
}

/// What kind of failure an error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCategory {
    /// Configuration is missing or wrong (unknown provider, missing key, unknown model).
    Config,
    /// The provider rejected the credentials (401/403).
    Auth,
    /// The server could not be reached, the connection dropped or the stream stalled.
    Network,
    /// The provider is rate limiting (429) or out of quota.
    RateLimit,
    /// The provider failed (5xx) or sent something hone could not understand.
    Provider,
    /// The request was invalid (400/422) or input failed validation.
    Validation,
    /// A tool failed.
    Tool,
    /// The user cancelled.
    Cancelled,
    /// The session store or the code index failed (locked, corrupt, unwritable).
    Storage,
}

impl ErrorCategory {
    /// Lower-case name used in messages and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCategory::Config => "config",
            ErrorCategory::Auth => "auth",
            ErrorCategory::Network => "network",
            ErrorCategory::RateLimit => "rate_limit",
            ErrorCategory::Provider => "provider",
            ErrorCategory::Validation => "validation",
            ErrorCategory::Tool => "tool",
            ErrorCategory::Storage => "storage",
            ErrorCategory::Cancelled => "cancelled",
        }
    }
}

impl std::fmt::Display for ErrorCategory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A categorised error: a message for the user plus, when a provider answered, what it said.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorInfo {
    /// What kind of failure this is.
    pub category: ErrorCategory,
    /// One actionable sentence for the user.
    pub message: String,
    /// What the provider said (status and body excerpt), when it said anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_detail: Option<String>,
}

/// The user's answer to an approval request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ApprovedBy {
    /// The policy allowed it without asking.
    Policy,
    /// The user approved it.
    User,
    /// An "always for this session" grant covered it.
    SessionGrant,
}

/// What to do about an edit whose file changed since the model read it (or since the
/// edit was planned), in an interactive session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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

/// Why a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TurnEnd {
    /// The model answered without calling tools.
    Answered,
    /// `max_tool_rounds` was reached; the model was told to answer with what it had.
    RoundLimit,
    /// The same failing call or answer was repeated too often, or a guided step that asked
    /// for code never changed a file.
    RepeatedFailure,
    /// A model request failed and the user chose to skip the rest of the turn.
    Skipped,
    /// The model answered, but the checks after its edits still fail after the repair
    /// rounds allowed (`[checks] max_repair_rounds`).
    ChecksFailed,
    /// The model answered and changed files, but no check beyond the syntax check could
    /// verify the change (none applies to the project, or every one was skipped): the
    /// change may be wrong.
    Unverified,
    /// The request asked for a change (it was classified as a change or a new file), and
    /// the model answered without changing any file.
    NoChange,
    /// The model proposed a change, but none was applied: the policy or the user denied
    /// it, or it could not be written.
    NotApplied,
}

/// Totals of one turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct TurnStats {
    /// Model requests made.
    pub model_requests: u32,
    /// Actions taken: the model's tool calls, code blocks of its answers applied as edits,
    /// and the test runs and checks hone ran itself.
    pub tool_calls: u32,
    /// Token usage summed over the turn's requests.
    pub usage: Usage,
    /// Wall time in milliseconds.
    pub duration_ms: u64,
    /// The attempts made at a change a check reproduced before it (see
    /// `attempt.completed`); 0 when the turn had no such check.
    #[serde(default)]
    pub attempts: u32,
}

/// How one check after edits went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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

/// What a request asks for, as the guided flow sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    /// Change existing code (fix, rename, add to, refactor).
    Change,
    /// Explain or answer a question, no changes.
    Explain,
    /// Create a new file.
    Create,
    /// Run something (tests, builds, commands).
    Run,
}

impl TaskKind {
    /// The name used in events and by the classifier (`change`, `explain`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Change => "change",
            Self::Explain => "explain",
            Self::Create => "create",
            Self::Run => "run",
        }
    }
}

/// One piece of code attached to a request by localisation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LocalizedItem {
    /// Root-relative path.
    pub path: String,
    /// First line shown (1-based).
    pub start_line: u32,
    /// Last line shown.
    pub end_line: u32,
    /// Whether the whole file is shown.
    pub whole_file: bool,
    /// What the lines hold (`function cartTotal`), empty for a whole file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub symbols: Vec<String>,
    /// Why they were picked (`mentions "src/math.ts"`).
    pub reasons: Vec<String>,
    /// Estimated tokens of the rendered piece.
    pub tokens: u64,
}

impl LocalizedItem {
    /// `src/math.ts (whole file, mentions "src/math.ts")`,
    /// `cart.ts:12-30 (function cartTotal, matches "the cart total")`.
    pub fn describe(&self) -> String {
        let place = if self.whole_file {
            self.path.clone()
        } else {
            format!("{}:{}-{}", self.path, self.start_line, self.end_line)
        };
        let mut details: Vec<String> = Vec::new();
        if self.whole_file {
            details.push("whole file".to_string());
        } else {
            details.extend(self.symbols.iter().cloned());
        }
        details.extend(self.reasons.iter().cloned());
        format!("{place} ({})", details.join(", "))
    }

    /// The piece's heading in the text the model reads: where it is and what it holds,
    /// without why it was picked (`src/math.ts (whole file)`, `cart.ts:12-30 (function
    /// cartTotal)`). A small model copies a quoted `mentions "test.js:56"` into its answer.
    pub fn heading(&self) -> String {
        if self.whole_file {
            return format!("{} (whole file)", self.path);
        }
        let place = format!("{}:{}-{}", self.path, self.start_line, self.end_line);
        let symbols: Vec<&str> = self
            .symbols
            .iter()
            // `function fmtShort (used by function ms)`: the note is for the user.
            .map(|symbol| symbol.split(" (").next().unwrap_or(symbol))
            .collect();
        if symbols.is_empty() {
            place
        } else {
            format!("{place} ({})", symbols.join(", "))
        }
    }
}

/// Who summarised older turns in a compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CompactionMethod {
    /// The model wrote the summary.
    Model,
    /// hone's rules wrote it (or only stale results were dropped).
    Rules,
}

impl CompactionMethod {
    /// `model` or `rules`.
    pub fn as_str(self) -> &'static str {
        match self {
            CompactionMethod::Model => "model",
            CompactionMethod::Rules => "rules",
        }
    }
}

/// How a tracked file is shown to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TrackMode {
    /// The whole content.
    Full,
    /// Declarations only (the code index's outline, or a line-based fallback).
    Outline,
}

impl TrackMode {
    /// `full` or `outline`.
    pub fn as_str(self) -> &'static str {
        match self {
            TrackMode::Full => "full",
            TrackMode::Outline => "outline",
        }
    }
}

/// One tracked file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TrackedInfo {
    /// Root-relative path.
    pub path: String,
    /// How it is shown.
    pub mode: TrackMode,
    /// Estimated tokens of its snapshot.
    pub tokens: u64,
}

/// One edit on the undo stack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct UndoEntry {
    /// Position in the project's journal.
    pub seq: i64,
    /// One line, e.g. `edit src/auth.ts (2 hunks)`.
    pub summary: String,
    /// Root-relative paths touched (`from → to` for moves).
    pub paths: Vec<String>,
    /// The session that made the edit.
    pub session_id: String,
    /// When it was made, milliseconds since the Unix epoch.
    pub applied_ms: i64,
}

/// A saved session, as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SessionSummary {
    /// Its id (26 sortable characters; any unique prefix names it).
    pub id: String,
    /// The first user message, trimmed (empty until there is one).
    pub title: String,
    /// Provider instance last used.
    pub provider: String,
    /// Model last used.
    pub model: String,
    /// Stored messages.
    pub messages: u64,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// Last activity, milliseconds since the Unix epoch.
    pub updated_ms: i64,
    /// The session it was forked from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<String>,
}

/// How a one-shot run (`hone exec`, `hone ask`) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// The model answered (for `exec`: the turn ended with `answered`).
    Completed,
    /// The turn ended without doing the job (round limit, repeated failures), a request
    /// failed, or the run could not start.
    Failed,
    /// The user interrupted it.
    Cancelled,
    /// The model answered and changed files that no check could verify
    /// ([`TurnEnd::Unverified`]).
    Unverified,
    /// A change was asked for and none was made ([`TurnEnd::NoChange`]).
    NoChange,
    /// The change was denied or could not be written ([`TurnEnd::NotApplied`]).
    NotApplied,
    /// The checks after the change still fail ([`TurnEnd::ChecksFailed`]).
    ChecksFailed,
}
