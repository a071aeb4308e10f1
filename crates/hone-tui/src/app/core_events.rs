//! What the app does with each core event.

use std::time::Duration;

use hone_api::{
    ApprovalDecision, CompactionMethod, Event, Request, TrackedInfo, TurnEnd, TurnStats,
};
use hone_protocol::HoneError;

use super::{App, Effect};
use hone_api::thousands;

use crate::format::seconds;
use crate::modal::{ApprovalModal, Modal, Proposal};
use crate::status::Activity;
use crate::tool_line;
use crate::transcript::{DiffOutcome, Entry, NoticeKind, SMALL_DIFF_LINES, ToolEntry, ToolState};

/// How the edit tools say that a file changed after the model read it.
const CONFLICT_MARK: &str = "changed since you read it";

/// Width of the compact tool lines before they are cut.
const TOOL_LINE_LIMIT: usize = 160;

impl App {
    /// Takes in one event from the core.
    pub fn on_core_event(&mut self, event: Event) -> Vec<Effect> {
        let mut effects = Vec::new();
        match event {
            Event::SessionStarted {
                provider,
                model,
                approval,
                session_id,
                ..
            } => {
                self.session_id = session_id;
                self.options.session.provider = provider;
                self.options.session.model = model;
                self.options.session.approval = approval;
            }
            Event::TurnStarted { .. } => {
                self.running = true;
                self.core_choice_offered = false;
                self.activity = Activity::working("thinking", self.elapsed);
            }
            Event::MessageDelta { text } => {
                let writing =
                    matches!(&self.activity, Activity::Working { what, .. } if what == "writing");
                if self.running && !writing {
                    self.activity = Activity::working("writing", self.elapsed);
                }
                self.transcript.append_answer(&text);
            }
            Event::ThinkingDelta { text } => self.transcript.append_thinking(&text),
            Event::MessageCompleted { text } => self.transcript.complete_answer(&text),
            Event::ToolRequested {
                call_id,
                name,
                arguments,
            } => {
                let line = tool_line::describe(
                    &name,
                    &tool_line::raw_arguments(&arguments),
                    TOOL_LINE_LIMIT,
                );
                self.activity = Activity::working(
                    format!(
                        "running {}",
                        tool_line::describe(&name, &tool_line::raw_arguments(&arguments), 40)
                    ),
                    self.elapsed,
                );
                self.transcript.push(Entry::Tool(ToolEntry {
                    call_id,
                    line,
                    state: ToolState::Running,
                    output: String::new(),
                }));
            }
            Event::ApprovalNeeded {
                call_id,
                name,
                summary,
                reason,
                diff,
                command,
                content,
            } => {
                if let Some(diff) = &diff {
                    self.proposed.insert(call_id.clone(), diff.clone());
                }
                if self.auto_apply && diff.is_some() && command.is_none() {
                    Self::send(
                        &mut effects,
                        Request::Approval {
                            call_id,
                            decision: ApprovalDecision::Approve,
                        },
                    );
                } else {
                    self.transcript
                        .update_tool(&call_id, |tool| tool.state = ToolState::Waiting);
                    let proposal = Proposal {
                        call_id,
                        name,
                        summary,
                        reason,
                        diff,
                        command,
                        content,
                    };
                    let modal = ApprovalModal::new(proposal, self.options.external_editor);
                    self.open_modal(Modal::Approval(Box::new(modal)));
                }
            }
            Event::ToolApproved { call_id, .. } => {
                self.transcript
                    .update_tool(&call_id, |tool| tool.state = ToolState::Running);
            }
            Event::ToolDenied { call_id, reason } => {
                self.transcript
                    .update_tool(&call_id, |tool| tool.state = ToolState::Denied(reason));
                if let Some(diff) = self.proposed.remove(&call_id) {
                    self.transcript.push(Entry::Diff {
                        diff,
                        outcome: DiffOutcome::Rejected,
                        expanded: false,
                    });
                }
            }
            Event::DiffProposed { .. } => {}
            Event::DiffApplied { call_id, diff, .. } => {
                self.totals.edits += 1;
                self.applied.push(diff.clone());
                self.proposed.remove(&call_id);
                let stats = crate::diff_view::stats(&diff);
                self.transcript.push(Entry::Diff {
                    diff,
                    outcome: DiffOutcome::Applied,
                    expanded: stats.added + stats.removed <= SMALL_DIFF_LINES,
                });
            }
            Event::ToolCompleted {
                call_id,
                output,
                is_error,
                duration_ms,
                ..
            } => {
                if self.running {
                    self.activity = Activity::working("thinking", self.elapsed);
                }
                if is_error && output.contains(CONFLICT_MARK) {
                    self.transcript.push(Entry::Notice(
                        NoticeKind::Warning,
                        "edit conflict: the file changed outside this conversation after the model read it; nothing was written, and the model was told to read it again and redo the change (Ctrl+C stops it)".into(),
                    ));
                }
                self.transcript.update_tool(&call_id, |tool| {
                    if !matches!(tool.state, ToolState::Denied(_)) {
                        tool.state = ToolState::Done {
                            is_error,
                            duration_ms: Some(duration_ms),
                        };
                    }
                    tool.output = output;
                });
            }
            Event::Usage { usage } => {
                if self.context_percent_reported.is_none() {
                    self.context_used = Some(usage.input_tokens + usage.output_tokens);
                }
            }
            Event::ContextUsage {
                used,
                window,
                percent,
            } => {
                self.context_used = Some(used);
                if window.is_some() {
                    self.options.session.context_window = window;
                }
                self.context_percent_reported = percent;
            }
            Event::ModelRetrying {
                attempt,
                delay_ms,
                status,
                ..
            } => {
                self.activity = Activity::working(
                    hone_runtime::report::events::retrying(attempt, delay_ms, status),
                    self.elapsed,
                );
            }
            Event::ContextCompacting { .. } => {
                self.activity = Activity::working("compacting…", self.elapsed);
            }
            Event::ContextCompacted {
                before_tokens,
                after_tokens,
                method,
            } => {
                if self.running {
                    self.activity = Activity::working("thinking", self.elapsed);
                }
                let by = match method {
                    CompactionMethod::Model => "summarised by the model",
                    CompactionMethod::Rules => "summarised by hone's rules",
                };
                self.transcript.push(Entry::Notice(
                    NoticeKind::Warning,
                    format!(
                        "⟲ context compacted: {} → {} tokens ({by}); the task and recent turns are kept",
                        thousands(before_tokens),
                        thousands(after_tokens)
                    ),
                ));
            }
            Event::FilesTracked {
                files,
                added,
                removed,
                unmatched,
                skipped,
            } => self.files_tracked(files, &added, &removed, &unmatched, &skipped),
            Event::ContextLocalized { items, tokens } => {
                let pieces: Vec<String> = items.iter().map(|item| item.describe()).collect();
                self.notice(format!(
                    "⌖ attached {} (~{} tokens)",
                    pieces.join(", "),
                    thousands(tokens)
                ));
            }
            Event::TurnStep { task, guided } => {
                if let Some(line) = hone_core::step_notice(task, guided) {
                    self.notice(line);
                }
            }
            Event::EditConflict {
                message, choices, ..
            } => self.offer_conflict_choices(message, &choices),
            Event::Warning { message } => self.warn(message),
            Event::McpStatus { servers } => {
                for server in servers {
                    if let Some(error) = server.error {
                        self.warn(format!(
                            "MCP server `{}` failed to start: {error}",
                            server.name
                        ));
                    }
                }
            }
            Event::ApprovalMode { mode } => self.options.session.approval = mode,
            Event::ThinkingLevel { level } => {
                self.notice(format!("reasoning: {level} for this session"));
            }
            // Sessions are listed and deleted through the `Host`; `result` ends one-shot runs;
            // the other answers are for clients of hone-server.
            Event::ChecksStarted { .. }
            | Event::SessionList { .. }
            | Event::SessionDeleted { .. }
            | Event::SessionHistory { .. }
            | Event::SessionExported { .. }
            | Event::RewindPoints { .. }
            | Event::Rewound { .. }
            | Event::MentionsExpanded { .. }
            | Event::InputHistory { .. }
            | Event::IndexStatus { .. }
            | Event::Symbols { .. }
            | Event::InstructionsDrafted { .. }
            | Event::McpPrompt { .. }
            | Event::Settings { .. }
            | Event::ContextInspected { .. }
            | Event::ProjectFiles { .. }
            | Event::FileContent { .. }
            | Event::RepoMap { .. }
            | Event::LogEntries { .. }
            | Event::Result { .. } => {}
            Event::AttemptCompleted { .. } => {
                if let Some(line) = hone_runtime::report::events::notice(&event) {
                    let kind = match &event {
                        Event::AttemptCompleted { passed: true, .. } => NoticeKind::Info,
                        _ => NoticeKind::Warning,
                    };
                    let text = line.trim_start_matches("hone: ").to_string();
                    self.transcript.push(Entry::Notice(kind, text));
                }
            }
            Event::ChecksCompleted {
                passed,
                checks,
                failures,
                repair_round,
                ..
            } => {
                let names: Vec<&str> = checks.iter().map(|check| check.name.as_str()).collect();
                let (kind, text) = match (passed, repair_round) {
                    (true, _) if names.is_empty() => return effects,
                    (true, _) => (
                        NoticeKind::Info,
                        format!("checks passed ({})", names.join(", ")),
                    ),
                    (false, Some(round)) => (
                        NoticeKind::Warning,
                        format!(
                            "checks failed: {}; asking the model to fix them (round {round})",
                            failures.join("; ")
                        ),
                    ),
                    (false, None) => (
                        NoticeKind::Warning,
                        format!("still failing: {}", failures.join("; ")),
                    ),
                };
                self.transcript.push(Entry::Notice(kind, text));
            }
            Event::TurnError { error, choices } => {
                let error = hone_core::hone_error(&error);
                self.core_choice_offered = true;
                self.transcript.push(Entry::Error(error_text(&error)));
                self.activity = Activity::Failed;
                self.offer_core_choices(&error, &choices);
            }
            Event::TurnCompleted { end, stats } => {
                self.turn_ended(&stats, &mut effects);
                self.activity = Activity::Ready;
                match end {
                    TurnEnd::Answered => {}
                    TurnEnd::RoundLimit => self.transcript.push(Entry::Notice(
                        NoticeKind::Warning,
                        "the turn used every tool round allowed (max_tool_rounds); ask again to go on".into(),
                    )),
                    TurnEnd::RepeatedFailure => self.transcript.push(Entry::Notice(
                        NoticeKind::Warning,
                        "the turn stopped: the same call kept failing".into(),
                    )),
                    TurnEnd::Skipped => self.transcript.push(Entry::Notice(
                        NoticeKind::Warning,
                        "skipped: the turn ended without an answer".into(),
                    )),
                    TurnEnd::ChecksFailed => self.transcript.push(Entry::Notice(
                        NoticeKind::Warning,
                        "the checks after the edits still fail; ask again to go on".into(),
                    )),
                    TurnEnd::Unverified => self.transcript.push(Entry::Notice(
                        NoticeKind::Warning,
                        "unverified: no check could verify the change (no tests or project \
                         checks ran); review the diff"
                            .into(),
                    )),
                    TurnEnd::NoChange => self.transcript.push(Entry::Notice(
                        NoticeKind::Warning,
                        "no change: a change was asked for, and no file changed".into(),
                    )),
                    TurnEnd::NotApplied => self.transcript.push(Entry::Notice(
                        NoticeKind::Warning,
                        "not applied: the change was denied or could not be written".into(),
                    )),
                }
            }
            Event::TurnFailed { error, stats } => {
                let error = hone_core::hone_error(&error);
                let shown = self.core_choice_offered;
                if !shown {
                    self.transcript.push(Entry::Error(error_text(&error)));
                }
                self.turn_ended(&stats, &mut effects);
                self.activity = Activity::Failed;
                if !shown {
                    self.offer_retry(&error);
                }
            }
            Event::TurnCancelled { stats } => {
                self.transcript
                    .push(Entry::Notice(NoticeKind::Warning, "interrupted".into()));
                self.turn_ended(&stats, &mut effects);
                self.activity = Activity::Ready;
            }
            Event::Error { error } => self
                .transcript
                .push(Entry::Error(error_text(&hone_core::hone_error(&error)))),
            Event::UndoFailed { message, conflict } => {
                let text = if conflict {
                    format!("undo refused, nothing changed: {message}")
                } else {
                    format!("undo failed, nothing changed: {message}")
                };
                self.transcript.push(Entry::Error(text));
            }
            Event::UndoStack { entries } => self.show_undo_stack(&entries),
            Event::UndoCompleted { undone } => {
                if undone.is_empty() {
                    self.notice("nothing to undo");
                } else {
                    let keep = self.applied.len().saturating_sub(undone.len());
                    self.applied.truncate(keep);
                    self.notice(format!("undone: {}", undone.join("; ")));
                }
            }
        }
        effects
    }

