//! Task memory: what the user asked for, where the work stands and what was decided. It is
//! updated by rules from every message and tool round and is never compressed.

use hone_protocol::{ContentBlock, Message, ToolCall};
use serde::{Deserialize, Serialize};

use crate::history::{call_for, command_failed, cut, first_line};

/// Characters kept of a request (the head and the tail of longer ones).
const MAX_REQUEST_CHARS: usize = 4_000;
/// Characters kept of the last answer.
const MAX_PROGRESS_CHARS: usize = 400;
/// Changed files listed at most (the most recent ones).
const MAX_FILES: usize = 40;
/// Failing commands remembered at most.
const MAX_FAILURES: usize = 5;
/// Decisions remembered at most (the most recent ones).
const MAX_DECISIONS: usize = 12;
/// Characters of one decision.
const MAX_DECISION_CHARS: usize = 240;

/// Line starts (lower case) that mark a decision in the model's answers.
const DECISION_MARKERS: &[&str] = &[
    "decision:",
    "decided",
    "i decided",
    "we decided",
    "i'll use",
    "i will use",
    "we'll use",
    "we will use",
    "plan:",
    "approach:",
    "note:",
];

/// A command whose last run failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailingCommand {
    /// The command (or test invocation).
    pub command: String,
    /// The first line of its result.
    pub detail: String,
}

/// The task memory of a session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskMemory {
    /// The first request of the session.
    pub original_request: Option<String>,
    /// The latest request, when it is not the first.
    pub current_request: Option<String>,
    /// Turns so far.
    pub turn: u32,
    /// Tool rounds in the current turn.
    pub rounds: u32,
    /// What the last tool round did.
    pub last_step: Option<String>,
    /// The start of the model's last answer.
    pub last_answer: Option<String>,
    /// Files changed in this session, oldest first.
    pub files_changed: Vec<String>,
    /// Commands that failed and have not passed since.
    pub failing_commands: Vec<FailingCommand>,
    /// Decisions stated by the model or the user, oldest first.
    pub decisions: Vec<String>,
}

impl TaskMemory {
    /// Records a new user request.
    pub fn on_request(&mut self, text: &str) {
        let text = keep_ends(text.trim(), MAX_REQUEST_CHARS);
        self.turn = self.turn.saturating_add(1);
        self.rounds = 0;
        self.last_step = None;
        if self.original_request.is_none() {
            self.original_request = Some(text);
        } else {
            self.current_request = Some(text);
        }
    }

    /// Records an assistant message: its answer text and the decisions it states.
    pub fn on_assistant(&mut self, message: &Message) {
        let text = message.text();
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        if message.tool_calls().next().is_none() {
            self.last_answer = Some(cut(&text.replace('\n', " "), MAX_PROGRESS_CHARS));
        }
        for line in text.lines() {
            let line = line.trim().trim_start_matches(['-', '*', ' ']);
            let lower = line.to_lowercase();
            if DECISION_MARKERS
                .iter()
                .any(|marker| lower.starts_with(marker))
            {
                self.decide(cut(line, MAX_DECISION_CHARS));
            }
        }
    }

    /// Records one tool round: `calls` and the message answering them.
    pub fn on_round(&mut self, calls: &[ToolCall], results: &Message) {
        self.rounds = self.rounds.saturating_add(1);
        let context = [
            Message {
                role: hone_protocol::Role::Assistant,
                content: calls.iter().cloned().map(ContentBlock::ToolCall).collect(),
            },
            results.clone(),
        ];
        let mut step = Vec::new();
        for block in &results.content {
            let ContentBlock::ToolResult(result) = block else {
                continue;
            };
            let Some(call) = call_for(&context, 1, &result.call_id) else {
                continue;
            };
            let outcome = if result.is_error { "failed" } else { "ok" };
            step.push(format!("{} ({outcome})", call.name));
            if !result.is_error {
                for path in &result.effect.written {
                    self.files_changed.retain(|known| known != path);
                    self.files_changed.push(path.clone());
                }
            }
            if let Some(said) = result
                .content
                .split_once("the user denied this call and said: ")
                .map(|(_, said)| said)
            {
                let said = said.split(". Do not retry").next().unwrap_or(said);
                self.decide(cut(&format!("User (denying {}): {said}", call.name), 240));
            }
            if let Some(command) = result.effect.command.clone() {
                self.failing_commands
                    .retain(|failing| failing.command != command);
                if command_failed(result) {
                    self.failing_commands.push(FailingCommand {
                        command,
                        detail: first_line(&result.content, 160),
                    });
                }
            }
        }
        trim_front(&mut self.files_changed, MAX_FILES);
        trim_front(&mut self.failing_commands, MAX_FAILURES);
        self.last_step = Some(format!("round {}: {}", self.rounds, step.join(", ")));
    }

    fn decide(&mut self, decision: String) {
        if !self.decisions.contains(&decision) {
            self.decisions.push(decision);
            trim_front(&mut self.decisions, MAX_DECISIONS);
        }
    }

