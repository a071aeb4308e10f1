//! [`Server`]: the runtimes of the projects it serves and the sessions running in them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use hone_api::rpc::{RpcError, ServerMessage};
use hone_runtime::{Interaction, ProjectPlace, Runtime, RuntimeError, RuntimeOptions};
use tokio::sync::{mpsc, watch};

use crate::client::{ClientState, Connection};
use crate::live::LiveSession;

/// How long a resume waits for a session that is ending to end.
const CLOSING_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// How often it looks.
const CLOSING_POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// The sessions of one process and the clients attached to them.
pub struct Server {
    /// Sources, overrides and store of every runtime; the root of the default one.
    template: RuntimeOptions,
    interaction: Arc<dyn Interaction>,
    /// One runtime per project root, the default one first.
    runtimes: Mutex<Vec<Arc<Runtime>>>,
    sessions: Mutex<HashMap<String, Arc<LiveSession>>>,
    /// How many sessions run (for [`Server::idle`]).
    running: watch::Sender<usize>,
    clients: AtomicU64,
    unsaved: AtomicU64,
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Server {
    /// A server for the project of `options` (its runtime opened now, so a bad
    /// configuration fails here); other projects' runtimes open when a client names them.
    pub fn open(
        options: RuntimeOptions,
        interaction: Arc<dyn Interaction>,
    ) -> Result<Arc<Self>, RuntimeError> {
        let runtime = Runtime::open(options.clone(), Arc::clone(&interaction))?;
        Ok(Arc::new(Self {
            template: options,
            interaction,
            runtimes: Mutex::new(vec![Arc::new(runtime)]),
            sessions: Mutex::new(HashMap::new()),
            running: watch::channel(0).0,
            clients: AtomicU64::new(0),
            unsaved: AtomicU64::new(0),
        }))
    }

    /// A new client: its connection, and where its responses and events arrive.
    pub fn connect(self: &Arc<Self>) -> (Connection, mpsc::UnboundedReceiver<ServerMessage>) {
        let (out, received) = mpsc::unbounded_channel();
        let id = self.clients.fetch_add(1, Ordering::Relaxed) + 1;
        let state = Arc::new(ClientState::new(id, out));
        (Connection::new(Arc::clone(self), state), received)
    }

    /// Waits until no session runs (after the last client left, sessions drain: every
    /// message is stored before this returns).
    pub async fn idle(&self) {
        let mut running = self.running.subscribe();
        let _ = running.wait_for(|count| *count == 0).await;
    }

    /// The default project's runtime (its configuration, for faces that read settings of
    /// their own, like `hone lsp`'s completion role).
    pub fn default_runtime(&self) -> Arc<Runtime> {
        Arc::clone(&lock(&self.runtimes)[0])
    }

    /// The runtime of the project around `cwd` (an absolute path), opened on first use.
    pub(crate) fn runtime_for(&self, cwd: Option<&str>) -> Result<Arc<Runtime>, RpcError> {
        let Some(cwd) = cwd else {
            return Ok(self.default_runtime());
        };
        let path = Path::new(cwd);
        if !path.is_absolute() || !path.is_dir() {
            return Err(RpcError::new(
                RpcError::INVALID_PARAMS,
                format!("cwd {cwd}: not an absolute path to a directory"),
            ));
        }
        let place = ProjectPlace::discover(path).map_err(crate::answer::failed)?;
        let mut runtimes = lock(&self.runtimes);
        if let Some(found) = runtimes.iter().find(|runtime| runtime.root() == place.root) {
            return Ok(Arc::clone(found));
        }
        let mut options = self.template.clone();
        options.sources.project_dir = Some(place.root.clone());
        options.root = place.root;
        options.working_dir = Some(place.working_dir);
        let runtime = Arc::new(
            Runtime::open(options, Arc::clone(&self.interaction))
                .map_err(|error| crate::answer::failed(error.into()))?,
        );
        runtimes.push(Arc::clone(&runtime));
        Ok(runtime)
    }

    /// The running session `key` (or a unique start of one).
    pub(crate) fn session(&self, key: &str) -> Option<Arc<LiveSession>> {
        let sessions = lock(&self.sessions);
        if let Some(found) = sessions.get(key) {
            return Some(Arc::clone(found));
        }
        let mut matching = sessions
            .iter()
            .filter(|(name, _)| name.starts_with(key) && !key.is_empty());
        match (matching.next(), matching.next()) {
            (Some((_, found)), None) => Some(Arc::clone(found)),
            _ => None,
        }
    }

    /// A key for a session that is not saved.
    pub(crate) fn unsaved_key(&self) -> String {
        format!(
            "unsaved-{}",
            self.unsaved.fetch_add(1, Ordering::Relaxed) + 1
        )
    }

    pub(crate) fn add_session(&self, session: Arc<LiveSession>) {
        let mut sessions = lock(&self.sessions);
        sessions.insert(session.key.clone(), session);
        self.running.send_replace(sessions.len());
    }

    /// Forgets `session` once its core ended (unless a newer one took its key).
    /// The running session `key` names, once a session that is ending has ended (within
    /// [`CLOSING_WAIT`]): a client resuming a session whose last client just left gets it
    /// opened again from the store, never a session that is shutting down.
    pub(crate) async fn settled_session(&self, key: &str) -> Option<Arc<LiveSession>> {
        let deadline = tokio::time::Instant::now() + CLOSING_WAIT;
        loop {
            match self.session(key) {
                Some(live) if live.is_closing() => {
                    if tokio::time::Instant::now() >= deadline {
                        return None;
                    }
                    tokio::time::sleep(CLOSING_POLL).await;
                }
                found => return found,
            }
        }
    }

    pub(crate) fn remove_session(&self, session: &Arc<LiveSession>) {
        let mut sessions = lock(&self.sessions);
        if sessions
            .get(&session.key)
            .is_some_and(|current| Arc::ptr_eq(current, session))
        {
            sessions.remove(&session.key);
        }
        self.running.send_replace(sessions.len());
    }

    /// Every running session.
    pub(crate) fn sessions(&self) -> Vec<Arc<LiveSession>> {
        lock(&self.sessions).values().cloned().collect()
    }

    /// The root of the default project.
    pub fn root(&self) -> PathBuf {
        self.template.root.clone()
    }
}
