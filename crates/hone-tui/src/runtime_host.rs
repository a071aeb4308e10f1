//! The TUI over hone's session runtime: [`RuntimeHost`] is the [`Host`] every session of
//! the TUI goes through (start, resume and switch model by [`Runtime::start_session`], the
//! path `hone exec` takes; the code index, saved sessions and input history are the
//! runtime's), and [`run_on`] opens the code index and runs the TUI over it.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use hone_protocol::{ErrorCategory, HoneError};
use hone_runtime::report::sessions::{ago, now_ms};
use hone_runtime::{Runtime, RuntimeError, SessionChoice, SessionRequest};

use crate::{
    FileHistory, Host, Mentions, Rewound, SavedSession, Session, SessionStart, TuiError, TuiOptions,
};

/// Entries of the input history loaded for ↑/↓.
const HISTORY_SHOWN: usize = 500;
/// Sessions `/sessions` lists.
const SESSIONS_LISTED: usize = 50;
/// What `/mcp` says without servers.
const NO_MCP_SERVERS: &str = "no MCP servers configured (add [mcp_servers.NAME] to your config)";

/// Called once the first session started: from then on the TUI owns the screen, so the
/// front end's [`hone_runtime::Interaction`] must stop asking on the terminal.
pub type AfterFirstStart = Box<dyn Fn() + Send + Sync>;

/// The TUI's [`Host`] over a [`Runtime`].
pub struct RuntimeHost {
    runtime: Runtime,
    after_first_start: AfterFirstStart,
    history_file: FileHistory,
    /// The MCP servers of the current session (`/mcp`).
    mcp: Mutex<Option<hone_mcp::McpClients>>,
    /// The command line's choice for the first session (new, `-c`, `--resume`); later
    /// sessions follow the TUI's [`SessionStart`].
    first: Mutex<Option<SessionChoice>>,
}

impl RuntimeHost {
    /// A host over `runtime` whose first session is `first`; `after_first_start` runs once
    /// that session was started (or failed to).
    pub fn new(runtime: Runtime, first: SessionChoice, after_first_start: AfterFirstStart) -> Self {
        Self {
            history_file: FileHistory::for_project(runtime.root()),
            runtime,
            after_first_start,
            mcp: Mutex::new(None),
            first: Mutex::new(Some(first)),
        }
    }

