//! Rewinding a session: its conversation cut back to before a prompt, and the edits it made
//! since taken back through the undo journal (all or none, refused when a file changed
//! after the edit).

use hone_tools::ToolContext;
use hone_tools::edit::AppliedEdit;

use crate::error::MemoryError;
use crate::facade::SessionStore;
use crate::journal::{EditState, JournalEntry, UndoEntry};
use crate::store::SessionInfo;
use crate::undo::{UndoError, never_written, revert};

/// What becomes of the files the session changed after the point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RewindFiles {
    /// Put back as they were at the point (through the undo journal).
    Restore,
    /// Left as they are: only the conversation goes back.
    Keep,
}

/// Which session goes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RewindTarget {
    /// The session itself: the messages after the point are deleted.
    InPlace,
    /// A copy of it (a fork) that ends at the point; the original keeps every message.
    Fork,
}

/// Where to rewind to and what to take back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rewind {
    /// Messages kept: those stored before the prompt rewound to.
    pub keep: u64,
    /// When that prompt was stored: the session's edits recorded since are taken back.
    pub since_ms: i64,
    /// Restore the files, or only the conversation.
    pub files: RewindFiles,
    /// In place or as a fork.
    pub target: RewindTarget,
}

/// What a rewind did.
#[derive(Debug, Clone, PartialEq)]
pub struct RewindReport {
    /// The session that now ends at the point (the fork when forking).
    pub session: SessionInfo,
    /// The edits taken back, newest first.
    pub undone: Vec<UndoEntry>,
}

/// The edits session `session_id` made to the project of `context` since `since_ms` that
/// can still be undone (among the project's newest `depth`), newest first. Pending entries
/// whose write never happened are left out.
pub fn edits_since(
    store: &SessionStore,
    context: &ToolContext,
    session_id: &str,
    since_ms: i64,
    depth: usize,
) -> Result<Vec<JournalEntry>, MemoryError> {
    let project = crate::project_key(context.root());
    Ok(store
        .undo_stack(&project, depth)?
        .into_iter()
        .filter(|entry| entry.session_id == session_id && entry.applied_ms >= since_ms)
        .filter(|entry| !(entry.state == EditState::Pending && never_written(context, &entry.edit)))
        .collect())
}

/// Rewinds session `session_id` as `rewind` says. The files go first, all or none: when one
/// changed after the session's edit (someone else wrote it), nothing is changed, neither
/// files nor conversation. The context manager's saved state is dropped, so the session
/// rebuilds it from the messages kept.
pub fn rewind(
    store: &mut SessionStore,
    context: &ToolContext,
    session_id: &str,
    rewind: &Rewind,
    depth: usize,
) -> Result<RewindReport, UndoError> {
    let source = store.find(session_id)?;
    let undone = match rewind.files {
        RewindFiles::Keep => Vec::new(),
        RewindFiles::Restore => {
            let chosen = edits_since(store, context, &source.id, rewind.since_ms, depth)?;
            let edits: Vec<&AppliedEdit> = chosen.iter().map(|entry| &entry.edit).collect();
            revert(context, &edits)?;
            let seqs: Vec<i64> = chosen.iter().map(|entry| entry.seq).collect();
            store.mark_undone(&seqs)?;
            chosen.iter().map(JournalEntry::entry).collect()
        }
    };
    let target = match rewind.target {
        RewindTarget::InPlace => source.id,
        RewindTarget::Fork => store.fork(&source.id)?.id,
    };
    store.truncate_messages(&target, rewind.keep)?;
    store.set_context_state(&target, &serde_json::Value::Null)?;
    let session = store
        .get(&target)?
        .ok_or(MemoryError::NotFound { id: target })?;
    Ok(RewindReport { session, undone })
}
