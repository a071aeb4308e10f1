//! Saved sessions: the one path that creates, resumes or forks the session a front end
//! runs, plus the project's session list and input history.

use std::path::Path;
use std::sync::{Mutex, MutexGuard, PoisonError};

use hone_config::{StoreBackend, StoreSettings};
use hone_core::Persistence;
use hone_memory::{DEFAULT_INPUT_HISTORY_CAP, NewSession, SessionInfo, SessionStore};
use hone_protocol::{ErrorCategory, HoneError, Message};
use hone_store_redis::RedisSessions;

use crate::error::{RuntimeError, store_error};
use crate::runtime::SessionRequest;

/// The session store in hone's data directory.
pub fn open_store() -> Result<SessionStore, HoneError> {
    SessionStore::open_default().map_err(store_error)
}

/// The session store for commands that only read it (or delete from it): an empty store
/// in memory when there is none yet, so looking creates nothing.
pub fn open_store_to_read() -> Result<SessionStore, HoneError> {
    match SessionStore::default_path() {
        Ok(path) if !path.exists() => SessionStore::open_in_memory().map_err(store_error),
        _ => open_store(),
    }
}

/// The session store `[store]` chooses for a project, with the key its sessions are filed
/// under.
#[derive(Debug)]
pub struct ProjectStore {
    /// The store.
    pub store: SessionStore,
    /// The project's key in it: the canonical root on SQLite; on Redis the namespace, which
    /// every clone of the project shares, so each lists and resumes the others' sessions.
    pub project: String,
    /// Why the store is not the one configured (Redis down, `fallback = "sqlite"`).
    pub warning: Option<String>,
}

/// The session store `store` chooses for the project at `root`: the SQLite database in
/// hone's data directory (`sqlite`: one to read only when `read_only`, in memory when
/// there is none yet), or the Redis namespace. Redis out of reach is a network error
/// naming the URL, unless `fallback = "sqlite"`, which keeps sessions locally with a
/// warning.
pub fn open_project_store(
    root: &Path,
    store: &StoreSettings,
    read_only: bool,
) -> Result<ProjectStore, HoneError> {
    let sqlite = |warning: Option<String>| -> Result<ProjectStore, HoneError> {
        Ok(ProjectStore {
            store: if read_only {
                open_store_to_read()?
            } else {
                open_store()?
            },
            project: hone_memory::project_key(root),
            warning,
        })
    };
    if store.backend != StoreBackend::Redis {
        return sqlite(None);
    }
    let target = crate::index_store::redis_target(root, store)?;
    match RedisSessions::open(&target) {
        Ok(redis) => Ok(ProjectStore {
            store: SessionStore::with_backend(Box::new(redis)),
            project: target.namespace,
            warning: None,
        }),
        Err(error) => {
            let error = store_error(error);
            if store.fallback_sqlite && error.category == ErrorCategory::Network {
                sqlite(Some(format!(
                    "{}; sessions are kept in the local SQLite store instead ([store] \
                     fallback = \"sqlite\"), which other clones do not see",
                    error.message
                )))
            } else {
                Err(error)
            }
        }
    }
}

/// Which session to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionChoice {
    /// A new session.
    New,
    /// A saved session of this project: an id, a unique start of one, or `last` (the
    /// project's latest; an error when there is none).
    Resume(String),
    /// The project's latest session, or a new one when there is none.
    LatestOrNew,
    /// The project's latest conversation (a session held in the terminal UI, not a
    /// one-shot run); an error when there is none (`hone --continue`).
    LastConversation,
    /// A copy of a saved session of this project (an id, a start of one, or `last`).
    Fork(String),
    /// A new session that is not saved (the `agent` tool of `hone mcp serve`).
    Unsaved,
}

/// How the session came to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opening {
    /// Created for this run.
    Created,
    /// A saved session, continued.
    Resumed,
    /// A copy of a saved session.
    Forked,
}

/// The saved session a run continues or starts.
#[derive(Debug, Clone)]
pub struct OpenedSession {
    /// The session as the store had it when opened (for a fork: the copy).
    pub info: SessionInfo,
    /// Created, resumed or forked.
    pub opening: Opening,
}

/// What [`SessionManager::open_session`] hands the core and the front end.
pub(crate) struct Opened {
    pub(crate) persistence: Option<Persistence>,
    pub(crate) saved: Option<OpenedSession>,
    /// Why the session is not saved (no usable store).
    pub(crate) unsaved: Option<String>,
    pub(crate) history: Vec<Message>,
}

