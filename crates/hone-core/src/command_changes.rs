//! What a command changed in the project ([`CommandChanges`]): shown as a diff beside its
//! output, applied through the policy — auto-edit and full-auto apply, `ask` asks with the
//! diff, hone's own files and instruction files always ask — with the hash guard, and
//! recorded in the undo journal as one entry, so undo takes back what the command did.
//! Changes a command already wrote (the snapshot fallback) are only recorded.

use std::sync::Arc;

use hone_api::Event;
use hone_policy::{Action, Decision};
use hone_protocol::ToolCall;
use hone_tools::command::{ChangesState, CommandChanges};
use hone_tools::edit::AppliedEdit;
use tokio_util::sync::CancellationToken;

use crate::authorize::{Authorization, Question};
use crate::session::Agent;

/// The name command changes are approved under (what "always for this session" grants).
const CHANGES_TOOL: &str = "command changes";

/// Why `ask` mode asks about a command's changes.
const ASK_REASON: &str = "ask mode: what a command changed needs approval";

/// Whether the user may be asked about the changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Asking {
    /// As the policy says (the model's commands).
    ByPolicy,
    /// Never: applied when the policy allows writes, else left out (hone's own checks).
    Never,
}

impl Agent {
    /// Settles the changes of the command of `call`; returns what to tell the model after
    /// the command's output.
    pub(crate) async fn settle_command_changes(
        &mut self,
        call: &ToolCall,
        changes: CommandChanges,
        asking: Asking,
        cancel: &CancellationToken,
    ) -> String {
        let diff = changes.diff();
        if changes.state == ChangesState::Written {
            return self.record_written(call, changes, diff);
        }
        if !changes.has_writes() {
            return changes.report("nothing to apply");
        }
        self.emit(Event::DiffProposed {
            call_id: call.id.clone(),
            diff: diff.clone(),
        });
        if let Err(why) = self
            .approve_changes(call, &changes, &diff, asking, cancel)
            .await
        {
            let report = changes.report(&format!("not applied ({why})"));
            changes.discard();
            return report;
        }
        self.apply_changes(call, changes, diff).await
    }

    /// Asks when the policy wants it (through the one authorize step); `Err` says why the
    /// changes are not applied.
    async fn approve_changes(
        &mut self,
        call: &ToolCall,
        changes: &CommandChanges,
        diff: &str,
        asking: Asking,
        cancel: &CancellationToken,
    ) -> Result<(), String> {
        let protected = changes
            .paths()
            .into_iter()
            .find_map(|path| hone_policy::protected_write(&path).map(|why| (path, why)));
        let action = match &protected {
            Some((path, why)) => Action::WriteProtected { path, why },
            None => Action::Write { destructive: false },
        };
        // A protected file's own reason is shown; other changes ask because of the mode.
        let ask_reason = |policy_reason: String| {
            if protected.is_some() {
                policy_reason
            } else {
                ASK_REASON.to_string()
            }
        };
        let cannot_ask = |reason: String| {
            format!(
                "{reason}, and hone cannot ask now; run the command again with a terminal or \
                 under --approval auto-edit"
            )
        };
        if asking == Asking::Never {
            return match self.permissions.decide(CHANGES_TOOL, &action) {
                Decision::Allow => Ok(()),
                Decision::Deny { reason } => Err(reason),
                Decision::Ask { reason } => Err(cannot_ask(ask_reason(reason))),
            };
        }
        let question = Question {
            summary: format!("apply {}", changes.plan.summary),
            reason: protected.is_none().then(|| ASK_REASON.to_string()),
            diff: Some(diff.to_string()),
            command: None,
            content: None,
        };
        match self
            .authorize(call, CHANGES_TOOL, &action, question, cancel)
            .await
        {
            Authorization::Allowed { edited: None, .. } => Ok(()),
            Authorization::Allowed {
                edited: Some(_), ..
            } => Err("a command's changes cannot be edited by hand".to_string()),
            Authorization::Denied(reason) => Err(reason),
            Authorization::Unanswerable(reason) => Err(cannot_ask(ask_reason(reason))),
            Authorization::Refused(message) => Err(match message {
                Some(text) if !text.trim().is_empty() => {
                    format!("the user declined them and said: {}", text.trim())
                }
                _ => "the user declined them".to_string(),
            }),
            Authorization::Cancelled => Err("the turn was cancelled".to_string()),
        }
    }

