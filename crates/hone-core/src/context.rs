//! The context manager in a session: each request built to fit the window, compaction,
//! tracked files, and how full the window is.

use futures::StreamExt;
use hone_context::{Built, CompactionMethod, ContextError, TrackMode};
use hone_protocol::{
    ChatRequest, ContentBlock, ErrorCategory, HoneError, Message, Outcome, ResponseCollector,
    ToolCall, ToolSpec, Usage,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::flow::GuidedStep;
use crate::session::Agent;
use hone_api::{Event, TurnStats};

impl Agent {
    /// The message starting a turn: recorded in the task memory, with the snapshots of
    /// files tracked since the last turn and of tracked files changed since (by the user,
    /// or by an undo).
    pub(crate) fn request_message(&mut self, text: String) -> Message {
        self.context_manager.on_request(&text);
        let mut message = Message::user(text);
        let attached = self.context_manager.refresh_changed(&mut message);
        self.warn_context(&attached.warnings);
        message
    }

    /// Records a model reply in the task memory.
    pub(crate) fn note_reply(&mut self, message: &Message) {
        self.context_manager.on_assistant(message);
    }

    /// Records a tool round in the task memory and adds fresh snapshots of the tracked
    /// files it changed to its results.
    pub(crate) fn note_round(&mut self, calls: &[ToolCall], results: &mut Message) {
        self.context_manager.on_round(calls, results);
        let refreshed = self.context_manager.refresh_changed(results);
        self.warn_context(&refreshed.warnings);
    }

    fn warn_context(&self, warnings: &[String]) {
        for warning in warnings {
            self.emit(Event::Error {
                error: crate::api::error_info(HoneError::validation(format!(
                    "tracked files: {warning}"
                ))),
            });
        }
    }

    /// Builds the next request from the history, compacting first when it passes the
    /// threshold; never larger than the window.
    pub(crate) async fn build_request(
        &mut self,
        tools: &[ToolSpec],
        cancel: &CancellationToken,
        stats: &mut TurnStats,
    ) -> Result<Built, HoneError> {
        let fresh = self.flow.guided().and_then(|step| {
            step.fresh_from
                .and_then(|from| fresh_view(&self.history, step, from))
        });
        let built = self.context_manager.build(
            &self.system_prompt,
            fresh.as_deref().unwrap_or(&self.history),
            tools,
        );
        let needs = match &built {
            Ok(built) => self
                .context_manager
                .needs_compaction(built.untrimmed_tokens),
            // Compaction may make it fit after all.
            Err(ContextError::WindowTooSmall { .. }) => {
                self.context_manager.needs_compaction(usize::MAX)
            }
            Err(_) => false,
        };
        if !needs {
            return built.map_err(|error| HoneError::validation(error.to_string()));
        }
        self.compact(false, cancel, stats).await;
        // Compaction rewrote the history: a fresh attempt's view no longer applies.
        if let Some(step) = self.flow.guided_mut() {
            step.fresh_from = None;
        }
        self.context_manager
            .build(&self.system_prompt, &self.history, tools)
            .map_err(|error| HoneError::validation(error.to_string()))
    }

    /// Reports how full the window is after a model response (and calibrates the token
    /// estimate with the provider's count).
    pub(crate) fn report_usage(&mut self, built: &Built, usage: Option<Usage>) {
        let usage = self.context_manager.observe_usage(built, usage);
        self.emit(Event::ContextUsage {
            used: usage.used,
            window: usage.window,
            percent: usage.percent,
        });
    }

    /// Compacts the conversation: stale file contents first, then older turns summarised by
    /// the model (or by rules when that fails or would not fit). `manual` keeps only the
    /// latest turn and always tries; otherwise stubbing alone may be enough.
    pub(crate) async fn compact(
        &mut self,
        manual: bool,
        cancel: &CancellationToken,
        stats: &mut TurnStats,
    ) {
        let tools = self.registry.specs();
        let before = self
            .context_manager
            .estimate(&self.system_prompt, &self.history, &tools);
        self.emit(Event::ContextCompacting {
            before_tokens: before as u64,
            manual,
        });
        self.pre_compact_hooks(manual, cancel).await;
        let stubbed = self.context_manager.drop_stale(&self.history);
        let mut method = (stubbed > 0).then_some(CompactionMethod::Rules);
        let enough = !manual && stubbed > 0 && {
            let now = self
                .context_manager
                .estimate(&self.system_prompt, &self.history, &tools);
            !self.context_manager.needs_compaction(now)
        };
        if !enough && let Some(plan) = self.context_manager.plan_summary(&self.history, manual) {
            let written = match plan.request {
                Some(request) => self.summarise(request, cancel, stats).await,
                None => None,
            };
            let (summary, how) = match written {
                Some(summary) => (summary, CompactionMethod::Model),
                None => (
                    self.context_manager.rule_summary(&self.history, plan.end),
                    CompactionMethod::Rules,
                ),
            };
            self.context_manager.apply_summary(plan.end, &summary, how);
            method = Some(how);
        }
        let after = self
            .context_manager
            .estimate(&self.system_prompt, &self.history, &tools);
        match method {
            Some(method) => self.emit(Event::ContextCompacted {
                before_tokens: before as u64,
                after_tokens: after as u64,
                method,
            }),
            None if manual => self.emit(Event::Error {
                error: crate::api::error_info(HoneError::validation(
                    "nothing to compact yet: the conversation has no turn before the current one \
                     and no stale file contents",
                )),
            }),
            None => {}
        }
    }

    /// Asks the model for a summary; `None` when it fails or answers with nothing.
    async fn summarise(
        &mut self,
        mut request: ChatRequest,
        cancel: &CancellationToken,
        stats: &mut TurnStats,
    ) -> Option<String> {
        stats.model_requests += 1;
        if let Some(role) = &self.roles.compaction {
            role.generation.apply_to(&mut request);
        }
        self.audit.request("compaction request", &request);
        let provider = self
            .roles
            .compaction
            .as_ref()
            .and_then(|role| role.provider.clone())
            .unwrap_or_else(|| self.provider.clone());
        let mut events = provider.stream(request, cancel.clone());
        let mut collector = ResponseCollector::new();
        while let Some(event) = events.next().await {
            collector.push(&event);
        }
        let text = collector.message().text();
        if let Some(usage) = collector.usage() {
            stats.usage = crate::turn::add_usage(stats.usage, usage);
        }
        let outcome = collector.outcome().cloned();
        self.audit.comms(
            "compaction response",
            json!({ "text": text, "outcome": crate::audit::outcome_json(outcome.as_ref()) }),
        );
        match outcome {
            Some(Outcome::Completed(_)) if !text.trim().is_empty() => Some(text),
            _ => None,
        }
    }

    /// Handles [`hone_api::Request::Compact`] between turns.
    pub(crate) async fn compact_now(&mut self) {
        let cancel = self.cancel_slot.fresh();
        let mut stats = TurnStats::default();
        self.compact(true, &cancel, &mut stats).await;
    }

    /// Handles [`hone_api::Request::InspectContext`]: the request the agent loop would send
    /// next, built as a turn builds it, part by part. With `message`, as it would be with
    /// that message (and the pinned files that go with it); the context state is put back
    /// afterwards.
    pub(crate) fn inspect_context(&mut self, message: Option<String>) {
        let tools = self.registry.specs();
        let saved = message.as_ref().map(|_| self.context_manager.snapshot());
        let mut history = std::borrow::Cow::Borrowed(self.history.as_slice());
        if let Some(text) = message {
            self.context_manager.on_request(&text);
            let mut request = Message::user(text);
            self.context_manager.refresh_changed(&mut request);
            history.to_mut().push(request);
        }
        // A profile's own system prompt may leave the map out.
        let repo_map = self
            .repo_map
            .as_deref()
            .filter(|map| self.system_prompt.contains(map.trim_end()));
        let inspected =
            self.context_manager
                .inspect(&self.system_prompt, repo_map, &history, &tools);
        if let Some(saved) = saved
            && let Err(error) = self.context_manager.restore(saved)
        {
            tracing::warn!(%error, "context state not put back after an inspection");
        }
        match inspected {
            Ok((_, inspection)) => self.emit(Event::ContextInspected {
                parts: inspection.parts,
                tokens: inspection.tokens as u64,
                window: self.context_manager.window(),
                trimmed: inspection.trimmed as u64,
                pending: inspection.pending,
            }),
            Err(error) => self.emit(Event::Error {
                error: crate::api::error_info(HoneError::validation(error.to_string())),
            }),
        }
    }

    /// Handles [`hone_api::Request::TrackFiles`].
    pub(crate) fn track_files(&mut self, patterns: &[String], summary: bool) {
        let mode = if summary {
            TrackMode::Outline
        } else {
            TrackMode::Full
        };
        match self.context_manager.track(patterns, mode) {
            Ok(report) => self.emit(Event::FilesTracked {
                files: report.files,
                added: report.added,
                removed: report.removed,
                unmatched: report.unmatched,
                skipped: report.skipped,
            }),
            Err(error) => self.emit(Event::Error {
                error: crate::api::error_info(HoneError::new(
                    ErrorCategory::Validation,
                    error.to_string(),
                )),
            }),
        }
    }

    /// Handles [`hone_api::Request::UntrackFiles`].
    pub(crate) fn untrack_files(&mut self, patterns: &[String]) {
        let report = self.context_manager.untrack(patterns);
        self.emit(Event::FilesTracked {
            files: report.files,
            added: report.added,
            removed: report.removed,
            unmatched: report.unmatched,
            skipped: report.skipped,
        });
    }
}

/// The messages a guided step's fresh attempt starting at `from` sends: the history before
/// the turn's request, the request as it was asked with the attempt's note in place of
/// the step's closing instruction (the note, then the instruction: the model reads the
/// request as it did the first time, with what failed since), then what followed the
/// note. Without an instruction to replace, the note follows the request. `None` when the
/// marks no longer fit the history (it was compacted).
fn fresh_view(history: &[Message], step: &GuidedStep, from: usize) -> Option<Vec<Message>> {
    let start = step.turn_start;
    if start == 0 || start > from || from >= history.len() {
        return None;
    }
    let mut view = history[..start].to_vec();
    let note = history[from].text();
    let last = view
        .last_mut()
        .and_then(|request| request.content.last_mut());
    match last {
        Some(ContentBlock::Text { text }) if text.ends_with(&step.instruction) => {
            *text = format!("{note}\n\n{}", step.instruction);
            view.extend_from_slice(&history[from + 1..]);
        }
        _ => view.extend_from_slice(&history[from..]),
    }
    Some(view)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(instruction: &str) -> GuidedStep {
        let mut step = GuidedStep::new(hone_api::TaskKind::Change, instruction.to_string());
        step.turn_start = 2;
        step
    }

    fn history() -> Vec<Message> {
        let mut request = Message::user("code");
        request.content.push(ContentBlock::Text {
            text: "tests fail: old\n\nWrite the fix.".into(),
        });
        vec![
            Message::assistant("earlier turn"),
            request,
            Message::assistant("failed answer"),
            Message::user("checks fail: new"),
            Message::assistant("another answer"),
        ]
    }

    #[test]
    fn a_fresh_attempt_asks_the_request_again_with_the_new_failure() {
        let view = fresh_view(&history(), &step("Write the fix."), 3).unwrap();
        let texts: Vec<String> = view.iter().map(Message::text).collect();
        assert_eq!(texts.len(), 3, "{texts:?}");
        assert_eq!(texts[0], "earlier turn");
        assert!(texts[1].starts_with("code"), "{texts:?}");
        assert!(
            texts[1].ends_with("checks fail: new\n\nWrite the fix."),
            "{texts:?}"
        );
        assert!(!texts[1].contains("old"), "{texts:?}");
        assert_eq!(texts[2], "another answer");
    }

    #[test]
    fn without_the_instruction_the_note_follows_the_request() {
        let view = fresh_view(&history(), &step("Other."), 3).unwrap();
        let texts: Vec<String> = view.iter().map(Message::text).collect();
        assert_eq!(texts.len(), 4, "{texts:?}");
        assert_eq!(texts[2], "checks fail: new");
        assert!(fresh_view(&history(), &step(""), 9).is_none());
    }
}
