//! The terminal UI's [`Host`] over the runtime: sessions start, resume and switch model
//! through [`Runtime::start_session`] (the path `hone exec` takes), and the code index and
//! saved sessions are the runtime's.

use std::sync::{Arc, Mutex, PoisonError};

use hone_protocol::HoneError;
use hone_runtime::{Runtime, RuntimeError, SessionChoice, SessionRequest};
use hone_tui::{FileHistory, Host, Mentions, SavedSession, Session, SessionInfo, SessionStart};

use crate::sessions_cmd::{ago, now_ms};
use crate::terminal::Terminal;

/// Entries of the input history loaded for ↑/↓.
const HISTORY_SHOWN: usize = 500;
/// Sessions `/sessions` lists.
const SESSIONS_LISTED: usize = 50;

/// The host.
pub(crate) struct TuiHost {
    runtime: Runtime,
    terminal: Arc<Terminal>,
    history_file: FileHistory,
    /// The MCP servers of the current session (`/mcp`).
    mcp: Mutex<Option<hone_mcp::McpClients>>,
    /// The command line's choice for the first session (new, `-c`, `--resume`); later
    /// sessions follow the TUI's [`SessionStart`].
    first: Mutex<Option<SessionChoice>>,
}

impl TuiHost {
    /// A host over `runtime`, whose questions go to `terminal` until the first session
    /// (`first`) runs.
    pub(crate) fn new(runtime: Runtime, terminal: Arc<Terminal>, first: SessionChoice) -> Self {
        Self {
            history_file: FileHistory::for_project(runtime.root()),
            runtime,
            terminal,
            mcp: Mutex::new(None),
            first: Mutex::new(Some(first)),
        }
    }
}

/// The runtime's choice for the TUI's `start`: a saved session (an id, or `last`), or a
/// new one.
fn choice(start: &SessionStart) -> SessionChoice {
    start
        .resume
        .clone()
        .map_or(SessionChoice::New, SessionChoice::Resume)
}

impl Host for TuiHost {
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
        };
        let started =
            tokio::runtime::Handle::current().block_on(self.runtime.start_session(request));
        // Only the first session may ask on the terminal (before the TUI takes it over).
        self.terminal.stop_asking();
        let started = started.map_err(|error| match error {
            RuntimeError::OtherProject { id, project } => HoneError::config(format!(
                "session {id} belongs to {project}; open it there: hone -C {project} --resume {id}"
            )),
            other => other.into(),
        })?;
        *self.mcp.lock().unwrap_or_else(PoisonError::into_inner) = started.mcp;
        let summary = started.summary;
        Ok(Session {
            handle: started.handle,
            events: started.events,
            info: SessionInfo {
                provider: summary.provider,
                model: summary.model,
                approval: summary.approval,
                context_window: summary.context_window,
                index: summary.index,
                sandbox: summary.sandbox,
                price: summary.price,
            },
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

    fn agents_md(&self) -> Result<String, HoneError> {
        Ok(hone_runtime::init::agents_md(self.runtime.root()))
    }

    fn mcp_status(&self) -> Vec<String> {
        let clients = self
            .mcp
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        match clients {
            Some(clients) => hone_mcp::report_lines(&clients.report()),
            None => {
                vec!["no MCP servers configured (add [mcp_servers.NAME] to your config)".into()]
            }
        }
    }

    fn mcp_prompt(&self, server: &str, prompt: &str, arguments: &str) -> Result<String, HoneError> {
        let clients = self
            .mcp
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let Some(clients) = clients else {
            return Err(HoneError::config(
                "no MCP servers configured (add [mcp_servers.NAME] to your config)",
            ));
        };
        tokio::runtime::Handle::current()
            .block_on(clients.prompt(server, prompt, arguments))
            .map_err(|message| HoneError::new(hone_protocol::ErrorCategory::Tool, message))
    }

    fn expand_mentions(&self, text: &str) -> Mentions {
        let expanded = self.runtime.expand_mentions(text);
        Mentions {
            text: expanded.text,
            attached: expanded.attached.iter().map(|a| a.describe()).collect(),
            problems: expanded.problems.iter().map(ToString::to_string).collect(),
        }
    }

    fn remember_input(&self, text: &str) {
        if self.runtime.sessions().remember_input(text).is_err()
            && let Err(error) = self.history_file.append(text)
        {
            tracing::warn!("could not save the input history: {error}");
        }
    }
}
