//! Running a task: one `hone exec` turn in a working copy, then the check; and checking a
//! task of the suite (`--verify`).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Instant;

use serde_json::Value;
use tokio::io::AsyncReadExt;

use crate::{EvalError, Task, WorkingCopy};

/// How one task went.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// Whether the check passed after the turn.
    pub solved: bool,
    /// How long the turn took.
    pub seconds: f64,
    /// Input and output tokens of the turn.
    pub tokens: u64,
    /// Tool calls the model made.
    pub tool_calls: u64,
    /// Requests sent to the model.
    pub model_requests: u64,
    /// How the turn ended: `answered`, `checks_failed`, `failed`, `timeout`, …
    pub end: String,
    /// How hone's own checks after edits ended (none: no file changed).
    pub checks_passed: Option<bool>,
    /// The check's last output lines when it failed, or what went wrong.
    pub note: String,
    /// Where the working copy was kept (`keep`).
    pub kept: Option<PathBuf>,
}

impl Outcome {
    /// The outcome of a task that could not be run.
    pub fn error(error: &EvalError) -> Self {
        Self {
            end: "error".to_string(),
            note: error.to_string(),
            ..Self::default()
        }
    }
}

/// Runs tasks through a hone binary.
#[derive(Debug, Clone)]
pub struct Runner {
    /// The hone binary.
    pub hone: PathBuf,
    /// Arguments added to each `hone exec` before the prompt (`--provider NAME`, …).
    pub args: Vec<OsString>,
    /// The approval mode of each turn: `full-auto` or `auto-edit` (the mode people run
    /// headless: edits apply, the model's commands are refused, hone's checks still run when
    /// the sandbox isolates them).
    pub approval: String,
}

impl Runner {
    /// One task: a working copy, one `hone exec --approval MODE --json` turn in it (killed at
    /// the task's time limit), then the check; the copy is kept when `keep`.
    pub async fn run_task(&self, task: &Task, keep: bool) -> Result<Outcome, EvalError> {
        let copy = WorkingCopy::new(task, false)?;
        let mut command = tokio::process::Command::new(&self.hone);
        command
            .arg("exec")
            .arg("-C")
            .arg(copy.repo())
            .args(["--approval", self.approval.as_str(), "--json"])
            .args(&self.args)
            .arg("--")
            .arg(&task.file.prompt)
            .current_dir(copy.repo())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        let started = Instant::now();
        let mut child = command.spawn().map_err(EvalError::Start)?;
        let mut stdout = child.stdout.take();
        let mut outcome = Outcome::default();
        let read = async {
            let mut text = String::new();
            if let Some(stdout) = stdout.as_mut() {
                let _ = stdout.read_to_string(&mut text).await;
            }
            let _ = child.wait().await;
            text
        };
        match tokio::time::timeout(task.timeout(), read).await {
            Ok(text) => read_events(&text, &mut outcome),
            Err(_) => outcome.end = "timeout".to_string(),
        }
        outcome.seconds = started.elapsed().as_secs_f64();
        let (passed, output) = copy.run_check(&task.file.check).await;
        outcome.solved = passed;
        if !passed {
            outcome.note = output;
        }
        if keep {
            outcome.kept = Some(copy.keep());
        }
        Ok(outcome)
    }
}

/// Fills `outcome` from the JSON events of `hone exec --json`.
fn read_events(text: &str, outcome: &mut Outcome) {
    outcome.end = "no result".to_string();
    for line in text.lines() {
        let Ok(event) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let stats = &event["stats"];
        match event["type"].as_str() {
            Some("checks.completed") => {
                outcome.checks_passed = event["passed"].as_bool();
                continue;
            }
            Some("turn.completed") => {
                outcome.end = event["end"].as_str().unwrap_or("completed").to_string();
            }
            Some("turn.failed") => {
                outcome.end = "failed".to_string();
                outcome.note = event["error"]["message"].as_str().unwrap_or("").to_string();
            }
            Some("turn.cancelled") => outcome.end = "cancelled".to_string(),
            _ => continue,
        }
        let usage = &stats["usage"];
        outcome.tokens = usage["input_tokens"].as_u64().unwrap_or(0)
            + usage["output_tokens"].as_u64().unwrap_or(0);
        outcome.tool_calls = stats["tool_calls"].as_u64().unwrap_or(0);
        outcome.model_requests = stats["model_requests"].as_u64().unwrap_or(0);
    }
}

