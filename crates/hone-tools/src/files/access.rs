//! Where the tools read and write the project's files: the disk by default, or a face's
//! [`WorkspaceFiles`] (an editor's buffers over ACP), so the model sees unsaved changes and
//! its edits land where the user works.

use std::fmt;
use std::path::Path;

use hone_policy::ResolvedPath;

use crate::files::text::{io_error, is_binary, read_bytes, shown_path, text_state};
use crate::{FileState, ToolContext, ToolError};

/// A face's access to the project's text files. Paths are absolute and were resolved and
/// checked against the project before the call; the tools still refuse directories, files
/// that are not regular and files over the size limit by what is on disk, and keep binary
/// and non-UTF-8 files on disk. Calls block (the tools run on blocking threads).
pub trait WorkspaceFiles: Send + Sync {
    /// The text of the file at `path` as the face holds it (an unsaved buffer); `Ok(None)`
    /// to read it from disk.
    fn read_text(&self, path: &Path) -> std::io::Result<Option<String>>;

    /// Writes `text` as the whole content of the file at `path` (created when missing);
    /// `Ok(false)` when the face does not write files, for the tools to write it to disk.
    fn write_text(&self, path: &Path, text: &str) -> std::io::Result<bool>;
}

impl fmt::Debug for dyn WorkspaceFiles {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("WorkspaceFiles")
    }
}

/// The bytes of the existing file `path` as the tools see them: from the face's
/// [`WorkspaceFiles`] when the context has one and the file is UTF-8 text, else from disk
/// (the disk's checks apply either way).
pub(crate) fn read_bytes_in(
    context: &ToolContext,
    path: &ResolvedPath,
) -> Result<Vec<u8>, ToolError> {
    let bytes = read_bytes(path)?;
    match context.workspace_files() {
        Some(files) => held(files.as_ref(), &path.absolute, bytes)
            .map_err(|error| io_error(&shown_path(path), &error)),
        None => Ok(bytes),
    }
}

/// [`read_bytes_in`] for editing: binary files are refused.
pub(crate) fn read_text_in(
    context: &ToolContext,
    path: &ResolvedPath,
) -> Result<FileState, ToolError> {
    text_state(path, read_bytes_in(context, path)?)
}

/// What `files` holds of the file at `absolute` whose disk content is `bytes`: its text
/// for UTF-8 text files, the disk's bytes for the others or when it has none.
pub(crate) fn held(
    files: &dyn WorkspaceFiles,
    absolute: &Path,
    bytes: Vec<u8>,
) -> std::io::Result<Vec<u8>> {
    if is_binary(&bytes) || std::str::from_utf8(&bytes).is_err() {
        return Ok(bytes);
    }
    Ok(match files.read_text(absolute)? {
        Some(text) => text.into_bytes(),
        None => bytes,
    })
}
