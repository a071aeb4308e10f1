//! `hone exec`: the headless, one-shot agent.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use hone_api::display::{self, TextStream};
use hone_api::{
    ConflictChoice, ErrorChoice, Event, EventFrame, Request, RequestFrame, RunStatus, TurnStats,
};
use hone_protocol::HoneError;
use hone_runtime::report::events::{self, checks_line};
use hone_runtime::report::sessions::opening_line;
use hone_runtime::{
    NOT_APPLIED, RunEnd, RuntimeError, SessionChoice, SessionRequest, StartedSession,
};

use crate::approve;
use crate::cli::{ExecArgs, GlobalArgs};
use crate::json_lines::{self, RunRecord};
use crate::plan_mode;
use crate::terminal::Terminal;

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
                json_lines::print_failure(&record, &error);
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
    let steps = match &args.plan_file {
        Some(path) => Some(plan_mode::read_plan(path)?),
        None => None,
    };
    let mut overrides = crate::overrides(global);
    let prompt = match &args.command {
        Some(name) => crate::custom_command::prompt(global, &mut overrides, name, &args.prompt)?,
        None => crate::input::prompt_text(&args.prompt)?,
    };
    overrides.approval.clone_from(&args.approval);
    overrides.max_tool_rounds = args.max_rounds;
    overrides.thinking.clone_from(&args.thinking);
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
            role: None,
        })
        .await
        .map_err(session_error)?;
    announce(&started, args.json);
    if !args.json && !crate::term::quiet() && std::io::stderr().is_terminal() {
        crate::status_line::enable();
    }
    record.set_price(started.summary.price);
    if let Some(mcp) = &started.mcp {
        wait_for_mcp_servers(mcp, args.json).await;
    }
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
    let (text, images) =
        crate::input::attach_mentions(runtime.expand_mentions(&prompt), &args.images)?;
    let approval = started.summary.approval.clone();
    if args.plan {
        // The plan is made with read-only tools, whatever the approval mode.
        handle.send(Request::SetApproval {
            mode: "read-only".into(),
        });
        let text = plan_mode::plan_request(&text);
        handle.submit(RequestFrame::new(
            json_lines::PROMPT_ID,
            Request::UserMessage { text, images },
        ));
    } else if steps.is_none() {
        handle.submit(RequestFrame::new(
            json_lines::PROMPT_ID,
            Request::UserMessage { text, images },
        ));
    }

    let index = runtime.code_index().clone();
    let interrupt = handle.clone();
    let on_terminal = std::io::stderr().is_terminal();
    let skippable = index.clone();
    // Listening starts here, before anything shows the index's progress. SIGTERM and SIGHUP
    // stop the turn like Ctrl+C, so the session is saved and the result reported.
    let mut stops = crate::signals::listen();
    tokio::spawn(async move {
        // On a terminal, Ctrl+C while the code index is built skips it for this session.
        while let Some(stop) = stops.recv().await {
            if stop == crate::signals::Stop::Interrupt && on_terminal && skippable.skip() {
                crate::status_line::set_index(None);
                crate::status_line::suspend(|| {
                    eprintln!(
                        "hone: code index skipped for this session (Ctrl+C again stops the turn)"
                    );
                });
                continue;
            }
            interrupt.send(Request::Cancel);
            if stops.recv().await.is_some() {
                eprintln!("\nhone: interrupted");
                std::process::exit(i32::from(hone_runtime::INTERRUPTED));
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
    let mut turns = Turns {
        handle: &handle,
        events: &mut events,
        view: &mut view,
        record,
        json: args.json,
    };
    let (end, request_id) = if let Some(steps) = steps {
        carry_out(&mut turns, &prompt, &steps).await?
    } else {
        let (end, request_id, answer) = turns.next_end().await?;
        // A plan changes nothing by design: "no change" or a refused edit still plans.
        if args.plan && (plan_mode::goes_on(end.exit_code) || end.exit_code == NOT_APPLIED) {
            let steps = plan_mode::checked(plan_mode::parse_steps(&answer), "the model's plan")?;
            if args.approve_plan {
                handle.send(Request::SetApproval { mode: approval });
                carry_out(&mut turns, &prompt, &steps).await?
            } else {
                eprintln!(
                    "plan: {} step(s); nothing was changed (--approve-plan carries it out; \
                     --plan-file FILE carries out a plan you saved and edited)",
                    steps.len()
                );
                let planned = RunEnd {
                    status: RunStatus::Completed,
                    exit_code: 0,
                    what: "planned",
                    error: None,
                    stats: end.stats,
                };
                (planned, request_id)
            }
        } else {
            (end, request_id)
        }
    };
    // The same code `hone ask` gives the error (a dead server: 5, a bad key: 4).
    if let Some(error) = &end.error {
        eprintln!("{}", crate::exit::line(error));
    }
    view.summary(end.what, &end.stats, started);
    if args.json {
        let result = record.result(end.status, end.exit_code, end.error.as_ref());
        json_lines::print(&EventFrame::new(request_id, result));
    }
    handle.send(Request::Shutdown);
    Ok(end.exit_code)
}

/// Carries out `steps` one turn each, with a progress line before each step; stops at the
/// first step whose turn fails or is interrupted. The end is the last turn's.
async fn carry_out(
    turns: &mut Turns<'_>,
    task: &str,
    steps: &[String],
) -> Result<(RunEnd, Option<String>), HoneError> {
    let mut last = None;
    // The first step that ended with a warning (unverified, no change) sets the exit code
    // when the last step ends cleanly.
    let mut warned: Option<(RunEnd, Option<String>)> = None;
    for index in 0..steps.len() {
        if !turns.json {
            eprintln!(
                "{}  {}",
                plan_mode::progress(index, steps.len()),
                display::line(&steps[index])
            );
        }
        turns.handle.submit(RequestFrame::new(
            format!("step-{}", index + 1),
            Request::user_message(plan_mode::step_request(task, steps, index)),
        ));
        let (end, request_id, _) = turns.next_end().await?;
        if !plan_mode::goes_on(end.exit_code) {
            return Ok((end, request_id));
        }
        if end.exit_code != 0 && warned.is_none() {
            warned = Some((end.clone(), request_id.clone()));
        }
        last = Some((end, request_id));
    }
    if !turns.json {
        eprintln!("{} done", plan_mode::progress(steps.len(), steps.len()));
    }
    match (last, warned) {
        (Some((end, _)), Some(warned)) if end.exit_code == 0 => Ok(warned),
        (Some(last), _) => Ok(last),
        (None, _) => Err(HoneError::provider("no step ran")),
    }
}

/// The session's events, followed turn by turn.
struct Turns<'a> {
    handle: &'a hone_runtime::SessionHandle,
    events: &'a mut tokio::sync::mpsc::UnboundedReceiver<EventFrame>,
    view: &'a mut View,
    record: &'a mut RunRecord,
    json: bool,
}

impl Turns<'_> {
    /// Shows events until a turn ends, answering approvals, errors and conflicts as `hone
    /// exec` does; the end, its request id and the model's last reply.
    async fn next_end(&mut self) -> Result<(RunEnd, Option<String>, String), HoneError> {
        let mut answer = String::new();
        while let Some(frame) = self.events.recv().await {
            self.view.show(&frame);
            self.record.observe(&frame.event);
            let event = &frame.event;
            match event {
                Event::ApprovalNeeded { call_id, .. } => {
                    let decision = approve::ask_on_terminal(event).await;
                    self.handle.send(Request::Approval {
                        call_id: call_id.clone(),
                        decision,
                    });
                    continue;
                }
                // `hone exec` does not offer retry/skip: the provider already retried per its
                // policy, so the turn fails (exit 1) with the error's line on stderr.
                Event::TurnError { .. } => {
                    self.handle.send(Request::ErrorChoice {
                        choice: ErrorChoice::Abort,
                    });
                    continue;
                }
                // Nor a conflict dialog: the model reads the file again and redoes the change.
                Event::EditConflict { message, .. } => {
                    if !self.json && !crate::term::quiet() {
                        eprintln!(
                            "edit conflict: {} (the model is asked to redo the change)",
                            display::flat(message)
                        );
                    }
                    self.handle.send(Request::ConflictChoice {
                        choice: ConflictChoice::Regenerate,
                    });
                    continue;
                }
                Event::MessageCompleted { text } if !text.trim().is_empty() => {
                    answer.clone_from(text);
                }
                _ => {}
            }
            if let Some(end) = RunEnd::of(event) {
                return Ok((end, frame.request_id.clone(), answer));
            }
        }
        Err(HoneError::provider("the session ended unexpectedly"))
    }
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
        eprintln!(
            "hone: warning: this session will not be saved: {}",
            display::flat(reason)
        );
    }
    if let Some(line) = started.saved.as_ref().and_then(opening_line)
        && !json
        && !crate::term::quiet()
    {
        eprintln!("hone: {line}");
    }
    for warning in &started.warnings {
        eprintln!("hone: warning: {}", display::flat(warning));
    }
}