    /// Writes the journaled plan (hash guard, one journal entry), then the direct writes.
    async fn apply_changes(
        &mut self,
        call: &ToolCall,
        changes: CommandChanges,
        diff: String,
    ) -> String {
        let journaled = !changes.plan.changes.is_empty();
        let pending = if journaled {
            self.begin_edit(&changes.plan)
        } else {
            None
        };
        let context = Arc::clone(&self.context);
        let joined = tokio::task::spawn_blocking(move || {
            let applied = hone_tools::edit::apply(&context, &changes.plan);
            let failed = match &applied {
                Ok(_) => changes.apply_direct(&context),
                Err(_) => Vec::new(),
            };
            (applied, failed, changes)
        })
        .await;
        let (applied, failed, changes) = match joined {
            Ok(done) => done,
            Err(error) => {
                let message = format!("[the command's changes could not be applied: {error}]\n");
                self.finish_edit(pending, &Err(error));
                return message;
            }
        };
        if journaled {
            self.finish_edit(pending, &Ok(applied.clone()));
        }
        match applied {
            Ok(_) => {
                // Only the journaled files: build output written straight is not an edit
                // for the checks to look at.
                if journaled {
                    self.emit(Event::DiffApplied {
                        call_id: call.id.clone(),
                        paths: changes.journaled_paths(),
                        diff,
                    });
                }
                let outcome = if failed.is_empty() {
                    "applied (undo takes them back)".to_string()
                } else {
                    format!(
                        "applied (undo takes them back), except what could not be written: {}",
                        failed.join("; ")
                    )
                };
                changes.report(&outcome)
            }
            Err(error) => changes.report(&format!("not applied: {}", error.message)),
        }
    }

    /// Records changes the command already wrote (the snapshot fallback) as one journal
    /// entry and shows them.
    fn record_written(&mut self, call: &ToolCall, changes: CommandChanges, diff: String) -> String {
        let protected: Vec<String> = changes
            .paths()
            .into_iter()
            .filter(|path| hone_policy::protected_write(path).is_some())
            .collect();
        if !protected.is_empty() {
            self.changes
                .note_protected(protected_notice(&command_text(call), &protected));
        }
        if !changes.plan.changes.is_empty() {
            let pending = self.begin_edit(&changes.plan);
            let applied = AppliedEdit {
                changes: changes.plan.changes.clone(),
                summary: changes.plan.summary.clone(),
            };
            self.finish_edit(pending, &Ok(Ok(applied)));
            self.emit(Event::DiffApplied {
                call_id: call.id.clone(),
                paths: changes.journaled_paths(),
                diff,
            });
        }
        changes.report("made in the project and recorded (undo takes them back)")
    }
}

/// The longest command shown in a notice, in characters.
const NOTICE_COMMAND_CHARS: usize = 80;

/// The command a call ran (its `command` argument), shortened for a notice; the tool's
/// name when the arguments hold none.
fn command_text(call: &ToolCall) -> String {
    let command = serde_json::from_str::<serde_json::Value>(&call.arguments)
        .ok()
        .and_then(|arguments| {
            arguments
                .get("command")
                .and_then(serde_json::Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_else(|| call.name.clone());
    let flat = command.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > NOTICE_COMMAND_CHARS {
        let cut: String = flat.chars().take(NOTICE_COMMAND_CHARS).collect();
        format!("{cut}…")
    } else {
        flat
    }
}

/// What the user is told when a command wrote hone's own files or an instruction file
/// straight to the project (the snapshot fallback, where nothing could ask first).
fn protected_notice(command: &str, paths: &[String]) -> String {
    let why = paths
        .first()
        .and_then(|path| hone_policy::protected_write(path))
        .unwrap_or_default();
    let (files, verb) = if paths.len() == 1 {
        (paths[0].clone(), "it")
    } else {
        (paths.join(", "), "each")
    };
    format!(
        "the command `{command}` changed {files} straight in the project (commands here run \
         without a copy-on-write view, so nothing could ask first); {verb} {why}. Review the \
         change (`git diff`) or take it back with `hone undo`"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(arguments: &str) -> ToolCall {
        ToolCall {
            id: "c1".into(),
            name: "run_command".into(),
            arguments: arguments.into(),
        }
    }

    #[test]
    fn the_notice_names_the_command_and_each_file() {
        let command = command_text(&call(r#"{"command": "echo hi >>\n  AGENTS.md"}"#));
        assert_eq!(command, "echo hi >> AGENTS.md");
        let one = protected_notice(&command, &["AGENTS.md".to_string()]);
        assert!(
            one.contains("`echo hi >> AGENTS.md` changed AGENTS.md straight"),
            "{one}"
        );
        assert!(one.contains("it holds project instructions"), "{one}");
        let two = protected_notice(&command, &["HONE.md".into(), ".hone/config.toml".into()]);
        assert!(
            two.contains("changed HONE.md, .hone/config.toml straight"),
            "{two}"
        );
    }

    #[test]
    fn a_long_or_missing_command_is_shortened_or_named_by_its_tool() {
        let long = format!(r#"{{"command": "{}"}}"#, "x".repeat(200));
        let shown = command_text(&call(&long));
        assert_eq!(shown.chars().count(), NOTICE_COMMAND_CHARS + 1);
        assert!(shown.ends_with('…'));
        assert_eq!(command_text(&call("not json")), "run_command");
    }
}
