//! One-line texts of the session events a line-oriented front end reports on stderr: notices
//! of context events, the live status line's state, the checks' outcome and the summary line.
//! What the model or the project wrote (tool names and arguments, output, file names, check
//! details) is made safe for a terminal here (`hone_api::display`).

use std::time::Duration;

use hone_api::{CheckStatus, Event, ModelPrice, TurnStats, display, thousands};

/// One line telling the user about a tool call (`▸ run_command {"command":"…"}` when
/// requested, `  ✓ run_command (12 ms) first line of output` when done) or a context event
/// (compaction, tracked files, localized code, the guided step), shown dimmed.
pub fn notice(event: &hone_api::Event) -> Option<String> {
    notice_text(event).map(|text| display::line(&text).into_owned())
}

fn notice_text(event: &hone_api::Event) -> Option<String> {
    match event {
        Event::ToolRequested {
            name, arguments, ..
        } => Some(format!(
            "▸ {name} {}",
            compact(&raw_arguments(arguments), 100)
        )),
        Event::ToolCompleted {
            name,
            output,
            is_error,
            duration_ms,
            ..
        } => Some(format!(
            "  {} {name} ({duration_ms} ms) {}",
            if *is_error { "✗" } else { "✓" },
            compact(output.lines().next().unwrap_or(""), 100)
        )),
        hone_api::Event::ContextCompacted {
            before_tokens,
            after_tokens,
            method,
        } => Some(format!(
            "hone: context compacted ({}): ~{before_tokens} → ~{after_tokens} tokens",
            match method {
                hone_api::CompactionMethod::Model => "summary by the model",
                hone_api::CompactionMethod::Rules => "summary by rules",
            }
        )),
        hone_api::Event::FilesTracked {
            files,
            unmatched,
            skipped,
            ..
        } => {
            let tokens: u64 = files.iter().map(|file| file.tokens).sum();
            let mut line = format!("hone: tracking {} file(s), ~{tokens} tokens", files.len());
            for pattern in unmatched {
                line.push_str(&format!("; `{pattern}` matches no file"));
            }
            for reason in skipped {
                line.push_str(&format!("; skipped {reason}"));
            }
            Some(line)
        }
        hone_api::Event::ContextLocalized { items, tokens } => Some(format!(
            "hone: attached {} · ~{tokens} tokens",
            items
                .iter()
                .map(hone_api::LocalizedItem::describe)
                .collect::<Vec<_>>()
                .join(", ")
        )),
        hone_api::Event::TurnStep { task, guided } => {
            hone_core::step_notice(*task, *guided).map(|line| format!("hone: {line}"))
        }
        hone_api::Event::AttemptCompleted { .. } => attempt_line(event),
        _ => None,
    }
}

/// What the live status line says after `event` (`None`: unchanged; `Some(None)`: nothing).
pub fn live_state(event: &Event) -> Option<Option<String>> {
    let state = match event {
        Event::TurnStarted { .. }
        | Event::ToolCompleted { .. }
        | Event::ToolDenied { .. }
        | Event::ContextCompacted { .. }
        | Event::ChecksCompleted { .. } => "thinking".to_string(),
        Event::ToolRequested {
            name, arguments, ..
        } => running(name, arguments),
        Event::ChecksStarted { .. } => "running the checks".to_string(),
        Event::ModelRetrying {
            attempt,
            delay_ms,
            status,
            ..
        } => retrying(*attempt, *delay_ms, *status),
        Event::ContextCompacting { .. } => "compacting…".to_string(),
        Event::TurnCompleted { .. } | Event::TurnFailed { .. } | Event::TurnCancelled { .. } => {
            return Some(None);
        }
        _ => return None,
    };
    Some(Some(display::line(&state).into_owned()))
}

/// `running cargo test` for a command, `running read_file` for other tools.
pub fn running(name: &str, arguments: &serde_json::Value) -> String {
    let parsed: Option<serde_json::Value> = match arguments {
        serde_json::Value::String(raw) => serde_json::from_str(raw).ok(),
        other => Some(other.clone()),
    };
    match parsed
        .as_ref()
        .and_then(|arguments| arguments.get("command"))
        .and_then(serde_json::Value::as_str)
    {
        Some(command) => format!("running {}", compact(command, 60)),
        None => format!("running {name}"),
    }
}

