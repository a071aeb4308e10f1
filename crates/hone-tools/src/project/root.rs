//! Where the project is: the repository root above the directory the user is in.

use std::path::{Path, PathBuf};

use hone_protocol::HoneError;

/// The project root and the directory the user is in, both canonical.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectPlace {
    /// The nearest directory at or above the start that holds `.git` (a directory, or the
    /// file of a worktree or submodule); the start itself when there is none. `.hone/` lives
    /// here.
    pub root: PathBuf,
    /// Where the user is: the start of the search, inside `root`.
    pub working_dir: PathBuf,
}

impl ProjectPlace {
    /// Finds the project of `start` (canonicalised first, so symlinks in it are resolved
    /// before the search). Only the `.git` entries of `start`'s ancestors are looked at.
    pub fn discover(start: &Path) -> Result<Self, HoneError> {
        let working_dir = start.canonicalize().map_err(|error| {
            HoneError::config(format!("cannot resolve {}: {error}", start.display()))
        })?;
        if !working_dir.is_dir() {
            return Err(HoneError::config(format!(
                "{}: not a directory",
                start.display()
            )));
        }
        let root = working_dir
            .ancestors()
            .find(|dir| holds_repository(dir))
            .unwrap_or(&working_dir)
            .to_path_buf();
        Ok(Self { root, working_dir })
    }

    /// The working directory relative to the root, `None` when the user is at the root.
    pub fn relative_working_dir(&self) -> Option<String> {
        let relative = self.working_dir.strip_prefix(&self.root).ok()?;
        let text = relative.to_string_lossy().replace('\\', "/");
        (!text.is_empty()).then_some(text)
    }
}

/// Whether `dir` holds a `.git` directory or file (not a symlink: a link could name any
/// place on the machine).
fn holds_repository(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir.join(".git"))
        .is_ok_and(|meta| meta.file_type().is_dir() || meta.file_type().is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sub_directory_belongs_to_the_repository_above_it() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().canonicalize().unwrap().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("src/deep")).unwrap();
        let place = ProjectPlace::discover(&repo.join("src/deep")).unwrap();
        assert_eq!(place.root, repo);
        assert_eq!(place.working_dir, repo.join("src/deep"));
        assert_eq!(place.relative_working_dir().as_deref(), Some("src/deep"));
        let at_root = ProjectPlace::discover(&repo).unwrap();
        assert_eq!(at_root.root, repo);
        assert_eq!(at_root.relative_working_dir(), None);
    }

    #[test]
    fn without_a_repository_the_directory_is_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().canonicalize().unwrap().join("plain");
        std::fs::create_dir_all(&plain).unwrap();
        let place = ProjectPlace::discover(&plain).unwrap();
        assert_eq!(place.root, plain);
        assert_eq!(place.working_dir, plain);
    }

    #[test]
    fn a_git_file_counts_and_a_git_symlink_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let worktree = base.join("worktree");
        std::fs::create_dir_all(worktree.join("sub")).unwrap();
        std::fs::write(worktree.join(".git"), "gitdir: /elsewhere\n").unwrap();
        assert_eq!(
            ProjectPlace::discover(&worktree.join("sub")).unwrap().root,
            worktree
        );
        let linked = base.join("linked");
        std::fs::create_dir_all(linked.join("sub")).unwrap();
        std::fs::create_dir_all(base.join("real.git")).unwrap();
        std::os::unix::fs::symlink(base.join("real.git"), linked.join(".git")).unwrap();
        assert_eq!(
            ProjectPlace::discover(&linked.join("sub")).unwrap().root,
            linked.join("sub")
        );
    }

    #[test]
    fn a_missing_start_is_a_configuration_error() {
        let error = ProjectPlace::discover(Path::new("/no/such/dir/for/hone")).unwrap_err();
        assert!(error.message.contains("cannot resolve"), "{error:?}");
    }
}
