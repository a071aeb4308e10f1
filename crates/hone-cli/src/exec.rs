//! `hone exec`: the headless, one-shot agent.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Instant;

use hone_config::IndexSettings;
use hone_core::{
    CheckStatus, ConflictChoice, ErrorChoice, Event, Request, SessionConfig, TurnEnd, TurnStats,
};
use hone_index::tools::index_tools;
use hone_protocol::HoneError;

use crate::approve;
use crate::cli::{ExecArgs, GlobalArgs};

/// Exit codes of `hone exec` (documented in the README).
mod code {
    pub(super) const DONE: u8 = 0;
    pub(super) const FAILED: u8 = 1;
    pub(super) const USAGE: u8 = 2;
    pub(super) const INTERRUPTED: u8 = 130;
}

/// Runs `hone exec`.
pub(crate) async fn run(global: &GlobalArgs, args: ExecArgs) -> ExitCode {
    match start(global, args).await {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            eprintln!("{}", crate::exit::line(&error));
            ExitCode::from(code::USAGE)
        }
    }
}

async fn start(global: &GlobalArgs, args: ExecArgs) -> Result<u8, HoneError> {
    if args.prompt.is_empty()
        && let Some(taken) = args.resume.as_deref().filter(|value| value.contains(' '))
    {
        return Err(HoneError::validation(format!(
            "--resume took \"{taken}\" as the session to resume, and no prompt is left; write \
             `hone exec --resume last \"{taken}\"` (or a session id from `hone sessions list`)"
        )));
    }
    let prompt = crate::input::prompt_text(&args.prompt)?;
    let mut overrides = crate::overrides(global);
    overrides.approval.clone_from(&args.approval);
    overrides.max_tool_rounds = args.max_rounds;
    let config = crate::load_config_with(global, overrides)?;
    let provider_config = config.provider()?;
    let basics = crate::agent_setup::basics(&config, &provider_config)?;
    let model = basics.model.clone();
    let window = crate::context_cmd::context_window(&config, &provider_config);
    let prompting = crate::provider_factory::Prompting::detect(args.json);
    let roles = crate::agent_setup::roles(&config, &provider_config, prompting).await?;
    let provider = crate::provider_factory::build(&config, provider_config, prompting).await?;
    let memory = crate::sessions_cmd::ExecSession {
        resume: args.resume.as_deref(),
        fork: args.fork.as_deref(),
        provider: config.provider_name(),
        model: &model,
        undo_depth: config.undo_depth(),
        quiet: args.json,
    }
    .open(&crate::project_dir(global)?, &prompt)?;
    let root = crate::project_dir(global)?;
    let interactive =
        !args.json && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let (extra_tools, repo_map, code_mapper, localizer) = code_index(
        &root,
        &prompt,
        &config.index_settings(),
        basics.prompt_profile,
    );
    let context = crate::context_cmd::session_context(&config, window, &root);
    if let Some(warning) = crate::mcp_cmd::ignored_servers(&config) {
        eprintln!("hone: warning: {warning}");
    }
    let mcp = crate::mcp_cmd::session_servers(&config, &root, &basics.commands);
    let (handle, mut events) = hone_core::start_session(SessionConfig {
        root,
        provider,
        model,
        permissions: basics.permissions,
        max_tool_rounds: basics.max_tool_rounds,
        interactive,
        audit: true,
        secrets: basics.secrets,
        commands: basics.commands,
        extra_tools,
        tool_sources: crate::mcp_cmd::tool_sources(mcp.as_ref()),
        repo_map,
        prompt_profile: basics.prompt_profile,
        memory,
        context,
        checks: crate::agent_setup::checks(&config),
        code_mapper: Some(code_mapper),
        localizer,
        guidance: crate::agent_setup::guidance(&config),
        roles,
    })?;
    if !args.files.is_empty() {
        handle.send(Request::TrackFiles {
            patterns: args.files.clone(),
            summary: false,
        });
    }
    handle.send(Request::UserMessage { text: prompt });

    let interrupt = handle.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            interrupt.send(Request::Cancel);
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("\nhone: interrupted");
                std::process::exit(i32::from(code::INTERRUPTED));
            }
        }
    });

    let mut view = View::new(args.json);
    let started = Instant::now();
    while let Some(event) = events.recv().await {
        view.show(&event);
        match &event {
            Event::ApprovalNeeded { call_id, .. } => {
                let decision = approve::ask_on_terminal(&event).await;
                handle.send(Request::Approval {
                    call_id: call_id.clone(),
                    decision,
                });
            }
            Event::TurnCompleted { end, stats } => {
                view.summary("done", stats, started);
                handle.send(Request::Shutdown);
                return Ok(match end {
                    TurnEnd::Answered => code::DONE,
                    TurnEnd::RoundLimit
                    | TurnEnd::RepeatedFailure
                    | TurnEnd::Skipped
                    | TurnEnd::ChecksFailed => code::FAILED,
                });
            }
            // `hone exec` does not offer retry/skip: the provider already retried per its
            // policy, so the turn fails (exit 1) with the error's line on stderr.
            Event::TurnError { .. } => {
                handle.send(Request::ErrorChoice {
                    choice: ErrorChoice::Abort,
                });
            }
            // Nor a conflict dialog: the model reads the file again and redoes the change.
            Event::EditConflict { message, .. } => {
                if !args.json {
                    eprintln!("edit conflict: {message} (the model is asked to redo the change)");
                }
                handle.send(Request::ConflictChoice {
                    choice: ConflictChoice::Regenerate,
                });
            }
            Event::TurnFailed { error, stats } => {
                eprintln!("{}", crate::exit::line(error));
                view.summary("failed", stats, started);
                handle.send(Request::Shutdown);
                return Ok(code::FAILED);
            }
            Event::TurnCancelled { stats } => {
                view.summary("interrupted", stats, started);
                handle.send(Request::Shutdown);
                return Ok(code::INTERRUPTED);
            }
            _ => {}
        }
    }
    Err(HoneError::provider("the session ended unexpectedly"))
}