/// The project's saved sessions and input history in one store.
pub struct SessionManager {
    project: String,
    /// The store, or why it could not be opened.
    store: Mutex<Result<SessionStore, HoneError>>,
    /// Why the store is not the one configured.
    warning: Option<String>,
}

impl SessionManager {
    /// The sessions of the project at `root` in the SQLite store at `store_path`, or (when
    /// `None`) the store `settings` choose ([`open_project_store`]). A store that cannot be
    /// opened leaves new sessions unsaved, except a Redis server out of reach, which fails
    /// every session (exit 5) rather than losing it quietly.
    pub fn open(root: &Path, store_path: Option<&Path>, settings: &StoreSettings) -> Self {
        let opened = match store_path {
            Some(path) => SessionStore::open(path)
                .map(|store| ProjectStore {
                    store,
                    project: hone_memory::project_key(root),
                    warning: None,
                })
                .map_err(store_error),
            None => open_project_store(root, settings, false),
        };
        match opened {
            Ok(opened) => Self {
                project: opened.project,
                store: Mutex::new(Ok(opened.store)),
                warning: opened.warning,
            },
            Err(error) => {
                tracing::warn!("sessions will not be saved: {}", error.message);
                Self {
                    project: hone_memory::project_key(root),
                    store: Mutex::new(Err(error)),
                    warning: None,
                }
            }
        }
    }

    /// The project's key in the store.
    pub fn project(&self) -> &str {
        &self.project
    }

    /// Why there is no store, when there is none.
    pub fn unavailable(&self) -> Option<String> {
        self.lock()
            .as_ref()
            .err()
            .map(|error| error.message.clone())
    }

    /// Why the store is not the one configured (a fallback), to show once per session.
    pub fn warning(&self) -> Option<&str> {
        self.warning.as_deref()
    }

    fn lock(&self) -> MutexGuard<'_, Result<SessionStore, HoneError>> {
        self.store.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn with_store<T>(
        &self,
        work: impl FnOnce(&mut SessionStore) -> Result<T, RuntimeError>,
    ) -> Result<T, RuntimeError> {
        match self.lock().as_mut() {
            Ok(store) => work(store),
            Err(error) if error.category == ErrorCategory::Network => Err(error.clone().into()),
            Err(error) => Err(HoneError::config(format!(
                "saved sessions are not available: {}",
                error.message
            ))
            .into()),
        }
    }

    /// The project's saved sessions, newest first.
    pub fn list(&self, limit: usize) -> Result<Vec<SessionInfo>, RuntimeError> {
        self.with_store(|store| Ok(store.list(Some(&self.project), limit)?))
    }

    /// Deletes the project's session `id` (or a unique start of it).
    pub fn delete(&self, id: &str) -> Result<SessionInfo, RuntimeError> {
        self.with_store(|store| {
            let found = store.find(id)?;
            if found.project != self.project {
                return Err(RuntimeError::OtherProject {
                    id: found.id,
                    project: found.project,
                });
            }
            store.delete(&found.id)?;
            Ok(found)
        })
    }

    /// The full id of the project's session `id` (a unique start of one, or `last`).
    pub fn resolve(&self, id: &str) -> Result<String, RuntimeError> {
        self.with_store(|store| Ok(self.existing(store, id)?.id))
    }

    /// The conversation of the project's session `id`, repaired as a resumed session
    /// sees it.
    pub fn messages(&self, id: &str) -> Result<Vec<Message>, RuntimeError> {
        self.with_store(|store| {
            let session = self.existing(store, id)?;
            Ok(hone_memory::resume_history(store.messages(&session.id)?))
        })
    }

    /// The transcript of the project's session `id` as `format` (`markdown` or `json`),
    /// with the session's full id.
    pub fn export(&self, id: &str, format: &str) -> Result<(String, String), RuntimeError> {
        let format: hone_memory::ExportFormat = format
            .parse()
            .map_err(|message: String| HoneError::validation(message))?;
        self.with_store(|store| {
            let session = self.existing(store, id)?;
            let text = store.export(&session.id, format)?;
            Ok((session.id, text))
        })
    }

