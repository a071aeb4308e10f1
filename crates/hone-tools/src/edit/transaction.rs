//! All-or-nothing file operations: every expectation is checked before anything is
//! written; each write is atomic (temporary file in the same directory, then rename); a
//! failure part-way restores the files already touched. With a face's [`WorkspaceFiles`],
//! text files are read and written through it (the expectations then hold for what it
//! returns).

use std::collections::HashMap;
use std::fs::{self, Permissions};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hone_policy::ResolvedPath;

use crate::files::{WorkspaceFiles, hash_bytes, held};
use crate::{ToolError, ToolErrorKind};

/// What a file must look like right before an operation touches it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Expect {
    /// It must not exist.
    Absent,
    /// It must exist with this SHA-256 (hex).
    Hash(String),
}

/// One file operation.
#[derive(Debug)]
pub(crate) struct Op {
    path: ResolvedPath,
    expect: Expect,
    kind: OpKind,
}

#[derive(Debug)]
enum OpKind {
    /// Write the bytes, with the permission bits `mode` when given, else those of
    /// `mode_from` (default: the file's own).
    Write {
        bytes: Vec<u8>,
        mode_from: Option<PathBuf>,
        mode: Option<u32>,
    },
    /// Remove the file.
    Remove,
}

impl Op {
    /// Writes `bytes` to `path`; permissions come from `mode_from` (for moves), else from
    /// the file being replaced.
    pub(crate) fn write(
        path: ResolvedPath,
        bytes: Vec<u8>,
        expect: Expect,
        mode_from: Option<PathBuf>,
    ) -> Self {
        Self {
            path,
            expect,
            kind: OpKind::Write {
                bytes,
                mode_from,
                mode: None,
            },
        }
    }

    /// This write, giving the file the permission bits `bits` (set-user-ID, set-group-ID
    /// and sticky bits dropped).
    pub(crate) fn with_mode(mut self, bits: u32) -> Self {
        if let OpKind::Write { mode, .. } = &mut self.kind {
            *mode = Some(bits & 0o777);
        }
        self
    }

    /// Removes the file at `path`.
    pub(crate) fn remove(path: ResolvedPath, expect: Expect) -> Self {
        Self {
            path,
            expect,
            kind: OpKind::Remove,
        }
    }
}

/// A file as it was before the transaction, to restore on failure.
struct Original {
    absolute: PathBuf,
    relative: String,
    bytes: Option<Vec<u8>>,
    permissions: Option<Permissions>,
}

/// Operations run together.
pub(crate) struct Transaction {
    ops: Vec<Op>,
    /// The moment expectations refer to, for conflict messages (`the edit was planned`).
    since: &'static str,
    /// The face's access to the files; `None`: the disk.
    files: Option<Arc<dyn WorkspaceFiles>>,
}

impl Transaction {
    /// An empty transaction; `since` names the moment the expectations describe.
    pub(crate) fn new(since: &'static str) -> Self {
        Self {
            ops: Vec::new(),
            since,
            files: None,
        }
    }

    /// This transaction reading and writing text files through `files` (`None`: the disk).
    pub(crate) fn through(mut self, files: Option<&Arc<dyn WorkspaceFiles>>) -> Self {
        self.files = files.cloned();
        self
    }

    /// Adds an operation (they run in order).
    pub(crate) fn push(&mut self, op: Op) {
        self.ops.push(op);
    }

    /// Checks every expectation, then runs the operations. Returns each operation's path
    /// with the hash written (`None` for removals).
    pub(crate) fn run(self) -> Result<Vec<(String, Option<String>)>, ToolError> {
        let mut originals: Vec<Original> = Vec::new();
        // What each path holds once the earlier operations ran (`None`: absent).
        let mut planned: HashMap<PathBuf, Option<String>> = HashMap::new();
        let mut modes = Vec::with_capacity(self.ops.len());
        for op in &self.ops {
            let absolute = &op.path.absolute;
            if !planned.contains_key(absolute) {
                let original = read_original(&op.path, self.files.as_deref())?;
                planned.insert(absolute.clone(), original.bytes.as_deref().map(hash_bytes));
                originals.push(original);
            }
            let current = planned.get(absolute).cloned().flatten();
            self.check(op, current.as_deref())?;
            let (mode, next) = match &op.kind {
                OpKind::Write {
                    bytes,
                    mode_from,
                    mode,
                } => {
                    let permissions = match mode {
                        Some(bits) => Some(permissions(*bits)),
                        None => {
                            let from = mode_from.as_deref().unwrap_or(absolute);
                            fs::metadata(from).ok().map(|meta| meta.permissions())
                        }
                    };
                    (permissions, Some(hash_bytes(bytes)))
                }
                OpKind::Remove => (None, None),
            };
            modes.push(mode);
            planned.insert(absolute.clone(), next);
        }
        let mut created_dirs = Vec::new();
        let mut results = Vec::with_capacity(self.ops.len());
        for (done, (op, mode)) in self.ops.iter().zip(modes).enumerate() {
            if let Err(error) = execute(op, mode, &mut created_dirs, self.files.as_deref()) {
                let touched: Vec<&PathBuf> = self.ops[..=done]
                    .iter()
                    .map(|op| &op.path.absolute)
                    .collect();
                let failed_restores =
                    rollback(&originals, &touched, &created_dirs, self.files.as_deref());
                return Err(write_failed(&op.path.relative, &error, &failed_restores));
            }
            let written = match &op.kind {
                OpKind::Write { bytes, .. } => Some(hash_bytes(bytes)),
                OpKind::Remove => None,
            };
            results.push((op.path.relative.clone(), written));
        }
        Ok(results)
    }

