//! Edits in the model's natural formats: a final reply without tool calls whose code
//! blocks, SEARCH/REPLACE blocks or diffs change project files goes through the same path
//! as a tool edit (diff, policy, approval, atomic apply, undo journal), and the model is
//! told what happened so the turn ends with an accurate answer.

use std::sync::Arc;

use hone_protocol::{ContentBlock, Message, Role, ToolCall};
use hone_tools::ToolOutput;
use hone_tools::edit::natural::{NaturalChange, NaturalEdit, plan_new_file_reply, plan_reply};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::session::Agent;
use hone_api::Event;

/// Natural edits per turn: one change (or refusal) and one repair after it.
pub(crate) const MAX_NATURAL_EDITS: u32 = 2;

/// What the code of a final reply came to.
pub(crate) enum ReplyCode {
    /// No change: the reply stays the answer.
    Answer,
    /// A change was proposed (applied, or denied); the note tells the model.
    Changed(Message),
    /// A change was applied: what was done, one entry per action.
    Applied(Vec<String>),
    /// The code could not be applied (refused, ambiguous); the note says why.
    Retry(Message),
    /// The code equals the file it names: nothing would change. The note says so; after a
    /// change of this turn it is only a description of that change.
    Unchanged(Message),
}

impl Agent {
    /// Turns the code of `reply` (a final answer) into a proposed change, with the note for
    /// the model when something was applied, refused, ambiguous or unchanged.
    pub(crate) async fn natural_edit(
        &mut self,
        reply: &str,
        attempt: u32,
        cancel: &CancellationToken,
    ) -> ReplyCode {
        let request = self.turn_request();
        let context = Arc::clone(&self.context);
        let reply_text = reply.to_string();
        let asked = request.clone();
        let new_file = self.flow.guided().and_then(|step| step.new_file.clone());
        let planned = tokio::task::spawn_blocking(move || match new_file {
            Some(path) => plan_new_file_reply(&context, &asked, &reply_text, &path),
            None => plan_reply(&context, &asked, &reply_text),
        })
        .await;
        let edit = match planned {
            Ok(edit) => edit,
            Err(error) => {
                tracing::warn!(%error, "planning the reply's code failed");
                return ReplyCode::Answer;
            }
        };
        match edit {
            NaturalEdit::Nothing => ReplyCode::Answer,
            // The request is repeated: a small model attends to what it read last.
            NaturalEdit::Unchanged { path } => ReplyCode::Unchanged(Message::user(format!(
                "[hone] The code in your answer is identical to what {path} already holds, so \
                 nothing changed. The request was: {}\nWrite the corrected code: it must differ \
                 from the current code.",
                request.trim()
            ))),
            NaturalEdit::Refused(reason) => {
                let again = if self.flow.offers_tools() {
                    "Send the change again with a tool call (edit_file or write_file)"
                } else {
                    "Send each function or class you change again, complete, in a fenced code \
                     block with the file's path after the language on the opening line"
                };
                ReplyCode::Retry(Message::user(format!(
                    "[hone] The code in your answer was not applied, and no file was changed: \
                     {reason}. {again}, or answer the user."
                )))
            }
            NaturalEdit::Ambiguous { name, files } => ReplyCode::Retry(Message::user(format!(
                "[hone] The code in your answer was not applied: `{name}` is defined in {}. \
                 Which file should change? Answer with the file's path alone on the line \
                 above the code block.",
                files.join(" and ")
            ))),
            NaturalEdit::Change(mut change) => {
                let left = self.leave_spec_tests(&mut change, &request);
                if change.plan.changes.is_empty() {
                    return ReplyCode::Retry(spec_tests_note(&left));
                }
                let started = self.start_clock();
                let call = ToolCall {
                    id: format!("natural_{}_{attempt}", self.turns),
                    name: change.tool.to_string(),
                    arguments: json!({ "from_answer": change.actions }).to_string(),
                };
                self.emit(Event::ToolRequested {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    arguments: crate::api::arguments(&call.arguments),
                });
                let output = self.run_edit(&call, change.tool, change.plan, cancel).await;
                let output = self.finish(&call, output, started);
                if output.is_error {
                    ReplyCode::Changed(outcome_note(&change.actions, &output))
                } else {
                    let mut actions = change.actions;
                    actions.extend(left.iter().map(|path| {
                        format!("left {path} as it is: its tests show what the request asks")
                    }));
                    ReplyCode::Applied(actions)
                }
            }
        }
    }

    /// Takes out of `change` its changes to existing test files when the project's tests
    /// (or the request's checks) failed before the change: they show what the request
    /// asks, and a small model "fixes" them instead of the code. A test file the request
    /// names may change. Returns the files left as they are.
    fn leave_spec_tests(&self, change: &mut NaturalChange, request: &str) -> Vec<String> {
        if !self.checks.reproduced() {
            return Vec::new();
        }
        let left = change.leave_unchanged(|path| {
            let file = path.rsplit('/').next().unwrap_or(path);
            hone_protocol::is_test_path(path) && !request.contains(file)
        });
        if !left.is_empty() {
            tracing::info!(
                ?left,
                "an answer's changes to the failing tests were left out"
            );
        }
        left
    }

    /// The user's request of the running turn: the newest user text that is neither a
    /// tool result nor one of hone's notes.
    fn turn_request(&self) -> String {
        self.history
            .iter()
            .rev()
            .filter(|message| message.role == Role::User)
            .find_map(|message| {
                // hone's notes (located code, instructions, repair notes) are not the
                // user's words, wherever they sit in the message.
                message.content.iter().find_map(|block| match block {
                    ContentBlock::Text { text }
                        if !text.starts_with(hone_context::HONE_NOTE_PREFIX) =>
                    {
                        Some(text.clone())
                    }
                    _ => None,
                })
            })
            .unwrap_or_default()
    }
}

/// What the model is told when its answer changed only the tests that show the request.
fn spec_tests_note(left: &[String]) -> Message {
    Message::user(format!(
        "[hone] Your answer changed only {}, the tests that show what the request asks; they \
         stay as they are, and no file was changed. Change the code the tests call so that \
         they pass, and send it complete in a fenced code block labelled with its file's path.",
        left.join(" and ")
    ))
}

/// What the model is told when a guided step asked for code and its answer changed no
/// file (no block, or blocks matching nothing in the project).
pub(crate) fn no_change_note() -> Message {
    Message::user(
        "[hone] Your answer changed no file. Write the function or class to change in full, \
         with its exact name, corrected, in a fenced code block whose opening line names the \
         language and the file's path (```py shop/cart.py). Do not explain.",
    )
}

/// What the model is told when the change did not go through the approval path.
fn outcome_note(actions: &[String], output: &ToolOutput) -> Message {
    Message::user(format!(
        "[hone] The code in your answer was turned into a change ({}), but it was not \
         applied: {} No file was changed. Tell the user in one or two sentences.",
        actions.join("; "),
        output.content
    ))
}

/// What the model is told after the code of its answer was applied; `answer` asks it to
/// answer the user (the agent loop), else the note only records what happened (a guided
/// step ends without another request).
pub(crate) fn applied_note(actions: &[String], answer: bool) -> Message {
    let then = if answer {
        " Do not repeat the code: answer the user in one or two sentences, saying what changed."
    } else {
        ""
    };
    Message::user(format!(
        "[hone] The code in your answer was applied as an edit: {}.{then}",
        actions.join("; ")
    ))
}
