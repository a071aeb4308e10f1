//! hone's full-screen terminal front end.
//!
//! [`run`] opens the TUI on the real terminal for a [`Host`] (what starts sessions and knows
//! the code index); [`run_on`] runs it over hone's session runtime ([`RuntimeHost`]). The TUI is built for testing: [`App`] is a
//! state machine fed with core [`hone_api::Event`]s and terminal events that returns
//! [`Effect`]s and renders to any ratatui backend, and [`drive`] runs the loop against any
//! backend and input channel.
//!
//! Layout: status bar, conversation (streamed markdown, tool lines, diffs, stats), input
//! box, key hints; an approval dialog sized to its content in the input's place;
//! error-choice and information dialogs on top; a completion popup above the input.
//!
//! The TUI draws on the alternate screen and leaves the mouse to the terminal (unless
//! `HONE_TUI_MOUSE=1`); when it ends, the conversation is printed to the normal screen so
//! it stays in the terminal's scrollback.

mod app;
mod commands;
mod complete;
mod diff_view;
mod editor;
mod error;
mod format;
mod git;
mod highlight;
mod history;
mod host;
mod images;
mod input;
mod markdown;
mod modal;
mod popup;
mod runner;
mod runtime_host;
mod scrollback;
mod status;
mod terminal;
mod tool_line;
mod transcript;
mod wrap;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use app::{App, AppOptions, Effect, SessionInfo};
pub use commands::builtin_names;
pub use editor::edit;
pub use error::TuiError;
pub use git::branch;
pub use history::FileHistory;
pub use host::{Host, Mentions, Rewound, SavedSession, Session, SessionStart};
pub use runner::{FRAME, Input, drive};
pub use runtime_host::{AfterFirstStart, RuntimeHost, log_to_file, run_on};

/// How [`run`] starts.
#[derive(Debug, Clone)]
pub struct TuiOptions {
    /// The project root.
    pub root: PathBuf,
    /// The first session: new, or resumed.
    pub start: SessionStart,
    /// A first message, sent once the session runs (`hone "task"`).
    pub prompt: Option<String>,
    /// Ring the bell when a turn that took at least this long ends.
    pub bell_after: Option<Duration>,
}

/// Opens the TUI on the terminal and runs it until the user quits. The first session is
/// started before the screen is taken over, so configuration errors print normally.
/// Returns the id of the saved session, if the session was saved.
pub async fn run(host: Arc<dyn Host>, options: TuiOptions) -> Result<Option<String>, TuiError> {
    let starter = host.clone();
    let start = options.start.clone();
    let mut session = tokio::task::spawn_blocking(move || starter.start_session(&start))
        .await
        .map_err(|error| TuiError::Terminal(format!("the session could not start: {error}")))?
        .map_err(TuiError::Session)?;
    highlight::warm_up();
    let history_host = host.clone();
    let history = tokio::task::spawn_blocking(move || history_host.input_history())
        .await
        .unwrap_or_default();
    let mut app = App::new(AppOptions {
        project: project_name(&options.root),
        branch: git::branch(&options.root),
        root: options.root.clone(),
        session: session.info.clone(),
        history,
        external_editor: editor::configured(),
        bell_after: options.bell_after,
    });
    let history = std::mem::take(&mut session.history);
    if !history.is_empty() {
        app.show_history(&history);
        app.notice(format!(
            "resumed the saved conversation ({} messages) — /clear starts a new one, /sessions lists the others",
            history.len()
        ));
    }
    let first = options
        .prompt
        .map(|prompt| app.send_message(prompt))
        .unwrap_or_default();
    let (inputs_tx, inputs) = tokio::sync::mpsc::unbounded_channel();
    let (tty, mut terminal) =
        terminal::Tty::start(inputs_tx).map_err(|error| TuiError::Terminal(error.to_string()))?;
    let result = runner::drive_tty(
        &mut terminal,
        &mut app,
        host,
        session,
        inputs,
        runner::Place {
            root: options.root,
            tty: Some(&tty),
            first,
        },
    )
    .await;
    drop(tty);
    if result.is_ok() {
        print_conversation(&mut app);
    }
    result.map(|()| app.session_id().map(str::to_string))
}

/// Prints the conversation to the normal screen, wrapped to the terminal's width now, so
/// it stays in the scrollback after the alternate screen is gone.
fn print_conversation(app: &mut App) {
    let width = ratatui::crossterm::terminal::size().map_or(80, |(width, _)| width);
    let lines = app.transcript_lines(width);
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = scrollback::write(&mut stdout, &lines, scrollback::Colour::detect()) {
        tracing::warn!("printing the conversation failed: {error}");
    }
}

/// The project's name: the root directory's name.
fn project_name(root: &std::path::Path) -> String {
    root.file_name().map_or_else(
        || root.display().to_string(),
        |name| name.to_string_lossy().into_owned(),
    )
}