    fn check(&self, op: &Op, current: Option<&str>) -> Result<(), ToolError> {
        let path = &op.path.relative;
        let since = self.since;
        let problem = match (&op.expect, current) {
            (Expect::Absent, None) => return Ok(()),
            (Expect::Hash(wanted), Some(current)) if wanted == current => return Ok(()),
            (Expect::Absent, Some(_)) => {
                format!("{path} exists now (it was created after {since})")
            }
            (Expect::Hash(_), None) => format!("{path} was deleted after {since}"),
            (Expect::Hash(_), Some(_)) => format!(
                "{path} changed after {since} (edited outside this conversation or by a command)"
            ),
        };
        Err(ToolError::new(
            ToolErrorKind::Conflict,
            format!("{problem}; nothing was written. Read it again, then redo the change."),
        ))
    }
}

fn permissions(bits: u32) -> Permissions {
    use std::os::unix::fs::PermissionsExt;
    Permissions::from_mode(bits)
}

fn read_original(
    path: &ResolvedPath,
    files: Option<&dyn WorkspaceFiles>,
) -> Result<Original, ToolError> {
    let read = fs::read(&path.absolute).and_then(|bytes| match files {
        Some(files) => held(files, &path.absolute, bytes),
        None => Ok(bytes),
    });
    let (bytes, permissions) = match read {
        Ok(bytes) => {
            let permissions = fs::metadata(&path.absolute)
                .ok()
                .map(|meta| meta.permissions());
            (Some(bytes), permissions)
        }
        Err(error) if error.kind() == ErrorKind::NotFound => (None, None),
        Err(error) => {
            return Err(ToolError::io(format!(
                "could not read {} before writing it: {error}; nothing was written",
                path.relative
            )));
        }
    };
    Ok(Original {
        absolute: path.absolute.clone(),
        relative: path.relative.clone(),
        bytes,
        permissions,
    })
}

fn execute(
    op: &Op,
    mode: Option<Permissions>,
    created_dirs: &mut Vec<PathBuf>,
    files: Option<&dyn WorkspaceFiles>,
) -> std::io::Result<()> {
    let absolute = &op.path.absolute;
    match &op.kind {
        OpKind::Write { bytes, .. } => {
            if let Some(parent) = absolute.parent() {
                create_parents(parent, created_dirs)?;
            }
            write(files, absolute, bytes, mode)
        }
        // Removing a file that is expected to be absent already is nothing to do.
        OpKind::Remove => match fs::remove_file(absolute) {
            Err(error) if error.kind() == ErrorKind::NotFound && op.expect == Expect::Absent => {
                Ok(())
            }
            result => result,
        },
    }
}

/// Writes `bytes` to `absolute`: through `files` when there are some and the bytes are
/// text (UTF-8 without NUL bytes), else atomically on disk with the permissions `mode`.
fn write(
    files: Option<&dyn WorkspaceFiles>,
    absolute: &Path,
    bytes: &[u8],
    mode: Option<Permissions>,
) -> std::io::Result<()> {
    if let (Some(files), Ok(text)) = (files, std::str::from_utf8(bytes))
        && !crate::files::is_binary(bytes)
        && files.write_text(absolute, text)?
    {
        return Ok(());
    }
    hone_fs::write_atomically(absolute, bytes, mode)
}

/// Creates `directory` and its missing ancestors, recording the ones created.
fn create_parents(directory: &Path, created: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut missing = Vec::new();
    let mut current = Some(directory);
    while let Some(path) = current.filter(|path| !path.exists()) {
        missing.push(path.to_path_buf());
        current = path.parent();
    }
    fs::create_dir_all(directory)?;
    created.extend(missing.into_iter().rev());
    Ok(())
}

/// Puts the `touched` files back as they were; returns the ones that could not be restored.
fn rollback(
    originals: &[Original],
    touched: &[&PathBuf],
    created_dirs: &[PathBuf],
    files: Option<&dyn WorkspaceFiles>,
) -> Vec<String> {
    let mut failed = Vec::new();
    for original in originals.iter().rev() {
        if !touched.contains(&&original.absolute) {
            continue;
        }
        let restored = match &original.bytes {
            Some(bytes) => write(
                files,
                &original.absolute,
                bytes,
                original.permissions.clone(),
            ),
            // Only what the transaction created is removed (the path may not even be
            // reachable, e.g. when creating its directory failed).
            None if fs::symlink_metadata(&original.absolute).is_ok() => {
                fs::remove_file(&original.absolute)
            }
            None => Ok(()),
        };
        if let Err(error) = restored {
            failed.push(format!("{} ({error})", original.relative));
        }
    }
    for directory in created_dirs.iter().rev() {
        // Only empty directories go; one that gained other files stays.
        let _ = fs::remove_dir(directory);
    }
    failed
}

fn write_failed(path: &str, error: &std::io::Error, failed_restores: &[String]) -> ToolError {
    let outcome = if failed_restores.is_empty() {
        "Nothing was changed: files already written were restored.".to_string()
    } else {
        format!(
            "Restoring the files written before also failed for {}; check them.",
            failed_restores.join(", ")
        )
    };
    ToolError::io(format!("could not write {path}: {error}. {outcome}"))
}
