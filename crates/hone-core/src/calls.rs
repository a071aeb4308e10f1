//! Running one round of tool calls: plan, check the policy, ask, execute, report.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hone_policy::Action;
use hone_protocol::{ContentBlock, Message, Role, ToolCall, ToolResult};
use hone_tools::{EditPlan, ExternalPlan, Plan, Tool, ToolErrorKind, ToolKind, ToolOutput};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::authorize::{Authorization, Question};
use crate::repeats::{self, CallTracker, MAX_IDENTICAL_FAILURES, Repeat};
use crate::session::Agent;
use crate::tools::parse_arguments;
use hone_api::{ApprovedBy, Event};

/// How a round ended.
pub(crate) enum RoundOutcome {
    /// All calls ran; the results go back to the model.
    Continue(Message),
    /// The user cancelled; calls not run are answered as cancelled.
    Cancelled(Message),
    /// The same call failed too often.
    RepeatedFailure {
        /// The round's results.
        results: Message,
        /// What to tell the user.
        explanation: String,
    },
}

/// A call that passed name and argument checks.
pub(crate) struct Prepared {
    pub(crate) call: ToolCall,
    pub(crate) tool: Arc<dyn Tool>,
    pub(crate) arguments: Value,
    /// Why another tool than the one named runs (an unknown name; see
    /// `ToolRegistry::resolve_call`), put before the result.
    pub(crate) correction: Option<String>,
}

impl Agent {
    /// Runs `calls` in order (consecutive reads in parallel) and collects their results.
    pub(crate) async fn run_round(
        &mut self,
        calls: &[ToolCall],
        cancel: &CancellationToken,
        tracker: &mut CallTracker,
    ) -> RoundOutcome {
        let mut results = Vec::with_capacity(calls.len());
        let mut repeated: Option<String> = None;
        // Changes and commands already run in this reply, by name and arguments: a model
        // that repeats one in the same reply gets told instead of running it twice.
        let mut same_reply: HashMap<(String, String), String> = HashMap::new();
        let mut index = 0;
        while index < calls.len() {
            if cancel.is_cancelled() {
                for call in &calls[index..] {
                    results.push(result_for(
                        call,
                        ToolOutput::error("not run: the user cancelled the turn"),
                    ));
                }
                return RoundOutcome::Cancelled(results_message(results));
            }
            let reads = calls[index..]
                .iter()
                .take_while(|call| self.is_read(call) && !self.hooks.watches_tools())
                .count();
            let batch: Vec<(ToolCall, ToolOutput)> = if reads > 1 {
                let batch = self.run_reads(&calls[index..index + reads], cancel).await;
                index += reads;
                batch
            } else {
                let call = &calls[index];
                index += 1;
                let canonical = self.canonical(call);
                let output = match tracker.repeat_of(&canonical, &same_reply) {
                    Some(repeat) => {
                        if matches!(repeat, Repeat::AlreadyApplied(_)) {
                            tracker.record_applied_repeat();
                        }
                        self.skip_repeat(call, &repeat)
                    }
                    None => {
                        same_reply.insert(repeats::key(&canonical), call.id.clone());
                        let output = self.run_call(call, cancel).await;
                        if !output.is_error && self.is_write(call) {
                            tracker.record_applied(&canonical);
                        }
                        output
                    }
                };
                vec![(call.clone(), output)]
            };
            for (call, output) in batch {
                if output.is_error
                    && tracker.record_failure(&self.canonical(&call)) >= MAX_IDENTICAL_FAILURES
                {
                    repeated = Some(format!(
                        "`{}` failed {MAX_IDENTICAL_FAILURES} times with the same arguments, so the turn stopped. \
                         Last error: {}",
                        call.name,
                        first_line(&output.content)
                    ));
                }
                results.push(result_for(&call, output));
            }
        }
        let message = results_message(results);
        match repeated {
            Some(explanation) => RoundOutcome::RepeatedFailure {
                results: message,
                explanation,
            },
            None => RoundOutcome::Continue(message),
        }
    }

    fn is_read(&self, call: &ToolCall) -> bool {
        self.registry
            .resolve(&call.name)
            .is_ok_and(|tool| tool.kind() == ToolKind::Read)
    }

