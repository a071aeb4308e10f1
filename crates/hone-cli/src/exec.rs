//! `hone exec`: the headless, one-shot agent.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use hone_api::{
    CheckStatus, ConflictChoice, ErrorChoice, Event, EventFrame, Request, RequestFrame, RunStatus,
    TurnEnd, TurnStats,
};
use hone_protocol::HoneError;
use hone_runtime::{Opening, RuntimeError, SessionChoice, SessionRequest, StartedSession};

use crate::approve;
use crate::cli::{ExecArgs, GlobalArgs};
use crate::json_lines::{self, RunRecord};
use crate::terminal::Terminal;

/// Exit codes of `hone exec` (documented in the README).
mod code {
    pub(super) const DONE: u8 = 0;
    pub(super) const FAILED: u8 = 1;
    pub(super) const INTERRUPTED: u8 = 130;
}

/// Runs `hone exec`. Errors before the session starts exit with their category's code, like
/// every command (`crate::exit`).
pub(crate) async fn run(global: &GlobalArgs, args: ExecArgs) -> ExitCode {
    let json = args.json;
    let mut record = RunRecord::new();
    let outcome = start(global, args, &mut record).await;
    crate::status_line::finish();
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            if json {
                json_lines::print_failure(&record, &error, crate::exit::code_for(error.category));
            }
            crate::exit::report(&error)
        }
    }
}

