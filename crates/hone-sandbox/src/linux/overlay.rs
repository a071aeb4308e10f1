//! The copy-on-write view of the working directory, mounted by the init in its own mount
//! namespace: an overlay whose lower layer is the project and whose upper layer is the
//! private directory hone made ([`crate::overlay`]). It is mounted before the view makes
//! every mount read-only (the overlay needs its upper layer writable then, and keeps its
//! own private handle on it); the directories passed through are bound over it afterwards,
//! and the private directory is hidden last.

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use nix::mount::{MsFlags, mount};
use rustix::fs::{CWD, Mode, OFlags, openat};

use super::mountinfo;
use crate::SandboxError;
use crate::overlay::{Overlay, valid_passthrough};

/// What is left to do once the view is built.
#[derive(Debug)]
pub(crate) struct Mounted {
    /// The directories passed through: where they appear, a handle on the real one, and
    /// the flags of the mount it lives on.
    passthrough: Vec<(PathBuf, OwnedFd, MsFlags)>,
    /// The private directory, hidden from the command.
    private: PathBuf,
}

/// Mounts the overlay over `workdir` (which must be canonical).
pub(crate) fn mount_view(workdir: &Path, overlay: &Overlay) -> Result<Mounted, SandboxError> {
    let fail = |what: &str, error: &dyn std::fmt::Display| {
        SandboxError::Setup(format!("the copy-on-write view: {what}: {error}"))
    };
    let table = std::fs::read_to_string("/proc/self/mountinfo")
        .map_err(|error| fail("reading /proc/self/mountinfo", &error))?;
    let mounts = mountinfo::parse(&table);
    // Handles on the real directories, taken before the overlay covers them.
    let mut passthrough = Vec::new();
    for relative in &overlay.passthrough {
        if !valid_passthrough(relative) {
            return Err(fail(
                "passing through",
                &format!(
                    "{} is not a plain path inside the project",
                    relative.display()
                ),
            ));
        }
        if let Some(handle) = open_beneath(workdir, relative)
            .map_err(|error| fail(&format!("opening {}", relative.display()), &error))?
        {
            let target = workdir.join(relative);
            let flags = mounts
                .iter()
                .filter(|entry| target.starts_with(&entry.point))
                .max_by_key(|entry| entry.point.as_os_str().len())
                .map_or(MsFlags::empty(), |entry| entry.flags);
            passthrough.push((target, handle, flags));
        }
    }
    let options = format!(
        "lowerdir={},upperdir={},workdir={},userxattr",
        escape(workdir),
        escape(&overlay.dir.join("upper")),
        escape(&overlay.dir.join("work")),
    );
    mount(
        Some("overlay"),
        workdir,
        Some("overlay"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
        Some(options.as_str()),
    )
    .map_err(|error| fail("mounting the overlay", &error))?;
    Ok(Mounted {
        passthrough,
        private: overlay.dir.clone(),
    })
}

/// Binds the directories passed through over the view and hides the private directory.
pub(crate) fn finish(mounted: &Mounted) -> Result<(), SandboxError> {
    let fail = |what: &str, path: &Path, error: &dyn std::fmt::Display| {
        SandboxError::Setup(format!("{what} {}: {error}", path.display()))
    };
    for (target, handle, flags) in &mounted.passthrough {
        let source = PathBuf::from(format!("/proc/self/fd/{}", handle.as_raw_fd()));
        mount(
            Some(&source),
            target,
            None::<&str>,
            MsFlags::MS_BIND | MsFlags::MS_REC,
            None::<&str>,
        )
        .map_err(|error| fail("passing through", target, &error))?;
        mount(
            None::<&str>,
            target,
            None::<&str>,
            MsFlags::MS_REMOUNT
                | MsFlags::MS_BIND
                | (*flags - MsFlags::MS_RDONLY)
                | MsFlags::MS_NOSUID
                | MsFlags::MS_NODEV,
            None::<&str>,
        )
        .map_err(|error| fail("making writable", target, &error))?;
    }
    // Where the private directory is still visible (the project lives in the temporary
    // directory), an empty read-only file system covers it.
    match mount(
        Some("tmpfs"),
        &mounted.private,
        Some("tmpfs"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC | MsFlags::MS_RDONLY,
        Some("mode=0"),
    ) {
        Ok(()) | Err(Errno::ENOENT) => Ok(()),
        Err(error) => Err(fail("hiding", &mounted.private, &error)),
    }
}

/// A handle on the directory `relative` below `root`, opened one component at a time
/// without following links; `None` when it does not exist.
fn open_beneath(root: &Path, relative: &Path) -> std::io::Result<Option<OwnedFd>> {
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut current = openat(CWD, root, flags, Mode::empty())?;
    for part in relative.components() {
        current = match openat(&current, part.as_os_str(), flags, Mode::empty()) {
            Ok(next) => next,
            Err(rustix::io::Errno::NOENT) => return Ok(None),
            Err(rustix::io::Errno::NOTDIR | rustix::io::Errno::LOOP) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "not a directory (a link or a file is never passed through)",
                ));
            }
            Err(error) => return Err(error.into()),
        };
    }
    Ok(Some(current))
}

/// `path` for the overlay's option string: `\`, `,` and `:` escaped with a backslash.
fn escape(path: &Path) -> String {
    let text = path.to_string_lossy();
    let mut out = String::with_capacity(text.len());
    for char in text.chars() {
        if matches!(char, '\\' | ',' | ':') {
            out.push('\\');
        }
        out.push(char);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_separators_in_paths_are_escaped() {
        assert_eq!(escape(Path::new("/a,b:c\\d")), "/a\\,b\\:c\\\\d");
        assert_eq!(escape(Path::new("/plain/path")), "/plain/path");
    }

    #[test]
    fn only_real_directories_are_opened_for_passing_through() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("web/node_modules")).unwrap();
        std::fs::write(root.join("file"), "x").unwrap();
        std::os::unix::fs::symlink("/", root.join("target")).unwrap();
        assert!(
            open_beneath(root, Path::new("web/node_modules"))
                .unwrap()
                .is_some()
        );
        assert!(open_beneath(root, Path::new("missing")).unwrap().is_none());
        assert!(open_beneath(root, Path::new("target")).is_err());
        assert!(open_beneath(root, Path::new("file")).is_err());
    }
}
