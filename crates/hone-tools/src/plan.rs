//! What a tool call turns into: a finished read, file changes to approve, or a command to run.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use hone_protocol::ToolEffect;
use tokio_util::sync::CancellationToken;

use serde::{Deserialize, Serialize};

/// The result of a tool, as shown to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    /// Text for the model (and the user).
    pub content: String,
    /// True when the tool failed; `content` then says why and what to do next.
    pub is_error: bool,
    /// The files written and the command run (see [`ToolOutput::with_effect`]).
    pub effect: ToolEffect,
    /// For a command that ran to its end, its exit code.
    pub exit_code: Option<i32>,
}

impl ToolOutput {
    /// A successful result.
    pub fn ok(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: false,
            effect: ToolEffect::default(),
            exit_code: None,
        }
    }

    /// A failed result.
    pub fn error(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: true,
            effect: ToolEffect::default(),
            exit_code: None,
        }
    }

    /// The same result, declaring what the call did (files written, command run).
    #[must_use]
    pub fn with_effect(mut self, effect: ToolEffect) -> Self {
        self.effect = effect;
        self
    }
}

impl EditPlan {
    /// What applying the plan writes: every changed path, and both ends of a move.
    pub fn effect(&self) -> ToolEffect {
        ToolEffect::written(self.changes.iter().flat_map(|change| {
            std::iter::once(change.path.clone()).chain(change.rename_to.clone())
        }))
    }
}

/// What a tool does, which decides scheduling and permission.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolKind {
    /// Reads only; runs automatically, may run in parallel with other reads.
    Read,
    /// Changes files (or the repository); needs approval unless the mode allows it.
    Write,
    /// Runs a command; classified by the command policy.
    Command,
}

/// How a planned tool call proceeds.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// The tool already finished (reads, and control tools such as `check_background`).
    Done(ToolOutput),
    /// A read of a file that may hold secrets: done, but shown to the model only once the
    /// user approves (`hone_policy::Action::ReadSecret`).
    SecretRead(SecretRead),
    /// File changes to show as a diff, approve and apply.
    Edit(EditPlan),
    /// A command to approve and run.
    Command(CommandPlan),
    /// A call to a tool outside hone (an MCP server's) to approve and run.
    External(ExternalPlan),
}

/// A finished read of a file that may hold secrets, waiting for approval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretRead {
    /// The file, relative to the project root.
    pub path: String,
    /// What the read shows once approved.
    pub output: ToolOutput,
    /// The content's hash, recorded as seen by the model once approved
    /// ([`crate::ReadTracker::record`]).
    pub hash: String,
}

/// Runs an approved call of an outside tool.
pub trait ExternalCall: Send + Sync {
    /// Makes the call; `cancel` stops it (the result then says so).
    fn run(&self, cancel: CancellationToken) -> Pin<Box<dyn Future<Output = ToolOutput> + Send>>;
}

/// A call to a tool outside hone, approved like a command the policy does not know.
#[derive(Clone)]
pub struct ExternalPlan {
    /// The call as shown to the user (tool and arguments).
    pub display: String,
    /// Runs without asking (the user's configuration says so); read-only mode still refuses.
    pub trusted: bool,
    /// What runs once approved.
    pub call: Arc<dyn ExternalCall>,
}

impl fmt::Debug for ExternalPlan {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("ExternalPlan")
            .field("display", &self.display)
            .field("trusted", &self.trusted)
            .finish_non_exhaustive()
    }
}

impl PartialEq for ExternalPlan {
    fn eq(&self, other: &Self) -> bool {
        self.display == other.display
            && self.trusted == other.trusted
            && Arc::ptr_eq(&self.call, &other.call)
    }
}

/// Encoding a text file was read with; writes use the same one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TextEncoding {
    /// UTF-8 (the default for new files).
    #[default]
    Utf8,
    /// Not valid UTF-8: decoded byte-per-char as Latin-1.
    Latin1,
}

/// A file as it was when the change was planned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileState {
    /// Decoded content.
    pub content: String,
    /// SHA-256 of the raw bytes, hex; checked again right before writing.
    pub hash: String,
    /// How the bytes were decoded.
    pub encoding: TextEncoding,
    /// Its permission bits, where they were recorded (the changes of commands): undo
    /// restores them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<u32>,
}

/// How a command left a file it wrote: set on the changes taken over from commands, whose
/// content may be binary and whose permissions may have changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Written {
    /// How `after` encodes the bytes (Latin-1 keeps any bytes).
    pub encoding: TextEncoding,
    /// The permission bits the file gets.
    pub mode: u32,
}

/// One file affected by an edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChange {
    /// Root-relative path (`/` separators) of the file as it is now.
    pub path: String,
    /// The file before the change; `None` when it does not exist yet.
    pub before: Option<FileState>,
    /// Content after the change; `None` deletes the file.
    pub after: Option<String>,
    /// For moves: the new root-relative path (`after` is written there, `path` removed).
    pub rename_to: Option<String>,
    /// For a command's changes: how `after` is encoded and the file's permissions;
    /// `None` writes `after` in the file's own encoding and keeps its permissions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written: Option<Written>,
}

impl FileChange {
    /// How `after` is encoded: as the command wrote it, else as the file was read (UTF-8
    /// for a new file).
    pub fn after_encoding(&self) -> TextEncoding {
        match (&self.written, &self.before) {
            (Some(written), _) => written.encoding,
            (None, Some(before)) => before.encoding,
            (None, None) => TextEncoding::Utf8,
        }
    }
}

/// File changes proposed by one tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditPlan {
    /// One line for the user, e.g. `edit src/auth.ts (2 hunks)`.
    pub summary: String,
    /// The changes, applied all-or-nothing.
    pub changes: Vec<FileChange>,
    /// Set when the change is destructive (e.g. a rewrite removing most of a file):
    /// why, so the approval prompt and the model can be told. Destructive edits always ask.
    pub destructive: Option<String>,
}

/// How a command is started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invocation {
    /// Shell text run with `sh -c`; classified by the command policy.
    Shell(String),
    /// A program and its arguments, run without a shell (e.g. `git commit`).
    Argv(Vec<String>),
}

/// A command proposed by a tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandPlan {
    /// The command as shown to the user.
    pub display: String,
    /// What to run.
    pub invocation: Invocation,
    /// Time limit for foreground commands.
    pub timeout: Duration,
    /// Whether it runs in the background (returns a job id at once).
    pub background: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_plan_writes_every_changed_path_and_both_ends_of_a_move() {
        let change = |path: &str, rename_to: Option<&str>| FileChange {
            path: path.into(),
            before: None,
            after: Some(String::new()),
            rename_to: rename_to.map(Into::into),
            written: None,
        };
        let plan = EditPlan {
            summary: "move".into(),
            changes: vec![change("a.rs", Some("b.rs")), change("c.rs", None)],
            destructive: None,
        };
        assert_eq!(plan.effect().written, ["a.rs", "b.rs", "c.rs"]);
        assert_eq!(plan.effect().command, None);
        let output = ToolOutput::ok("done").with_effect(ToolEffect::command("make"));
        assert_eq!(output.effect.command.as_deref(), Some("make"));
    }
}
