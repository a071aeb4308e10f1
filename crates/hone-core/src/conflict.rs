//! Edit conflicts: a file changed since the model read it, or between planning an edit and
//! writing it. Interactive sessions ask the front end (apply anyway / skip / regenerate);
//! otherwise the model is told to read the file again.

use std::sync::Arc;

use hone_protocol::ToolCall;
use hone_tools::{EditPlan, Plan, ToolErrorKind, ToolOutput};
use tokio_util::sync::CancellationToken;

use crate::calls::Prepared;
use crate::profile::PromptProfile;
use crate::session::Agent;
use hone_api::{ConflictChoice, Event};

impl Agent {
    /// Emits [`Event::EditConflict`] and waits for the front end's choice; `None` when the
    /// turn is cancelled first (or the front end went away).
    async fn ask_conflict(
        &mut self,
        call: &ToolCall,
        message: &str,
        cancel: &CancellationToken,
    ) -> Option<ConflictChoice> {
        // A choice sent when no conflict was pending must not answer this one.
        while self.conflict_choices.try_recv().is_ok() {}
        self.emit(Event::EditConflict {
            call_id: call.id.clone(),
            message: message.to_string(),
            choices: ConflictChoice::ALL.to_vec(),
        });
        let asked = std::time::Instant::now();
        let choice = tokio::select! {
            biased;
            () = cancel.cancelled() => None,
            choice = self.conflict_choices.recv() => choice,
        };
        self.user_wait += asked.elapsed();
        choice
    }

    /// The edit could not be planned because a file changed since the model read it. With
    /// "apply anyway" the files are taken as they are now and the edit is planned again.
    pub(crate) async fn stale_read(
        &mut self,
        prepared: &Prepared,
        message: &str,
        cancel: &CancellationToken,
    ) -> Result<Plan, ToolOutput> {
        match self.ask_conflict(&prepared.call, message, cancel).await {
            Some(ConflictChoice::ApplyAnyway) => {
                let context = Arc::clone(&self.context);
                let tool = Arc::clone(&prepared.tool);
                let arguments = prepared.arguments.clone();
                let planned = tokio::task::spawn_blocking(move || {
                    hone_tools::edit::accept_current_files(&context);
                    tool.plan(&context, &arguments)
                })
                .await;
                match planned {
                    Ok(Ok(plan)) => Ok(plan),
                    Ok(Err(error)) => Err(ToolOutput::error(format!(
                        "the user chose to apply this change to the file as it is now, but: {}",
                        error.message
                    ))),
                    Err(error) => Err(ToolOutput::error(format!("the tool crashed: {error}"))),
                }
            }
            choice => Err(not_applied(message, choice)),
        }
    }

    /// Writes an approved edit. When a file changed after the edit was planned, an
    /// interactive session asks; "apply anyway" writes the change over the current files.
    pub(crate) async fn write_edit(
        &mut self,
        call: &ToolCall,
        plan: EditPlan,
        cancel: &CancellationToken,
    ) -> ToolOutput {
        let mut plan = plan;
        let mut asked = false;
        loop {
            let context = Arc::clone(&self.context);
            let to_apply = plan.clone();
            let pending = self.begin_edit(&plan);
            let applied =
                tokio::task::spawn_blocking(move || hone_tools::edit::apply(&context, &to_apply))
                    .await;
            self.finish_edit(pending, &applied);
            let error = match applied {
                Ok(Ok(applied)) => {
                    let paths = plan
                        .changes
                        .iter()
                        .map(|change| {
                            change
                                .rename_to
                                .clone()
                                .unwrap_or_else(|| change.path.clone())
                        })
                        .collect();
                    self.emit(Event::DiffApplied {
                        call_id: call.id.clone(),
                        paths,
                        diff: hone_tools::edit::unified_diff(&plan),
                    });
                    let next = match self.registry.profile() {
                        // Small models tend to repeat a change that worked.
                        PromptProfile::Compact => {
                            " If that completes the request, answer the user now in one or \
                             two sentences, without calling a tool."
                        }
                        PromptProfile::Full => "",
                    };
                    return ToolOutput::ok(format!("applied: {}.{next}", applied.summary));
                }
                Ok(Err(error)) => error,
                Err(error) => return ToolOutput::error(format!("the edit crashed: {error}")),
            };
            if error.kind != ToolErrorKind::Conflict || !self.interactive || asked {
                return ToolOutput::error(error.message);
            }
            asked = true;
            match self.ask_conflict(call, &error.message, cancel).await {
                Some(ConflictChoice::ApplyAnyway) => {
                    match hone_tools::edit::rebase(&self.context, &plan) {
                        Ok(rebased) => plan = rebased,
                        Err(error) => return ToolOutput::error(error.message),
                    }
                }
                choice => return not_applied(&error.message, choice),
            }
        }
    }
}

/// The result the model gets when the user skipped a conflicting edit or asked for it to
/// be redone.
fn not_applied(message: &str, choice: Option<ConflictChoice>) -> ToolOutput {
    ToolOutput::error(match choice {
        Some(ConflictChoice::Skip) => "not applied: the file changed on disk and the user chose \
             to skip this change; do not make it again unless asked."
            .to_string(),
        Some(ConflictChoice::Regenerate) => format!(
            "not applied: {message} The user asks you to read the file again and redo the \
             change against its current content."
        ),
        Some(ConflictChoice::ApplyAnyway) | None => {
            "not applied: the user cancelled the turn".to_string()
        }
    })
}
