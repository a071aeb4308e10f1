//! The SQLite store as a [`SessionBackend`]: each operation is the inherent method of the
//! same name (in `store.rs`, `messages.rs`, `history.rs`, `notices.rs` and `journal.rs`).

use hone_protocol::Message;
use hone_tools::edit::AppliedEdit;

use crate::backend::SessionBackend;
use crate::error::MemoryError;
use crate::journal::{EditState, JournalEntry};
use crate::messages::{MessageStats, StoredMessage};
use crate::notices::Notice;
use crate::store::{NewSession, SessionInfo, SessionStats, SqliteSessions};

impl SessionBackend for SqliteSessions {
    fn describe(&self) -> String {
        self.path.display().to_string()
    }

    fn reopen(&self) -> Result<Box<dyn SessionBackend>, MemoryError> {
        Ok(Box::new(Self::open(&self.path)?))
    }

    fn create(&mut self, new: &NewSession) -> Result<SessionInfo, MemoryError> {
        Self::create(self, new)
    }

    fn get(&self, id: &str) -> Result<Option<SessionInfo>, MemoryError> {
        Self::get(self, id)
    }

    fn find_prefix(&self, prefix: &str, limit: usize) -> Result<Vec<SessionInfo>, MemoryError> {
        Self::find_prefix(self, prefix, limit)
    }

    fn mark_failed_if_unanswered(&mut self, id: &str) -> Result<bool, MemoryError> {
        Self::mark_failed_if_unanswered(self, id)
    }

    fn list(&self, project: Option<&str>, limit: usize) -> Result<Vec<SessionInfo>, MemoryError> {
        Self::list(self, project, limit)
    }

    fn mark_conversation(&mut self, id: &str) -> Result<bool, MemoryError> {
        Self::mark_conversation(self, id)
    }

    fn latest_conversation(&self, project: &str) -> Result<Option<SessionInfo>, MemoryError> {
        Self::latest_conversation(self, project)
    }

    fn delete(&mut self, id: &str) -> Result<bool, MemoryError> {
        Self::delete(self, id)
    }

    fn fork(&mut self, id: &str) -> Result<SessionInfo, MemoryError> {
        Self::fork(self, id)
    }

    fn add_stats(&mut self, id: &str, delta: &SessionStats) -> Result<(), MemoryError> {
        Self::add_stats(self, id, delta)
    }

    fn set_model(&mut self, id: &str, provider: &str, model: &str) -> Result<(), MemoryError> {
        Self::set_model(self, id, provider, model)
    }

    fn context_state(&self, id: &str) -> Result<Option<serde_json::Value>, MemoryError> {
        Self::context_state(self, id)
    }

    fn set_context_state(
        &mut self,
        id: &str,
        state: &serde_json::Value,
    ) -> Result<(), MemoryError> {
        Self::set_context_state(self, id, state)
    }

    fn append_message(
        &mut self,
        id: &str,
        message: &Message,
        stats: &MessageStats,
    ) -> Result<u64, MemoryError> {
        Self::append_message(self, id, message, stats)
    }

    fn messages(&self, id: &str) -> Result<Vec<StoredMessage>, MemoryError> {
        Self::messages(self, id)
    }

    fn truncate_messages(&mut self, id: &str, keep: u64) -> Result<(), MemoryError> {
        Self::truncate_messages(self, id, keep)
    }

    fn push_input(&mut self, project: &str, text: &str, cap: usize) -> Result<bool, MemoryError> {
        Self::push_input(self, project, text, cap)
    }

    fn input_history(&self, project: &str, limit: usize) -> Result<Vec<String>, MemoryError> {
        Self::input_history(self, project, limit)
    }

    fn push_notice(
        &mut self,
        project: &str,
        session_id: &str,
        text: &str,
    ) -> Result<(), MemoryError> {
        Self::push_notice(self, project, session_id, text)
    }

    fn take_notices(&mut self, project: &str) -> Result<Vec<Notice>, MemoryError> {
        Self::take_notices(self, project)
    }

    fn insert_edit(
        &mut self,
        project: &str,
        session_id: &str,
        edit: &AppliedEdit,
        state: EditState,
    ) -> Result<i64, MemoryError> {
        Self::insert_edit(self, project, session_id, edit, state)
    }

    fn prune_journal(&mut self, project: &str, keep: usize) -> Result<(), MemoryError> {
        Self::prune_journal(self, project, keep)
    }

    fn mark_applied(&mut self, seq: i64, keep: usize) -> Result<(), MemoryError> {
        Self::mark_applied(self, seq, keep)
    }

    fn discard_edit(&mut self, seq: i64) -> Result<(), MemoryError> {
        Self::discard_edit(self, seq)
    }

    fn mark_undone(&mut self, seqs: &[i64]) -> Result<(), MemoryError> {
        Self::mark_undone(self, seqs)
    }

    fn undo_stack(&self, project: &str, depth: usize) -> Result<Vec<JournalEntry>, MemoryError> {
        Self::undo_stack(self, project, depth)
    }
}
