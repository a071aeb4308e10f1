//! The fallback where commands write straight to the project (no user namespaces or no
//! overlay file system): the files a command could change — those the project walk lists,
//! tracked or not, unless git or `.honeignore` ignores them — are recorded before it
//! starts, with their content up to a budget, and compared after it ends. What changed
//! becomes one journal entry, so undo takes it back; files over the budget are named as
//! changed without undo. Contents are kept between commands and read again only when a
//! file's size, times or inode changed.

use std::collections::{HashMap, HashSet};
use std::fs::Metadata;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::sync::{Arc, Mutex, PoisonError};

use super::{ChangesState, CommandChanges, MAX_JOURNALED_FILE, MAX_JOURNALED_TOTAL};
use crate::files::walk::{project_walker, relative_path};
use crate::files::{decode, hash_bytes};
use crate::{FileChange, FileState, ToolContext, Written};

/// At most this many files are watched.
pub(crate) const MAX_FILES: usize = 50_000;

/// What tells a file changed without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: (i64, i64),
    changed: (i64, i64),
    inode: u64,
    mode: u32,
}

impl Stamp {
    fn of(meta: &Metadata) -> Self {
        Self {
            len: meta.len(),
            modified: (meta.mtime(), meta.mtime_nsec()),
            changed: (meta.ctime(), meta.ctime_nsec()),
            inode: meta.ino(),
            mode: meta.mode() & 0o777,
        }
    }
}

#[derive(Debug, Clone)]
struct Recorded {
    stamp: Stamp,
    /// The content, unless the file was over the budget.
    content: Option<Arc<Vec<u8>>>,
}

/// Contents kept between commands, so unchanged files are not read again.
#[derive(Debug, Default)]
pub(crate) struct SnapshotCache {
    files: Mutex<HashMap<String, Recorded>>,
}

/// The watched files of the project before a command.
#[derive(Debug)]
pub(crate) struct Snapshot {
    files: HashMap<String, Recorded>,
    truncated: bool,
}

impl Snapshot {
    /// Records the project of `context` now, reusing what `cache` holds.
    pub(crate) fn take(context: &ToolContext, cache: &SnapshotCache) -> Self {
        let (listed, truncated) = list(context);
        let mut cached = cache.files.lock().unwrap_or_else(PoisonError::into_inner);
        let mut budget = MAX_JOURNALED_TOTAL;
        let mut files = HashMap::with_capacity(listed.len());
        for (path, meta) in listed {
            let stamp = Stamp::of(&meta);
            let mut content = cached
                .get(&path)
                .filter(|old| old.stamp == stamp)
                .and_then(|old| old.content.clone());
            if content.is_none() && stamp.len <= MAX_JOURNALED_FILE && stamp.len <= budget {
                content = read(context, &path).ok().map(Arc::new);
            }
            if let Some(bytes) = &content {
                budget = budget.saturating_sub(u64::try_from(bytes.len()).unwrap_or(u64::MAX));
            }
            files.insert(path, Recorded { stamp, content });
        }
        cached.clone_from(&files);
        Self { files, truncated }
    }

    /// What `command` changed since the snapshot (already in the project).
    pub(crate) fn changes(self, context: &ToolContext, command: &str) -> CommandChanges {
        let mut changes = CommandChanges::new(command, ChangesState::Written);
        if self.truncated {
            changes.unrecorded.push(format!(
                "the project has more than {MAX_FILES} files; only the first {MAX_FILES} were \
                 watched"
            ));
        }
        let (now, _) = list(context);
        let mut seen = HashSet::with_capacity(now.len());
        let mut budget = MAX_JOURNALED_TOTAL;
        for (path, meta) in now {
            seen.insert(path.clone());
            let stamp = Stamp::of(&meta);
            let old = self.files.get(&path);
            if old.is_some_and(|old| old.stamp == stamp) {
                continue;
            }
            let current = (stamp.len <= MAX_JOURNALED_FILE && stamp.len <= budget)
                .then(|| read(context, &path).ok())
                .flatten();
            if let (Some(old), Some(current)) = (old, &current)
                && old.content.as_deref() == Some(current)
                && old.stamp.mode == stamp.mode
            {
                continue;
            }
            let Some(current) = current else {
                changes.unrecorded.push(format!(
                    "{path} {} (too large to keep for undo)",
                    if old.is_some() { "changed" } else { "created" }
                ));
                continue;
            };
            let before = match old {
                Some(Recorded {
                    content: Some(bytes),
                    stamp,
                }) => Some(state(bytes, stamp.mode)),
                Some(Recorded { content: None, .. }) => {
                    changes
                        .unrecorded
                        .push(format!("{path} changed (too large to keep for undo)"));
                    continue;
                }
                None => None,
            };
            budget = budget.saturating_sub(u64::try_from(current.len()).unwrap_or(u64::MAX));
            let (content, encoding) = decode(&current);
            changes.plan.changes.push(FileChange {
                path,
                before,
                after: Some(content),
                rename_to: None,
                written: Some(Written {
                    encoding,
                    mode: stamp.mode,
                }),
            });
        }
        let mut gone: Vec<(&String, &Recorded)> = self
            .files
            .iter()
            .filter(|(path, _)| !seen.contains(*path))
            .collect();
        gone.sort_by(|a, b| a.0.cmp(b.0));
        for (path, old) in gone {
            match &old.content {
                Some(bytes) => changes.plan.changes.push(FileChange {
                    path: path.clone(),
                    before: Some(state(bytes, old.stamp.mode)),
                    after: None,
                    rename_to: None,
                    written: None,
                }),
                None => changes
                    .unrecorded
                    .push(format!("{path} deleted (too large to keep for undo)")),
            }
        }
        changes.plan.changes.sort_by(|a, b| a.path.cmp(&b.path));
        changes
    }
}

