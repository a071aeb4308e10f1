//! The upper layer of a command's copy-on-write view → [`CommandChanges`].
//!
//! Read by hone after the command and every process of its namespace have ended: the layer
//! by descriptor ([`UpperLayer`], no link followed), the project by path, each path checked
//! by the [`crate::PathGuard`]. A file is compared with the project's and left out when
//! the command only copied it up; a file the project changed after the command started
//! (its change time is later than the view's start) is a conflict. A whiteout removes the
//! project's file or directory; an opaque directory removes what the project has below it
//! that the layer does not. Links are recreated only when they point inside the project.

use std::collections::HashSet;
use std::fs::Metadata;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

use hone_policy::PathError;
use hone_sandbox::overlay::{OverlayDir, UpperEntry, UpperLayer, change_time};

use super::{
    ChangesState, CommandChanges, DirectOp, IgnoreRules, MAX_JOURNALED_FILE, MAX_JOURNALED_TOTAL,
};
use crate::files::{decode, hash_bytes};
use crate::{FileChange, FileState, ToolContext, Written};

/// The view the direct writes copy from, kept until they are done.
#[derive(Debug)]
pub(crate) struct Source {
    layer: UpperLayer,
    _dir: OverlayDir,
}

impl Source {
    /// Opens the command's file at `path`.
    pub(crate) fn open_file(&self, path: &str) -> std::io::Result<std::fs::File> {
        self.layer.open_file(path)
    }
}

/// What the command of `dir` changed, for the project of `context`.
pub(crate) fn from_overlay(
    context: &ToolContext,
    dir: OverlayDir,
    command: &str,
) -> CommandChanges {
    let mut changes = CommandChanges::new(command, ChangesState::Pending);
    let entries = match dir.upper().and_then(|layer| Ok((layer.entries()?, layer))) {
        Ok(read) => read,
        Err(error) => {
            changes
                .refused
                .push(format!("the command's changes could not be read ({error})"));
            return changes;
        }
    };
    let (entries, layer) = entries;
    let mut reader = Reader {
        context,
        rules: IgnoreRules::new(context.guard()),
        started: dir.started(),
        layer: &layer,
        in_layer: entries
            .iter()
            .map(|entry| entry.path().to_string())
            .collect(),
        dirs: entries
            .iter()
            .filter(|entry| matches!(entry, UpperEntry::Directory { .. }))
            .map(|entry| entry.path().to_string())
            .collect(),
        parents: entries
            .iter()
            .filter_map(|entry| Path::new(entry.path()).parent())
            .map(|parent| parent.to_string_lossy().into_owned())
            .collect(),
        skipped: Vec::new(),
        opaque_done: HashSet::new(),
        journaled: 0,
        changes: &mut changes,
    };
    for entry in &entries {
        reader.entry(entry);
    }
    order(&mut changes.direct);
    changes.plan.changes.sort_by(|a, b| a.path.cmp(&b.path));
    changes.source = Some(Source { layer, _dir: dir });
    changes
}

/// Where a path's change goes.
enum Route {
    /// Into the journaled plan.
    Journal,
    /// Straight to the project (ignored by git or hidden by `.honeignore`).
    Direct,
    /// Nowhere: why.
    Refused(String),
}

struct Reader<'a> {
    context: &'a ToolContext,
    rules: IgnoreRules,
    started: std::time::SystemTime,
    layer: &'a UpperLayer,
    /// Every path of the layer.
    in_layer: HashSet<String>,
    /// Every directory of the layer.
    dirs: HashSet<String>,
    /// Every directory of the layer that holds something.
    parents: HashSet<String>,
    /// Directories refused as a whole: nothing below them is looked at.
    skipped: Vec<String>,
    /// Opaque directories already compared with the project.
    opaque_done: HashSet<String>,
    /// Bytes journaled so far.
    journaled: u64,
    changes: &'a mut CommandChanges,
}

