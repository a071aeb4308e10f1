//! `hone eval SUITE_DIR`: runs a suite of tasks against the configured model and reports
//! how many it solved.
//!
//! Each task runs in a temporary copy of its `repo/` committed to a new git repository:
//! one `hone exec --approval full-auto --json` turn (this binary as a child process, with
//! the same `--provider`, `--model`, `--base-url` and `--profile`), then the task's check
//! command; the task is solved when the check exits 0. `--verify` checks the suite instead:
//! every check must fail on the snapshot and pass with `solution/` copied over it.

mod task;

use std::io::Write;
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};
use std::time::Instant;

use hone_protocol::HoneError;
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;

use crate::cli::GlobalArgs;
use task::{Task, WorkingCopy};

/// `hone eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// The suite: a directory of tasks, each a directory with a task.toml (prompt, check,
    /// timeout, language, tags) and the repository snapshot repo/.
    #[arg(value_name = "SUITE_DIR")]
    pub suite: PathBuf,

    /// Print one JSON object per task, then a summary object.
    #[arg(long)]
    pub json: bool,

    /// Run only this task (repeatable).
    #[arg(long = "task", value_name = "NAME")]
    pub tasks: Vec<String>,

    /// Keep each task's working copy and print where it is.
    #[arg(long)]
    pub keep: bool,

    /// Check the suite instead of running the model: each task's check must fail on repo/
    /// and pass with solution/ copied over it.
    #[arg(long)]
    pub verify: bool,
}

/// How one task went.
#[derive(Debug, Clone, Default)]
struct Outcome {
    solved: bool,
    seconds: f64,
    tokens: u64,
    tool_calls: u64,
    model_requests: u64,
    /// How the turn ended: `answered`, `checks_failed`, `failed`, `timeout`, …
    end: String,
    /// How hone's own checks after edits ended (none: no file changed).
    checks_passed: Option<bool>,
    /// The check's last output lines when it failed, or what went wrong.
    note: String,
    kept: Option<PathBuf>,
}

/// Runs `hone eval`.
pub(crate) async fn run(global: &GlobalArgs, args: &EvalArgs) -> Result<ExitCode, HoneError> {
    let tasks = task::load_suite(&args.suite, &args.tasks)?;
    if args.verify {
        return verify(&tasks).await;
    }
    let exe = std::env::current_exe()
        .map_err(|error| HoneError::config(format!("cannot find the hone binary: {error}")))?;
    let mut outcomes = Vec::new();
    if !args.json {
        eprintln!(
            "hone eval: {} tasks from {}",
            tasks.len(),
            args.suite.display()
        );
        println!(
            "{:<32} {:>6} {:>8} {:>8} {:>6} {:>8}  end",
            "task", "solved", "time", "tokens", "tools", "requests"
        );
    }
    for task in &tasks {
        let outcome = match run_task(&exe, global, task, args.keep).await {
            Ok(outcome) => outcome,
            Err(error) => Outcome {
                end: "error".to_string(),
                note: error.message,
                ..Outcome::default()
            },
        };
        print_task(task, &outcome, args.json);
        outcomes.push(outcome);
    }
    print_summary(&outcomes, args.json);
    Ok(ExitCode::SUCCESS)
}

/// One task: copy, one agent turn, the check.
async fn run_task(
    exe: &std::path::Path,
    global: &GlobalArgs,
    task: &Task,
    keep: bool,
) -> Result<Outcome, HoneError> {
    let copy = WorkingCopy::new(task, false)?;
    let mut command = tokio::process::Command::new(exe);
    command
        .arg("exec")
        .arg("-C")
        .arg(copy.repo())
        .args(["--approval", "full-auto", "--json"]);
    for (flag, value) in [
        ("--provider", &global.provider),
        ("--model", &global.model),
        ("--base-url", &global.base_url),
        ("--profile", &global.profile),
    ] {
        if let Some(value) = value {
            command.arg(flag).arg(value);
        }
    }
    command
        .arg("--")
        .arg(&task.file.prompt)
        .current_dir(copy.repo())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    let started = Instant::now();
    let mut child = command
        .spawn()
        .map_err(|error| HoneError::config(format!("cannot start hone exec: {error}")))?;
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

fn print_task(task: &Task, outcome: &Outcome, json: bool) {
    let mut stdout = std::io::stdout().lock();
    if json {
        let line = json!({
            "type": "task",
            "task": task.name,
            "language": task.file.language,
            "tags": task.file.tags,
            "solved": outcome.solved,
            "seconds": (outcome.seconds * 10.0).round() / 10.0,
            "tokens": outcome.tokens,
            "tool_calls": outcome.tool_calls,
            "model_requests": outcome.model_requests,
            "end": outcome.end,
            "checks_passed": outcome.checks_passed,
            "note": outcome.note,
            "kept": outcome.kept,
        });
        let _ = writeln!(stdout, "{line}");
    } else {
        let _ = writeln!(
            stdout,
            "{:<32} {:>6} {:>7.1}s {:>8} {:>6} {:>8}  {}",
            task.name,
            if outcome.solved { "yes" } else { "no" },
            outcome.seconds,
            outcome.tokens,
            outcome.tool_calls,
            outcome.model_requests,
            outcome.end
        );
        if let Some(kept) = &outcome.kept {
            let _ = writeln!(stdout, "    kept: {}", kept.display());
        }
        if !outcome.solved && !outcome.note.is_empty() {
            let _ = writeln!(stdout, "    {}", telling_line(&outcome.note));
        }
    }
    let _ = stdout.flush();
}

/// The line of a failed check's output that says most: the first naming an error or a
/// failure, else the last.
fn telling_line(note: &str) -> &str {
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

fn print_summary(outcomes: &[Outcome], json: bool) {
    let solved: Vec<f64> = outcomes
        .iter()
        .filter(|outcome| outcome.solved)
        .map(|outcome| outcome.seconds)
        .collect();
    let median = median(&solved);
    let tokens: u64 = outcomes.iter().map(|outcome| outcome.tokens).sum();
    if json {
        println!(
            "{}",
            json!({
                "type": "summary",
                "solved": solved.len(),
                "total": outcomes.len(),
                "median_seconds_solved": median.map(|value| (value * 10.0).round() / 10.0),
                "tokens": tokens,
            })
        );
    } else {
        let median = median.map_or_else(|| "-".to_string(), |value| format!("{value:.1}s"));
        println!(
            "solved {}/{} · median time per solved task {median} · {tokens} tokens",
            solved.len(),
            outcomes.len()
        );
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

/// `--verify`: each check fails on the snapshot and passes with the solution.
async fn verify(tasks: &[Task]) -> Result<ExitCode, HoneError> {
    let mut broken = 0;
    for task in tasks {
        let snapshot = WorkingCopy::new(task, false)?;
        let (passed_before, _) = snapshot.run_check(&task.file.check).await;
        let solved = WorkingCopy::new(task, true)?;
        let (passed_after, output) = solved.run_check(&task.file.check).await;
        let problem = match (passed_before, passed_after) {
            (false, true) => None,
            (true, _) => Some("the check passes on the snapshot".to_string()),
            (false, false) => Some(format!("the check fails with the solution:\n{output}")),
        };
        match problem {
            None => println!("ok      {}", task.name),
            Some(problem) => {
                broken += 1;
                println!("BROKEN  {}: {problem}", task.name);
            }
        }
    }
    println!("{} of {} tasks verified", tasks.len() - broken, tasks.len());
    Ok(if broken == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
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
