//! The input history of a project as a file (`.hone/input_history.jsonl`, one JSON string
//! per line), for hosts without a session store.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Entries kept when the file is compacted.
const KEEP: usize = 500;

/// A project's input history file.
#[derive(Debug, Clone)]
pub struct FileHistory {
    path: PathBuf,
}

impl FileHistory {
    /// The history of the project at `root`.
    pub fn for_project(root: &Path) -> Self {
        Self {
            path: root.join(".hone").join("input_history.jsonl"),
        }
    }

    /// Entries, oldest first (unreadable lines are skipped; a missing file is empty).
    pub fn load(&self) -> Vec<String> {
        let Ok(text) = hone_fs::read_to_string_regular(&self.path) else {
            return Vec::new();
        };
        let mut entries: Vec<String> = text
            .lines()
            .filter_map(|line| serde_json::from_str::<String>(line).ok())
            .collect();
        let overflow = entries.len().saturating_sub(KEEP);
        entries.drain(..overflow);
        entries
    }

    /// Appends one entry; past twice the kept size the file is rewritten (atomically) with
    /// the newest entries only.
    pub fn append(&self, entry: &str) -> std::io::Result<()> {
        // `.hone` and the file itself are never followed through a symlink.
        if let Some(root) = self.path.parent().and_then(Path::parent) {
            hone_fs::hone_dir(root)?;
            hone_fs::create_dir_inside(root, Path::new(".hone"))?;
        }
        let line = serde_json::to_string(entry).map_err(std::io::Error::other)?;
        let mut file = hone_fs::open_append(&self.path)?;
        writeln!(file, "{line}")?;
        drop(file);
        let count = hone_fs::read_to_string_regular(&self.path)?.lines().count();
        if count > 2 * KEEP {
            self.rewrite(&self.load())?;
        }
        Ok(())
    }

    fn rewrite(&self, entries: &[String]) -> std::io::Result<()> {
        let mut text = String::new();
        for entry in entries {
            text.push_str(&serde_json::to_string(entry).map_err(std::io::Error::other)?);
            text.push('\n');
        }
        hone_fs::write_atomically(&self.path, text.as_bytes(), None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_including_newlines() {
        let dir = tempfile::tempdir().unwrap();
        let history = FileHistory::for_project(dir.path());
        assert!(history.load().is_empty());
        history.append("first").unwrap();
        history.append("two\nlines").unwrap();
        assert_eq!(history.load(), ["first", "two\nlines"]);
    }

    #[test]
    fn the_file_is_compacted_to_the_newest_entries() {
        let dir = tempfile::tempdir().unwrap();
        let history = FileHistory::for_project(dir.path());
        for index in 0..=2 * KEEP {
            history.append(&index.to_string()).unwrap();
        }
        let entries = history.load();
        assert_eq!(entries.len(), KEEP);
        assert_eq!(entries.last().map(String::as_str), Some("1000"));
        let lines = std::fs::read_to_string(dir.path().join(".hone/input_history.jsonl"))
            .unwrap()
            .lines()
            .count();
        assert_eq!(lines, KEEP);
    }

    #[test]
    fn a_symlinked_history_file_is_neither_read_nor_appended() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        std::fs::create_dir_all(root.join(".hone")).unwrap();
        let outside = dir.path().join("outside");
        std::fs::write(&outside, "\"canary\"\n").unwrap();
        std::os::unix::fs::symlink(&outside, root.join(".hone/input_history.jsonl")).unwrap();
        let history = FileHistory::for_project(&root);
        assert!(history.load().is_empty());
        assert!(history.append("x").is_err());
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "\"canary\"\n");
    }
}
