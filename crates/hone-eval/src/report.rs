//! What `hone eval` prints: a table row or a JSON object per task, and the summary.

use serde_json::json;

use crate::{Outcome, Summary, Task};

/// The table's header line.
pub fn header() -> String {
    format!(
        "{:<32} {:>6} {:>8} {:>8} {:>6} {:>8}  end",
        "task", "solved", "time", "tokens", "tools", "requests"
    )
}

/// A task's outcome: one JSON object (`json`), or a table row with the kept copy and, for
/// an unsolved task, the telling line of its note.
pub fn task_text(task: &Task, outcome: &Outcome, json: bool) -> String {
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
        return format!("{line}\n");
    }
    let mut out = format!(
        "{:<32} {:>6} {:>7.1}s {:>8} {:>6} {:>8}  {}\n",
        task.name,
        if outcome.solved { "yes" } else { "no" },
        outcome.seconds,
        outcome.tokens,
        outcome.tool_calls,
        outcome.model_requests,
        outcome.end
    );
    if let Some(kept) = &outcome.kept {
        out.push_str(&format!("    kept: {}\n", kept.display()));
    }
    if !outcome.solved && !outcome.note.is_empty() {
        out.push_str(&format!("    {}\n", crate::telling_line(&outcome.note)));
    }
    out
}

/// The summary: a JSON object (`json`) or one line.
pub fn summary_text(summary: &Summary, json: bool) -> String {
    let Summary {
        solved,
        total,
        median_seconds_solved: median,
        tokens,
    } = summary;
    if json {
        return json!({
            "type": "summary",
            "solved": solved,
            "total": total,
            "median_seconds_solved": median.map(|value| (value * 10.0).round() / 10.0),
            "tokens": tokens,
        })
        .to_string();
    }
    let median = median.map_or_else(|| "-".to_string(), |value| format!("{value:.1}s"));
    format!("solved {solved}/{total} · median time per solved task {median} · {tokens} tokens")
}