impl Reader<'_> {
    fn entry(&mut self, entry: &UpperEntry) {
        let path = entry.path();
        if self.skipped.iter().any(|dir| {
            path.strip_prefix(dir.as_str())
                .is_some_and(|rest| rest.starts_with('/'))
        }) {
            return;
        }
        match entry {
            UpperEntry::Directory { path, opaque } => self.directory(path, *opaque),
            UpperEntry::File { path, size, mode } => self.file(path, *size, *mode),
            UpperEntry::Symlink { path, target } => self.symlink(path, target),
            UpperEntry::Removed { path } => self.removed(path),
            UpperEntry::Unsupported { path, what } => {
                self.refuse(path, what);
            }
        }
    }

    fn refuse(&mut self, path: &str, why: &str) {
        self.changes.refused.push(format!("{path}: {why}"));
    }

    fn real(&self, path: &str) -> Option<Metadata> {
        std::fs::symlink_metadata(self.context.root().join(path)).ok()
    }

    /// Whether the project's entry changed after the command started.
    fn changed_meanwhile(&mut self, path: &str, meta: &Metadata) -> bool {
        let changed = change_time(meta) > self.started;
        if changed {
            self.changes.conflicts.push(path.to_string());
        }
        changed
    }

    fn route(&self, path: &str, is_dir: bool) -> Route {
        if path.split('/').any(|part| part == ".git") {
            return Route::Refused(
                "inside .git (the repository changes only through hone's git tools)".to_string(),
            );
        }
        match self.context.guard().resolve_write(path) {
            Ok(resolved) if resolved.relative != path => {
                Route::Refused("a link in the project leads elsewhere".to_string())
            }
            Ok(_) if self.rules.is_ignored(path, is_dir) => Route::Direct,
            Ok(_) => Route::Journal,
            Err(PathError::Ignored { .. }) => Route::Direct,
            Err(PathError::OutsideRoot { .. }) => {
                Route::Refused("it leads out of the project".to_string())
            }
            Err(error) => Route::Refused(error.to_string()),
        }
    }

    fn directory(&mut self, path: &str, opaque: bool) {
        match self.real(path) {
            Some(meta) if meta.is_dir() => {
                if opaque {
                    self.remove_missing_below(path);
                }
            }
            Some(_) => {
                self.refuse(
                    path,
                    "replaces a file or link of the project with a directory",
                );
                self.skipped.push(path.to_string());
            }
            None => match self.route(path, true) {
                Route::Refused(why) => {
                    self.refuse(path, &why);
                    self.skipped.push(path.to_string());
                }
                // A directory with content comes with its files.
                _ if self.parents.contains(path) => {}
                Route::Journal | Route::Direct => self.changes.direct.push(DirectOp::CreateDir {
                    path: path.to_string(),
                }),
            },
        }
    }

    /// Below a directory that replaced the project's: removes what the layer lacks.
    fn remove_missing_below(&mut self, path: &str) {
        if !self.opaque_done.insert(path.to_string()) {
            return;
        }
        for (child, meta) in children(&self.context.root().join(path)) {
            let child_path = format!("{path}/{child}");
            if !self.in_layer.contains(&child_path) {
                self.removed(&child_path);
            } else if meta.is_dir() && self.dirs.contains(&child_path) {
                // Below an opaque directory nothing of the project shows through.
                self.remove_missing_below(&child_path);
            }
        }
    }

    fn file(&mut self, path: &str, size: u64, mode: u32) {
        let real = self.real(path);
        if let Some(meta) = &real {
            if meta.is_dir() {
                return self.refuse(path, "replaces a directory of the project with a file");
            }
            if meta.file_type().is_symlink() {
                return self.refuse(path, "replaces a link of the project with a file");
            }
            if self.changed_meanwhile(path, meta) {
                return;
            }
        }
        let route = self.route(path, false);
        let large =
            size > MAX_JOURNALED_FILE || self.journaled.saturating_add(size) > MAX_JOURNALED_TOTAL;
        match route {
            Route::Refused(why) => self.refuse(path, &why),
            Route::Direct => {
                if !self.same_as_project(path, size, mode, real.as_ref()) {
                    self.changes.direct.push(DirectOp::CopyFile {
                        path: path.to_string(),
                        mode,
                        large: false,
                    });
                }
            }
            Route::Journal if large => {
                if !self.same_as_project(path, size, mode, real.as_ref()) {
                    self.changes.direct.push(DirectOp::CopyFile {
                        path: path.to_string(),
                        mode,
                        large: true,
                    });
                }
            }
            Route::Journal => self.journal_file(path, mode, real.as_ref()),
        }
    }

    /// Whether the command's file holds what the project's does (a copy-up without change).
    fn same_as_project(&self, path: &str, size: u64, mode: u32, real: Option<&Metadata>) -> bool {
        let Some(real) = real else {
            return false;
        };
        if real.len() != size || real.mode() & 0o777 != mode & 0o777 || size > MAX_JOURNALED_FILE {
            return false;
        }
        match (self.layer_bytes(path), self.project_bytes(path)) {
            (Ok(ours), Ok(theirs)) => ours == theirs,
            _ => false,
        }
    }

    fn layer_bytes(&self, path: &str) -> std::io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        self.layer.open_file(path)?.read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    fn project_bytes(&self, path: &str) -> std::io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        hone_fs::open_regular(&self.context.root().join(path))?.read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    fn journal_file(&mut self, path: &str, mode: u32, real: Option<&Metadata>) {
        let after = match self.layer_bytes(path) {
            Ok(bytes) => bytes,
            Err(error) => return self.refuse(path, &format!("unreadable ({error})")),
        };
        let before = match real {
            Some(meta) => match self.project_bytes(path) {
                Ok(bytes) => Some((bytes, meta.mode() & 0o777)),
                Err(error) => {
                    return self
                        .refuse(path, &format!("the project's file is unreadable ({error})"));
                }
            },
            None => None,
        };
        if let Some((bytes, before_mode)) = &before
            && *bytes == after
            && *before_mode == mode & 0o777
        {
            return;
        }
        let before_len = before.as_ref().map_or(0, |(bytes, _)| bytes.len());
        self.journaled = self
            .journaled
            .saturating_add(u64::try_from(after.len() + before_len).unwrap_or(u64::MAX));
        let (content, encoding) = decode(&after);
        self.changes.plan.changes.push(FileChange {
            path: path.to_string(),
            before: before.map(|(bytes, mode)| state(&bytes, mode)),
            after: Some(content),
            rename_to: None,
            written: Some(Written {
                encoding,
                mode: mode & 0o777,
            }),
        });
    }

    fn symlink(&mut self, path: &str, target: &Path) {
        if let Route::Refused(why) = self.route(path, false) {
            return self.refuse(path, &why);
        }
        if !self.points_inside(path, target) {
            return self.refuse(
                path,
                &format!("a link to {}, out of the project", target.display()),
            );
        }
        if let Some(meta) = self.real(path) {
            if meta.is_dir() {
                return self.refuse(path, "replaces a directory of the project with a link");
            }
            if self.changed_meanwhile(path, &meta) {
                return;
            }
            let root = self.context.root();
            if meta.file_type().is_symlink() {
                if std::fs::read_link(root.join(path)).is_ok_and(|now| now == target) {
                    return;
                }
            } else {
                self.remove_file(path, &meta);
            }
        }
        self.changes.direct.push(DirectOp::Symlink {
            path: path.to_string(),
            target: target.to_path_buf(),
        });
    }

    /// Whether a link at `path` to `target` stays inside the project (and out of `.git`),
    /// also through the links the project already has.
    fn points_inside(&self, path: &str, target: &Path) -> bool {
        let root = self.context.root();
        let base = root.join(path);
        let joined = match base.parent() {
            Some(parent) if target.is_relative() => parent.join(target),
            _ => target.to_path_buf(),
        };
        let Some(lexical) = normalize(&joined) else {
            return false;
        };
        let Ok(relative) = lexical.strip_prefix(root) else {
            return false;
        };
        let relative = relative.to_string_lossy();
        if relative.split('/').any(|part| part == ".git") {
            return false;
        }
        relative.is_empty()
            || matches!(
                self.context.guard().resolve_read(&relative),
                Ok(_) | Err(PathError::Ignored { .. })
            )
    }

    fn removed(&mut self, path: &str) {
        let Some(meta) = self.real(path) else {
            return;
        };
        if meta.is_dir() {
            self.remove_tree(path);
        } else if meta.is_file() {
            self.remove_file(path, &meta);
        } else {
            match self.route(path, false) {
                Route::Refused(why) => self.refuse(path, &why),
                Route::Journal | Route::Direct => {
                    if !self.changed_meanwhile(path, &meta) {
                        self.changes.direct.push(DirectOp::RemoveFile {
                            path: path.to_string(),
                        });
                    }
                }
            }
        }
    }

    fn remove_file(&mut self, path: &str, meta: &Metadata) {
        if self.changed_meanwhile(path, meta) {
            return;
        }
        let size = meta.len();
        let large =
            size > MAX_JOURNALED_FILE || self.journaled.saturating_add(size) > MAX_JOURNALED_TOTAL;
        match self.route(path, false) {
            Route::Refused(why) => self.refuse(path, &why),
            Route::Journal if !large => match self.project_bytes(path) {
                Ok(bytes) => {
                    self.journaled = self.journaled.saturating_add(size);
                    self.changes.plan.changes.push(FileChange {
                        path: path.to_string(),
                        before: Some(state(&bytes, meta.mode() & 0o777)),
                        after: None,
                        rename_to: None,
                        written: None,
                    });
                }
                Err(error) => self.refuse(path, &format!("unreadable ({error})")),
            },
            Route::Journal | Route::Direct => {
                if large {
                    self.changes
                        .unrecorded
                        .push(format!("{path} removed (too large to keep for undo)"));
                }
                self.changes.direct.push(DirectOp::RemoveFile {
                    path: path.to_string(),
                });
            }
        }
    }

    /// The project's directory at `path` was removed with all it holds.
    fn remove_tree(&mut self, path: &str) {
        if let Route::Refused(why) = self.route(path, true) {
            return self.refuse(path, &why);
        }
        for (child, meta) in children(&self.context.root().join(path)) {
            let child_path = format!("{path}/{child}");
            if meta.is_dir() {
                self.remove_tree(&child_path);
            } else if meta.is_file() {
                self.remove_file(&child_path, &meta);
            } else if !self.changed_meanwhile(&child_path, &meta) {
                self.changes
                    .direct
                    .push(DirectOp::RemoveFile { path: child_path });
            }
        }
        self.changes.direct.push(DirectOp::RemoveDir {
            path: path.to_string(),
        });
    }
}

