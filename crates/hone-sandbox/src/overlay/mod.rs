//! Commands on a copy-on-write view of the project (Linux, with namespaces).
//!
//! hone makes an [`OverlayDir`] — a private directory (mode 0700, outside every writable
//! root) — before a command starts and names it in the policy's [`Overlay`]. The sandbox's
//! init mounts an overlay file system over the working directory whose upper layer is
//! `DIR/upper`, binds the [`Overlay::passthrough`] directories (build output) straight
//! through, and hides `DIR` from the command. Every other write the command makes lands in
//! the upper layer; the project itself stays as it was. After the command has ended (and
//! with it every process of its namespace), hone reads the upper layer from outside the
//! sandbox with [`UpperLayer`] — by file descriptor, never following a link — and turns it
//! into one change to apply.

#[cfg(target_os = "linux")]
mod scan;

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

#[cfg(target_os = "linux")]
pub use scan::{UpperEntry, UpperLayer};

/// The flag of `hone sandbox` that names the private directory of a copy-on-write view.
pub const OVERLAY_FLAG: &str = "--overlay-dir";
/// The flag of `hone sandbox` that passes a directory of the project straight through the
/// copy-on-write view (repeatable).
pub const PASSTHROUGH_FLAG: &str = "--passthrough";

/// The directories passed straight through by default: build output that is large,
/// rebuilt at will and ignored by version control.
pub const DEFAULT_PASSTHROUGH: [&str; 2] = ["target", "node_modules"];

/// Names inside the project that may never be passed through (they stay read-only).
const NEVER_PASSED: [&str; 2] = [".git", ".hone"];

/// A copy-on-write view of the working directory for one command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlay {
    /// The private directory ([`OverlayDir::path`]) whose `upper` receives the changes.
    pub dir: PathBuf,
    /// Directories of the working directory (relative) written straight through.
    pub passthrough: Vec<PathBuf>,
}

/// Whether `relative` may be passed straight through: a plain relative path that is not
/// (inside) `.git` or `.hone`.
pub fn valid_passthrough(relative: &Path) -> bool {
    let mut components = relative.components().peekable();
    let first_is_protected = components.peek().is_some_and(|first| {
        NEVER_PASSED
            .iter()
            .any(|name| first.as_os_str() == std::ffi::OsStr::new(name))
    });
    !first_is_protected
        && components.peek().is_some()
        && relative
            .components()
            .all(|component| matches!(component, std::path::Component::Normal(_)))
}

/// The private directory of one copy-on-write view: `upper` (the command's changes),
/// `work` (the overlay's own) and a marker of when the command started. Removed on drop.
#[derive(Debug)]
pub struct OverlayDir {
    dir: tempfile::TempDir,
    started: SystemTime,
}

impl OverlayDir {
    /// Creates the directory (mode 0700) in the system's temporary directory, which the
    /// sandbox hides from commands, and marks the start: a file changed in the project
    /// after [`OverlayDir::started`] was changed while the command ran.
    pub fn create() -> io::Result<Self> {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::Builder::new().prefix("hone-overlay-").tempdir()?;
        // Before anything is in it.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))?;
        std::fs::create_dir(dir.path().join("upper"))?;
        std::fs::create_dir(dir.path().join("work"))?;
        // The file system's own clock, the one the project's change times come from.
        let marker = File::create_new(dir.path().join("started"))?;
        let metadata = marker.metadata()?;
        let started = change_time(&metadata);
        Ok(Self { dir, started })
    }

    /// The directory, for [`Overlay::dir`].
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// When the command started, by the file system's clock.
    pub fn started(&self) -> SystemTime {
        self.started
    }

    /// Opens the upper layer to read what the command changed (once it has ended).
    #[cfg(target_os = "linux")]
    pub fn upper(&self) -> io::Result<UpperLayer> {
        UpperLayer::open(&self.dir.path().join("upper"))
    }
}

impl Drop for OverlayDir {
    fn drop(&mut self) {
        // The overlay leaves `work/work` without permissions, and a command may have made
        // directories unreadable: open them up so the removal gets through.
        make_removable(self.dir.path());
    }
}

/// Gives every directory below `root` (and `root`) its owner's full permissions where it
/// lacks them, so it can be removed; errors are left to the removal to report.
fn make_removable(root: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(metadata) = std::fs::symlink_metadata(root) else {
        return;
    };
    if !metadata.is_dir() {
        return;
    }
    if metadata.permissions().mode() & 0o700 != 0o700 {
        let _ = std::fs::set_permissions(root, std::fs::Permissions::from_mode(0o700));
    }
    let Ok(children) = std::fs::read_dir(root) else {
        return;
    };
    for child in children.flatten() {
        if child.file_type().is_ok_and(|kind| kind.is_dir()) {
            make_removable(&child.path());
        }
    }
}

/// The change time (`ctime`) of a file: set by the kernel on every change of its content
/// or metadata, and not settable by programs.
pub fn change_time(metadata: &std::fs::Metadata) -> SystemTime {
    use std::os::unix::fs::MetadataExt;
    let seconds = u64::try_from(metadata.ctime()).unwrap_or(0);
    let nanos = u32::try_from(metadata.ctime_nsec()).unwrap_or(0);
    SystemTime::UNIX_EPOCH + std::time::Duration::new(seconds, nanos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_paths_outside_git_and_hone_pass_through() {
        for good in ["target", "node_modules", "web/node_modules", ".venv"] {
            assert!(valid_passthrough(Path::new(good)), "{good}");
        }
        for bad in [
            "",
            ".git",
            ".git/hooks",
            ".hone",
            "../x",
            "/abs",
            "a/../b",
            "./target",
        ] {
            assert!(!valid_passthrough(Path::new(bad)), "{bad}");
        }
    }

    #[test]
    fn the_private_directory_is_closed_to_others_and_gone_after_use() {
        use std::os::unix::fs::PermissionsExt;
        let overlay = OverlayDir::create().unwrap();
        let path = overlay.path().to_path_buf();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        assert!(path.join("upper").is_dir() && path.join("work").is_dir());
        assert!(overlay.started() <= SystemTime::now());
        // What an overlay leaves behind: a directory without any permission.
        let locked = path.join("work/work");
        std::fs::create_dir(&locked).unwrap();
        std::fs::write(locked.join("x"), "x").unwrap();
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
        drop(overlay);
        assert!(!path.exists());
    }
}
