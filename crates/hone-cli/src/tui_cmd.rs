//! `hone` without a subcommand: the full-screen terminal UI.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use hone_protocol::HoneError;
use hone_runtime::SessionChoice;
use hone_tui::{SessionStart, TuiError, TuiOptions};

use crate::cli::{GlobalArgs, TuiArgs};
use crate::terminal::Terminal;

/// Exit code when there is no terminal to draw on.
const NO_TERMINAL: u8 = 2;

/// Runs the terminal UI.
pub(crate) async fn run(global: &GlobalArgs, args: &TuiArgs) -> Result<ExitCode, HoneError> {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        eprintln!(
            "hone: the terminal UI needs a terminal on stdin and stdout.\n\
             For scripts and pipes run one task headless: hone exec \"your task\" (see hone exec --help)."
        );
        return Ok(ExitCode::from(NO_TERMINAL));
    }
    let root = crate::project_dir(global)?;
    hone_tui::log_to_file(&root, global.verbose);
    let mut overrides = crate::overrides(global);
    overrides.approval.clone_from(&args.approval);
    let terminal = Arc::new(Terminal::detect(false));
    let runtime = crate::terminal::open_runtime(global, overrides, terminal.clone())?;
    eprintln!("hone: opening the code index…");
    let first = if args.continue_last {
        SessionChoice::LastConversation
    } else {
        args.resume
            .clone()
            .map_or(SessionChoice::New, SessionChoice::Resume)
    };
    let options = TuiOptions {
        root,
        start: SessionStart::default(),
        prompt: args
            .prompt
            .clone()
            .filter(|prompt| !prompt.trim().is_empty()),
        bell_after: args.bell_after.map(Duration::from_secs),
    };
    let stop_asking = Box::new(move || terminal.stop_asking());
    match hone_tui::run_on(runtime, first, stop_asking, options).await {
        Ok(Some(id)) => {
            eprintln!(
                "hone: session {id} saved — continue it with: hone -c (or hone --resume {id})"
            );
            Ok(ExitCode::SUCCESS)
        }
        Ok(None) => Ok(ExitCode::SUCCESS),
        Err(TuiError::Session(error)) => Err(error),
        Err(error @ TuiError::Terminal(_)) => {
            eprintln!("hone: {error}");
            Ok(ExitCode::FAILURE)
        }
    }
}

/// The terminal UI's flags given together with a command (`hone --new exec …`): an error
/// rather than flags silently ignored.
pub(crate) fn reject_with_command(args: &TuiArgs) -> Result<(), HoneError> {
    let given: Vec<&str> = [
        (args.approval.is_some(), "--approval"),
        (args.resume.is_some(), "--resume"),
        (args.continue_last, "--continue"),
        (args.bell_after.is_some(), "--bell-after"),
    ]
    .into_iter()
    .filter_map(|(set, flag)| set.then_some(flag))
    .collect();
    if given.is_empty() {
        return Ok(());
    }
    Err(HoneError::config(format!(
        "{} before the command belongs to the terminal UI (`hone` alone); put a command's own flags after it, e.g. `hone exec --approval auto-edit \"…\"`",
        given.join(", ")
    )))
}
