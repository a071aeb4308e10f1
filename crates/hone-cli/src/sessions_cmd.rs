//! `hone sessions list|show|delete|export|rewind`.

use std::io::Write;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use hone_memory::ExportFormat;
use hone_protocol::HoneError;
use hone_runtime::report::sessions::{now_ms, show, table, title};
use hone_runtime::sessions::open_project_store;
use hone_runtime::store_error;

use crate::cli::GlobalArgs;

/// `hone sessions …`.
#[derive(Debug, Subcommand)]
pub enum SessionsCommand {
    /// List saved sessions, most recently active first (this project's unless --all).
    List(ListArgs),
    /// Show a session: its facts and a compact transcript.
    Show(IdArgs),
    /// Delete a session with its messages and undo journal.
    Delete(IdArgs),
    /// Export a session's full transcript as Markdown or JSON.
    Export(ExportArgs),
    /// List a session's prompts, or take it back to before one of them: the files it
    /// changed since are restored through the undo journal and the conversation is cut.
    Rewind(crate::rewind_cmd::RewindArgs),
}

/// `hone sessions list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Every project's sessions, with their project.
    #[arg(long)]
    pub all: bool,

    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,

    /// At most this many sessions.
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub limit: usize,
}

/// A session named by id.
#[derive(Debug, Args)]
pub struct IdArgs {
    /// The session id, or a unique start of it.
    pub id: String,
}

/// `hone sessions export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The session id, or a unique start of it.
    pub id: String,

    /// `md` (a readable transcript) or `json` (every content block).
    #[arg(long, value_name = "md|json", default_value = "md")]
    pub format: ExportFormat,

    /// Write to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
}

/// Runs `hone sessions …`.
pub(crate) fn run(global: &GlobalArgs, command: &SessionsCommand) -> Result<ExitCode, HoneError> {
    if let SessionsCommand::Rewind(args) = command {
        return crate::rewind_cmd::run(global, args);
    }
    let root = crate::project_dir(global)?;
    let settings = crate::load_config(global)?.index_settings().store;
    let opened = open_project_store(&root, &settings, true)?;
    if let Some(warning) = &opened.warning {
        eprintln!("warning: {warning}");
    }
    let mut store = opened.store;
    match command {
        SessionsCommand::List(args) => {
            let project = if args.all { None } else { Some(opened.project) };
            let sessions = store
                .list(project.as_deref(), args.limit)
                .map_err(store_error)?;
            if args.json {
                let json = hone_api::display::json_pretty(&sessions)
                    .map_err(|error| HoneError::config(error.to_string()))?;
                println!("{json}");
            } else if sessions.is_empty() {
                match &project {
                    Some(project) => eprintln!(
                        "no saved sessions for {project} (`hone sessions list --all` shows every project's)"
                    ),
                    None => eprintln!("no saved sessions"),
                }
            } else {
                print!("{}", table(&sessions, args.all, now_ms()));
            }
        }
        SessionsCommand::Show(args) => {
            let session = store.find(&args.id).map_err(store_error)?;
            let messages = store.messages(&session.id).map_err(store_error)?;
            print!("{}", show(&session, &messages, now_ms()));
        }
        SessionsCommand::Delete(args) => {
            let session = store.find(&args.id).map_err(store_error)?;
            store.delete(&session.id).map_err(store_error)?;
            eprintln!("deleted session {} ({})", session.id, title(&session));
        }
        SessionsCommand::Rewind(args) => return crate::rewind_cmd::run(global, args),
        SessionsCommand::Export(args) => {
            let text = store.export(&args.id, args.format).map_err(store_error)?;
            match &args.output {
                Some(path) => {
                    hone_fs::write_atomically(path, text.as_bytes(), None).map_err(|error| {
                        HoneError::config(format!("cannot write {}: {error}", path.display()))
                    })?;
                    eprintln!("exported to {}", path.display());
                }
                None => {
                    let mut stdout = std::io::stdout().lock();
                    let _ = stdout.write_all(text.as_bytes());
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