async fn start(
    global: &GlobalArgs,
    args: ExecArgs,
    record: &mut RunRecord,
) -> Result<u8, HoneError> {
    if args.prompt.is_empty()
        && let Some(taken) = args.resume.as_deref().filter(|value| value.contains(' '))
    {
        return Err(HoneError::config(format!(
            "--resume took \"{taken}\" as the session to resume, and no prompt is left; write \
             `hone exec --resume last \"{taken}\"` (or a session id from `hone sessions list`)"
        )));
    }
    let prompt = crate::input::prompt_text(&args.prompt)?;
    let mut overrides = crate::overrides(global);
    overrides.approval.clone_from(&args.approval);
    overrides.max_tool_rounds = args.max_rounds;
    let runtime =
        crate::terminal::open_runtime(global, overrides, Arc::new(Terminal::detect(args.json)))?;
    let sessions = runtime.sessions();
    if sessions.unavailable().is_none()
        && let Err(error) = sessions.remember_input(&prompt)
    {
        eprintln!("hone: warning: could not save the input history: {error}");
    }
    let choice = match (&args.resume, &args.fork) {
        (Some(id), _) => SessionChoice::Resume(id.clone()),
        (None, Some(id)) => SessionChoice::Fork(id.clone()),
        (None, None) => SessionChoice::New,
    };
    let interactive =
        !args.json && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let started = runtime
        .start_session(SessionRequest {
            choice,
            model: None,
            interactive,
            conversation: false,
            focus: prompt.clone(),
            show_history: false,
            mcp_servers: true,
        })
        .await
        .map_err(session_error)?;
    announce(&started, args.json);
    if !args.json && !crate::term::quiet() && std::io::stderr().is_terminal() {
        crate::status_line::enable();
    }
    record.set_price(started.summary.price);
    let (handle, mut events) = (started.handle, started.events);
    if !args.files.is_empty() {
        handle.submit(RequestFrame::new(
            json_lines::FILES_ID,
            Request::TrackFiles {
                patterns: args.files.clone(),
                summary: false,
            },
        ));
    }
    handle.submit(RequestFrame::new(
        json_lines::PROMPT_ID,
        Request::UserMessage {
            text: crate::input::attach_mentions(&runtime, &prompt),
        },
    ));

    let index = runtime.code_index().clone();
    let interrupt = handle.clone();
    let on_terminal = std::io::stderr().is_terminal();
    let skippable = index.clone();
    // Listening starts here, before anything shows the index's progress.
    let mut interrupts =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()).ok();
    tokio::spawn(async move {
        let Some(interrupts) = interrupts.as_mut() else {
            return;
        };
        // On a terminal, Ctrl+C while the code index is built skips it for this session.
        while interrupts.recv().await.is_some() {
            if on_terminal && skippable.skip() {
                crate::status_line::set_index(None);
                crate::status_line::suspend(|| {
                    eprintln!(
                        "hone: code index skipped for this session (Ctrl+C again stops the turn)"
                    );
                });
                continue;
            }
            interrupt.send(Request::Cancel);
            if interrupts.recv().await.is_some() {
                eprintln!("\nhone: interrupted");
                std::process::exit(i32::from(code::INTERRUPTED));
            }
            break;
        }
    });
    if crate::status_line::enabled() {
        tokio::spawn(show_index_progress(index));
    }

    let mut view = View::new(args.json);
    view.price = record.price();
    let started = Instant::now();
    while let Some(frame) = events.recv().await {
        view.show(&frame);
        record.observe(&frame.event);
        let event = &frame.event;
        let (status, exit_code) = match event {
            Event::ApprovalNeeded { call_id, .. } => {
                let decision = approve::ask_on_terminal(event).await;
                handle.send(Request::Approval {
                    call_id: call_id.clone(),
                    decision,
                });
                continue;
            }
            // `hone exec` does not offer retry/skip: the provider already retried per its
            // policy, so the turn fails (exit 1) with the error's line on stderr.
            Event::TurnError { .. } => {
                handle.send(Request::ErrorChoice {
                    choice: ErrorChoice::Abort,
                });
                continue;
            }
            // Nor a conflict dialog: the model reads the file again and redoes the change.
            Event::EditConflict { message, .. } => {
                if !args.json && !crate::term::quiet() {
                    eprintln!("edit conflict: {message} (the model is asked to redo the change)");
                }
                handle.send(Request::ConflictChoice {
                    choice: ConflictChoice::Regenerate,
                });
                continue;
            }
            Event::TurnCompleted { end, stats } => {
                view.summary("done", stats, started);
                match end {
                    TurnEnd::Answered => (RunStatus::Completed, code::DONE),
                    TurnEnd::RoundLimit
                    | TurnEnd::RepeatedFailure
                    | TurnEnd::Skipped
                    | TurnEnd::ChecksFailed => (RunStatus::Failed, code::FAILED),
                }
            }
            // The same code `hone ask` gives the error (a dead server: 5, a bad key: 4).
            Event::TurnFailed { error, stats } => {
                eprintln!("{}", crate::exit::line(&hone_core::hone_error(error)));
                view.summary("failed", stats, started);
                (
                    RunStatus::Failed,
                    crate::exit::code_for(hone_core::hone_error(error).category),
                )
            }
            Event::TurnCancelled { stats } => {
                view.summary("interrupted", stats, started);
                (RunStatus::Cancelled, code::INTERRUPTED)
            }
            _ => continue,
        };
        if args.json {
            let error = match event {
                Event::TurnFailed { error, .. } => Some(hone_core::hone_error(error)),
                _ => None,
            };
            json_lines::print(&EventFrame::new(
                frame.request_id.clone(),
                record.result(status, exit_code, error.as_ref()),
            ));
        }
        handle.send(Request::Shutdown);
        return Ok(exit_code);
    }
    Err(HoneError::provider("the session ended unexpectedly"))
}

/// Keeps the status line's index part up to date while the code index is built.
async fn show_index_progress(index: hone_runtime::CodeIndex) {
    let mut tick = tokio::time::interval(std::time::Duration::from_millis(200));
    loop {
        tick.tick().await;
        let line = index.progress().line();
        let building = line.is_some();
        crate::status_line::set_index(line);
        if !building {
            return;
        }
    }
}