/// The files the walk lists (regular files only), at most [`MAX_FILES`]; whether there
/// were more.
fn list(context: &ToolContext) -> (Vec<(String, Metadata)>, bool) {
    let root = context.root();
    let skipped: Vec<String> = super::home_dirs(root)
        .iter()
        .map(|dir| format!("{}/", dir.to_string_lossy()))
        .collect();
    let mut files = Vec::new();
    for entry in project_walker(context, root).build().flatten() {
        if !entry.file_type().is_some_and(|kind| kind.is_file()) {
            continue;
        }
        if files.len() == MAX_FILES {
            return (files, true);
        }
        let Ok(meta) = std::fs::symlink_metadata(entry.path()) else {
            continue;
        };
        let path = relative_path(root, entry.path());
        if path.split('/').any(|part| part == ".hone")
            || skipped.iter().any(|dir| path.starts_with(dir.as_str()))
        {
            continue;
        }
        files.push((path, meta));
    }
    (files, false)
}

fn read(context: &ToolContext, path: &str) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    hone_fs::open_regular(&context.root().join(path))?.read_to_end(&mut bytes)?;
    Ok(bytes)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> (tempfile::TempDir, ToolContext) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.txt"), "hello\n").unwrap();
        std::fs::write(root.join("gone.txt"), "bye\n").unwrap();
        std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
        std::fs::create_dir(root.join("build")).unwrap();
        let context = ToolContext::new(root).unwrap();
        (dir, context)
    }

    #[test]
    fn changed_created_and_deleted_files_become_one_plan_and_ignored_ones_do_not() {
        let (dir, context) = project();
        let root = dir.path();
        let cache = SnapshotCache::default();
        let snapshot = Snapshot::take(&context, &cache);
        std::fs::write(root.join("src/a.txt"), "HELLO\n").unwrap();
        std::fs::write(root.join("new.bin"), [0_u8, 255, 1]).unwrap();
        std::fs::remove_file(root.join("gone.txt")).unwrap();
        std::fs::write(root.join("build/out.o"), "object").unwrap();
        let changes = snapshot.changes(&context, "sed -i s/hello/HELLO/ src/a.txt");
        assert_eq!(changes.state, ChangesState::Written);
        let paths: Vec<&str> = changes
            .plan
            .changes
            .iter()
            .map(|change| change.path.as_str())
            .collect();
        assert_eq!(paths, ["gone.txt", "new.bin", "src/a.txt"]);
        let edited = &changes.plan.changes[2];
        assert_eq!(edited.before.as_ref().unwrap().content, "hello\n");
        assert_eq!(edited.after.as_deref(), Some("HELLO\n"));
        let created = &changes.plan.changes[1];
        assert!(created.before.is_none());
        assert_eq!(
            created.written.unwrap().encoding,
            crate::TextEncoding::Latin1
        );
        let deleted = &changes.plan.changes[0];
        assert_eq!(deleted.after, None);
        assert!(changes.unrecorded.is_empty(), "{:?}", changes.unrecorded);
    }

    #[test]
    fn an_unchanged_project_gives_no_change_and_reuses_what_it_read() {
        let (_dir, context) = project();
        let cache = SnapshotCache::default();
        let first = Snapshot::take(&context, &cache);
        assert!(first.changes(&context, "true").is_empty());
        let again = Snapshot::take(&context, &cache);
        assert_eq!(again.files.len(), 3);
        assert!(again.files.values().all(|file| file.content.is_some()));
    }
}
