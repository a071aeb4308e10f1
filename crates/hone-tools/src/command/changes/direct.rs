//! Writes that go straight to the project, without the undo journal: ignored files (build
//! output), links, directories and files too large to journal. Every path stays inside
//! the project: parents are created by [`hone_fs::create_dir_inside`], which refuses a link
//! on the way, and an entry that is replaced is replaced, never followed.

use std::io;
use std::path::{Component, Path, PathBuf};

/// One write without undo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DirectOp {
    /// Copy the command's file from its copy-on-write view.
    #[cfg(target_os = "linux")]
    CopyFile {
        /// Where (relative to the project).
        path: String,
        /// Its permission bits.
        mode: u32,
        /// Whether it goes without undo for its size (it is not ignored).
        large: bool,
    },
    /// Make a symbolic link (whose target stays inside the project).
    Symlink {
        /// Where.
        path: String,
        /// What it points to, as the command wrote it.
        target: PathBuf,
    },
    /// Remove a file or a link.
    RemoveFile {
        /// Where.
        path: String,
    },
    /// Create a directory and its parents.
    CreateDir {
        /// Where.
        path: String,
    },
    /// Remove a directory when it is empty.
    RemoveDir {
        /// Where.
        path: String,
    },
}

impl DirectOp {
    /// The path written.
    pub(crate) fn path(&self) -> &str {
        match self {
            #[cfg(target_os = "linux")]
            Self::CopyFile { path, .. } => path,
            Self::Symlink { path, .. }
            | Self::RemoveFile { path }
            | Self::CreateDir { path }
            | Self::RemoveDir { path } => path,
        }
    }

    /// The write in a few words (`dist/app.js`, `docs/latest → v2 (link)`).
    pub(crate) fn describe(&self) -> String {
        match self {
            #[cfg(target_os = "linux")]
            Self::CopyFile { path, large, .. } => {
                if *large {
                    format!("{path} (too large to keep for undo)")
                } else {
                    path.clone()
                }
            }
            Self::Symlink { path, target } => format!("{path} → {} (link)", target.display()),
            Self::RemoveFile { path } => format!("{path} (removed)"),
            Self::CreateDir { path } => format!("{path}/ (directory)"),
            Self::RemoveDir { path } => format!("{path}/ (directory removed)"),
        }
    }

    /// Carries the write out in the project at `root`; files are copied from `source`.
    #[cfg(target_os = "linux")]
    pub(crate) fn apply(
        &self,
        root: &Path,
        source: Option<&super::overlay::Source>,
    ) -> io::Result<()> {
        if let Self::CopyFile { path, mode, .. } = self {
            let source = source.ok_or_else(|| {
                io::Error::new(io::ErrorKind::NotFound, "the command's view is gone")
            })?;
            return copy_in(root, path, source.open_file(path)?, *mode);
        }
        self.apply_in_place(root)
    }

    /// Carries the write out in the project at `root`.
    #[cfg(not(target_os = "linux"))]
    pub(crate) fn apply(&self, root: &Path) -> io::Result<()> {
        self.apply_in_place(root)
    }

    fn apply_in_place(&self, root: &Path) -> io::Result<()> {
        match self {
            #[cfg(target_os = "linux")]
            Self::CopyFile { .. } => Ok(()),
            Self::Symlink { path, target } => {
                let at = parent_inside(root, path)?;
                match std::fs::symlink_metadata(&at) {
                    Ok(meta) if meta.is_dir() => {
                        return Err(io::Error::new(
                            io::ErrorKind::AlreadyExists,
                            "a directory is in the way",
                        ));
                    }
                    Ok(_) => std::fs::remove_file(&at)?,
                    Err(error) if error.kind() == io::ErrorKind::NotFound => {}
                    Err(error) => return Err(error),
                }
                std::os::unix::fs::symlink(target, &at)
            }
            Self::RemoveFile { path } => match existing_inside(root, path)? {
                Some(at) => ignore_missing(std::fs::remove_file(at)),
                None => Ok(()),
            },
            Self::CreateDir { path } => {
                hone_fs::create_dir_inside(root, &relative(path)?).map(|_| ())
            }
            Self::RemoveDir { path } => match existing_inside(root, path)? {
                // A directory that still holds something (the user's files, a kept
                // conflict) stays.
                Some(at) => match std::fs::remove_dir(at) {
                    Err(error) if error.kind() == io::ErrorKind::DirectoryNotEmpty => Ok(()),
                    result => ignore_missing(result),
                },
                None => Ok(()),
            },
        }
    }
}