/// What stderr says before the turn: an unsaved session, the session resumed or forked
/// (not with `--json`), and what the session runs without.
fn announce(started: &StartedSession, json: bool) {
    if let Some(reason) = &started.unsaved {
        eprintln!("hone: warning: this session will not be saved: {reason}");
    }
    if let Some(saved) = &started.saved
        && !json
        && !crate::term::quiet()
    {
        let verb = match saved.opening {
            Opening::Created => None,
            Opening::Resumed => Some("resuming"),
            Opening::Forked => Some("forked into"),
        };
        if let Some(verb) = verb {
            eprintln!(
                "hone: {verb} session {} ({}, {} messages)",
                saved.info.id,
                crate::sessions_cmd::title(&saved.info),
                saved.info.messages
            );
        }
    }
    for warning in &started.warnings {
        eprintln!("hone: warning: {warning}");
    }
}

/// A session that cannot be opened, worded for `hone exec`.
fn session_error(error: RuntimeError) -> HoneError {
    match error {
        RuntimeError::NoSessionToResume { project } => HoneError::config(format!(
            "no saved session for {project} to resume; run `hone exec` without --resume to start one"
        )),
        RuntimeError::OtherProject { id, project } => HoneError::config(format!(
            "session {id} belongs to {project}; run it there: hone -C {project} exec --resume {id}"
        )),
        other => other.into(),
    }
}

/// Renders events: the answer on stdout, activity on stderr (or JSON lines on stdout).
struct View {
    json: bool,
    color: bool,
    /// `--quiet`: the answer and errors only.
    quiet: bool,
    answer_open: bool,
    /// Whether the model is writing its answer (the status line stays away meanwhile).
    writing: bool,
    /// The saved session, printed at the end (`session.started` carries it in JSON).
    session_id: Option<String>,
    /// How full the context window was after the last model response, in percent.
    context_percent: Option<f64>,
    /// The diff of the change being decided, shown when it is denied (so a change
    /// that needs approval is still seen).
    proposed: Option<String>,
    /// The model's price, for the cost on the summary line.
    price: Option<hone_api::ModelPrice>,
}

impl View {
    fn new(json: bool) -> Self {
        Self {
            json,
            color: crate::term::color_stderr(),
            quiet: crate::term::quiet(),
            answer_open: false,
            writing: false,
            session_id: None,
            context_percent: None,
            proposed: None,
            price: None,
        }
    }

    fn show(&mut self, frame: &EventFrame) {
        if self.json {
            json_lines::print(frame);
            return;
        }
        let event = &frame.event;
        // The status line leaves the terminal while anything is printed.
        crate::status_line::set_visible(false);
        self.print(event);
        let state = live_state(event);
        // While the model writes, its text is the sign of life.
        self.writing = matches!(
            event,
            Event::MessageDelta { .. } | Event::ThinkingDelta { .. }
        ) || (self.writing && state.is_none());
        if let Some(state) = state {
            crate::status_line::set_state(state.as_deref());
        }
        let waits_for_user = matches!(
            event,
            Event::ApprovalNeeded { .. }
                | Event::EditConflict { .. }
                | Event::TurnCompleted { .. }
                | Event::TurnFailed { .. }
                | Event::TurnCancelled { .. }
        );
        crate::status_line::set_visible(!self.answer_open && !self.writing && !waits_for_user);
    }