    /// Validates name and arguments; an error is the result to give the model.
    fn prepare(&self, call: &ToolCall) -> Result<Prepared, ToolOutput> {
        self.emit(Event::ToolRequested {
            call_id: call.id.clone(),
            name: call.name.clone(),
            arguments: crate::api::arguments(&call.arguments),
        });
        let (tool, correction) = self
            .registry
            .resolve_call(call)
            .map_err(ToolOutput::error)?;
        let arguments = parse_arguments(call, &tool.spec()).map_err(ToolOutput::error)?;
        Ok(Prepared {
            call: call.clone(),
            tool,
            arguments,
            correction,
        })
    }

    /// Runs several read calls concurrently; results keep the calls' order.
    async fn run_reads(
        &mut self,
        calls: &[ToolCall],
        cancel: &CancellationToken,
    ) -> Vec<(ToolCall, ToolOutput)> {
        let started = self.start_clock();
        let mut pending = Vec::new();
        let mut outputs: Vec<Option<ToolOutput>> = vec![None; calls.len()];
        for (position, call) in calls.iter().enumerate() {
            match self.prepare(call) {
                Ok(prepared) => {
                    let context = Arc::clone(&self.context);
                    pending.push((
                        position,
                        tokio::task::spawn_blocking(move || {
                            prepared.tool.plan(&context, &prepared.arguments)
                        }),
                    ));
                }
                Err(output) => outputs[position] = Some(output),
            }
        }
        for (position, handle) in pending {
            let output = match handle.await {
                Ok(Ok(Plan::Done(output))) => output,
                Ok(Ok(Plan::SecretRead(read))) => {
                    self.show_secret_read(&calls[position], read, cancel).await
                }
                Ok(Ok(_)) => {
                    ToolOutput::error("a read-only tool proposed a change; this is a bug in hone")
                }
                Ok(Err(error)) => ToolOutput::error(error.message),
                Err(error) => ToolOutput::error(format!("the tool crashed: {error}")),
            };
            outputs[position] = Some(output);
        }
        calls
            .iter()
            .zip(outputs)
            .map(|(call, output)| {
                let output =
                    output.unwrap_or_else(|| ToolOutput::error("the tool produced no result"));
                (call.clone(), self.finish(call, output, started))
            })
            .collect()
    }

    /// `call` under the name of the tool it runs (see `ToolRegistry::resolve_call`), so
    /// repeats are recognised whatever the model called the tool.
    fn canonical(&self, call: &ToolCall) -> ToolCall {
        let mut canonical = call.clone();
        if let Ok((tool, _)) = self.registry.resolve_call(call) {
            canonical.name = tool.name().to_string();
        }
        canonical
    }

    fn is_write(&self, call: &ToolCall) -> bool {
        self.registry
            .resolve_call(call)
            .is_ok_and(|(tool, _)| tool.kind() == ToolKind::Write)
    }

    /// Answers a repeated call without running it again.
    fn skip_repeat(&mut self, call: &ToolCall, repeat: &Repeat) -> ToolOutput {
        self.emit(Event::ToolRequested {
            call_id: call.id.clone(),
            name: call.name.clone(),
            arguments: crate::api::arguments(&call.arguments),
        });
        let output = if repeat.is_error() {
            ToolOutput::error(repeat.explanation())
        } else {
            ToolOutput::ok(repeat.explanation())
        };
        let started = self.start_clock();
        self.finish(call, output, started)
    }

    /// Runs one call through planning, policy, approval and execution.
    async fn run_call(&mut self, call: &ToolCall, cancel: &CancellationToken) -> ToolOutput {
        let started = self.start_clock();
        tokio::select! {
            () = cancel.cancelled() => {}
            () = self.registry.ready_for(&call.name) => {}
        }
        let output = match self.prepare(call) {
            Ok(prepared) => {
                let correction = prepared.correction.clone();
                let mut output = self.run_hooked(prepared, cancel).await;
                if let Some(correction) = correction {
                    output.content.insert_str(0, &correction);
                }
                output
            }
            Err(output) => output,
        };
        self.finish(call, output, started)
    }

