//! [`SessionStore`]: the session store hone uses, over SQLite or another [`SessionBackend`].

use std::path::{Path, PathBuf};

use hone_protocol::Message;
use hone_tools::edit::AppliedEdit;

use crate::backend::SessionBackend;
use crate::error::MemoryError;
use crate::id::{ID_LEN, normalize};
use crate::journal::{EditState, JournalEntry};
use crate::messages::{MessageStats, StoredMessage};
use crate::notices::Notice;
use crate::store::{DB_FILE, NewSession, SessionInfo, SessionStats, SqliteSessions};

/// The session store: by default one SQLite database (WAL journal) holding every
/// project's sessions, messages, input history and undo journal; or any other
/// [`SessionBackend`] ([`SessionStore::with_backend`]), such as a Redis server a team
/// shares. Each write is one transaction, so a killed process loses at most the write it
/// was making, and a reader never sees half of one.
#[derive(Debug)]
pub struct SessionStore {
    backend: Box<dyn SessionBackend>,
}

impl SessionStore {
    /// Opens (creating it and its directory if needed) the SQLite store at `path` and
    /// brings its schema up to date.
    pub fn open(path: &Path) -> Result<Self, MemoryError> {
        Ok(Self::with_backend(Box::new(SqliteSessions::open(path)?)))
    }

    /// Opens the store at `sessions.db` in hone's data directory (`HONE_DATA_DIR` overrides).
    pub fn open_default() -> Result<Self, MemoryError> {
        Self::open(&Self::default_path()?)
    }

    /// Where [`SessionStore::open_default`] keeps the store.
    pub fn default_path() -> Result<PathBuf, MemoryError> {
        hone_config::data_dir()
            .map(|dir| dir.join(DB_FILE))
            .ok_or(MemoryError::NoDataDir)
    }

    /// A fresh SQLite store in memory (for tests).
    pub fn open_in_memory() -> Result<Self, MemoryError> {
        Ok(Self::with_backend(Box::new(
            SqliteSessions::open_in_memory()?,
        )))
    }

    /// The store over `backend`.
    pub fn with_backend(backend: Box<dyn SessionBackend>) -> Self {
        Self { backend }
    }

    /// The store as messages name it: the database file (`:memory:` for an in-memory
    /// store), or the server and namespace.
    pub fn describe(&self) -> String {
        self.backend.describe()
    }

    /// A second, independent connection to the same store.
    pub fn reopen(&self) -> Result<Self, MemoryError> {
        Ok(Self::with_backend(self.backend.reopen()?))
    }

    /// Creates a session; its id sorts after every id created earlier. Unanswered sessions
    /// older than [`crate::UNANSWERED_KEPT_MS`] (runs that failed before the model's first
    /// answer) are deleted first.
    pub fn create(&mut self, new: &NewSession) -> Result<SessionInfo, MemoryError> {
        self.backend.create(new)
    }

    /// The session `id`, if stored.
    pub fn get(&self, id: &str) -> Result<Option<SessionInfo>, MemoryError> {
        self.backend.get(id)
    }

    /// The session whose id is `id` or starts with it (case-insensitive).
    pub fn find(&self, id: &str) -> Result<SessionInfo, MemoryError> {
        let prefix = normalize(id);
        let not_found = || MemoryError::NotFound { id: id.to_string() };
        if prefix.is_empty() {
            return Err(not_found());
        }
        if prefix.len() == ID_LEN {
            return self.get(&prefix)?.ok_or_else(not_found);
        }
        let found = self.backend.find_prefix(&prefix, 4)?;
        match found.as_slice() {
            [] => Err(not_found()),
            [one] => Ok(one.clone()),
            several => Err(MemoryError::Ambiguous {
                prefix: id.to_string(),
                matches: several.iter().map(|session| session.id.clone()).collect(),
            }),
        }
    }

    /// Marks session `id` as a run that failed before the model's first answer, unless it
    /// has an answer; returns whether it was marked. Lists leave it out from then on (until an
    /// answer is stored), and [`SessionStore::create`] deletes it a day later.
    pub fn mark_failed_if_unanswered(&mut self, id: &str) -> Result<bool, MemoryError> {
        self.backend.mark_failed_if_unanswered(id)
    }

    /// Sessions by last activity, newest first: the project's, or every project's when
    /// `project` is `None`; at most `limit`. Runs that failed before the model's first
    /// answer are left out; `find` still finds them.
    pub fn list(
        &self,
        project: Option<&str>,
        limit: usize,
    ) -> Result<Vec<SessionInfo>, MemoryError> {
        self.backend.list(project, limit)
    }

    /// The project's most recently active session.
    pub fn latest_for_project(&self, project: &str) -> Result<Option<SessionInfo>, MemoryError> {
        Ok(self.list(Some(project), 1)?.into_iter().next())
    }

    /// Marks session `id` as a conversation (held in the terminal UI, not a one-shot run);
    /// false when there is no such session.
    pub fn mark_conversation(&mut self, id: &str) -> Result<bool, MemoryError> {
        self.backend.mark_conversation(id)
    }

    /// The project's most recently active conversation ([`SessionStore::mark_conversation`]),
    /// leaving out one-shot runs.
    pub fn latest_conversation(&self, project: &str) -> Result<Option<SessionInfo>, MemoryError> {
        self.backend.latest_conversation(project)
    }

