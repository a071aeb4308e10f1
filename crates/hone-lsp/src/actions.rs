//! The quick refactors: code actions on a selection that run one agent turn through
//! hone-server. The agent edits the files on disk as in any session (its edit planning,
//! hash guard and undo journal: `hone undo` takes a change back), in `auto-edit` mode with
//! every command refused; the change to each file the editor has open comes back to the
//! editor as a versioned `WorkspaceEdit` of line edits, so the buffer matches the disk.

use std::path::Path;

use hone_api::rpc::SessionEvent;
use hone_api::{ApprovalDecision, ConflictChoice, ErrorChoice, Event, Request};
use hone_server::Client;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc::UnboundedReceiver;
use tower_lsp_server::ls_types::{Diagnostic, Range, Uri};

/// The commands, as `(command, title)`.
pub(crate) const COMMANDS: [(&str, &str); 4] = [
    ("hone.refactor", "hone: refactor…"),
    ("hone.explain", "hone: explain"),
    ("hone.addTests", "hone: add tests"),
    ("hone.fixDiagnostic", "hone: fix this diagnostic"),
];

/// The argument of every command: where, and for `hone.refactor` what to do.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ActionArgs {
    /// The document.
    pub(crate) uri: Uri,
    /// The selection.
    pub(crate) range: Range,
    /// What to change (`hone.refactor`); a general clean-up when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) instruction: Option<String>,
    /// The diagnostics to fix (`hone.fixDiagnostic`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) diagnostics: Vec<Diagnostic>,
}

/// What one turn did.
#[derive(Debug, Default)]
pub(crate) struct TurnOutcome {
    /// Root-relative paths the agent wrote.
    pub(crate) changed: Vec<String>,
    /// The agent's last answer.
    pub(crate) answer: String,
    /// Why the turn did not end normally.
    pub(crate) failure: Option<String>,
}

/// The user message for `command` on `selection` (lines `first..=last`, 1-based) of `path`.
pub(crate) fn message(
    command: &str,
    args: &ActionArgs,
    path: &str,
    language: &str,
    selection: &str,
) -> Option<String> {
    let first = args.range.start.line + 1;
    let last = args.range.end.line.max(args.range.start.line) + 1;
    let task = match command {
        "hone.refactor" => {
            let instruction = args
                .instruction
                .as_deref()
                .map(str::trim)
                .filter(|text| !text.is_empty())
                .unwrap_or("Refactor this code for clarity without changing what it does.");
            format!("{instruction} Change only the selected code in {path}.")
        }
        "hone.explain" => {
            format!("Explain what the selected code in {path} does and why. Change no file.")
        }
        "hone.addTests" => format!(
            "Add tests for the selected code in {path}, where this project keeps its tests."
        ),
        "hone.fixDiagnostic" => {
            let mut text = format!("Fix these diagnostics in {path}:\n");
            for diagnostic in &args.diagnostics {
                text.push_str(&format!(
                    "- line {}: {}\n",
                    diagnostic.range.start.line + 1,
                    diagnostic.message
                ));
            }
            text
        }
        _ => return None,
    };
    Some(format!(
        "{task}\n\nThe selection, lines {first}-{last} of {path}:\n```{language}\n{selection}\n```"
    ))
}

/// Runs one turn of a new session in `root` with `text`; `read_only` for answers that
/// change nothing. Approvals are refused (the mode allows edits, so only commands ask),
/// a conflict skips the edit, a failed model request aborts.
pub(crate) async fn run_turn(
    hone: &Client,
    events: &mut UnboundedReceiver<SessionEvent>,
    root: &Path,
    text: String,
    read_only: bool,
) -> Result<TurnOutcome, String> {
    let started = hone
        .call(
            None,
            Request::NewSession {
                model: None,
                cwd: Some(root.display().to_string()),
                role: Some("refactor".to_string()),
            },
        )
        .await
        .map_err(|error| error.message)?;
    let key = started["session"].as_str().unwrap_or_default().to_string();
    let mode = if read_only { "read-only" } else { "auto-edit" };
    let session = Some(key.as_str());
    hone.call(session, Request::SetApproval { mode: mode.into() })
        .await
        .map_err(|error| error.message)?;
    hone.call(session, Request::user_message(text))
        .await
        .map_err(|error| error.message)?;
    let mut outcome = TurnOutcome::default();
    while let Some(event) = events.recv().await {
        if event.session.as_deref() != Some(key.as_str()) {
            continue;
        }
        let answer = match event.frame.event {
            Event::ApprovalNeeded { call_id, .. } => Some(Request::Approval {
                call_id,
                decision: ApprovalDecision::Deny {
                    message: Some("a quick refactor from the editor runs no commands".into()),
                },
            }),
            Event::EditConflict { .. } => Some(Request::ConflictChoice {
                choice: ConflictChoice::Skip,
            }),
            Event::TurnError { .. } => Some(Request::ErrorChoice {
                choice: ErrorChoice::Abort,
            }),
            Event::DiffApplied { paths, .. } => {
                for path in paths {
                    if !outcome.changed.contains(&path) {
                        outcome.changed.push(path);
                    }
                }
                None
            }
            Event::MessageCompleted { text } if !text.trim().is_empty() => {
                outcome.answer = text;
                None
            }
            Event::TurnCompleted { .. } => break,
            Event::TurnFailed { error, .. } => {
                outcome.failure = Some(error.message);
                break;
            }
            Event::TurnCancelled { .. } => {
                outcome.failure = Some("the turn was cancelled".into());
                break;
            }
            _ => None,
        };
        if let Some(answer) = answer {
            let _ = hone.call(session, answer).await;
        }
    }
    let _ = hone.call(session, Request::Shutdown).await;
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower_lsp_server::ls_types::Position;

    fn args() -> ActionArgs {
        ActionArgs {
            uri: "file:///p/a.rs".parse().unwrap(),
            range: Range::new(Position::new(2, 0), Position::new(4, 1)),
            instruction: None,
            diagnostics: Vec::new(),
        }
    }

    #[test]
    fn messages_name_the_file_the_lines_and_the_task() {
        let text = message("hone.refactor", &args(), "a.rs", "rust", "fn a() {}").unwrap();
        assert!(text.contains("lines 3-5 of a.rs"), "{text}");
        assert!(text.contains("```rust\nfn a() {}\n```"), "{text}");
        assert!(text.starts_with("Refactor this code"), "{text}");
        let mut with = args();
        with.instruction = Some("Use an iterator.".into());
        with.diagnostics = vec![Diagnostic::new_simple(
            Range::new(Position::new(3, 0), Position::new(3, 1)),
            "unused variable `x`".into(),
        )];
        let text = message("hone.refactor", &with, "a.rs", "rust", "").unwrap();
        assert!(text.starts_with("Use an iterator."), "{text}");
        let text = message("hone.fixDiagnostic", &with, "a.rs", "rust", "").unwrap();
        assert!(text.contains("- line 4: unused variable `x`"), "{text}");
        assert!(message("hone.unknown", &args(), "a.rs", "rust", "").is_none());
    }
}
