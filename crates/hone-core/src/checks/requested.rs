//! The checks a request carries (see `crate::request_checks`): each is shown as a
//! `request_check` call and run before the change. One that fails reproduces the report
//! and is kept: it runs with the other checks after every change, and the model is shown
//! its failure. One that passes already, or cannot reach the function, is not used, and
//! the user is told why.

use hone_api::{CheckStatus, Event};
use tokio_util::sync::CancellationToken;

use super::PlannedCheck;
use crate::request_checks::script::{self, Definition, UNREACHABLE};
use crate::request_checks::{facts, locate};
use crate::session::Agent;

/// Checks taken from one request, at most.
const MAX_REQUEST_CHECKS: usize = 3;

/// The name request checks go by in the checks' results.
pub(crate) const REQUEST_CHECK: &str = "request check";

impl Agent {
    /// Turns the facts of `request` into checks and runs each before any change; keeps
    /// those that fail (the reproduction). Returns what the model is told of them.
    pub(crate) async fn reproduce_request(
        &mut self,
        request: &str,
        cancel: &CancellationToken,
    ) -> Option<String> {
        if !self.checks.config.enabled {
            return None;
        }
        let facts = facts::facts(request);
        if facts.is_empty() {
            return None;
        }
        let guard = self.context.guard().clone();
        let text = request.to_string();
        let located = tokio::task::spawn_blocking(move || {
            facts
                .into_iter()
                .filter_map(|fact| {
                    locate::definition(&guard, &fact.function, &text)
                        .map(|(path, definition)| (fact, path, definition))
                })
                .take(MAX_REQUEST_CHECKS)
                .collect::<Vec<_>>()
        })
        .await
        .unwrap_or_default();
        let mut reproduced = Vec::new();
        for (index, (fact, path, definition)) in located.into_iter().enumerate() {
            let claim = script::claim(&fact);
            let check = PlannedCheck {
                name: REQUEST_CHECK.to_string(),
                command: script::check_command(&fact, &definition),
                source: "request".to_string(),
                source_dirs: match &definition {
                    Definition::Python { path_entry, .. } => vec![path_entry.clone()],
                    Definition::JavaScript { .. } => Vec::new(),
                },
            };
            let call_id = format!("request_check_{}_{}", self.turns, index + 1);
            let started = self.start_clock();
            self.emit(Event::ToolRequested {
                call_id: call_id.clone(),
                name: "request_check".to_string(),
                arguments: serde_json::json!({
                    "check": claim,
                    "file": path,
                    "command": check.command,
                }),
            });
            let run = self.run_check(&[], &check, cancel).await;
            let output_line = verdict(&run.output).unwrap_or_default();
            let (text, kept) = match (run.result.status, run.exit_code) {
                (CheckStatus::Skipped, _) => (format!("not run: {}", run.result.detail), false),
                (CheckStatus::Passed, _) => (
                    format!(
                        "{claim} holds before any change, so it does not reproduce the report; \
                         not used ({output_line})"
                    ),
                    false,
                ),
                (CheckStatus::Failed, Some(UNREACHABLE)) => (
                    format!("cannot reach the function; not used ({output_line})"),
                    false,
                ),
                (CheckStatus::Failed, _) => (
                    format!(
                        "reproduced: {claim} fails before the change, as reported; it is checked after the change ({})",
                        if output_line.is_empty() {
                            run.result.detail.clone()
                        } else {
                            output_line
                        }
                    ),
                    true,
                ),
            };
            let duration_ms = self.execution_ms(started);
            self.emit(Event::ToolCompleted {
                call_id,
                name: "request_check".to_string(),
                output: text,
                is_error: kept,
                exit_code: run.exit_code,
                duration_ms,
            });
            if kept {
                let failure = run
                    .failure
                    .map_or_else(|| run.output.clone(), |failure| failure.text);
                // The check's own verdict, not a line of the script the command echoes.
                let line = verdict(&run.output)
                    .unwrap_or_else(|| super::report::first_error_line(&failure));
                self.checks
                    .failure_lines
                    .push(format!("request check: {line}"));
                reproduced.push(format!("`{claim}`:\n{failure}"));
                self.checks.requested.push(check);
                self.checks.reproduced = true;
            }
            if cancel.is_cancelled() {
                break;
            }
        }
        if reproduced.is_empty() {
            return None;
        }
        // What fails before any change: an answer that leaves it failing just so did not
        // change what fails (see `check_and_repair`).
        self.checks.last_failures.extend(reproduced.iter().cloned());
        Some(format!(
            "{} hone turned the request into a check and ran it: it fails now, as reported, \
             and must pass after your change.\n{}",
            hone_context::HONE_NOTE_PREFIX,
            reproduced.join("\n")
        ))
    }
}

/// The line a request check prints about the call (`hone check failed: add(2, 3) returned
/// 6, expected 5`), when `output` is a request check's.
pub(super) fn verdict(output: &str) -> Option<String> {
    output
        .lines()
        .find(|line| line.starts_with("hone check"))
        .map(str::to_string)
}
