//! Where custom commands and skills are found: a directory next to the user file
//! (`~/.config/hone/commands/`) and, for a trusted project only, directories inside the
//! project (`.hone/commands/`). A project's directories and files may not be symbolic
//! links, so a repository cannot make hone read files outside it.

use std::path::{Path, PathBuf};

use crate::load::Config;

/// Whose a directory is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The user's own (next to the user file).
    User,
    /// The project's (only read when the project is trusted).
    Project,
}

/// One directory to look in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ExtensionDir {
    pub(crate) path: PathBuf,
    pub(crate) scope: Scope,
}

impl Config {
    /// The directories holding `kind` (e.g. `commands`): the user's, then for each of
    /// `project_paths` (e.g. `[".hone/commands"]`) the project's when it is trusted. The
    /// second value names the project directories that exist but are ignored since the
    /// project is not trusted.
    pub(crate) fn extension_dirs(
        &self,
        kind: &str,
        project_paths: &[&str],
    ) -> (Vec<ExtensionDir>, Vec<PathBuf>) {
        let mut dirs = Vec::new();
        if let Some(user_dir) = self.trust.user_file.as_deref().and_then(Path::parent) {
            dirs.push(ExtensionDir {
                path: user_dir.join(kind),
                scope: Scope::User,
            });
        }
        let mut ignored = Vec::new();
        if let Some(project) = &self.trust.project_dir {
            for relative in project_paths {
                let Some(path) = real_dir_inside(project, relative) else {
                    continue;
                };
                if self.trust.trusted {
                    dirs.push(ExtensionDir {
                        path,
                        scope: Scope::Project,
                    });
                } else {
                    ignored.push(path);
                }
            }
        }
        (dirs, ignored)
    }
}

/// `root/relative` when it and every directory on the way are real directories (no
/// symbolic links).
pub(crate) fn real_dir_inside(root: &Path, relative: &str) -> Option<PathBuf> {
    let mut current = root.to_path_buf();
    for part in relative.split('/') {
        current.push(part);
        let meta = std::fs::symlink_metadata(&current).ok()?;
        if !meta.is_dir() {
            return None;
        }
    }
    Some(current)
}

/// The entries of `dir` (sorted by name); for a project directory, symbolic links are left
/// out.
pub(crate) fn entries(dir: &Path, scope: Scope) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = read
        .filter_map(Result::ok)
        .filter(|entry| {
            scope == Scope::User || entry.file_type().is_ok_and(|kind| !kind.is_symlink())
        })
        .map(|entry| entry.path())
        .collect();
    paths.sort();
    paths
}

/// Reads a file found in a directory of `scope`: a project's must be a regular file, not a
/// link.
pub(crate) fn read_text(path: &Path, scope: Scope) -> std::io::Result<String> {
    match scope {
        Scope::User => std::fs::read_to_string(path),
        Scope::Project => hone_fs::read_to_string_regular(path),
    }
}
