//! The path guard: every path a tool receives is resolved against the project root.

use std::path::{Component, Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::SecretFiles;

/// Name of the project's ignore file (gitignore syntax) that hides paths from every tool.
pub const HONE_IGNORE_FILE: &str = ".honeignore";

/// Why a path was refused. Messages are written for the model: they say what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// The path is empty.
    #[error("the path is empty: give a path relative to the project root, e.g. `src/main.rs`")]
    Empty,
    /// The path leaves the project (via `..`, an absolute path or a symlink).
    #[error(
        "`{path}` is outside the project root; only paths inside the project can be used (relative paths like `src/main.rs`)"
    )]
    OutsideRoot {
        /// The path as given.
        path: String,
    },
    /// Writing inside `.git/` is never allowed.
    #[error(
        "`{path}` is inside .git/; git internals are never written by tools (use the git tools instead)"
    )]
    GitInternals {
        /// The path as given.
        path: String,
    },
    /// The path is hidden by `.honeignore`.
    #[error("`{path}` is excluded by .honeignore and cannot be used")]
    Ignored {
        /// The path as given.
        path: String,
    },
    /// The project root itself cannot be used.
    #[error("the project root {root} cannot be opened: {reason}")]
    BadRoot {
        /// The root as given.
        root: String,
        /// Why.
        reason: String,
    },
}

/// A path that passed the guard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedPath {
    /// Absolute path inside the (canonical) root; symlinks in existing parts resolved.
    pub absolute: PathBuf,
    /// The same path relative to the root, with `/` separators (what the model sees).
    pub relative: String,
}

/// Resolves tool paths against the project root and refuses those that escape it; knows
/// which files may hold secrets ([`SecretFiles`]).
#[derive(Debug, Clone)]
pub struct PathGuard {
    root: PathBuf,
    ignore: Gitignore,
    secrets: SecretFiles,
}

impl PathGuard {
    /// A guard for the project at `root` (canonicalised), reading `.honeignore` if present.
    pub fn new(root: &Path) -> Result<Self, PathError> {
        let root = root.canonicalize().map_err(|error| PathError::BadRoot {
            root: root.display().to_string(),
            reason: error.to_string(),
        })?;
        let mut builder = GitignoreBuilder::new(&root);
        let ignore_file = root.join(HONE_IGNORE_FILE);
        if ignore_file.is_file() {
            // A broken pattern line is skipped rather than disabling the whole file.
            let _ = builder.add(&ignore_file);
        }
        let ignore = builder.build().unwrap_or_else(|_| Gitignore::empty());
        Ok(Self {
            root,
            ignore,
            secrets: SecretFiles::default(),
        })
    }

    /// The guard with `secrets` as the rule for files that may hold secrets (the built-in
    /// rule by default).
    #[must_use]
    pub fn with_secret_files(mut self, secrets: SecretFiles) -> Self {
        self.secrets = secrets;
        self
    }

    /// Whether the file at `relative` (a root-relative path) may hold secrets.
    pub fn is_secret(&self, relative: &str) -> bool {
        self.secrets.matches(relative)
    }

    /// The canonical project root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves a path for reading.
    pub fn resolve_read(&self, path: &str) -> Result<ResolvedPath, PathError> {
        self.resolve(path)
    }

    /// Resolves a path for writing: additionally refuses `.git/` internals.
    pub fn resolve_write(&self, path: &str) -> Result<ResolvedPath, PathError> {
        let resolved = self.resolve(path)?;
        // Any `.git` component: a nested repository's config can run code (core.fsmonitor).
        if resolved
            .relative
            .split('/')
            .any(|component| component == ".git")
        {
            return Err(PathError::GitInternals {
                path: path.to_string(),
            });
        }
        Ok(resolved)
    }

    /// Whether `relative` (a root-relative path) is hidden by `.honeignore`.
    pub fn is_ignored(&self, relative: &str, is_dir: bool) -> bool {
        self.ignore
            .matched_path_or_any_parents(relative, is_dir)
            .is_ignore()
    }

    fn resolve(&self, path: &str) -> Result<ResolvedPath, PathError> {
        let trimmed = path.trim();
        if trimmed.is_empty() {
            return Err(PathError::Empty);
        }
        let outside = || PathError::OutsideRoot {
            path: path.to_string(),
        };
        let given = Path::new(trimmed);
        let joined = if given.is_absolute() {
            given.to_path_buf()
        } else {
            self.root.join(given)
        };
        let lexical = normalize(&joined).ok_or_else(outside)?;
        if !lexical.starts_with(&self.root) {
            return Err(outside());
        }
        let absolute = resolve_symlinks(&lexical).ok_or_else(outside)?;
        if !absolute.starts_with(&self.root) {
            return Err(outside());
        }
        let relative = relative_string(&absolute, &self.root);
        if !relative.is_empty() && self.is_ignored(&relative, absolute.is_dir()) {
            return Err(PathError::Ignored {
                path: path.to_string(),
            });
        }
        Ok(ResolvedPath { absolute, relative })
    }
}

/// Removes `.` and resolves `..` lexically; `None` when `..` climbs above the filesystem root.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Prefix(prefix) => out.push(prefix.as_os_str()),
            Component::RootDir => out.push(Component::RootDir.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(part) => out.push(part),
        }
    }
    Some(out)
}