    /// The project's earlier inputs, oldest first.
    pub fn input_history(&self, limit: usize) -> Result<Vec<String>, RuntimeError> {
        self.with_store(|store| {
            let mut newest_first = store.input_history(&self.project, limit)?;
            newest_first.reverse();
            Ok(newest_first)
        })
    }

    /// Stores one input in the project's history.
    pub fn remember_input(&self, text: &str) -> Result<(), RuntimeError> {
        // A key pasted into a prompt is not kept for the next session's history.
        let text = hone_protocol::Redactor::new().redact(text);
        self.with_store(|store| {
            store.push_input(&self.project, &text, DEFAULT_INPUT_HISTORY_CAP)?;
            Ok(())
        })
    }

    /// Creates, resumes or forks the session `request` names, recorded with `provider`
    /// and `model` (the core records the model of a resumed session when it starts), and
    /// marked as a conversation when it is one. With `show_history` the stored messages
    /// are read once, repaired, and handed both to the core and to the caller. Without a
    /// store a new session runs unsaved.
    pub(crate) fn open_session(
        &self,
        request: &SessionRequest,
        provider: &str,
        model: &str,
        undo_depth: usize,
    ) -> Result<Opened, RuntimeError> {
        let choice = &request.choice;
        if *choice == SessionChoice::Unsaved {
            return Ok(Opened {
                persistence: None,
                saved: None,
                unsaved: None,
                history: Vec::new(),
            });
        }
        let mut guard = self.lock();
        let store = match guard.as_mut() {
            Ok(store) => store,
            Err(error) if error.category == ErrorCategory::Network => {
                return Err(error.clone().into());
            }
            Err(error) => {
                let reason = &error.message;
                return match choice {
                    SessionChoice::New | SessionChoice::LatestOrNew | SessionChoice::Unsaved => {
                        Ok(Opened {
                            persistence: None,
                            saved: None,
                            unsaved: Some(reason.clone()),
                            history: Vec::new(),
                        })
                    }
                    SessionChoice::Resume(_)
                    | SessionChoice::Fork(_)
                    | SessionChoice::LastConversation => {
                        Err(HoneError::config(reason.clone()).into())
                    }
                };
            }
        };
        let existing = match choice {
            SessionChoice::New | SessionChoice::Unsaved => None,
            SessionChoice::LatestOrNew => store
                .latest_for_project(&self.project)?
                .map(|info| (info, Opening::Resumed)),
            SessionChoice::Resume(id) => Some((self.existing(store, id)?, Opening::Resumed)),
            SessionChoice::LastConversation => {
                let found = store.latest_conversation(&self.project)?.ok_or_else(|| {
                    RuntimeError::NoConversation {
                        project: self.project.clone(),
                    }
                })?;
                Some((found, Opening::Resumed))
            }
            SessionChoice::Fork(id) => {
                let source = self.existing(store, id)?;
                Some((store.fork(&source.id)?, Opening::Forked))
            }
        };
        // The core owns its own connection to the store.
        let session_store = store.reopen()?;
        let (info, opening) = match existing {
            Some(found) => found,
            None => {
                let new = NewSession {
                    project: self.project.clone(),
                    provider: provider.to_string(),
                    model: model.to_string(),
                };
                (store.create(&new)?, Opening::Created)
            }
        };
        if request.conversation {
            store.mark_conversation(&info.id)?;
        }
        let resumed = opening != Opening::Created;
        let history = if resumed && request.show_history {
            Some(hone_memory::resume_history(
                session_store.messages(&info.id)?,
            ))
        } else {
            None
        };
        Ok(Opened {
            persistence: Some(Persistence {
                store: session_store,
                session_id: info.id.clone(),
                resumed,
                undo_depth,
                history: history.clone(),
            }),
            saved: Some(OpenedSession { info, opening }),
            unsaved: None,
            history: history.unwrap_or_default(),
        })
    }

    /// The project's session `id` (or `last`).
    pub(crate) fn existing(
        &self,
        store: &SessionStore,
        id: &str,
    ) -> Result<SessionInfo, RuntimeError> {
        let session = if id == "last" {
            store.latest_for_project(&self.project)?.ok_or_else(|| {
                RuntimeError::NoSessionToResume {
                    project: self.project.clone(),
                }
            })?
        } else {
            store.find(id)?
        };
        if session.project != self.project {
            return Err(RuntimeError::OtherProject {
                id: session.id,
                project: session.project,
            });
        }
        Ok(session)
    }
}