/// `retrying in 4 s after 429 (retry 1)`.
pub fn retrying(attempt: u32, delay_ms: u64, status: Option<u16>) -> String {
    let after = status.map_or_else(
        || "a connection failure".to_string(),
        |code| code.to_string(),
    );
    format!(
        "retrying in {} s after {after} (retry {attempt})",
        delay_ms.div_ceil(1_000)
    )
}

/// What `hone exec` prints for `checks.completed`: `checks passed (py_compile, pytest
/// 12 s)`, `checks failed: …; the model is asked to fix them (1 of 3)` or
/// `still failing: …`.
pub fn checks_line(event: &Event) -> Option<String> {
    let Event::ChecksCompleted {
        passed,
        checks,
        failures,
        repair_round,
        max_repair_rounds,
    } = event
    else {
        return None;
    };
    let ran: Vec<String> = checks
        .iter()
        .filter(|check| check.status != CheckStatus::Skipped)
        .map(|check| {
            if check.duration_ms >= 1_000 {
                format!("{} {} s", check.name, check.duration_ms / 1_000)
            } else {
                check.name.clone()
            }
        })
        .collect();
    let skipped: Vec<String> = checks
        .iter()
        .filter(|check| check.status == CheckStatus::Skipped)
        .map(|check| format!("; skipped {}: {}", check.name, check.detail))
        .collect();
    let skipped = skipped.concat();
    let line = if *passed {
        if ran.is_empty() {
            format!("no checks ran{skipped}")
        } else {
            format!("checks passed ({}){skipped}", ran.join(", "))
        }
    } else {
        let failing = compact(&failures.join("; "), 200);
        match repair_round {
            Some(round) => format!(
                "checks failed: {failing}; the model is asked to fix them ({round} of {max_repair_rounds})"
            ),
            None => format!("still failing: {failing}{skipped}"),
        }
    };
    Some(display::line(&line).into_owned())
}

/// What `attempt.completed` says: `attempt 1 of 3 failed its checks (…); rolled back
/// src/a.py`, `attempt 2 of 3 passed every check: kept`.
fn attempt_line(event: &Event) -> Option<String> {
    let Event::AttemptCompleted {
        attempt,
        attempts,
        passed,
        rolled_back,
        failures,
        unchanged,
    } = event
    else {
        return None;
    };
    let which = format!("hone: attempt {attempt} of {attempts}");
    Some(match (passed, rolled_back.is_empty()) {
        (true, _) => format!("{which} passed every check: kept"),
        (false, _) if *unchanged => format!(
            "{which} changed no file and still fails ({})",
            compact(&failures.join("; "), 120)
        ),
        (false, true) => format!(
            "{which} still fails its checks ({}): its change stays",
            compact(&failures.join("; "), 120)
        ),
        (false, false) => format!(
            "{which} failed its checks ({}); rolled back {}",
            compact(&failures.join("; "), 120),
            rolled_back.join(", ")
        ),
    })
}

/// A call's arguments as the model wrote them.
pub fn raw_arguments(arguments: &serde_json::Value) -> String {
    match arguments {
        serde_json::Value::String(raw) => raw.clone(),
        other => other.to_string(),
    }
}

/// One line of at most `limit` characters, its control characters shown
/// (`hone_api::display::flat`).
pub fn compact(text: &str, limit: usize) -> String {
    let flat = display::flat(text);
    if flat.chars().count() <= limit {
        return flat;
    }
    let cut: String = flat.chars().take(limit).collect();
    format!("{cut}…")
}