    fn turn_ended(&mut self, stats: &TurnStats, effects: &mut Vec<Effect>) {
        self.transcript.finish_streams();
        self.running = false;
        self.interrupt_armed = false;
        self.note = None;
        self.totals.turns += 1;
        self.totals.input_tokens += stats.usage.input_tokens;
        self.totals.output_tokens += stats.usage.output_tokens;
        self.totals.tool_calls += stats.tool_calls;
        let price = self.paid_price();
        if let Some(price) = price {
            self.totals.cost += price.cost(&stats.usage);
        }
        // Calls still shown as waiting or running were ended with the turn.
        self.modal = self
            .modal
            .take()
            .filter(|modal| !matches!(modal, Modal::Approval(_)));
        self.waiting
            .retain(|modal| !matches!(modal, Modal::Approval(_)));
        self.proposed.clear();
        self.transcript.push(Entry::Stats(stats_line(stats, price)));
        if self
            .options
            .bell_after
            .is_some_and(|after| Duration::from_millis(stats.duration_ms) >= after)
        {
            effects.push(Effect::Bell);
        }
    }

    fn files_tracked(
        &mut self,
        files: Vec<TrackedInfo>,
        added: &[String],
        removed: &[String],
        unmatched: &[String],
        skipped: &[String],
    ) {
        let mut parts = Vec::new();
        if !added.is_empty() {
            parts.push(format!("added {}", list(added)));
        }
        if !removed.is_empty() {
            parts.push(format!("dropped {}", list(removed)));
        }
        let tokens: u64 = files.iter().map(|file| file.tokens).sum();
        parts.push(format!(
            "{} tracked file{} (~{} tokens)",
            files.len(),
            if files.len() == 1 { "" } else { "s" },
            thousands(tokens)
        ));
        self.notice(parts.join("; "));
        if !unmatched.is_empty() {
            self.transcript.push(Entry::Notice(
                NoticeKind::Warning,
                format!("nothing matches {}", list(unmatched)),
            ));
        }
        if !skipped.is_empty() {
            self.transcript.push(Entry::Notice(
                NoticeKind::Warning,
                format!("not tracked: {}", skipped.join("; ")),
            ));
        }
        self.tracked = files;
    }
}

