//! Where sessions are kept: the [`SessionBackend`] trait a store implements (SQLite here, a
//! shared server in another crate), and the helpers such an implementation needs to behave
//! like the SQLite store.

use hone_protocol::Message;
use hone_tools::edit::AppliedEdit;

use crate::error::MemoryError;
use crate::journal::{EditState, JournalEntry};
use crate::messages::{MessageStats, StoredMessage};
use crate::notices::Notice;
use crate::store::{NewSession, SessionInfo, SessionStats};

/// The operations of a session store. [`crate::SessionStore`] wraps one and adds what is
/// the same for every store (id prefixes, forks by prefix, exports, the undo stack's
/// bookkeeping). Each method is one atomic update: a reader never sees half of it.
///
/// Implementations keep the SQLite store's rules: a session's title is the first user
/// text ([`session_title`]); sessions marked failed and never answered are left out of
/// lists (and deleted by [`SessionBackend::create`] once [`crate::UNANSWERED_KEPT_MS`]
/// old); the input history skips blank entries and repeats of the latest; notices are kept
/// to the newest 50 per project; the journal keeps the newest `keep` undoable entries.
pub trait SessionBackend: Send + std::fmt::Debug {
    /// The store as messages name it (a file path, or a server URL and namespace).
    fn describe(&self) -> String;
    /// A second, independent connection to the same store.
    fn reopen(&self) -> Result<Box<dyn SessionBackend>, MemoryError>;
    /// Creates a session with a new id ([`new_session_id`]).
    fn create(&mut self, new: &NewSession) -> Result<SessionInfo, MemoryError>;
    /// The session with exactly this id.
    fn get(&self, id: &str) -> Result<Option<SessionInfo>, MemoryError>;
    /// Up to `limit` sessions whose id starts with `prefix` (upper case), in id order.
    fn find_prefix(&self, prefix: &str, limit: usize) -> Result<Vec<SessionInfo>, MemoryError>;
    /// Marks a session that has no answer as failed; whether it was marked.
    fn mark_failed_if_unanswered(&mut self, id: &str) -> Result<bool, MemoryError>;
    /// Listed sessions (of `project`, or all), newest activity first, at most `limit`.
    fn list(&self, project: Option<&str>, limit: usize) -> Result<Vec<SessionInfo>, MemoryError>;
    /// Marks a session as a conversation; false when there is none.
    fn mark_conversation(&mut self, id: &str) -> Result<bool, MemoryError>;
    /// The project's most recently active listed conversation.
    fn latest_conversation(&self, project: &str) -> Result<Option<SessionInfo>, MemoryError>;
    /// Deletes a session with its messages and journal entries; false when there was none.
    fn delete(&mut self, id: &str) -> Result<bool, MemoryError>;
    /// Copies the session with this exact id, messages and context state included.
    fn fork(&mut self, id: &str) -> Result<SessionInfo, MemoryError>;
    /// Adds to a session's totals and marks it active now.
    fn add_stats(&mut self, id: &str, delta: &SessionStats) -> Result<(), MemoryError>;
    /// Records the provider and model a session uses.
    fn set_model(&mut self, id: &str, provider: &str, model: &str) -> Result<(), MemoryError>;
    /// The context manager's saved state.
    fn context_state(&self, id: &str) -> Result<Option<serde_json::Value>, MemoryError>;
    /// Replaces the context manager's saved state; `NotFound` without the session.
    fn set_context_state(&mut self, id: &str, state: &serde_json::Value)
    -> Result<(), MemoryError>;
    /// Appends a message (updating title and activity); its 1-based position.
    fn append_message(
        &mut self,
        id: &str,
        message: &Message,
        stats: &MessageStats,
    ) -> Result<u64, MemoryError>;
    /// Every message of a session, in order.
    fn messages(&self, id: &str) -> Result<Vec<StoredMessage>, MemoryError>;
    /// Deletes a session's messages after the first `keep` (a rewind); `NotFound` without
    /// the session.
    fn truncate_messages(&mut self, id: &str, keep: u64) -> Result<(), MemoryError>;
    /// Adds to the project's input history; whether it was added.
    fn push_input(&mut self, project: &str, text: &str, cap: usize) -> Result<bool, MemoryError>;
    /// The project's input history, newest first.
    fn input_history(&self, project: &str, limit: usize) -> Result<Vec<String>, MemoryError>;
    /// Leaves a notice for the project's next session.
    fn push_notice(
        &mut self,
        project: &str,
        session_id: &str,
        text: &str,
    ) -> Result<(), MemoryError>;
    /// The project's notices, oldest first, deleted as they are returned.
    fn take_notices(&mut self, project: &str) -> Result<Vec<Notice>, MemoryError>;
    /// Records an edit in `state`; its journal position (growing across projects).
    fn insert_edit(
        &mut self,
        project: &str,
        session_id: &str,
        edit: &AppliedEdit,
        state: EditState,
    ) -> Result<i64, MemoryError>;
    /// Deletes the project's entries older than its newest `keep` undoable ones.
    fn prune_journal(&mut self, project: &str, keep: usize) -> Result<(), MemoryError>;
    /// Marks a pending edit applied, then prunes its project to `keep`.
    fn mark_applied(&mut self, seq: i64, keep: usize) -> Result<(), MemoryError>;
    /// Drops a journal entry.
    fn discard_edit(&mut self, seq: i64) -> Result<(), MemoryError>;
    /// Marks entries undone, all at once.
    fn mark_undone(&mut self, seqs: &[i64]) -> Result<(), MemoryError>;
    /// The project's undoable entries, newest first, at most `depth`.
    fn undo_stack(&self, project: &str, depth: usize) -> Result<Vec<JournalEntry>, MemoryError>;
}

/// Milliseconds since the Unix epoch, as the stores record times.
pub fn now_ms() -> i64 {
    crate::id::now_ms()
}

/// A new session id for a session created at `millis` (sorts after earlier ones).
pub fn new_session_id(millis: i64) -> String {
    crate::id::new_id(millis)
}

/// The title a user message gives a session that has none yet (`None` for tool results
/// and hone's own notes).
pub fn session_title(message: &Message) -> Option<String> {
    crate::messages::title_of(message)
}