/// `done in 3.2s · 1,234 tokens (1,000 in, 234 out) · $0.0042 · 2 tool calls · 3 model
/// requests`: the last line of a run (`what`: how it ended; the cost only for a priced model;
/// `· 150 of 180 drafted tokens accepted` after the token counts when the embedded engine
/// decoded speculatively; `· 2 attempts` when a failed attempt was rolled back).
pub fn summary_line(
    what: &str,
    stats: &TurnStats,
    elapsed: Duration,
    price: Option<ModelPrice>,
) -> String {
    let usage = stats.usage;
    let cost = price
        .filter(|price| *price != ModelPrice::FREE)
        .map(|price| format!(" · {}", hone_api::dollars(price.cost(&usage))))
        .unwrap_or_default();
    let drafts = if usage.drafted_tokens > 0 {
        format!(
            " · {} of {} drafted tokens accepted",
            thousands(usage.accepted_tokens),
            thousands(usage.drafted_tokens)
        )
    } else {
        String::new()
    };
    let attempts = if stats.attempts > 1 {
        format!(" · {} attempts", stats.attempts)
    } else {
        String::new()
    };
    // Reasoning is part of the output (and of its cost); how much of it is said.
    let reasoning = if usage.reasoning_tokens > 0 {
        format!(", {} reasoning", thousands(usage.reasoning_tokens))
    } else {
        String::new()
    };
    // Counts the server did not report are hone's estimates, and say so.
    let (about, estimated) = if usage.estimated {
        ("~", ", estimated")
    } else {
        ("", "")
    };
    format!(
        "{what} in {:.1}s · {about}{} tokens ({about}{} in, {about}{} out{reasoning}{estimated}){drafts}{cost} · {} tool calls · {} model requests{attempts}",
        elapsed.as_secs_f64(),
        thousands(usage.input_tokens + usage.output_tokens),
        thousands(usage.input_tokens),
        thousands(usage.output_tokens),
        stats.tool_calls,
        stats.model_requests,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracked_files_name_their_tokens_and_what_matched_nothing() {
        let event = hone_api::Event::FilesTracked {
            files: vec![hone_api::TrackedInfo {
                path: "src/lib.rs".into(),
                mode: hone_api::TrackMode::Full,
                tokens: 120,
            }],
            added: vec![],
            removed: vec![],
            unmatched: vec!["*.zig".into()],
            skipped: vec![],
        };
        assert_eq!(
            notice(&event).as_deref(),
            Some("hone: tracking 1 file(s), ~120 tokens; `*.zig` matches no file")
        );
        assert_eq!(notice(&hone_api::Event::TurnStarted { turn: 1 }), None);
        let done = hone_api::Event::ToolCompleted {
            call_id: "c1".into(),
            name: "run_command".into(),
            output: "FAIL add\nmore".into(),
            is_error: true,
            exit_code: Some(1),
            duration_ms: 12,
        };
        assert_eq!(
            notice(&done).as_deref(),
            Some("  ✗ run_command (12 ms) FAIL add")
        );
    }

    #[test]
    fn usage_the_server_did_not_report_is_marked_as_an_estimate() {
        let mut stats = TurnStats {
            model_requests: 1,
            ..TurnStats::default()
        };
        stats.usage.input_tokens = 1_000;
        stats.usage.output_tokens = 200;
        stats.usage.estimated = true;
        let line = summary_line("done", &stats, Duration::from_secs(1), None);
        assert!(
            line.contains("~1,200 tokens (~1,000 in, ~200 out, estimated)"),
            "{line}"
        );
        stats.usage.estimated = false;
        let line = summary_line("done", &stats, Duration::from_secs(1), None);
        assert!(line.contains(" 1,200 tokens (1,000 in, 200 out)"), "{line}");
    }

    #[test]
    fn the_summary_says_how_much_of_the_output_was_reasoning() {
        let mut stats = TurnStats {
            model_requests: 1,
            ..TurnStats::default()
        };
        stats.usage.input_tokens = 1_000;
        stats.usage.output_tokens = 500;
        stats.usage.reasoning_tokens = 300;
        let price = ModelPrice {
            input: 1.0,
            cached_input: 0.1,
            output: 10.0,
        };
        let line = summary_line("done", &stats, Duration::from_secs(2), Some(price));
        assert!(
            line.contains("1,500 tokens (1,000 in, 500 out, 300 reasoning) · $0.0060"),
            "{line}"
        );
        stats.usage.reasoning_tokens = 0;
        let line = summary_line("done", &stats, Duration::from_secs(2), None);
        assert!(line.contains("(1,000 in, 500 out) ·"), "{line}");
    }

    #[test]
    fn attempts_say_whether_they_were_kept_or_rolled_back() {
        let attempt = |passed, rolled_back: Vec<String>| hone_api::Event::AttemptCompleted {
            attempt: 1,
            attempts: 3,
            passed,
            rolled_back,
            failures: if passed {
                Vec::new()
            } else {
                vec!["request check: add(2, 3) returned 6".into()]
            },
            unchanged: false,
        };
        assert_eq!(
            notice(&attempt(false, vec!["src/math.js".into()])).as_deref(),
            Some(
                "hone: attempt 1 of 3 failed its checks (request check: add(2, 3) returned 6); \
                 rolled back src/math.js"
            )
        );
        assert_eq!(
            notice(&attempt(true, Vec::new())).as_deref(),
            Some("hone: attempt 1 of 3 passed every check: kept")
        );
        assert!(
            notice(&attempt(false, Vec::new()))
                .unwrap()
                .ends_with("its change stays")
        );
        let copied = hone_api::Event::AttemptCompleted {
            attempt: 1,
            attempts: 3,
            passed: false,
            rolled_back: Vec::new(),
            failures: vec!["request check: add(2, 3) returned 6".into()],
            unchanged: true,
        };
        assert_eq!(
            notice(&copied).as_deref(),
            Some(
                "hone: attempt 1 of 3 changed no file and still fails (request check: add(2, 3) \
                 returned 6)"
            )
        );
        let stats = TurnStats {
            attempts: 2,
            ..TurnStats::default()
        };
        assert!(
            summary_line("done", &stats, Duration::from_millis(1_500), None)
                .ends_with("0 model requests · 2 attempts")
        );
    }

    #[test]
    fn checks_lines_say_what_passed_and_what_still_fails() {
        let check = |name: &str, status, duration_ms, detail: &str| hone_api::CheckResult {
            name: name.into(),
            command: String::new(),
            status,
            duration_ms,
            detail: detail.into(),
        };
        let passed = Event::ChecksCompleted {
            passed: true,
            checks: vec![
                check("syntax", CheckStatus::Passed, 3, ""),
                check("pytest", CheckStatus::Passed, 12_400, ""),
                check("mypy", CheckStatus::Skipped, 0, "denied by the policy"),
            ],
            failures: Vec::new(),
            repair_round: None,
            max_repair_rounds: 3,
        };
        assert_eq!(
            checks_line(&passed).unwrap(),
            "checks passed (syntax, pytest 12 s); skipped mypy: denied by the policy"
        );
        let failing = Event::ChecksCompleted {
            passed: false,
            checks: vec![check("pytest", CheckStatus::Failed, 10, "AssertionError")],
            failures: vec!["pytest: AssertionError".into()],
            repair_round: Some(2),
            max_repair_rounds: 3,
        };
        assert_eq!(
            checks_line(&failing).unwrap(),
            "checks failed: pytest: AssertionError; the model is asked to fix them (2 of 3)"
        );
        let Event::ChecksCompleted {
            checks, failures, ..
        } = failing
        else {
            unreachable!()
        };
        let last = Event::ChecksCompleted {
            passed: false,
            checks,
            failures,
            repair_round: None,
            max_repair_rounds: 3,
        };
        assert_eq!(
            checks_line(&last).unwrap(),
            "still failing: pytest: AssertionError"
        );
        assert!(checks_line(&Event::TurnStarted { turn: 1 }).is_none());
    }

    #[test]
    fn the_live_state_names_the_command_the_retry_and_compaction() {
        let call = Event::ToolRequested {
            call_id: "c".into(),
            name: "run_command".into(),
            arguments: serde_json::json!({"command": "cargo test"}),
        };
        assert_eq!(live_state(&call), Some(Some("running cargo test".into())));
        let read = Event::ToolRequested {
            call_id: "r".into(),
            name: "read_file".into(),
            arguments: serde_json::Value::String("{\"path\": \"a\"}".into()),
        };
        assert_eq!(live_state(&read), Some(Some("running read_file".into())));
        let retry = Event::ModelRetrying {
            attempt: 1,
            delay_ms: 3_500,
            status: Some(429),
            reason: "rate limited".into(),
        };
        assert_eq!(
            live_state(&retry),
            Some(Some("retrying in 4 s after 429 (retry 1)".into()))
        );
        let compacting = Event::ContextCompacting {
            before_tokens: 10,
            manual: false,
        };
        assert_eq!(live_state(&compacting), Some(Some("compacting…".into())));
        assert_eq!(live_state(&Event::MessageDelta { text: "a".into() }), None);
    }

    #[test]
    fn compact_cuts_long_text_to_one_line() {
        assert_eq!(compact("a\nb", 10), "a b");
        assert_eq!(compact("abcdef", 3), "abc…");
        assert_eq!(compact("ok\r\x1b[2K", 20), r"ok\r\x1b[2K");
    }

    #[test]
    fn what_the_model_wrote_reaches_the_lines_with_its_controls_shown() {
        let call = Event::ToolRequested {
            call_id: "c".into(),
            name: "run\x1b]0;x\x07".into(),
            arguments: serde_json::json!({"command": "touch pwned\r\x1b[2Kls src"}),
        };
        let line = notice(&call).unwrap();
        assert!(!line.contains('\x1b') && !line.contains('\r'), "{line:?}");
        assert!(line.contains(r"run\x1b]0;x\x07"), "{line}");
        assert!(line.contains(r"touch pwned\r\u001b[2Kls src"), "{line}");
        assert_eq!(
            live_state(&call),
            Some(Some(r"running touch pwned\r\x1b[2Kls src".into()))
        );
        let checks = Event::ChecksCompleted {
            passed: true,
            checks: vec![hone_api::CheckResult {
                name: "lint".into(),
                command: String::new(),
                status: CheckStatus::Skipped,
                duration_ms: 0,
                detail: "\x1b]8;;http://x\x1b\\".into(),
            }],
            failures: Vec::new(),
            repair_round: None,
            max_repair_rounds: 3,
        };
        let line = checks_line(&checks).unwrap();
        assert!(
            line.ends_with(r"skipped lint: \x1b]8;;http://x\x1b\"),
            "{line}"
        );
    }

    #[test]
    fn the_summary_line_names_tokens_cost_and_calls() {
        let stats = TurnStats {
            model_requests: 3,
            tool_calls: 2,
            usage: hone_api::Usage {
                input_tokens: 1_000,
                output_tokens: 234,
                ..hone_api::Usage::default()
            },
            duration_ms: 0,
            attempts: 0,
        };
        let price = ModelPrice {
            input: 1.0,
            cached_input: 0.1,
            output: 10.0,
        };
        assert_eq!(
            summary_line("done", &stats, Duration::from_millis(3_200), Some(price)),
            "done in 3.2s · 1,234 tokens (1,000 in, 234 out) · $0.0033 · 2 tool calls · 3 model requests"
        );
        assert!(
            !summary_line("done", &stats, Duration::ZERO, Some(ModelPrice::FREE)).contains('$')
        );
        assert!(!summary_line("done", &stats, Duration::ZERO, None).contains('$'));
        assert!(!summary_line("done", &stats, Duration::ZERO, None).contains("drafted"));
    }

    #[test]
    fn the_summary_line_names_speculative_drafts_when_there_were_some() {
        let stats = TurnStats {
            model_requests: 1,
            tool_calls: 0,
            usage: hone_api::Usage {
                input_tokens: 1_000,
                output_tokens: 300,
                drafted_tokens: 1_800,
                accepted_tokens: 250,
                ..hone_api::Usage::default()
            },
            duration_ms: 0,
            attempts: 0,
        };
        assert_eq!(
            summary_line("done", &stats, Duration::from_millis(1_500), None),
            "done in 1.5s · 1,300 tokens (1,000 in, 300 out) · 250 of 1,800 drafted tokens \
             accepted · 0 tool calls · 1 model requests"
        );
    }
}