fn ignore_missing(result: io::Result<()>) -> io::Result<()> {
    match result {
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        result => result,
    }
}

/// `path` as a plain relative path (no `..`, no root).
fn relative(path: &str) -> io::Result<PathBuf> {
    let relative = PathBuf::from(path);
    if path.is_empty()
        || !relative
            .components()
            .all(|component| matches!(component, Component::Normal(_)))
    {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a plain path inside the project",
        ));
    }
    Ok(relative)
}

/// `root/path`, with its parent directories created (none of them a link).
fn parent_inside(root: &Path, path: &str) -> io::Result<PathBuf> {
    let relative = relative(path)?;
    let parent = relative.parent().unwrap_or(Path::new(""));
    let name = relative
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
    Ok(hone_fs::create_dir_inside(root, parent)?.join(name))
}

/// `root/path` when every directory on the way exists and is no link; `None` when a
/// part is missing (then there is nothing to remove).
fn existing_inside(root: &Path, path: &str) -> io::Result<Option<PathBuf>> {
    let relative = relative(path)?;
    let mut current = root.to_path_buf();
    if let Some(parent) = relative.parent() {
        for part in parent.components() {
            current.push(part);
            match std::fs::symlink_metadata(&current) {
                Ok(meta) if meta.is_dir() => {}
                Ok(_) => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!("{} is a link or a file", current.display()),
                    ));
                }
                Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
                Err(error) => return Err(error),
            }
        }
    }
    Ok(Some(root.join(relative)))
}

/// Copies `from` to `root/path` through a temporary file renamed over it.
#[cfg(target_os = "linux")]
fn copy_in(root: &Path, path: &str, mut from: std::fs::File, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let at = parent_inside(root, path)?;
    if std::fs::symlink_metadata(&at).is_ok_and(|meta| meta.is_dir()) {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "a directory is in the way",
        ));
    }
    let directory = at.parent().unwrap_or(root);
    let mut temporary = tempfile::Builder::new()
        .prefix(".hone-")
        .suffix(".tmp")
        .tempfile_in(directory)?;
    io::copy(&mut from, temporary.as_file_mut())?;
    temporary
        .as_file()
        .set_permissions(std::fs::Permissions::from_mode(mode & 0o777))?;
    temporary.persist(&at).map_err(|error| error.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_directories_and_removals_stay_inside_the_project() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("keep.txt"), "keep").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("out")).unwrap();
        let op = |op: DirectOp| op.apply_in_place(&root);
        op(DirectOp::CreateDir {
            path: "build/cache".into(),
        })
        .unwrap();
        assert!(root.join("build/cache").is_dir());
        op(DirectOp::Symlink {
            path: "docs/latest".into(),
            target: "../build".into(),
        })
        .unwrap();
        assert_eq!(
            std::fs::read_link(root.join("docs/latest")).unwrap(),
            PathBuf::from("../build")
        );
        // Through a link out of the project: refused, the file out there untouched.
        assert!(
            op(DirectOp::RemoveFile {
                path: "out/keep.txt".into()
            })
            .is_err()
        );
        assert!(
            op(DirectOp::CreateDir {
                path: "out/new".into()
            })
            .is_err()
        );
        assert!(outside.path().join("keep.txt").exists());
        assert!(!outside.path().join("new").exists());
        // Removing a link removes the link, not what it points to.
        op(DirectOp::RemoveFile { path: "out".into() }).unwrap();
        assert!(outside.path().join("keep.txt").exists());
        op(DirectOp::RemoveDir {
            path: "build/cache".into(),
        })
        .unwrap();
        assert!(!root.join("build/cache").exists());
        std::fs::write(root.join("build/kept"), "x").unwrap();
        op(DirectOp::RemoveDir {
            path: "build".into(),
        })
        .unwrap();
        assert!(root.join("build/kept").exists());
        assert!(
            op(DirectOp::RemoveFile {
                path: "../escape".into()
            })
            .is_err()
        );
        op(DirectOp::RemoveFile {
            path: "missing/file".into(),
        })
        .unwrap();
    }
}