    pub(crate) async fn plan_and_run(
        &mut self,
        prepared: Prepared,
        cancel: &CancellationToken,
    ) -> ToolOutput {
        let context = Arc::clone(&self.context);
        let tool = Arc::clone(&prepared.tool);
        let arguments = prepared.arguments.clone();
        let planned = tokio::task::spawn_blocking(move || tool.plan(&context, &arguments)).await;
        let plan = match planned {
            Ok(Ok(plan)) => plan,
            Ok(Err(error)) if error.kind == ToolErrorKind::Conflict && self.interactive => {
                match self.stale_read(&prepared, &error.message, cancel).await {
                    Ok(plan) => plan,
                    Err(output) => return output,
                }
            }
            Ok(Err(error)) => return ToolOutput::error(error.message),
            Err(error) => return ToolOutput::error(format!("the tool crashed: {error}")),
        };
        match plan {
            Plan::Done(output) => output,
            Plan::SecretRead(read) => self.show_secret_read(&prepared.call, read, cancel).await,
            Plan::Edit(plan) => {
                self.run_edit(&prepared.call, prepared.tool.name(), plan, cancel)
                    .await
            }
            Plan::Command(plan) => {
                self.run_command(&prepared.call, prepared.tool.name(), plan, cancel)
                    .await
            }
            Plan::External(plan) => {
                self.run_external(&prepared.call, prepared.tool.name(), plan, cancel)
                    .await
            }
        }
    }

    /// Asks (unless the policy allows it) and runs a call of an outside tool.
    async fn run_external(
        &mut self,
        call: &ToolCall,
        tool: &str,
        plan: ExternalPlan,
        cancel: &CancellationToken,
    ) -> ToolOutput {
        let action = Action::External {
            trusted: plan.trusted,
        };
        let question = Question {
            summary: plan.display.clone(),
            reason: None,
            diff: None,
            command: None,
            content: None,
        };
        let by = match self.authorize(call, tool, &action, question, cancel).await {
            Authorization::Allowed { by, edited: None } => by,
            Authorization::Allowed {
                edited: Some(_), ..
            } => {
                return ToolOutput::error(
                    "not run: a call of an MCP server's tool cannot be edited by hand; ask for \
                     a new call instead",
                );
            }
            Authorization::Denied(reason) => return self.denied(call, &reason),
            Authorization::Unanswerable(reason) => return self.cannot_ask(call, &reason),
            Authorization::Refused(message) => return self.denied_by_user(call, message),
            Authorization::Cancelled => {
                return ToolOutput::error("not run: the user cancelled the turn");
            }
        };
        self.approved(call, by);
        plan.call.run(cancel.clone()).await
    }

    /// Starts timing a call: from now, its duration counts what it does, not the time it
    /// waits for the user (see [`Agent::execution_ms`]).
    pub(crate) fn start_clock(&mut self) -> Instant {
        self.user_wait = Duration::ZERO;
        Instant::now()
    }

    /// Milliseconds since `started` without the time spent waiting for the user's
    /// approval or choice meanwhile; resets that wait.
    pub(crate) fn execution_ms(&mut self, started: Instant) -> u64 {
        let waited = std::mem::take(&mut self.user_wait);
        u64::try_from(started.elapsed().saturating_sub(waited).as_millis()).unwrap_or(u64::MAX)
    }

    /// Logs and announces a call's result with known secrets redacted, and returns it so
    /// redacted: the model, the front end and the session store never see a secret a
    /// command printed. `started` comes from [`Agent::start_clock`].
    pub(crate) fn finish(
        &mut self,
        call: &ToolCall,
        mut output: ToolOutput,
        started: Instant,
    ) -> ToolOutput {
        let duration_ms = self.execution_ms(started);
        output.content = self.audit.redact(&output.content);
        self.audit.tool(
            &call.id,
            &call.name,
            &call.arguments,
            &output.content,
            output.is_error,
        );
        self.emit(Event::ToolCompleted {
            call_id: call.id.clone(),
            name: call.name.clone(),
            output: output.content.clone(),
            is_error: output.is_error,
            exit_code: output.exit_code,
            duration_ms,
        });
        output
    }

    /// Shows, approves and applies `plan`; the output declares the files it writes.
    pub(crate) async fn run_edit(
        &mut self,
        call: &ToolCall,
        tool: &str,
        plan: EditPlan,
        cancel: &CancellationToken,
    ) -> ToolOutput {
        let effect = plan.effect();
        self.apply_edit(call, tool, plan, cancel)
            .await
            .with_effect(effect)
    }

