//! The terminal UI's host: starts sessions from the configuration (new, resumed, or with
//! another model), lists and deletes saved sessions, and answers from the code index.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use hone_config::{CliOverrides, Config, ConfigSources, IndexSettings};
use hone_core::{Persistence, SessionConfig};
use hone_index::tools::{SharedIndex, index_tools};
use hone_memory::{DEFAULT_INPUT_HISTORY_CAP, NewSession, SessionStore};
use hone_protocol::{HoneError, Message};
use hone_tui::{FileHistory, Host, SavedSession, Session, SessionInfo, SessionStart};

use crate::provider_factory::{self, Prompting};
use crate::sessions_cmd::{ago, now_ms, open_store, store_error};

/// Entries of the input history loaded for ↑/↓.
const HISTORY_SHOWN: usize = 500;
/// Sessions `/sessions` lists.
const SESSIONS_LISTED: usize = 50;

/// The code index as the TUI uses it.
pub(crate) struct CodeIndex {
    /// The index, when it could be opened.
    pub(crate) index: Option<SharedIndex>,
    /// The repo map for the system prompt.
    pub(crate) repo_map: Option<String>,
    /// One line for `/status`.
    pub(crate) status: String,
}

/// The host.
pub(crate) struct TuiHost {
    root: PathBuf,
    overrides: CliOverrides,
    index: CodeIndex,
    project: String,
    store: Mutex<Option<SessionStore>>,
    history_file: FileHistory,
    asked_once: AtomicBool,
    /// The MCP servers of the current session (`/mcp`).
    mcp: Mutex<Option<hone_mcp::McpClients>>,
}

impl TuiHost {
    /// A host for the project at `root` with the command line's `overrides`.
    pub(crate) fn new(root: PathBuf, overrides: CliOverrides, index: CodeIndex) -> Self {
        let store = match open_store() {
            Ok(store) => Some(store),
            Err(error) => {
                tracing::warn!("sessions will not be saved: {}", error.message);
                None
            }
        };
        Self {
            project: hone_memory::project_key(&root),
            history_file: FileHistory::for_project(&root),
            root,
            overrides,
            index,
            store: Mutex::new(store),
            asked_once: AtomicBool::new(false),
            mcp: Mutex::new(None),
        }
    }

    fn config(&self, model: Option<&str>) -> Result<Config, HoneError> {
        let mut overrides = self.overrides.clone();
        if let Some(model) = model {
            overrides.model = Some(model.to_string());
        }
        let sources = ConfigSources::from_process(Some(self.root.clone()));
        Ok(hone_config::load(&sources, &overrides)?)
    }

    fn with_store<T>(
        &self,
        work: impl FnOnce(&mut SessionStore) -> Result<T, HoneError>,
    ) -> Result<T, HoneError> {
        let mut guard = self.store.lock().unwrap_or_else(PoisonError::into_inner);
        match guard.as_mut() {
            Some(store) => work(store),
            None => Err(HoneError::config(
                "saved sessions are not available: hone's data directory could not be opened (see .hone/logs/tui.log)",
            )),
        }
    }

    /// The saved session to continue (with its conversation), or a new one.
    fn persistence(
        &self,
        start: &SessionStart,
        provider: &str,
        model: &str,
        undo_depth: usize,
    ) -> Result<(Option<Persistence>, Vec<Message>), HoneError> {
        let mut guard = self.store.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(store) = guard.as_mut() else {
            return match &start.resume {
                Some(id) if id != "last" => Err(HoneError::config(
                    "cannot resume: hone's data directory could not be opened",
                )),
                _ => Ok((None, Vec::new())),
            };
        };
        let existing = match start.resume.as_deref() {
            None => None,
            Some("last") => store
                .latest_for_project(&self.project)
                .map_err(store_error)?,
            Some(id) => {
                let found = store.find(id).map_err(store_error)?;
                if found.project != self.project {
                    return Err(HoneError::config(format!(
                        "session {} belongs to {}; open it there: hone -C {} --resume {}",
                        found.id, found.project, found.project, found.id
                    )));
                }
                Some(found)
            }
        };
        // Reopen the store for the session: the core owns its own connection.
        let mut session_store = SessionStore::open(store.path()).map_err(store_error)?;
        let (info, history) = match existing {
            Some(info) => {
                if info.model != model || info.provider != provider {
                    session_store
                        .set_model(&info.id, provider, model)
                        .map_err(store_error)?;
                }
                let stored = session_store.messages(&info.id).map_err(store_error)?;
                (info, hone_memory::resume_history(stored))
            }
            None => {
                let new = NewSession {
                    project: self.project.clone(),
                    provider: provider.to_string(),
                    model: model.to_string(),
                };
                (session_store.create(&new).map_err(store_error)?, Vec::new())
            }
        };
        let resumed = !history.is_empty();
        Ok((
            Some(Persistence {
                store: session_store,
                session_id: info.id,
                resumed,
                undo_depth,
            }),
            history,
        ))
    }
}