    /// Deletes a session with its messages and undo journal; false when there was none.
    pub fn delete(&mut self, id: &str) -> Result<bool, MemoryError> {
        self.backend.delete(id)
    }

    /// Copies session `id` (or a unique start of it) and its messages (and context state)
    /// into a new session; the original is unchanged. Returns the copy.
    pub fn fork(&mut self, id: &str) -> Result<SessionInfo, MemoryError> {
        let source = self.find(id)?;
        self.backend.fork(&source.id)
    }

    /// Adds `delta` to the session's totals and marks it active now.
    pub fn add_stats(&mut self, id: &str, delta: &SessionStats) -> Result<(), MemoryError> {
        self.backend.add_stats(id, delta)
    }

    /// Records the provider and model the session now uses (a resumed session may switch).
    pub fn set_model(&mut self, id: &str, provider: &str, model: &str) -> Result<(), MemoryError> {
        self.backend.set_model(id, provider, model)
    }

    /// The context manager's saved state for the session (`None` when never set).
    pub fn context_state(&self, id: &str) -> Result<Option<serde_json::Value>, MemoryError> {
        self.backend.context_state(id)
    }

    /// Replaces the context manager's saved state for the session.
    pub fn set_context_state(
        &mut self,
        id: &str,
        state: &serde_json::Value,
    ) -> Result<(), MemoryError> {
        self.backend.set_context_state(id, state)
    }

    /// Appends `message` to session `id` in one transaction (and makes the first user text
    /// the session's title); returns its position.
    pub fn append_message(
        &mut self,
        id: &str,
        message: &Message,
        stats: &MessageStats,
    ) -> Result<u64, MemoryError> {
        self.backend.append_message(id, message, stats)
    }

    /// Every message of session `id`, in order.
    pub fn messages(&self, id: &str) -> Result<Vec<StoredMessage>, MemoryError> {
        self.backend.messages(id)
    }

    /// Deletes the messages of session `id` after the first `keep` (a rewind).
    pub fn truncate_messages(&mut self, id: &str, keep: u64) -> Result<(), MemoryError> {
        self.backend.truncate_messages(id, keep)
    }

    /// Adds `text` to the project's input history unless it repeats the latest entry or is
    /// blank; keeps the newest `cap` entries. Returns whether it was added.
    pub fn push_input(
        &mut self,
        project: &str,
        text: &str,
        cap: usize,
    ) -> Result<bool, MemoryError> {
        if text.trim().is_empty() {
            return Ok(false);
        }
        self.backend.push_input(project, text, cap)
    }

    /// The project's input history, newest first, at most `limit` entries.
    pub fn input_history(&self, project: &str, limit: usize) -> Result<Vec<String>, MemoryError> {
        self.backend.input_history(project, limit)
    }

    /// Leaves `text` for the next session of `project`, from session `session_id`.
    pub fn push_notice(
        &mut self,
        project: &str,
        session_id: &str,
        text: &str,
    ) -> Result<(), MemoryError> {
        self.backend.push_notice(project, session_id, text)
    }

    /// The notices left for `project`, oldest first, deleted as they are returned: a notice
    /// is shown to one session only.
    pub fn take_notices(&mut self, project: &str) -> Result<Vec<Notice>, MemoryError> {
        self.backend.take_notices(project)
    }

    /// Records an edit of `project` by `session_id` about to be written; mark it with
    /// [`SessionStore::mark_applied`] once written, or drop it with
    /// [`SessionStore::discard_edit`] if the write failed.
    pub fn record_pending(
        &mut self,
        project: &str,
        session_id: &str,
        edit: &AppliedEdit,
    ) -> Result<i64, MemoryError> {
        self.backend
            .insert_edit(project, session_id, edit, EditState::Pending)
    }

    /// Records an edit already written, keeping the project's newest `keep` undoable entries.
    pub fn record_edit(
        &mut self,
        project: &str,
        session_id: &str,
        edit: &AppliedEdit,
        keep: usize,
    ) -> Result<i64, MemoryError> {
        let seq = self
            .backend
            .insert_edit(project, session_id, edit, EditState::Applied)?;
        self.backend.prune_journal(project, keep)?;
        Ok(seq)
    }

    /// Marks a pending edit as written, keeping the project's newest `keep` undoable entries.
    pub fn mark_applied(&mut self, seq: i64, keep: usize) -> Result<(), MemoryError> {
        self.backend.mark_applied(seq, keep)
    }

    /// Drops journal entries (a pending edit that was never written).
    pub fn discard_edit(&mut self, seq: i64) -> Result<(), MemoryError> {
        self.backend.discard_edit(seq)
    }

    /// Marks entries as undone, in one transaction.
    pub fn mark_undone(&mut self, seqs: &[i64]) -> Result<(), MemoryError> {
        self.backend.mark_undone(seqs)
    }

    /// The project's undoable edits (applied or pending), newest first, at most `depth`.
    pub fn undo_stack(
        &self,
        project: &str,
        depth: usize,
    ) -> Result<Vec<JournalEntry>, MemoryError> {
        self.backend.undo_stack(project, depth)
    }
}