/// Waits until every configured MCP server is ready or failed (each within its
/// `startup_timeout_secs`), so the first model request offers their tools; servers that
/// failed are reported (a `mcp.status` event with `--json`, a warning on stderr).
async fn wait_for_mcp_servers(mcp: &hone_mcp::McpClients, json: bool) {
    mcp.settled().await;
    let servers = hone_runtime::mcp::status(mcp);
    for server in &servers {
        if let Some(error) = &server.error {
            eprintln!(
                "hone: warning: MCP server `{}` failed to start: {} (its tools are not offered)",
                display::flat(&server.name),
                display::flat(error)
            );
        }
    }
    if json {
        json_lines::print(&EventFrame::new(None, Event::McpStatus { servers }));
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
    /// The answer's text made safe for the terminal as it streams.
    answer: TextStream,
    /// The saved session, printed at the end (`session.started` carries it in JSON).
    session_id: Option<String>,
    /// Whether the model answered at all: a session without an answer whose turn failed is
    /// not listed nor resumable, so its id is not printed.
    answered: bool,
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
            answer: TextStream::new(),
            session_id: None,
            answered: false,
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
        // The status line leaves the terminal while anything is printed.
        crate::status_line::hide();
        self.print(&frame.event);
        crate::status_line::observe(&frame.event, self.answer_open);
    }

    fn print(&mut self, event: &Event) {
        if let Event::SessionStarted { session_id, .. } = event {
            self.session_id.clone_from(session_id);
        }
        if let Event::ContextUsage { percent, .. } = event {
            self.context_percent = *percent;
        }
        if let Event::MessageCompleted { .. } | Event::ToolRequested { .. } = event {
            self.answered = true;
        }
        if let Event::MessageDelta { text } = event {
            let shown = self.answer.push(text);
            let _ = crate::term::write_stdout(&shown);
            if !shown.is_empty() {
                self.answer_open = !shown.ends_with('\n');
            }
            return;
        }
        if let Event::Error { error } = event {
            self.close_answer();
            eprintln!("hone: {}", display::flat(&error.message));
            return;
        }
        if let Event::Warning { message } = event {
            self.close_answer();
            eprintln!("hone: warning: {}", display::flat(message));
            return;
        }
        if self.quiet {
            return;
        }
        match event {
            Event::DiffProposed { diff, .. } => self.proposed = Some(diff.clone()),
            Event::ToolDenied { reason, .. } => {
                if let Some(diff) = self.proposed.take() {
                    eprintln!("  proposed change (not applied):");
                    eprint!("{}", crate::diff::render(&diff, self.color));
                }
                eprintln!("  ✗ denied: {}", display::flat(reason));
            }
            Event::DiffApplied { diff, .. } => {
                self.proposed = None;
                eprint!("{}", crate::diff::render(diff, self.color));
            }
            Event::ChecksCompleted { .. } => {
                self.close_answer();
                if let Some(line) = checks_line(event) {
                    eprintln!("hone: {line}");
                }
            }
            Event::ToolRequested { .. }
            | Event::ToolCompleted { .. }
            | Event::ContextCompacted { .. }
            | Event::FilesTracked { .. }
            | Event::ContextLocalized { .. }
            | Event::TurnStep { .. }
            | Event::AttemptCompleted { .. } => {
                self.close_answer();
                if let Some(notice) = events::notice(event) {
                    eprintln!("{}", self.dim(&notice));
                }
            }
            _ => {}
        }
    }

    fn close_answer(&mut self) {
        let pending = self.answer.finish();
        if !pending.is_empty() {
            let _ = crate::term::write_stdout(&pending);
            self.answer_open = true;
        }
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
        eprintln!(
            "hone: {}",
            events::summary_line(what, stats, started.elapsed(), self.price)
        );
        if let Some(percent) = self.context_percent {
            eprintln!("hone: context window {percent:.0}% full");
        }
        if let Some(id) = self.session_id.as_ref().filter(|_| self.answered) {
            eprintln!("session: {id}");
        }
    }

    fn dim(&self, text: &str) -> String {
        if self.color {
            let dim = anstyle::Style::new().dimmed();
            format!("{dim}{text}{dim:#}")
        } else {
            text.to_string()
        }
    }
}