    fn mcp_clients(&self) -> Option<hone_mcp::McpClients> {
        self.mcp
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// Opens `runtime`'s code index (indexing up to the foreground share of a new project before
/// the screen is taken over), then runs the TUI with a [`RuntimeHost`] until the user quits.
/// Returns the id of the saved session, if the session was saved.
pub async fn run_on(
    runtime: Runtime,
    first: SessionChoice,
    after_first_start: AfterFirstStart,
    options: TuiOptions,
) -> Result<Option<String>, TuiError> {
    let runtime = tokio::task::spawn_blocking(move || {
        tracing::info!("code index: {}", runtime.code_index().status());
        runtime
    })
    .await
    .map_err(|error| TuiError::Session(HoneError::config(format!("indexing failed: {error}"))))?;
    let host: Arc<dyn Host> = Arc::new(RuntimeHost::new(runtime, first, after_first_start));
    crate::run(host, options).await
}

/// The runtime's choice for the TUI's `start`: a saved session (an id, or `last`), or a
/// new one.
fn choice(start: &SessionStart) -> SessionChoice {
    start
        .resume
        .clone()
        .map_or(SessionChoice::New, SessionChoice::Resume)
}

impl Host for RuntimeHost {
    fn start_session(&self, start: &SessionStart) -> Result<Session, HoneError> {
        let first = self
            .first
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let request = SessionRequest {
            choice: first.unwrap_or_else(|| choice(start)),
            model: start.model.clone(),
            interactive: true,
            conversation: true,
            focus: String::new(),
            show_history: true,
            mcp_servers: true,
            role: None,
        };
        let started =
            tokio::runtime::Handle::current().block_on(self.runtime.start_session(request));
        // Only the first session may ask on the terminal (before the TUI takes it over).
        (self.after_first_start)();
        let started = started.map_err(|error| match error {
            RuntimeError::OtherProject { id, project } => HoneError::config(format!(
                "session {id} belongs to {project}; open it there: hone -C {project} --resume {id}"
            )),
            other => other.into(),
        })?;
        *self.mcp.lock().unwrap_or_else(PoisonError::into_inner) = started.mcp;
        Ok(Session {
            handle: started.handle,
            events: started.events,
            info: started.summary,
            history: started.history,
        })
    }

    fn sessions(&self) -> Result<Vec<SavedSession>, HoneError> {
        let now = now_ms();
        let sessions = self.runtime.sessions().list(SESSIONS_LISTED)?;
        Ok(sessions
            .into_iter()
            .map(|session| SavedSession {
                active: ago(session.updated_ms, now),
                id: session.id,
                title: session.title,
                model: session.model,
                messages: session.messages,
            })
            .collect())
    }

    fn delete_session(&self, id: &str) -> Result<(), HoneError> {
        match self.runtime.sessions().delete(id) {
            Ok(_) => Ok(()),
            Err(RuntimeError::OtherProject { .. }) => Err(HoneError::config(format!(
                "session {id} belongs to another project"
            ))),
            Err(error) => Err(error.into()),
        }
    }

    fn reindex(&self) -> Result<String, HoneError> {
        self.runtime.code_index().reindex()
    }

    fn symbols(&self, prefix: &str, limit: usize) -> Vec<(String, String)> {
        self.runtime.code_index().symbols(prefix, limit)
    }

    fn index_progress(&self) -> Option<String> {
        self.runtime.code_index().progress().line()
    }

    fn skip_indexing(&self) -> bool {
        self.runtime.code_index().skip()
    }

    fn input_history(&self) -> Vec<String> {
        self.runtime
            .sessions()
            .input_history(HISTORY_SHOWN)
            .unwrap_or_else(|_| self.history_file.load())
    }

    fn rewind_points(&self, id: &str) -> Result<Vec<hone_api::RewindPoint>, HoneError> {
        Ok(self.runtime.rewind_points(id)?)
    }

    fn rewind(&self, id: &str, prompt: u32, fork: bool) -> Result<Rewound, HoneError> {
        use hone_runtime::rewind::{RewindFiles, RewindOptions, RewindTarget};
        let options = RewindOptions {
            files: RewindFiles::Restore,
            target: if fork {
                RewindTarget::Fork
            } else {
                RewindTarget::InPlace
            },
        };
        let rewound = self.runtime.rewind(id, prompt, options)?;
        Ok(Rewound {
            session_id: rewound.session_id,
            text: rewound.text,
            undone: rewound.undone.len(),
        })
    }

    fn agents_md(&self) -> Result<String, HoneError> {
        Ok(hone_runtime::init::agents_md(self.runtime.root()))
    }

    fn mcp_status(&self) -> Vec<String> {
        match self.mcp_clients() {
            Some(clients) => hone_mcp::report_lines(&clients.report()),
            None => vec![NO_MCP_SERVERS.into()],
        }
    }

    fn custom_command(&self, name: &str, arguments: &str) -> Option<String> {
        let commands = self
            .runtime
            .config()
            .custom_commands()
            .without_builtins(crate::commands::builtin_names());
        commands.get(name).map(|command| command.expand(arguments))
    }

    fn mcp_prompt(&self, server: &str, prompt: &str, arguments: &str) -> Result<String, HoneError> {
        let Some(clients) = self.mcp_clients() else {
            return Err(HoneError::config(NO_MCP_SERVERS));
        };
        tokio::runtime::Handle::current()
            .block_on(clients.prompt(server, prompt, arguments))
            .map_err(|message| HoneError::new(ErrorCategory::Tool, message))
    }

    fn expand_mentions(&self, text: &str, image_paths: &[String]) -> Mentions {
        let expanded = self.runtime.expand_mentions(text);
        let mut mentions = Mentions {
            text: expanded.text,
            attached: expanded.attached.iter().map(|a| a.describe()).collect(),
            problems: expanded.problems.iter().map(ToString::to_string).collect(),
            images: Vec::new(),
        };
        let pasted = crate::images::pasted_image_paths(text);
        for path in image_paths.iter().chain(&pasted) {
            match hone_context::images::read_image_file(&hone_config::expand_home(path)) {
                Ok(image) => {
                    mentions.attached.push(format!("{path} (image)"));
                    mentions.images.push(image);
                }
                Err(error) => mentions.problems.push(error.to_string()),
            }
        }
        mentions.images.extend(expanded.images);
        mentions
    }

    fn remember_input(&self, text: &str) {
        if self.runtime.sessions().remember_input(text).is_err()
            && let Err(error) = self.history_file.append(text)
        {
            tracing::warn!("could not save the input history: {error}");
        }
    }
}

/// Sends the TUI's logs to `.hone/logs/tui.log` under `root` (never the screen):
/// `HONE_LOG` sets the filter, else `verbose` above 0 raises the level from `info`.
pub fn log_to_file(root: &Path, verbose: u8) {
    let dir = root.join(hone_core::AUDIT_DIR);
    if std::fs::create_dir_all(&dir).is_err() {
        return;
    }
    let Ok(file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("tui.log"))
    else {
        return;
    };
    let level = if verbose > 0 { "debug" } else { "info" };
    let filter = tracing_subscriber::EnvFilter::try_from_env("HONE_LOG").unwrap_or_else(|_| {
        tracing_subscriber::EnvFilter::new(format!(
            "hone={level},hone_tui={level},hone_core={level},hone_providers={level},hone_config={level}"
        ))
    });
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(Mutex::new(file))
        .with_ansi(false)
        .try_init();
}
