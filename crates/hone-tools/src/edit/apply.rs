//! Applying and undoing edit plans: every file is checked against what the plan expects
//! right before writing, written atomically, and restored if a later write fails.

use serde::{Deserialize, Serialize};

use crate::edit::transaction::{Expect, Op, Transaction};
use crate::files::{encode, hash_bytes, read_bytes_in, read_text_in};
use crate::{EditPlan, FileChange, ToolContext, ToolError};

/// An edit that was written to disk; [`undo`] takes it back. Serialises (with the full
/// before and after contents) so an undo journal can outlive the process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppliedEdit {
    /// The changes as planned; `before` holds what undo restores, `after` what was written.
    pub changes: Vec<FileChange>,
    /// The plan's summary.
    pub summary: String,
}

/// Writes `plan` all-or-nothing. Each file must still be as it was when the plan was made
/// (else [`crate::ToolErrorKind::Conflict`] and nothing is written). Afterwards the model
/// counts as having seen what it wrote; deleted and moved-away paths are forgotten.
pub fn apply(context: &ToolContext, plan: &EditPlan) -> Result<AppliedEdit, ToolError> {
    let mut transaction =
        Transaction::new("the edit was planned").through(context.workspace_files());
    for change in &plan.changes {
        let source = context.guard().resolve_write(&change.path)?;
        let expect = match &change.before {
            Some(before) => Expect::Hash(before.hash.clone()),
            None => Expect::Absent,
        };
        match (&change.after, &change.rename_to) {
            (Some(after), None) => {
                let bytes = encode(&change.path, after, change.after_encoding())?;
                let op = Op::write(source, bytes, expect, None);
                transaction.push(match change.written {
                    Some(written) => op.with_mode(written.mode),
                    None => op,
                });
            }
            (Some(after), Some(to)) => {
                let target = context.guard().resolve_write(to)?;
                let bytes = encode(to, after, change.after_encoding())?;
                let mode_from = source.absolute.clone();
                transaction.push(Op::write(target, bytes, Expect::Absent, Some(mode_from)));
                transaction.push(Op::remove(source, expect));
            }
            // A deletion; a rename target without content means nothing to write there.
            (None, _) => transaction.push(Op::remove(source, expect)),
        }
    }
    let done = transaction.run()?;
    for (relative, written) in done {
        match written {
            Some(hash) => context.reads().record(&relative, &hash),
            None => context.reads().forget(&relative),
        }
    }
    Ok(AppliedEdit {
        changes: plan.changes.clone(),
        summary: plan.summary.clone(),
    })
}

/// `plan` made against the files as they are now: each changed file's `before` becomes its
/// current content (or absent), so [`apply`] writes the planned content over changes made
/// since the plan ("apply anyway" after a conflict; undo then restores the current content).
pub fn rebase(context: &ToolContext, plan: &EditPlan) -> Result<EditPlan, ToolError> {
    let mut rebased = plan.clone();
    for change in &mut rebased.changes {
        let path = context.guard().resolve_write(&change.path)?;
        change.before = if path.absolute.exists() {
            Some(read_text_in(context, &path)?)
        } else {
            None
        };
    }
    Ok(rebased)
}

/// Counts the files the model read as seen in their current state, so edits planned next
/// do not conflict with changes made since the reads ("apply anyway" after a stale read).
/// Returns the paths whose content had changed.
pub fn accept_current_files(context: &ToolContext) -> Vec<String> {
    let mut changed = Vec::new();
    for relative in context.reads().paths() {
        let Ok(path) = context.guard().resolve_write(&relative) else {
            continue;
        };
        match read_bytes_in(context, &path) {
            Ok(bytes) => {
                let hash = hash_bytes(&bytes);
                if context.reads().seen(&relative).as_deref() != Some(hash.as_str()) {
                    context.reads().record(&relative, &hash);
                    changed.push(relative);
                }
            }
            Err(_) => {
                context.reads().forget(&relative);
                changed.push(relative);
            }
        }
    }
    changed.sort();
    changed
}

/// Restores the files of `applied` to their state before it, all-or-nothing. Refused with
/// [`crate::ToolErrorKind::Conflict`] when a file changed after the edit (undo would lose
/// that change). The model must read the restored files again.
pub fn undo(context: &ToolContext, applied: &AppliedEdit) -> Result<(), ToolError> {
    let mut transaction =
        Transaction::new("the edit was applied").through(context.workspace_files());
    for change in applied.changes.iter().rev() {
        let source = context.guard().resolve_write(&change.path)?;
        // What the edit left on disk must still be there.
        let written = match &change.after {
            Some(after) => Expect::Hash(hash_bytes(&encode(
                &change.path,
                after,
                change.after_encoding(),
            )?)),
            None => Expect::Absent,
        };
        let before = change
            .before
            .as_ref()
            .map(|before| encode(&change.path, &before.content, before.encoding))
            .transpose()?;
        let mode = change.before.as_ref().and_then(|before| before.mode);
        match (&change.rename_to, &change.after, before) {
            (Some(to), Some(_), Some(bytes)) => {
                let target = context.guard().resolve_write(to)?;
                let mode_from = Some(target.absolute.clone());
                transaction.push(Op::remove(target, written));
                transaction.push(Op::write(source, bytes, Expect::Absent, mode_from));
            }
            (_, _, Some(bytes)) => {
                let op = Op::write(source, bytes, written, None);
                transaction.push(match mode {
                    Some(mode) => op.with_mode(mode),
                    None => op,
                });
            }
            (_, _, None) => transaction.push(Op::remove(source, written)),
        }
    }
    let done = transaction.run()?;
    for (relative, _) in done {
        context.reads().forget(&relative);
    }
    Ok(())
}
