//! What every write tool checks before planning: the path passes the guard, the file exists
//! (or suggestions say what does), and the model's view of it is current.

use hone_policy::ResolvedPath;

use crate::files::{encode, file_state, not_found, read_bytes_in, read_text_in};
use crate::{FileChange, FileState, ToolContext, ToolError, ToolErrorKind};

/// Whether the model must have read a file before this write.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ReadRule {
    /// Writes that depend on what the model saw (line numbers, whole-file rewrites):
    /// refused unless the file was read; the text says why.
    Required(&'static str),
    /// Writes validated by their own context (`old_text`, patch context): allowed unread,
    /// but a file read earlier must not have changed since.
    IfRead,
}

/// An existing file about to be changed.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// Where it is.
    pub(crate) path: ResolvedPath,
    /// Its content now.
    pub(crate) state: FileState,
}

/// Resolves `given` for writing without requiring it to exist.
pub(crate) fn resolve(context: &ToolContext, given: &str) -> Result<ResolvedPath, ToolError> {
    Ok(context.guard().resolve_write(given)?)
}

/// An existing text file for `tool`; a missing one gets suggestions plus `hint`.
pub(crate) fn existing_text(
    context: &ToolContext,
    given: &str,
    rule: ReadRule,
    hint: &str,
) -> Result<Target, ToolError> {
    let path = existing(context, given, hint)?;
    let state = read_text_in(context, &path)?;
    check_fresh(context, &path.relative, &state.hash, rule)?;
    Ok(Target { path, state })
}

/// An existing file of any kind (binary files are held as Latin-1, which keeps their
/// bytes), for deleting or moving.
pub(crate) fn existing_any(
    context: &ToolContext,
    given: &str,
    hint: &str,
) -> Result<Target, ToolError> {
    let path = existing(context, given, hint)?;
    let state = file_state(&read_bytes_in(context, &path)?);
    check_fresh(context, &path.relative, &state.hash, ReadRule::IfRead)?;
    Ok(Target { path, state })
}

fn existing(context: &ToolContext, given: &str, hint: &str) -> Result<ResolvedPath, ToolError> {
    let path = resolve(context, given)?;
    if !path.absolute.exists() {
        return Err(not_found(context, given, hint));
    }
    if path.absolute.is_dir() {
        return Err(ToolError::invalid(format!(
            "`{given}` is a directory; this tool works on single files (use list_dir to see \
             the files in it)"
        )));
    }
    Ok(path)
}

/// Checks the model's last view of `relative` against the `current` hash.
pub(crate) fn check_fresh(
    context: &ToolContext,
    relative: &str,
    current: &str,
    rule: ReadRule,
) -> Result<(), ToolError> {
    match (context.reads().seen(relative), rule) {
        (None, ReadRule::Required(why)) => Err(ToolError::new(
            ToolErrorKind::NotRead,
            format!("read {relative} with read_file first: {why}"),
        )),
        (None, ReadRule::IfRead) => Ok(()),
        (Some(seen), _) if seen == current => Ok(()),
        (Some(_), _) => Err(ToolError::new(
            ToolErrorKind::Conflict,
            format!(
                "{relative} changed since you read it (edited outside this conversation or by \
                 a command); read it again, then redo the change against its current content"
            ),
        )),
    }
}

/// A change of `target` to `after`, refused when `after` cannot be written in the file's
/// encoding.
pub(crate) fn modify(target: Target, after: String) -> Result<FileChange, ToolError> {
    encode(&target.path.relative, &after, target.state.encoding)?;
    Ok(FileChange {
        path: target.path.relative,
        before: Some(target.state),
        after: Some(after),
        rename_to: None,
        written: None,
    })
}

/// `count` with the singular or plural of `noun` (`1 line`, `3 lines`).
pub(crate) fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}