    /// The task memory as a system-prompt section.
    pub fn render(&self) -> String {
        let mut out = String::from(
            "# Task memory\n\
             Kept by hone across the whole session (older messages may have been summarised \
             or removed).\n",
        );
        match &self.original_request {
            Some(request) => out.push_str(&format!("\nOriginal request:\n{request}\n")),
            None => out.push_str("\nNo request yet.\n"),
        }
        if let Some(request) = &self.current_request {
            out.push_str(&format!(
                "\nCurrent request (turn {}):\n{request}\n",
                self.turn
            ));
        }
        let mut progress = Vec::new();
        if let Some(step) = &self.last_step {
            progress.push(format!("- Last step: {step}"));
        }
        if let Some(answer) = &self.last_answer {
            progress.push(format!("- Last answer: {answer}"));
        }
        if !self.files_changed.is_empty() {
            progress.push(format!(
                "- Files changed: {}",
                self.files_changed.join(", ")
            ));
        }
        for failing in &self.failing_commands {
            progress.push(format!(
                "- Failing: `{}` ({})",
                failing.command, failing.detail
            ));
        }
        if !progress.is_empty() {
            out.push_str(&format!("\nProgress:\n{}\n", progress.join("\n")));
        }
        if !self.decisions.is_empty() {
            let decisions: Vec<String> = self
                .decisions
                .iter()
                .map(|decision| format!("- {decision}"))
                .collect();
            out.push_str(&format!("\nDecisions:\n{}\n", decisions.join("\n")));
        }
        out
    }
}

fn trim_front<T>(items: &mut Vec<T>, limit: usize) {
    if items.len() > limit {
        items.drain(..items.len() - limit);
    }
}

/// `text` when short enough, else its head and tail around a marker.
fn keep_ends(text: &str, limit: usize) -> String {
    let count = text.chars().count();
    if count <= limit {
        return text.to_string();
    }
    let half = limit / 2;
    let head: String = text.chars().take(half).collect();
    let tail: String = text.chars().skip(count - half).collect();
    format!(
        "{head}\n[… {} characters left out …]\n{tail}",
        count - 2 * half
    )
}

#[cfg(test)]
mod tests {
    use hone_protocol::{Role, ToolEffect, ToolResult};

    use super::*;

    fn call(id: &str, name: &str, arguments: serde_json::Value) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.to_string(),
        }
    }

    fn result(
        id: &str,
        name: &str,
        content: &str,
        is_error: bool,
        effect: ToolEffect,
    ) -> ContentBlock {
        ContentBlock::ToolResult(ToolResult {
            call_id: id.into(),
            name: name.into(),
            content: content.into(),
            is_error,
            effect,
        })
    }

    #[test]
    fn requests_rounds_and_answers_are_remembered_by_rule() {
        let mut memory = TaskMemory::default();
        memory.on_request("Fix the failing add test");
        let calls = vec![
            call("1", "edit_file", serde_json::json!({"path": "src/math.js"})),
            call("2", "run_tests", serde_json::json!({})),
            call("3", "write_file", serde_json::json!({"path": "x"})),
        ];
        let results = Message {
            role: Role::User,
            content: vec![
                result(
                    "1",
                    "edit_file",
                    "applied: edit src/math.js",
                    false,
                    ToolEffect::written(["src/math.js".to_string()]),
                ),
                result(
                    "2",
                    "run_tests",
                    "exit code 1 · 0.1s\nFAIL add",
                    false,
                    ToolEffect::command("run_tests"),
                ),
                result(
                    "3",
                    "write_file",
                    "not run: the user denied this call and said: keep x. Do not retry it.",
                    true,
                    ToolEffect::written(["x".to_string()]),
                ),
            ],
        };
        memory.on_round(&calls, &results);
        memory.on_assistant(&Message::assistant(
            "Decision: keep the public API.\nThe tests still fail.",
        ));
        memory.on_request("now make them pass");
        assert_eq!(memory.files_changed, ["src/math.js"]);
        assert_eq!(memory.failing_commands[0].command, "run_tests");
        let rendered = memory.render();
        for expected in [
            "Original request:\nFix the failing add test",
            "Current request (turn 2):\nnow make them pass",
            "- Files changed: src/math.js",
            "- Failing: `run_tests` (exit code 1 · 0.1s)",
            "- Decision: keep the public API.",
            "- User (denying write_file): keep x",
            "- Last answer: Decision: keep the public API. The tests still fail.",
        ] {
            assert!(rendered.contains(expected), "{expected}\n---\n{rendered}");
        }
        let passing = Message {
            role: Role::User,
            content: vec![result(
                "4",
                "run_tests",
                "exit code 0 · 0.1s",
                false,
                ToolEffect::command("run_tests"),
            )],
        };
        memory.on_round(&[call("4", "run_tests", serde_json::json!({}))], &passing);
        assert!(memory.failing_commands.is_empty());
        assert_eq!(memory.last_step.as_deref(), Some("round 1: run_tests (ok)"));
    }

    #[test]
    fn long_requests_keep_their_head_and_tail() {
        let text = format!("start {} end", "x".repeat(10_000));
        let kept = keep_ends(&text, 100);
        assert!(
            kept.starts_with("start ") && kept.ends_with(" end"),
            "{kept}"
        );
        assert!(kept.chars().count() < 200);
    }
}