    async fn apply_edit(
        &mut self,
        call: &ToolCall,
        tool: &str,
        mut plan: EditPlan,
        cancel: &CancellationToken,
    ) -> ToolOutput {
        let diff = hone_tools::edit::unified_diff(&plan);
        self.emit(Event::DiffProposed {
            call_id: call.id.clone(),
            diff: diff.clone(),
        });
        // A change to hone's own files or an instruction file always asks.
        let protected = plan
            .changes
            .iter()
            .flat_map(|change| std::iter::once(&change.path).chain(&change.rename_to))
            .find_map(|path| hone_policy::protected_write(path).map(|why| (path.clone(), why)));
        let action = match &protected {
            Some((path, why)) => Action::WriteProtected { path, why },
            None => Action::Write {
                destructive: plan.destructive.is_some(),
            },
        };
        let question = Question {
            summary: plan.summary.clone(),
            // A change that removes most of a file says so, unless it is protected.
            reason: protected
                .is_none()
                .then(|| plan.destructive.clone())
                .flatten(),
            diff: Some(diff),
            command: None,
            content: match plan.changes.as_slice() {
                [change] => change.after.clone(),
                _ => None,
            },
        };
        match self.authorize(call, tool, &action, question, cancel).await {
            Authorization::Allowed { by, edited: None } => self.approved(call, by),
            Authorization::Allowed {
                by,
                edited: Some(replacement),
            } => {
                match plan.changes.as_mut_slice() {
                    [change] if change.after.is_some() => change.after = Some(replacement),
                    _ => {
                        return ToolOutput::error(
                            "not applied: this change cannot be edited by hand (it touches several files or deletes one); ask for a new proposal instead",
                        );
                    }
                }
                self.approved(call, by);
            }
            Authorization::Denied(reason) => return self.denied(call, &reason),
            Authorization::Unanswerable(reason) if protected.is_some() => {
                return self.denied(
                    call,
                    &format!("{reason}, and hone is running without a terminal to ask"),
                );
            }
            Authorization::Unanswerable(reason) => return self.cannot_ask(call, &reason),
            Authorization::Refused(message) => return self.denied_by_user(call, message),
            Authorization::Cancelled => {
                return ToolOutput::error("not applied: the user cancelled the turn");
            }
        }
        self.write_edit(call, plan, cancel).await
    }

    pub(crate) fn approved(&self, call: &ToolCall, by: ApprovedBy) {
        self.emit(Event::ToolApproved {
            call_id: call.id.clone(),
            by,
        });
    }

    pub(crate) fn denied(&self, call: &ToolCall, reason: &str) -> ToolOutput {
        self.emit(Event::ToolDenied {
            call_id: call.id.clone(),
            reason: reason.to_string(),
        });
        ToolOutput::error(format!(
            "not run: {reason}. Do not retry it; find another way or explain to the user."
        ))
    }

    /// Refuses a call that would need approval when no one can be asked.
    pub(crate) fn cannot_ask(&self, call: &ToolCall, reason: &str) -> ToolOutput {
        self.denied(
            call,
            &format!(
                "it needs the user's approval ({reason}), and hone is running without a terminal \
                 to ask; the user can re-run with --approval auto-edit (edits) or full-auto \
                 (commands), or allow the command under [permissions]"
            ),
        )
    }

    pub(crate) fn denied_by_user(&self, call: &ToolCall, message: Option<String>) -> ToolOutput {
        let reason = match message
            .as_deref()
            .map(str::trim)
            .filter(|text| !text.is_empty())
        {
            Some(text) => format!("the user denied this call and said: {text}"),
            None => "the user denied this call".to_string(),
        };
        self.denied(call, &reason)
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

fn result_for(call: &ToolCall, output: ToolOutput) -> ToolResult {
    ToolResult {
        call_id: call.id.clone(),
        name: call.name.clone(),
        content: output.content,
        is_error: output.is_error,
        effect: output.effect,
    }
}

fn results_message(results: Vec<ToolResult>) -> Message {
    Message {
        role: Role::User,
        content: results.into_iter().map(ContentBlock::ToolResult).collect(),
    }
}
