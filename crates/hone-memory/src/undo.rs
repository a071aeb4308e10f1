//! Taking edits back: all of the requested edits or none of them.

use hone_tools::edit::{AppliedEdit, apply, undo};
use hone_tools::files::hash_bytes;
use hone_tools::{EditPlan, ToolContext, ToolError, ToolErrorKind};

use crate::error::MemoryError;
use crate::facade::SessionStore;
use crate::journal::{EditState, JournalEntry, UndoEntry};

/// Why edits could not be taken back. Nothing was changed on disk in either case.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RevertError {
    /// A file changed after the edit (undo would lose that change).
    #[error("cannot undo `{summary}`: {detail}; nothing was changed")]
    Conflict {
        /// The edit that could not be taken back.
        summary: String,
        /// Which file changed and how.
        detail: String,
    },
    /// The file system refused (permissions, a path now refused, …).
    #[error("cannot undo `{summary}`: {detail}; nothing was changed")]
    Failed {
        /// The edit that could not be taken back.
        summary: String,
        /// What went wrong.
        detail: String,
    },
    /// Undoing failed part-way and redoing the edits already taken back failed too.
    #[error(
        "undoing `{summary}` failed ({detail}), and the edits undone before it could not be restored ({rollback}); check the files with git diff"
    )]
    Partial {
        /// The edit that could not be taken back.
        summary: String,
        /// What went wrong.
        detail: String,
        /// What went wrong restoring the others.
        rollback: String,
    },
}

/// Why an undo of the persistent journal failed.
#[derive(Debug, thiserror::Error)]
pub enum UndoError {
    /// The files could not be restored; nothing was changed.
    #[error(transparent)]
    Revert(#[from] RevertError),
    /// The journal could not be read or updated.
    #[error(transparent)]
    Store(#[from] MemoryError),
}

/// What an undo did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UndoReport {
    /// The edits taken back, newest first.
    pub undone: Vec<UndoEntry>,
    /// Pending entries dropped because their edit never reached the disk.
    pub discarded: usize,
}

/// Takes back `edits` (newest first), all or nothing: when one cannot be undone, those
/// already undone are applied again and the error says why.
pub fn revert(context: &ToolContext, edits: &[&AppliedEdit]) -> Result<(), RevertError> {
    for (index, edit) in edits.iter().enumerate() {
        let Err(error) = undo(context, edit) else {
            continue;
        };
        let detail = describe(&error);
        let summary = edit.summary.clone();
        let undone = &edits[..index];
        if let Err(rollback) = redo(context, undone) {
            return Err(RevertError::Partial {
                summary,
                detail,
                rollback: rollback.message,
            });
        }
        return Err(if error.kind == ToolErrorKind::Conflict {
            RevertError::Conflict { summary, detail }
        } else {
            RevertError::Failed { summary, detail }
        });
    }
    Ok(())
}

/// Applies `undone` (newest first) again, oldest first.
fn redo(context: &ToolContext, undone: &[&AppliedEdit]) -> Result<(), ToolError> {
    for edit in undone.iter().rev() {
        let plan = EditPlan {
            summary: edit.summary.clone(),
            changes: edit.changes.clone(),
            destructive: None,
        };
        apply(context, &plan)?;
    }
    Ok(())
}

/// The tool's message without the advice meant for the model.
fn describe(error: &ToolError) -> String {
    let message = error.message.as_str();
    message
        .split_once("; nothing was written")
        .map_or(message, |(problem, _)| problem)
        .to_string()
}

/// Takes back the latest `count` undoable edits of the project at `context`'s root (among
/// its newest `depth`), all or nothing, and marks them undone in `store`.
///
/// A pending entry (its process died around the write) whose files still hold their before
/// state was never written: it is dropped and does not count.
pub fn undo_latest(
    store: &mut SessionStore,
    context: &ToolContext,
    count: usize,
    depth: usize,
) -> Result<UndoReport, UndoError> {
    let project = crate::project_key(context.root());
    let stack = store.undo_stack(&project, depth)?;
    let mut chosen: Vec<JournalEntry> = Vec::new();
    let mut discarded: Vec<i64> = Vec::new();
    for entry in stack {
        if chosen.len() == count {
            break;
        }
        if entry.state == EditState::Pending && never_written(context, &entry.edit) {
            discarded.push(entry.seq);
        } else {
            chosen.push(entry);
        }
    }
    for seq in &discarded {
        store.discard_edit(*seq)?;
    }
    let edits: Vec<&AppliedEdit> = chosen.iter().map(|entry| &entry.edit).collect();
    revert(context, &edits)?;
    let seqs: Vec<i64> = chosen.iter().map(|entry| entry.seq).collect();
    store.mark_undone(&seqs)?;
    Ok(UndoReport {
        undone: chosen.iter().map(JournalEntry::entry).collect(),
        discarded: discarded.len(),
    })
}

/// Whether every file of `edit` is still as it was before it (so it was never written).
pub(crate) fn never_written(context: &ToolContext, edit: &AppliedEdit) -> bool {
    let root = context.root();
    edit.changes.iter().all(|change| {
        let current = std::fs::read(root.join(&change.path)).ok();
        let source_unchanged = match (&change.before, current) {
            (Some(before), Some(bytes)) => hash_bytes(&bytes) == before.hash,
            (None, None) => true,
            _ => false,
        };
        let target_absent = change
            .rename_to
            .as_ref()
            .is_none_or(|to| !root.join(to).exists());
        source_unchanged && target_absent
    })
}