/// Canonicalises the longest existing prefix of `path` (resolving every symlink in it,
/// including a dangling final one) and appends the part that does not exist yet.
fn resolve_symlinks(path: &Path) -> Option<PathBuf> {
    let mut existing = path.to_path_buf();
    let mut missing = Vec::new();
    loop {
        if std::fs::symlink_metadata(&existing).is_ok() {
            break;
        }
        missing.push(existing.file_name()?.to_os_string());
        if !existing.pop() {
            return None;
        }
    }
    let mut resolved = match existing.canonicalize() {
        Ok(canonical) => canonical,
        // A dangling symlink: follow its target lexically.
        Err(_) => {
            let target = std::fs::read_link(&existing).ok()?;
            let parent = existing.parent()?.canonicalize().ok()?;
            normalize(&parent.join(target))?
        }
    };
    for part in missing.iter().rev() {
        resolved.push(part);
    }
    Some(resolved)
}

fn relative_string(absolute: &Path, root: &Path) -> String {
    absolute
        .strip_prefix(root)
        .map(|relative| {
            relative
                .components()
                .map(|component| component.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/")
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> (tempfile::TempDir, PathGuard) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/main.rs"), "fn main() {}\n").unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        let guard = PathGuard::new(dir.path()).unwrap();
        (dir, guard)
    }

    #[test]
    fn relative_paths_resolve_inside_the_root() {
        let (_dir, guard) = project();
        let resolved = guard.resolve_read("src/./main.rs").unwrap();
        assert_eq!(resolved.relative, "src/main.rs");
        assert!(resolved.absolute.starts_with(guard.root()));
        assert_eq!(guard.resolve_read(".").unwrap().relative, "");
    }

    #[test]
    fn traversal_is_refused_even_when_it_comes_back() {
        let (dir, guard) = project();
        assert!(matches!(
            guard.resolve_read("../etc/passwd"),
            Err(PathError::OutsideRoot { .. })
        ));
        assert!(matches!(
            guard.resolve_read("src/../../x"),
            Err(PathError::OutsideRoot { .. })
        ));
        let name = dir
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let back_in = format!("../{name}/src/main.rs");
        assert_eq!(
            guard.resolve_read(&back_in).unwrap().relative,
            "src/main.rs"
        );
        assert!(matches!(
            guard.resolve_read("/../../.."),
            Err(PathError::OutsideRoot { .. })
        ));
    }

    #[test]
    fn absolute_paths_only_inside_the_root() {
        let (_dir, guard) = project();
        assert!(matches!(
            guard.resolve_read("/etc/passwd"),
            Err(PathError::OutsideRoot { .. })
        ));
        let inside = guard.root().join("src/main.rs");
        assert_eq!(
            guard
                .resolve_read(inside.to_str().unwrap())
                .unwrap()
                .relative,
            "src/main.rs"
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_that_leave_the_root_are_refused() {
        let (dir, guard) = project();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("escape")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("nope"), dir.path().join("dangling"))
            .unwrap();
        assert!(matches!(
            guard.resolve_read("escape/secret"),
            Err(PathError::OutsideRoot { .. })
        ));
        assert!(matches!(
            guard.resolve_write("escape/new.txt"),
            Err(PathError::OutsideRoot { .. })
        ));
        assert!(matches!(
            guard.resolve_write("dangling"),
            Err(PathError::OutsideRoot { .. })
        ));
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_inside_the_root_are_followed() {
        let (dir, guard) = project();
        std::os::unix::fs::symlink(dir.path().join("src"), dir.path().join("code")).unwrap();
        assert_eq!(
            guard.resolve_read("code/main.rs").unwrap().relative,
            "src/main.rs"
        );
    }

    #[test]
    fn missing_parents_are_fine_for_new_files() {
        let (_dir, guard) = project();
        let resolved = guard.resolve_write("new/deep/file.txt").unwrap();
        assert_eq!(resolved.relative, "new/deep/file.txt");
    }

    #[test]
    fn git_internals_are_never_written_but_can_be_read() {
        let (_dir, guard) = project();
        assert!(matches!(
            guard.resolve_write(".git/config"),
            Err(PathError::GitInternals { .. })
        ));
        assert!(guard.resolve_read(".git/config").is_ok());
        assert!(guard.resolve_write(".gitignore").is_ok());
    }

    #[test]
    fn honeignore_hides_paths_from_every_tool() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".honeignore"), "secrets/\n*.pem\n").unwrap();
        std::fs::create_dir_all(dir.path().join("secrets")).unwrap();
        let guard = PathGuard::new(dir.path()).unwrap();
        assert!(matches!(
            guard.resolve_read("secrets/key.txt"),
            Err(PathError::Ignored { .. })
        ));
        assert!(matches!(
            guard.resolve_write("deploy/server.pem"),
            Err(PathError::Ignored { .. })
        ));
        assert!(guard.resolve_read("src/lib.rs").is_ok());
    }

    #[test]
    fn empty_paths_are_refused() {
        let (_dir, guard) = project();
        assert_eq!(guard.resolve_read("  "), Err(PathError::Empty));
    }
}