/// The line of a failed check's output that says most: the first naming an error or a
/// failure, else the last.
pub fn telling_line(note: &str) -> &str {
    note.lines()
        .find(|line| {
            let lower = line.to_ascii_lowercase();
            ["error", "fail", "assert", "panicked"]
                .iter()
                .any(|marker| lower.contains(marker))
        })
        .or_else(|| note.lines().last())
        .unwrap_or("")
        .trim()
}

/// The totals of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Tasks solved.
    pub solved: usize,
    /// Tasks run.
    pub total: usize,
    /// The median time of the solved tasks (none solved: none).
    pub median_seconds_solved: Option<f64>,
    /// Tokens of all turns.
    pub tokens: u64,
}

impl Summary {
    /// The totals of `outcomes`.
    pub fn of(outcomes: &[Outcome]) -> Self {
        let solved: Vec<f64> = outcomes
            .iter()
            .filter(|outcome| outcome.solved)
            .map(|outcome| outcome.seconds)
            .collect();
        Self {
            solved: solved.len(),
            total: outcomes.len(),
            median_seconds_solved: median(&solved),
            tokens: outcomes.iter().map(|outcome| outcome.tokens).sum(),
        }
    }
}

fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    match sorted.len() {
        0 => None,
        len if len % 2 == 1 => Some(sorted[middle]),
        _ => Some((sorted[middle - 1] + sorted[middle]) / 2.0),
    }
}

/// What is wrong with a task of the suite.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// The check passes before anything was changed.
    #[error("the check passes on the snapshot")]
    PassesOnSnapshot,
    /// The check fails with the reference solution.
    #[error("the check fails with the solution:\n{output}")]
    FailsWithSolution {
        /// The check's last output lines.
        output: String,
    },
}

/// Checks `task`: its check must fail on the snapshot and pass with the solution copied
/// over it; `Ok(None)` when it does.
pub async fn verify_task(task: &Task) -> Result<Option<Problem>, EvalError> {
    let snapshot = WorkingCopy::new(task, false)?;
    let (passed_before, _) = snapshot.run_check(&task.file.check).await;
    let solved = WorkingCopy::new(task, true)?;
    let (passed_after, output) = solved.run_check(&task.file.check).await;
    Ok(match (passed_before, passed_after) {
        (false, true) => None,
        (true, _) => Some(Problem::PassesOnSnapshot),
        (false, false) => Some(Problem::FailsWithSolution { output }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_telling_line_names_the_failure() {
        assert_eq!(
            telling_line(
                "# tests 4\nnot ok 2 - sum of nothing\n  error: 'Expected 0'\n# duration_ms 5"
            ),
            "error: 'Expected 0'"
        );
        assert_eq!(telling_line("a\nb"), "b");
        assert_eq!(telling_line(""), "");
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
    }

    #[test]
    fn the_summary_counts_solved_tasks_and_tokens() {
        let solved = |seconds: f64| Outcome {
            solved: true,
            seconds,
            tokens: 10,
            ..Outcome::default()
        };
        let failed = Outcome::error(&EvalError::EmptySuite {
            suite: PathBuf::from("/s"),
        });
        assert_eq!(failed.end, "error");
        assert!(failed.note.contains("holds no tasks"), "{}", failed.note);
        let summary = Summary::of(&[solved(1.0), failed, solved(3.0)]);
        assert_eq!(
            summary,
            Summary {
                solved: 2,
                total: 3,
                median_seconds_solved: Some(2.0),
                tokens: 20
            }
        );
        assert_eq!(Summary::of(&[]).median_seconds_solved, None);
    }

    #[test]
    fn events_give_the_totals_and_the_end() {
        let mut outcome = Outcome::default();
        read_events(
            "not json\n{\"type\":\"usage\"}\n{\"type\":\"checks.completed\",\"passed\":false}\n{\"type\":\"turn.completed\",\"end\":\"checks_failed\",\"stats\":{\"model_requests\":3,\"tool_calls\":2,\"usage\":{\"input_tokens\":100,\"output_tokens\":20},\"duration_ms\":5}}\n",
            &mut outcome,
        );
        assert_eq!(outcome.end, "checks_failed");
        assert_eq!(outcome.checks_passed, Some(false));
        assert_eq!(outcome.tokens, 120);
        assert_eq!(outcome.tool_calls, 2);
        assert_eq!(outcome.model_requests, 3);
        let mut outcome = Outcome::default();
        read_events("", &mut outcome);
        assert_eq!(outcome.end, "no result");
    }
}