    fn print(&mut self, event: &Event) {
        if let Event::SessionStarted { session_id, .. } = event {
            self.session_id.clone_from(session_id);
        }
        if let Event::ContextUsage { percent, .. } = event {
            self.context_percent = *percent;
        }
        if let Event::MessageDelta { text } = event {
            let _ = crate::term::write_stdout(text);
            self.answer_open = !text.ends_with('\n');
            return;
        }
        if let Event::Error { error } = event {
            self.close_answer();
            eprintln!("hone: {}", error.message);
            return;
        }
        if self.quiet {
            return;
        }
        match event {
            Event::ToolRequested {
                name, arguments, ..
            } => {
                self.close_answer();
                eprintln!(
                    "{}",
                    self.dim(&format!(
                        "▸ {name} {}",
                        compact(&raw_arguments(arguments), 100)
                    ))
                );
            }
            Event::DiffProposed { diff, .. } => self.proposed = Some(diff.clone()),
            Event::ToolDenied { reason, .. } => {
                if let Some(diff) = self.proposed.take() {
                    eprintln!("  proposed change (not applied):");
                    eprint!("{}", crate::diff::render(&diff, self.color));
                }
                eprintln!("  ✗ denied: {reason}");
            }
            Event::DiffApplied { diff, .. } => {
                self.proposed = None;
                eprint!("{}", crate::diff::render(diff, self.color));
            }
            Event::ToolCompleted {
                name,
                output,
                is_error,
                duration_ms,
                ..
            } => {
                let first = output.lines().next().unwrap_or("");
                let mark = if *is_error { "✗" } else { "✓" };
                eprintln!(
                    "{}",
                    self.dim(&format!(
                        "  {mark} {name} ({duration_ms} ms) {}",
                        compact(first, 100)
                    ))
                );
            }
            Event::ChecksCompleted { .. } => {
                self.close_answer();
                if let Some(line) = checks_line(event) {
                    eprintln!("hone: {line}");
                }
            }
            Event::ContextCompacted { .. }
            | Event::FilesTracked { .. }
            | Event::ContextLocalized { .. }
            | Event::TurnStep { .. } => {
                self.close_answer();
                if let Some(notice) = crate::context_cmd::notice(event) {
                    eprintln!("{}", self.dim(&notice));
                }
            }
            _ => {}
        }
    }

    fn close_answer(&mut self) {
        if self.answer_open {
            let _ = crate::term::write_stdout("\n");
            self.answer_open = false;
        }
    }

    fn summary(&mut self, what: &str, stats: &TurnStats, started: Instant) {
        self.close_answer();
        if self.json || self.quiet {
            return;
        }
        let usage = stats.usage;
        let cost = self
            .price
            .filter(|price| *price != hone_api::ModelPrice::FREE)
            .map(|price| format!(" · {}", hone_api::dollars(price.cost(&usage))))
            .unwrap_or_default();
        eprintln!(
            "hone: {what} in {:.1}s · {} tokens ({} in, {} out){cost} · {} tool calls · {} model requests",
            started.elapsed().as_secs_f64(),
            thousands(usage.input_tokens + usage.output_tokens),
            thousands(usage.input_tokens),
            thousands(usage.output_tokens),
            stats.tool_calls,
            stats.model_requests,
        );
        if let Some(percent) = self.context_percent {
            eprintln!("hone: context window {percent:.0}% full");
        }
        if let Some(id) = &self.session_id {
            eprintln!("session: {id}");
        }
    }

    fn dim(&self, text: &str) -> String {
        if self.color {
            format!("\x1b[2m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

/// What the live status line says after `event` (`None`: unchanged; `Some(None)`: nothing).
fn live_state(event: &Event) -> Option<Option<String>> {
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
    Some(Some(state))
}

/// `running cargo test` for a command, `running read_file` for other tools.
fn running(name: &str, arguments: &serde_json::Value) -> String {
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
fn retrying(attempt: u32, delay_ms: u64, status: Option<u16>) -> String {
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
fn checks_line(event: &Event) -> Option<String> {
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
    Some(if *passed {
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
    })
}

/// A call's arguments as the model wrote them.
fn raw_arguments(arguments: &serde_json::Value) -> String {
    match arguments {
        serde_json::Value::String(raw) => raw.clone(),
        other => other.to_string(),
    }
}

/// One line of at most `limit` characters.
fn compact(text: &str, limit: usize) -> String {
    let flat = text.replace(['\n', '\r'], " ");
    if flat.chars().count() <= limit {
        return flat;
    }
    let cut: String = flat.chars().take(limit).collect();
    format!("{cut}…")
}

/// `1234567` as `1,234,567`.
fn thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (position, digit) in digits.chars().enumerate() {
        if position > 0 && (digits.len() - position).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
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
    }
}