/// The entries of a directory of the project with their metadata (no link followed),
/// sorted by name; names that are not UTF-8 are left out.
fn children(dir: &Path) -> Vec<(String, Metadata)> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut children: Vec<(String, Metadata)> = read
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let meta = std::fs::symlink_metadata(entry.path()).ok()?;
            Some((name, meta))
        })
        .collect();
    children.sort_by(|a, b| a.0.cmp(&b.0));
    children
}

fn state(bytes: &[u8], mode: u32) -> FileState {
    let (content, encoding) = decode(bytes);
    FileState {
        content,
        hash: hash_bytes(bytes),
        encoding,
        mode: Some(mode),
    }
}

/// Removes `.` and resolves `..` lexically; `None` when `..` climbs above the root.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    Some(out)
}

/// The direct writes in the order they can run: directories made, files and links
/// written, then removals, deepest directories last.
fn order(direct: &mut [DirectOp]) {
    let rank = |op: &DirectOp| match op {
        DirectOp::CreateDir { .. } => 0,
        DirectOp::CopyFile { .. } => 1,
        DirectOp::Symlink { .. } => 2,
        DirectOp::RemoveFile { .. } => 3,
        DirectOp::RemoveDir { .. } => 4,
    };
    direct.sort_by(|a, b| {
        rank(a).cmp(&rank(b)).then_with(|| match (a, b) {
            (DirectOp::RemoveDir { path: a }, DirectOp::RemoveDir { path: b }) => {
                b.matches('/').count().cmp(&a.matches('/').count())
            }
            _ => std::cmp::Ordering::Equal,
        })
    });
}

#[cfg(test)]
#[path = "overlay_tests.rs"]
mod tests;
