//! What a command changed in the project, found once it has ended: read from the upper
//! layer of its copy-on-write view ([`overlay`], Linux with namespaces), or by comparing
//! the project with a snapshot taken before it started ([`snapshot`], elsewhere).
//!
//! The result, [`CommandChanges`], splits the change in two. The files version control
//! tracks (and any other file that is not ignored) form an [`EditPlan`], applied through
//! [`crate::edit::apply`] with its hash guard and recorded in the undo journal as one
//! entry. What is ignored (build output, `.gitignore`d and `.honeignore`d files), links,
//! empty directories and files too large to journal are written straight to the project
//! ([`CommandChanges::apply_direct`]) and named, not journaled. A file the project changed
//! while the command ran is a conflict: the command's version is dropped, never written
//! over it.

mod direct;
mod ignored;
#[cfg(target_os = "linux")]
mod overlay;
mod snapshot;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub(crate) use direct::DirectOp;
pub(crate) use ignored::IgnoreRules;
#[cfg(target_os = "linux")]
pub(crate) use overlay::from_overlay;
pub(crate) use snapshot::{Snapshot, SnapshotCache};

use crate::edit::unified_diff;
use crate::{EditPlan, ToolContext};

/// The directories of the project at `root` that belong to the user's home rather than
/// to the project (when the home directory is inside the project, or is the project): the
/// home itself, or its tool caches. Commands write them straight; they are never part of a
/// command's change.
pub(crate) fn home_dirs(root: &Path) -> Vec<PathBuf> {
    let Some(home) = std::env::var_os("HOME")
        .map(PathBuf::from)
        .and_then(|home| home.canonicalize().ok())
    else {
        return Vec::new();
    };
    if home == root {
        return hone_sandbox::TOOLCHAIN_DIRS
            .iter()
            .chain(&[".cache"])
            .map(PathBuf::from)
            .filter(|dir| root.join(dir).is_dir())
            .collect();
    }
    home.strip_prefix(root)
        .map(|inside| vec![inside.to_path_buf()])
        .unwrap_or_default()
}

/// A journaled file may hold at most this many bytes; a larger one is written without
/// undo.
pub(crate) const MAX_JOURNALED_FILE: u64 = 8 * 1024 * 1024;
/// The journaled files of one command may hold at most this many bytes in all.
pub(crate) const MAX_JOURNALED_TOTAL: u64 = 64 * 1024 * 1024;

/// How the file changes of commands are found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ChangeTracking {
    /// Not at all: commands write straight to the project and nothing is recorded.
    #[default]
    Off,
    /// Commands run on a copy-on-write view of the project (Linux, with namespaces): what
    /// they write is applied after they end. The directories named here (relative to the
    /// project) are written straight through.
    Overlay {
        /// Directories written straight through (build output).
        passthrough: Vec<PathBuf>,
    },
    /// Commands write straight to the project; the files they could change are
    /// snapshot before and compared after, so their changes can be undone.
    Snapshot,
}

/// Whether the changes are still to be applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangesState {
    /// On the command's copy-on-write view only: the project is unchanged until they are
    /// applied.
    Pending,
    /// Already in the project (the command wrote straight to it): only recorded.
    Written,
}

/// What one command changed in the project.
#[derive(Debug)]
pub struct CommandChanges {
    /// The files that are not ignored: `before` is the project's file now, `after` the
    /// command's. Applied with the hash guard and journaled as one entry.
    pub plan: EditPlan,
    /// Whether the changes still have to be applied.
    pub state: ChangesState,
    /// Written straight to the project, without undo (ignored files, links, directories,
    /// files too large to journal).
    direct: Vec<DirectOp>,
    /// Paths the project changed while the command ran: the command's version is dropped.
    pub conflicts: Vec<String>,
    /// What was not carried over, and why.
    pub refused: Vec<String>,
    /// The project's files changed without an undo entry, and why (snapshots).
    pub unrecorded: Vec<String>,
    /// The copy-on-write view the direct writes are copied from.
    #[cfg(target_os = "linux")]
    source: Option<overlay::Source>,
}

impl CommandChanges {
    /// An empty change of `command`.
    pub(crate) fn new(command: &str, state: ChangesState) -> Self {
        Self {
            plan: EditPlan {
                summary: format!("changes by `{}`", shorten(command)),
                changes: Vec::new(),
                destructive: None,
            },
            state,
            direct: Vec::new(),
            conflicts: Vec::new(),
            refused: Vec::new(),
            unrecorded: Vec::new(),
            #[cfg(target_os = "linux")]
            source: None,
        }
    }

    /// Whether the command changed nothing worth telling.
    pub fn is_empty(&self) -> bool {
        self.plan.changes.is_empty()
            && self.direct.is_empty()
            && self.conflicts.is_empty()
            && self.refused.is_empty()
            && self.unrecorded.is_empty()
    }

    /// Whether there is anything to apply.
    pub fn has_writes(&self) -> bool {
        !self.plan.changes.is_empty() || !self.direct.is_empty()
    }

    /// The paths of the journaled changes.
    pub fn journaled_paths(&self) -> Vec<String> {
        self.plan
            .changes
            .iter()
            .map(|change| change.path.clone())
            .collect()
    }