/// `a, b, c` (or `a, b, c and 4 more`).
fn list(items: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut text = items
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > SHOWN {
        text.push_str(&format!(" and {} more", items.len() - SHOWN));
    }
    text
}

/// `⏱ 3.2s │ 1,247 tokens │ 3 tool calls`, and `│ $0.0042` when the model has a price.
fn stats_line(stats: &TurnStats, price: Option<hone_api::ModelPrice>) -> String {
    let tokens = stats.usage.input_tokens + stats.usage.output_tokens;
    let calls = match stats.tool_calls {
        1 => "1 tool call".to_string(),
        n => format!("{n} tool calls"),
    };
    // Counts the server did not report are hone's estimates, and say so.
    let about = if stats.usage.estimated { "~" } else { "" };
    let mut line = format!(
        "⏱ {} │ {about}{} tokens │ {calls}",
        seconds(stats.duration_ms),
        thousands(tokens)
    );
    if let Some(price) = price {
        line.push_str(&format!(
            " │ {}",
            hone_api::dollars(price.cost(&stats.usage))
        ));
    }
    line
}

pub(super) fn error_text(error: &HoneError) -> String {
    match &error.provider_detail {
        Some(detail) => format!(
            "{}\n{}",
            error.message,
            crate::format::one_line(detail, 300)
        ),
        None => error.message.clone(),
    }
}

#[cfg(test)]
mod tests {
    use hone_api::Usage;

    use super::*;

    #[test]
    fn stats_read_like_the_issue_says() {
        let stats = TurnStats {
            model_requests: 2,
            tool_calls: 3,
            usage: Usage {
                input_tokens: 1_000,
                output_tokens: 247,
                ..Usage::default()
            },
            duration_ms: 3_210,
            attempts: 0,
        };
        assert_eq!(
            stats_line(&stats, None),
            "⏱ 3.2s │ 1,247 tokens │ 3 tool calls"
        );
        let price = hone_api::ModelPrice {
            input: 2.0,
            cached_input: 0.5,
            output: 8.0,
        };
        assert_eq!(
            stats_line(&stats, Some(price)),
            "⏱ 3.2s │ 1,247 tokens │ 3 tool calls │ $0.0040"
        );
        let mut estimated = stats;
        estimated.usage.estimated = true;
        assert_eq!(
            stats_line(&estimated, None),
            "⏱ 3.2s │ ~1,247 tokens │ 3 tool calls"
        );
    }
}