impl Host for TuiHost {
    fn start_session(&self, start: &SessionStart) -> Result<Session, HoneError> {
        let config = self.config(start.model.as_deref())?;
        let provider_config = config.provider()?;
        let context_window = crate::context_cmd::context_window(&config, &provider_config);
        let basics = crate::agent_setup::basics(&config, &provider_config)?;
        // Only the first session may ask on the terminal (before the TUI takes it over).
        let prompting = if self.asked_once.swap(true, Ordering::SeqCst) {
            Prompting::Never
        } else {
            Prompting::detect(false)
        };
        let runtime = tokio::runtime::Handle::current();
        let roles = runtime.block_on(crate::agent_setup::roles(
            &config,
            &provider_config,
            prompting,
        ))?;
        let provider =
            runtime.block_on(provider_factory::build(&config, provider_config, prompting))?;
        let provider_name = config.provider_name().to_string();
        let (memory, history) =
            self.persistence(start, &provider_name, &basics.model, config.undo_depth())?;
        let extra_tools = self
            .index
            .index
            .as_ref()
            .map(|index| index_tools(index.clone()))
            .unwrap_or_default();
        // The map built at start-up has the full budget; the compact profile gets a smaller one.
        let code_mapper: std::sync::Arc<dyn hone_tools::edit::natural::CodeMapper> =
            match &self.index.index {
                Some(index) => {
                    std::sync::Arc::new(hone_index::mapper::IndexedMapper::new(index.clone()))
                }
                None => std::sync::Arc::new(hone_index::mapper::TreeSitterMapper),
            };
        let repo_map = match (basics.prompt_profile, &self.index.index) {
            (profile @ hone_core::PromptProfile::Compact, Some(index)) => {
                crate::agent_setup::repo_map(index, "", &config.index_settings(), profile)
                    .ok()
                    .flatten()
            }
            _ => self.index.repo_map.clone(),
        };
        let info = SessionInfo {
            provider: provider_name,
            model: basics.model.clone(),
            approval: basics.approval.clone(),
            context_window,
            index: self.index.status.clone(),
            sandbox: basics.sandbox_status.clone(),
        };
        let mcp = crate::mcp_cmd::session_servers(&config, &self.root, &basics.commands);
        *self
            .mcp
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = mcp.clone();
        let (handle, events) = hone_core::start_session(SessionConfig {
            root: self.root.clone(),
            provider,
            model: basics.model,
            permissions: basics.permissions,
            max_tool_rounds: basics.max_tool_rounds,
            interactive: true,
            audit: true,
            secrets: basics.secrets,
            commands: basics.commands,
            extra_tools,
            tool_sources: crate::mcp_cmd::tool_sources(mcp.as_ref()),
            repo_map,
            prompt_profile: basics.prompt_profile,
            memory,
            context: crate::context_cmd::session_context(&config, context_window, &self.root),
            checks: crate::agent_setup::checks(&config),
            code_mapper: Some(code_mapper),
            localizer: self.index.index.as_ref().map(crate::agent_setup::localizer),
            guidance: crate::agent_setup::guidance(&config),
            roles,
        })?;
        Ok(Session {
            handle,
            events,
            info,
            history,
        })
    }