    /// The paths the changes touch, journaled ones and direct ones.
    pub fn paths(&self) -> Vec<String> {
        self.plan
            .changes
            .iter()
            .map(|change| change.path.clone())
            .chain(self.direct.iter().map(|op| op.path().to_string()))
            .collect()
    }

    /// The changes for the user: the journaled files as a unified diff (binaries by
    /// hash), then one line each for what is written without undo, refused or dropped.
    pub fn diff(&self) -> String {
        let mut text = unified_diff(&self.plan);
        for line in self.notes() {
            let _ = writeln!(text, "# {line}");
        }
        text
    }

    /// What the model is told after the command's output: the files changed, and what
    /// was written without undo, refused or dropped.
    pub fn report(&self, outcome: &str) -> String {
        let mut text = String::new();
        if !self.plan.changes.is_empty() {
            let list: Vec<String> = self
                .plan
                .changes
                .iter()
                .map(|change| {
                    let mark = match (&change.before, &change.after) {
                        (None, _) => "A",
                        (Some(_), None) => "D",
                        (Some(_), Some(_)) => "M",
                    };
                    format!("{mark} {}", change.path)
                })
                .collect();
            let _ = writeln!(
                text,
                "[file changes by the command, {outcome}: {}]",
                list.join(", ")
            );
        }
        for line in self.notes() {
            let _ = writeln!(text, "[{line}]");
        }
        text
    }

    fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        let direct: Vec<String> = self.direct.iter().map(DirectOp::describe).collect();
        if !direct.is_empty() {
            notes.push(format!(
                "written straight, without undo: {}",
                shorten_list(&direct)
            ));
        }
        notes.extend(
            self.unrecorded
                .iter()
                .map(|line| format!("without undo: {line}")),
        );
        notes.extend(
            self.conflicts
                .iter()
                .map(|path| format!("conflict: {path} changed on disk while the command ran; the command's version was dropped")),
        );
        notes.extend(
            self.refused
                .iter()
                .map(|line| format!("not carried over: {line}")),
        );
        notes
    }

    /// Writes what goes straight to the project (after the journaled plan); returns what
    /// failed, one line each.
    pub fn apply_direct(&self, context: &ToolContext) -> Vec<String> {
        let mut failed = Vec::new();
        for op in &self.direct {
            #[cfg(target_os = "linux")]
            let result = op.apply(context.root(), self.source.as_ref());
            #[cfg(not(target_os = "linux"))]
            let result = op.apply(context.root());
            if let Err(error) = result {
                failed.push(format!("{}: {error}", op.path()));
            }
        }
        failed
    }

    /// Drops the direct writes and the source (the changes were refused).
    pub fn discard(mut self) {
        self.direct.clear();
    }
}

/// `command` on one line, at most 60 characters.
fn shorten(command: &str) -> String {
    let line = command.lines().next().unwrap_or_default();
    let mut short: String = line.chars().take(60).collect();
    if short.len() < line.len() || command.lines().count() > 1 {
        short.push('…');
    }
    short
}

/// The first items of `items`, and how many more.
fn shorten_list(items: &[String]) -> String {
    const SHOWN: usize = 8;
    let mut text = items
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > SHOWN {
        let _ = write!(text, " and {} more", items.len() - SHOWN);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::file_state;
    use crate::{FileChange, TextEncoding, Written};

    fn change(path: &str, before: Option<&str>, after: Option<&str>) -> FileChange {
        FileChange {
            path: path.into(),
            before: before.map(|text| file_state(text.as_bytes())),
            after: after.map(Into::into),
            rename_to: None,
            written: Some(Written {
                encoding: TextEncoding::Utf8,
                mode: 0o644,
            }),
        }
    }

    #[test]
    fn the_report_marks_added_modified_and_deleted_files_and_every_note() {
        let mut changes = CommandChanges::new("sed -i s/a/b/ x", ChangesState::Pending);
        assert!(changes.is_empty());
        changes.plan.changes = vec![
            change("new.txt", None, Some("n\n")),
            change("x", Some("a\n"), Some("b\n")),
            change("old.txt", Some("o\n"), None),
        ];
        changes.conflicts.push("src/busy.rs".into());
        changes
            .refused
            .push("evil: a link out of the project".into());
        changes.direct.push(DirectOp::CreateDir {
            path: "build".into(),
        });
        let report = changes.report("applied");
        assert!(
            report.contains("applied: A new.txt, M x, D old.txt]"),
            "{report}"
        );
        assert!(
            report.contains("conflict: src/busy.rs changed on disk"),
            "{report}"
        );
        assert!(report.contains("not carried over: evil"), "{report}");
        assert!(
            report.contains("without undo: build/ (directory)"),
            "{report}"
        );
        let diff = changes.diff();
        assert!(diff.contains("+++ b/new.txt"), "{diff}");
        assert!(diff.contains("# conflict: src/busy.rs"), "{diff}");
        assert_eq!(changes.plan.summary, "changes by `sed -i s/a/b/ x`");
        assert!(changes.has_writes());
    }

    #[test]
    fn long_commands_and_lists_are_shortened() {
        assert_eq!(shorten("a\nb"), "a…");
        assert_eq!(shorten(&"x".repeat(70)).chars().count(), 61);
        let items: Vec<String> = (0..10).map(|index| index.to_string()).collect();
        assert_eq!(shorten_list(&items), "0, 1, 2, 3, 4, 5, 6, 7 and 2 more");
    }
}