/// What the code index gives a session: its tools, the repo map, the code mapper for
/// answers written as code, and the localizer.
pub(crate) type IndexParts = (
    Vec<std::sync::Arc<dyn hone_tools::Tool>>,
    Option<String>,
    std::sync::Arc<dyn hone_tools::edit::natural::CodeMapper>,
    Option<std::sync::Arc<dyn hone_core::Localizer>>,
);

/// The code index tools, the repo map (focused on `prompt`, within the configured budget,
/// smaller for the compact profile), the code mapper for answers written as code (which
/// asks the index where a name is defined) and the localizer for the project at `root`,
/// set up as `[index]` says. Without an index (it cannot be opened or updated) the agent
/// runs without the tools, the map and the localizer, and the mapper searches the files.
pub(crate) fn code_index(
    root: &std::path::Path,
    prompt: &str,
    settings: &IndexSettings,
    profile: hone_core::PromptProfile,
) -> IndexParts {
    let index = match crate::agent_setup::open_code_index(root, settings) {
        Ok(index) => index,
        Err(error) => {
            eprintln!("hone: warning: no code index ({error}); continuing without the index tools");
            return (
                Vec::new(),
                None,
                std::sync::Arc::new(hone_index::mapper::TreeSitterMapper),
                None,
            );
        }
    };
    let map =
        crate::agent_setup::repo_map(&index, prompt, settings, profile).unwrap_or_else(|warning| {
            eprintln!("hone: warning: {warning}");
            None
        });
    let mapper = std::sync::Arc::new(hone_index::mapper::IndexedMapper::new(index.clone()));
    let localizer = crate::agent_setup::localizer(&index);
    (index_tools(index), map, mapper, Some(localizer))
}

/// Renders events: the answer on stdout, activity on stderr (or JSON lines on stdout).
struct View {
    json: bool,
    color: bool,
    answer_open: bool,
    /// The saved session, printed at the end (`session.started` carries it in JSON).
    session_id: Option<String>,
    /// How full the context window was after the last model response, in percent.
    context_percent: Option<f64>,
    /// The diff of the change being decided, shown when it is denied (so a change
    /// that needs approval is still seen).
    proposed: Option<String>,
}

impl View {
    fn new(json: bool) -> Self {
        Self {
            json,
            color: std::io::stderr().is_terminal(),
            answer_open: false,
            session_id: None,
            context_percent: None,
            proposed: None,
        }
    }

    fn show(&mut self, event: &Event) {
        if let Event::SessionStarted { session_id, .. } = event {
            self.session_id.clone_from(session_id);
        }
        if let Event::ContextUsage { percent, .. } = event {
            self.context_percent = *percent;
        }
        if self.json {
            if let Ok(line) = serde_json::to_string(event) {
                let mut stdout = std::io::stdout().lock();
                let _ = writeln!(stdout, "{line}").and_then(|()| stdout.flush());
            }
            return;
        }
        match event {
            Event::MessageDelta { text } => {
                let mut stdout = std::io::stdout().lock();
                let _ = write!(stdout, "{text}").and_then(|()| stdout.flush());
                self.answer_open = !text.ends_with('\n');
            }
            Event::ToolRequested {
                name, arguments, ..
            } => {
                self.close_answer();
                eprintln!(
                    "{}",
                    self.dim(&format!("▸ {name} {}", compact(arguments, 100)))
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
            Event::Error { error } => {
                self.close_answer();
                eprintln!("hone: {}", error.message);
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
            println!();
            self.answer_open = false;
        }
    }

    fn summary(&mut self, what: &str, stats: &TurnStats, started: Instant) {
        self.close_answer();
        if self.json {
            return;
        }
        let usage = stats.usage;
        eprintln!(
            "hone: {what} in {:.1}s · {} tokens ({} in, {} out) · {} tool calls · {} model requests",
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
        let check = |name: &str, status, duration_ms, detail: &str| hone_core::CheckResult {
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
    fn compact_cuts_long_text_to_one_line() {
        assert_eq!(compact("a\nb", 10), "a b");
        assert_eq!(compact("abcdef", 3), "abc…");
    }
}