    fn sessions(&self) -> Result<Vec<SavedSession>, HoneError> {
        let now = now_ms();
        self.with_store(|store| {
            let sessions = store
                .list(Some(&self.project), SESSIONS_LISTED)
                .map_err(store_error)?;
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
        })
    }

    fn delete_session(&self, id: &str) -> Result<(), HoneError> {
        self.with_store(|store| {
            let found = store.find(id).map_err(store_error)?;
            if found.project != self.project {
                return Err(HoneError::config(format!(
                    "session {id} belongs to another project"
                )));
            }
            store.delete(&found.id).map_err(store_error)?;
            Ok(())
        })
    }

    fn reindex(&self) -> Result<String, HoneError> {
        let Some(index) = &self.index.index else {
            return Err(HoneError::config(format!(
                "there is no code index ({}); run `hone index` to see why",
                self.index.status
            )));
        };
        let mut indexer = index.lock();
        let report = indexer
            .update(&mut |_| {})
            .map_err(|error| HoneError::config(error.to_string()))?;
        Ok(format!(
            "index up to date: {} files ({} parsed, {} removed), {} symbols, in {} ms",
            report.files_total,
            report.files_parsed,
            report.files_deleted,
            report.symbols,
            report.duration.as_millis()
        ))
    }

    fn symbols(&self, prefix: &str, limit: usize) -> Vec<(String, String)> {
        let Some(index) = &self.index.index else {
            return Vec::new();
        };
        let indexer = index.lock();
        let Ok(found) = indexer.store().search_symbols(prefix, limit * 4) else {
            return Vec::new();
        };
        let mut out: Vec<(String, String)> = Vec::new();
        for site in found {
            if !site.name.starts_with(prefix) || out.iter().any(|(name, _)| *name == site.name) {
                continue;
            }
            let detail = format!("{:?} {}:{}", site.kind, site.path, site.line).to_lowercase();
            out.push((site.name, detail));
            if out.len() == limit {
                break;
            }
        }
        out
    }

    fn input_history(&self) -> Vec<String> {
        let stored = self.with_store(|store| {
            store
                .input_history(&self.project, HISTORY_SHOWN)
                .map_err(store_error)
        });
        match stored {
            Ok(mut newest_first) => {
                newest_first.reverse();
                newest_first
            }
            Err(_) => self.history_file.load(),
        }
    }

    fn mcp_status(&self) -> Vec<String> {
        let clients = self
            .mcp
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        match clients {
            Some(clients) => hone_mcp::report_lines(&clients.report()),
            None => {
                vec!["no MCP servers configured (add [mcp_servers.NAME] to your config)".into()]
            }
        }
    }

    fn remember_input(&self, text: &str) {
        let stored = self.with_store(|store| {
            store
                .push_input(&self.project, text, DEFAULT_INPUT_HISTORY_CAP)
                .map(|_| ())
                .map_err(store_error)
        });
        if stored.is_err()
            && let Err(error) = self.history_file.append(text)
        {
            tracing::warn!("could not save the input history: {error}");
        }
    }
}

/// Opens the code index for the TUI (tools, repo map, status line); without one the
/// agent runs without the index tools.
pub(crate) fn code_index(root: &std::path::Path, settings: &IndexSettings) -> CodeIndex {
    match crate::agent_setup::open_code_index(root, settings) {
        Ok(index) => {
            let full = hone_core::PromptProfile::Full;
            let (repo_map, map_note) =
                match crate::agent_setup::repo_map(&index, "", settings, full) {
                    Ok(map) => (map, String::new()),
                    Err(warning) => (None, format!("; {warning}")),
                };
            let files = index.lock().files().len();
            CodeIndex {
                index: Some(index),
                repo_map,
                status: format!(
                    "{files} file{} indexed{map_note}",
                    if files == 1 { "" } else { "s" }
                ),
            }
        }
        Err(error) => CodeIndex {
            index: None,
            repo_map: None,
            status: format!("no code index: {}", error.message),
        },
    }
}

/// The host, shared.
pub(crate) fn shared(host: TuiHost) -> Arc<dyn Host> {
    Arc::new(host)
}
