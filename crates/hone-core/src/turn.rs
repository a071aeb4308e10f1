//! One turn: call the model, run its tool calls, feed the results back, repeat.

use std::time::Instant;

use futures::StreamExt;
use hone_protocol::{
    ChatRequest, ContentBlock, HoneError, Message, Outcome, ResponseCollector, Role, StreamEvent,
    ToolCall, Usage,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::calls::RoundOutcome;
use crate::natural::ReplyCode;
use crate::recovery::Recovery;
use crate::session::Agent;
use hone_api::{Event, TurnEnd, TurnStats};

/// How one model request ended.
enum Reply {
    /// The assistant message (possibly with tool calls).
    Message(Message),
    /// The provider failed.
    Failed(HoneError),
    /// The user cancelled.
    Cancelled,
}

impl Agent {
    /// Runs one turn for `text` (and its attached `images`) and emits its events; always
    /// ends with exactly one of
    /// `turn.completed`, `turn.failed` or `turn.cancelled`.
    pub(crate) async fn run_turn(&mut self, text: String, images: &[hone_api::ImageAttachment]) {
        self.turns += 1;
        let started = Instant::now();
        let cancel = self.cancel_slot.fresh();
        let mut stats = TurnStats::default();
        self.emit(Event::TurnStarted { turn: self.turns });
        let images = match self.image_blocks(images) {
            Ok(blocks) => blocks,
            Err(error) => {
                self.emit(Event::TurnFailed {
                    error: crate::api::error_info(error),
                    stats,
                });
                return;
            }
        };
        let text = match self.prompt_hooks(text, &cancel).await {
            Ok(text) => text,
            Err(reason) => {
                self.emit(Event::TurnFailed {
                    error: crate::api::error_info(HoneError::new(
                        hone_protocol::ErrorCategory::Validation,
                        format!("a UserPromptSubmit hook blocked the prompt: {reason}"),
                    )),
                    stats,
                });
                return;
            }
        };
        self.checks.start_turn();
        self.changes.start_turn();
        let planned = self.plan_step(&text, &cancel, &mut stats).await;
        let mut request = self.request_message(text);
        request.content.extend(images);
        crate::localize::attach(&mut request, &planned.attachment, planned.note);
        self.push_history(request);
        let turn_start = self.history.len();
        if let Some(step) = self.flow.guided_mut() {
            step.turn_start = turn_start;
        }
        let ending = match self.run_attempts(planned.rename, &cancel, &mut stats).await {
            Ending::Done(end) => Ending::Done(self.changes.settle(end, self.task)),
            other => other,
        };
        stats.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        stats.tool_calls = self.changes.actions();
        let (side_requests, side_usage) = self.changes.side_requests();
        stats.model_requests += side_requests;
        stats.usage = add_usage(stats.usage, side_usage);
        let event = match ending {
            Ending::Done(end) => Event::TurnCompleted { end, stats },
            Ending::Failed(error) => Event::TurnFailed {
                error: crate::api::error_info(error),
                stats,
            },
            Ending::Cancelled => Event::TurnCancelled { stats },
        };
        self.announce_protected_changes();
        // Saved before the turn's end is announced: a front end may exit on that event.
        self.stop_hooks().await;
        self.save_context();
        self.emit(event);
    }

    /// The agent loop: the model calls tools until it answers without them (code blocks
    /// of that answer may still be the change), the round limit is reached, or the user
    /// cancels; the checks run after its changes.
    pub(crate) async fn turn_loop(
        &mut self,
        cancel: &CancellationToken,
        stats: &mut TurnStats,
    ) -> Ending {
        let mut rounds = 0;
        let mut repeated = crate::repeats::CallTracker::default();
        // Set once the model re-sends a change it already applied: it is told to answer, and
        // the turn ends if it calls tools again (small models loop on a change that worked).
        // The tools stay in the request so its prefix is unchanged.
        let mut must_answer = false;
        let mut natural_edits = 0;
        // A change made of a reply's code in this turn; the last reply's code equalled its file.
        let mut natural_changed = false;
        let mut copied_unchanged = false;
        loop {
            let tools_allowed = rounds < self.max_tool_rounds;
            let message = match self.next_reply(cancel, stats, tools_allowed).await {
                Ok(message) => message,
                Err(ending) => return ending,
            };
            let message = if tools_allowed {
                recover_unwrapped_call(message, rounds)
            } else {
                message
            };
            let calls: Vec<ToolCall> = message.tool_calls().cloned().collect();
            let text = message.text();
            self.note_reply(&message);
            self.push_history(message);
            if calls.is_empty() {
                // Code blocks of a final answer may be the edit (small models answer so);
                // after a tool edit they are taken as a description of it.
                if tools_allowed
                    && !repeated.applied_any()
                    && natural_edits < crate::natural::MAX_NATURAL_EDITS
                {
                    natural_edits += 1;
                    match self.natural_edit(&text, natural_edits, cancel).await {
                        ReplyCode::Answer => copied_unchanged = false,
                        // The code already applied, sent again while the checks fail.
                        ReplyCode::Unchanged(_) if natural_changed && self.repair_unchanged() => {
                            natural_edits = 0;
                            continue;
                        }
                        ReplyCode::Unchanged(_) if natural_changed => copied_unchanged = false,
                        ReplyCode::Changed(note) => {
                            natural_changed = true;
                            copied_unchanged = false;
                            self.push_history(note);
                            continue;
                        }
                        ReplyCode::Applied(actions) => {
                            natural_changed = true;
                            copied_unchanged = false;
                            self.push_history(crate::natural::applied_note(&actions, true));
                            continue;
                        }
                        ReplyCode::Retry(note) => {
                            copied_unchanged = false;
                            self.push_history(note);
                            continue;
                        }
                        ReplyCode::Unchanged(note) => {
                            copied_unchanged = true;
                            self.push_history(note);
                            continue;
                        }
                    }
                }
                // The model kept sending the file's own code back for a change: nothing was
                // done, so the turn did not succeed (a silent "done" would hide it).
                if copied_unchanged && !natural_changed && !repeated.applied_any() {
                    return Ending::Done(TurnEnd::RepeatedFailure);
                }
                if tools_allowed && self.check_and_repair(cancel).await {
                    must_answer = false;
                    // Each repair round may be answered with code blocks again.
                    natural_edits = 0;
                    continue;
                }
                return Ending::Done(if tools_allowed {
                    TurnEnd::Answered
                } else {
                    TurnEnd::RoundLimit
                });
            }
            // The model called tools after being told not to: answer the calls so the
            // history stays valid, and stop.
            if must_answer {
                self.push_history(refused_results(
                    &calls,
                    "the change was already applied; no more tools in this turn",
                ));
                self.emit(Event::Error {
                    error: crate::api::error_info(HoneError::new(
                        hone_protocol::ErrorCategory::Tool,
                        "the model kept re-sending a change it had already applied, so the turn \
                         stopped (the change is in place)",
                    )),
                });
                return Ending::Done(TurnEnd::RepeatedFailure);
            }
            if !tools_allowed {
                self.push_history(refused_results(&calls, "the tool round limit was reached"));
                return Ending::Done(TurnEnd::RoundLimit);
            }
            rounds += 1;
            let applied_repeats = repeated.applied_repeats();
            let outcome = self.run_round(&calls, cancel, &mut repeated).await;
            let answer_now = repeated.applied_repeats() > applied_repeats;
            match outcome {
                RoundOutcome::Continue(mut results) => {
                    self.note_round(&calls, &mut results);
                    self.push_history(results);
                }
                RoundOutcome::Cancelled(results) => {
                    self.push_history(results);
                    return Ending::Cancelled;
                }
                RoundOutcome::RepeatedFailure {
                    results,
                    explanation,
                } => {
                    self.push_history(results);
                    self.emit(Event::Error {
                        error: crate::api::error_info(HoneError::new(
                            hone_protocol::ErrorCategory::Tool,
                            explanation,
                        )),
                    });
                    return Ending::Done(TurnEnd::RepeatedFailure);
                }
            }
            if answer_now && rounds < self.max_tool_rounds {
                must_answer = true;
                self.push_history(Message::user(
                    "[hone] That change is already in the file. Do not call any more tools in \
                     this turn: answer the user now in one or two sentences, saying what you \
                     changed.",
                ));
            }
            if rounds == self.max_tool_rounds {
                let note = format!(
                    "[hone] You have used all {} tool rounds allowed for this turn. Do not call \
                     more tools: answer now with what you found, and say what is left to do.",
                    self.max_tool_rounds
                );
                self.emit(Event::Error {
                    error: crate::api::error_info(HoneError::new(
                        hone_protocol::ErrorCategory::Tool,
                        format!(
                            "the turn reached max_tool_rounds ({}); the model was asked to answer without more tools",
                            self.max_tool_rounds
                        ),
                    )),
                });
                self.push_history(Message::user(note));
            }
        }
    }

    /// The model's next reply, or how the turn ends when the request failed and was not
    /// retried, or was cancelled.
    pub(crate) async fn next_reply(
        &mut self,
        cancel: &CancellationToken,
        stats: &mut TurnStats,
        tools_allowed: bool,
    ) -> Result<Message, Ending> {
        loop {
            if let Some(ending) = self.settle_storage(cancel).await {
                return Err(ending);
            }
            match self.request_model(cancel, stats, tools_allowed).await {
                Reply::Message(message) => return Ok(message),
                Reply::Failed(error) => match self.recover(error, cancel).await {
                    Recovery::Retry => {}
                    Recovery::Skip => return Err(Ending::Done(TurnEnd::Skipped)),
                    Recovery::Abort(error) => return Err(Ending::Failed(error)),
                    Recovery::Cancelled => return Err(Ending::Cancelled),
                },
                Reply::Cancelled => return Err(Ending::Cancelled),
            }
        }
    }

    /// One streamed model request; forwards deltas and returns the assistant message.
    async fn request_model(
        &mut self,
        cancel: &CancellationToken,
        stats: &mut TurnStats,
        tools_allowed: bool,
    ) -> Reply {
        let tools = if tools_allowed && self.flow.offers_tools() {
            self.registry.specs()
        } else {
            Vec::new()
        };
        let role = self.flow.role();
        let built = match self.build_request(&tools, cancel, stats).await {
            Ok(built) => built,
            Err(error) => return Reply::Failed(error),
        };
        let mut request = ChatRequest {
            model: role
                .as_ref()
                .map_or_else(|| self.model.clone(), |role| role.model.clone()),
            system: Some(built.system.clone()),
            messages: built.messages.clone(),
            tools,
            max_tokens: None,
            temperature: self.flow.temperature(stats.model_requests, self.attempt),
            ..ChatRequest::default()
        };
        // A guided step's role brings its own settings; every other request the session's.
        match &role {
            Some(role) => role.generation.apply_to(&mut request),
            None => self.roles.chat.generation.apply_to(&mut request),
        }
        stats.model_requests += 1;
        self.audit.request("request", &request);
        let provider = role
            .and_then(|role| role.provider)
            .unwrap_or_else(|| self.provider.clone());
        let mut events = provider.stream(request, cancel.clone());
        let mut collector = ResponseCollector::new();
        while let Some(event) = events.next().await {
            match &event {
                StreamEvent::TextDelta { text } => {
                    self.emit(Event::MessageDelta { text: text.clone() })
                }
                StreamEvent::ThinkingDelta { text } => {
                    self.emit(Event::ThinkingDelta { text: text.clone() })
                }
                StreamEvent::Retrying {
                    attempt,
                    delay_ms,
                    status,
                    reason,
                } => self.emit(Event::ModelRetrying {
                    attempt: *attempt,
                    delay_ms: *delay_ms,
                    status: *status,
                    reason: reason.clone(),
                }),
                _ => {}
            }
            collector.push(&event);
        }
        let message = collector.message();
        let outcome = collector.outcome().cloned();
        let usage = collector.usage().or_else(|| {
            // The server said nothing about usage: count what was sent and received with
            // hone's estimate, marked as such, rather than report 0 tokens.
            matches!(outcome, Some(Outcome::Completed(_))).then(|| Usage {
                input_tokens: built.tokens as u64,
                output_tokens: estimated_output(&message),
                estimated: true,
                ..Usage::default()
            })
        });
        if let Some(usage) = usage {
            stats.usage = add_usage(stats.usage, usage);
            self.emit(Event::Usage { usage });
        }
        self.report_usage(&built, collector.usage());
        self.audit.comms(
            "response",
            json!({
                "message": message,
                "usage": collector.usage(),
                "outcome": crate::audit::outcome_json(outcome.as_ref()),
            }),
        );
        match outcome {
            Some(Outcome::Completed(_)) => {
                self.emit(Event::MessageCompleted {
                    text: message.text(),
                });
                Reply::Message(message)
            }
            Some(Outcome::Failed(error)) => Reply::Failed(error),
            Some(Outcome::Cancelled) => Reply::Cancelled,
            None => Reply::Failed(HoneError::provider(
                "the model's response ended without a result",
            )),
        }
    }
}

/// How the turn loop ended.
pub(crate) enum Ending {
    Done(TurnEnd),
    Failed(HoneError),
    Cancelled,
}

/// hone's estimate of the tokens of a reply: its text and its tool calls' names and
/// arguments.
fn estimated_output(message: &Message) -> u64 {
    let mut tokens = hone_protocol::estimate_tokens(&message.text());
    for call in message.tool_calls() {
        tokens += hone_protocol::estimate_tokens(&call.name);
        tokens += hone_protocol::estimate_tokens(&call.arguments);
    }
    tokens as u64
}

/// `total` with one more request's usage added.
pub(crate) fn add_usage(total: hone_api::Usage, more: Usage) -> hone_api::Usage {
    hone_api::Usage {
        input_tokens: total.input_tokens + more.input_tokens,
        output_tokens: total.output_tokens + more.output_tokens,
        cached_input_tokens: total.cached_input_tokens + more.cached_input_tokens,
        reasoning_tokens: total.reasoning_tokens + more.reasoning_tokens,
        drafted_tokens: total.drafted_tokens + more.drafted_tokens,
        accepted_tokens: total.accepted_tokens + more.accepted_tokens,
        estimated: total.estimated || more.estimated,
    }
}

/// Results answering `calls` with one refusal message each.
pub(crate) fn refused_results(calls: &[ToolCall], why: &str) -> Message {
    Message {
        role: Role::User,
        content: calls
            .iter()
            .map(|call| {
                ContentBlock::ToolResult(hone_protocol::ToolResult {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    content: format!("not run: {why}"),
                    is_error: true,
                    effect: Default::default(),
                })
            })
            .collect(),
    }
}

/// A reply that is nothing but a tool-call object the parsers did not take as a call
/// (typically a small model naming a tool that does not exist, e.g. the function it wants
/// to change) becomes that call, so the model is told what is wrong and can try again
/// instead of the turn ending on a JSON answer.
fn recover_unwrapped_call(message: Message, round: u32) -> Message {
    if message.tool_calls().next().is_some() {
        return message;
    }
    let text = message.text();
    let trimmed = text
        .trim()
        .trim_start_matches("```json")
        .trim_start_matches("```")
        .trim_end_matches("```")
        .trim();
    let Ok(serde_json::Value::Object(object)) = serde_json::from_str(trimmed) else {
        return message;
    };
    let Some(name) = object.get("name").and_then(serde_json::Value::as_str) else {
        return message;
    };
    let arguments = match object.get("arguments").or_else(|| object.get("parameters")) {
        Some(serde_json::Value::String(text)) => text.clone(),
        Some(value @ serde_json::Value::Object(_)) => value.to_string(),
        _ => return message,
    };
    let only_call_keys = object.keys().all(|key| {
        matches!(
            key.as_str(),
            "name" | "arguments" | "parameters" | "id" | "type"
        )
    });
    if !only_call_keys {
        return message;
    }
    Message {
        role: hone_protocol::Role::Assistant,
        content: vec![hone_protocol::ContentBlock::ToolCall(ToolCall {
            id: format!("call_unwrapped_{round}"),
            name: name.to_string(),
            arguments,
        })],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_that_is_only_a_call_object_becomes_a_call() {
        let reply = Message::assistant(
            r#"{"name": "greet", "arguments": {"path": "greet.py", "old_text": "Hello"}}"#,
        );
        let recovered = recover_unwrapped_call(reply, 2);
        let calls: Vec<&ToolCall> = recovered.tool_calls().collect();
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].name, "greet");
        assert_eq!(calls[0].id, "call_unwrapped_2");
        assert!(calls[0].arguments.contains("greet.py"));
    }

    #[test]
    fn other_answers_stay_as_they_are() {
        for text in [
            "Done: greet.py now says Hi.",
            r#"{"name": "x", "version": "1.0"}"#,
            r#"{"status": "ok"}"#,
        ] {
            let recovered = recover_unwrapped_call(Message::assistant(text), 0);
            assert_eq!(recovered.text(), text);
            assert_eq!(recovered.tool_calls().count(), 0);
        }
    }
}
