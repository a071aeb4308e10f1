//! How hone opens the files it reads and writes itself — `.hone/` (audit logs, the index
//! database, context documents, the project configuration), instruction files such as
//! `AGENTS.md`, and the files its tools read — so that a symlink or special file committed
//! to a repository cannot send hone elsewhere:
//!
//! - [`open_regular`] / [`read_to_string_regular`]: never follow a final symlink
//!   (`O_NOFOLLOW`), never block on a FIFO or device (`O_NONBLOCK`), regular files only.
//! - [`open_append`]: the same for appending, creating the file when missing.
//! - [`write_atomically`]: a new temporary file next to the target (`O_EXCL`, so a planted
//!   symlink is never followed), then a rename over it.
//! - [`hone_dir`] / [`create_dir_inside`]: the `.hone` directory and directories under it,
//!   refused when they are symlinks.
//!
//! ```
//! let dir = tempfile::tempdir()?;
//! let file = dir.path().join("notes.txt");
//! hone_fs::write_atomically(&file, b"hello", None)?;
//! assert_eq!(hone_fs::read_to_string_regular(&file)?, "hello");
//! std::os::unix::fs::symlink(&file, dir.path().join("link"))?;
//! assert!(hone_fs::read_to_string_regular(&dir.path().join("link")).is_err());
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fs::{self, File, OpenOptions, Permissions};
use std::io::{self, ErrorKind, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::OFlags;

/// The directory of hone's own files in a project.
pub const HONE_DIR: &str = ".hone";

/// Flags for every open: no final symlink, no blocking open of a FIFO, no inheritance.
fn flags() -> i32 {
    // The flag values are small positive constants; the cast cannot lose bits.
    (OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC).bits() as i32
}

/// The error for a path that is a symlink or not a regular file.
fn refused(path: &Path, what: &str) -> io::Error {
    io::Error::new(
        ErrorKind::InvalidInput,
        format!(
            "{} is {what}; hone only opens regular files here and never follows symlinks",
            path.display()
        ),
    )
}

/// What kind of file is at `path` without following a symlink there, as a phrase for
/// messages (`"a symbolic link"`), or `None` for a regular file.
fn special_kind(file_type: fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if file_type.is_file() {
        None
    } else if file_type.is_symlink() {
        Some("a symbolic link")
    } else if file_type.is_dir() {
        Some("a directory")
    } else if file_type.is_fifo() {
        Some("a named pipe (FIFO)")
    } else if file_type.is_socket() {
        Some("a socket")
    } else if file_type.is_block_device() || file_type.is_char_device() {
        Some("a device")
    } else {
        Some("not a regular file")
    }
}

/// Checks that an open file is a regular file.
fn regular(file: File, path: &Path) -> io::Result<File> {
    match special_kind(file.metadata()?.file_type()) {
        None => Ok(file),
        Some(kind) => Err(refused(path, kind)),
    }
}

/// Maps the `ELOOP` of `O_NOFOLLOW` on a symlink to a clear message.
fn open_error(error: io::Error, path: &Path) -> io::Error {
    let is_link = fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink());
    if is_link {
        refused(path, "a symbolic link")
    } else {
        error
    }
}

/// Opens `path` for reading: refused when it is a symlink, a FIFO, a device, a socket or a
/// directory. Never blocks on a FIFO.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(flags())
        .open(path)
        .map_err(|error| open_error(error, path))?;
    regular(file, path)
}

/// Reads a regular file (see [`open_regular`]) as UTF-8 text.
pub fn read_to_string_regular(path: &Path) -> io::Result<String> {
    let mut text = String::new();
    open_regular(path)?.read_to_string(&mut text)?;
    Ok(text)
}

/// Opens `path` for appending, creating it when missing; refused like [`open_regular`].
pub fn open_append(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .append(true)
        .create(true)
        .custom_flags(flags())
        .open(path)
        .map_err(|error| open_error(error, path))?;
    regular(file, path)
}

/// Writes `bytes` to a new temporary file next to `path`, then renames it over `path`
/// (with `mode` when given). The temporary file is created exclusively, so no symlink is
/// followed; the rename replaces whatever entry `path` was, never a file it points to.
pub fn write_atomically(path: &Path, bytes: &[u8], mode: Option<Permissions>) -> io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temporary = path.with_file_name(format!(
        ".{name}.hone-{}-{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(flags())
            .open(&temporary)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        if let Some(mode) = mode {
            fs::set_permissions(&temporary, mode)?;
        }
        fs::rename(&temporary, path)
    })();
    if result.is_err() {
        // The temporary file may not exist; the write error is what matters.
        let _ = fs::remove_file(&temporary);
    }
    result
}

/// Like [`write_atomically`], but refuses to replace a symlink or special file at `path`
/// (hone's own files: a planted `.gitignore -> elsewhere` stays as it is).
pub fn replace_regular(path: &Path, bytes: &[u8]) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(meta) => {
            if let Some(kind) = special_kind(meta.file_type()) {
                return Err(refused(path, kind));
            }
        }
        Err(error) if error.kind() == ErrorKind::NotFound => {}
        Err(error) => return Err(error),
    }
    write_atomically(path, bytes, None)
}

/// `root/.hone`, checked: an error with a clear message when it is a symlink (a repository
/// could point it anywhere) or not a directory. It may not exist yet.
pub fn hone_dir(root: &Path) -> io::Result<PathBuf> {
    let dir = root.join(HONE_DIR);
    match fs::symlink_metadata(&dir) {
        Ok(meta) if meta.file_type().is_symlink() => Err(io::Error::new(
            ErrorKind::InvalidInput,
            format!(
                "{} is a symbolic link{}; hone keeps its own files only in a real .hone \
                 directory — remove the link (or replace it with a directory) to use it",
                dir.display(),
                fs::read_link(&dir)
                    .map(|target| format!(" to {}", target.display()))
                    .unwrap_or_default()
            ),
        )),
        Ok(meta) if !meta.is_dir() => Err(refused(&dir, "not a directory")),
        Ok(_) => Ok(dir),
        Err(error) if error.kind() == ErrorKind::NotFound => Ok(dir),
        Err(error) => Err(error),
    }
}

/// Creates `root/relative` and its missing parents; refused when any existing part below
/// `root` is a symlink or not a directory. Returns the directory.
pub fn create_dir_inside(root: &Path, relative: &Path) -> io::Result<PathBuf> {
    let mut current = root.to_path_buf();
    for component in relative.components() {
        let std::path::Component::Normal(part) = component else {
            return Err(io::Error::new(
                ErrorKind::InvalidInput,
                format!("{} is not a plain relative path", relative.display()),
            ));
        };
        current.push(part);
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.is_dir() => {}
            Ok(meta) => {
                return Err(refused(
                    &current,
                    special_kind(meta.file_type()).unwrap_or("a file, not a directory"),
                ));
            }
            Err(error) if error.kind() == ErrorKind::NotFound => match fs::create_dir(&current) {
                Ok(()) => {}
                Err(error) if error.kind() == ErrorKind::AlreadyExists => {
                    // Created meanwhile: check it again rather than trust it.
                    if !fs::symlink_metadata(&current)?.is_dir() {
                        return Err(refused(&current, "not a directory"));
                    }
                }
                Err(error) => return Err(error),
            },
            Err(error) => return Err(error),
        }
    }
    Ok(current)
}

/// Whether the directory `dir` can be written (a read-only mount, or permissions, say no),
/// asked of the kernel without creating anything.
pub fn check_writable_dir(dir: &Path) -> io::Result<()> {
    rustix::fs::access(dir, rustix::fs::Access::WRITE_OK).map_err(io::Error::from)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    #[test]
    fn a_temporary_directory_is_writable_and_a_missing_one_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        check_writable_dir(dir.path()).unwrap();
        let missing = check_writable_dir(&dir.path().join("nope")).unwrap_err();
        assert_eq!(missing.kind(), ErrorKind::NotFound);
    }

    #[test]
    fn symlinks_are_never_followed_for_reading_or_appending() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.txt");
        fs::write(&outside, "secret").unwrap();
        let link = dir.path().join("link");
        symlink(&outside, &link).unwrap();
        let error = read_to_string_regular(&link).unwrap_err();
        assert!(error.to_string().contains("symbolic link"), "{error}");
        let error = open_append(&link).unwrap_err();
        assert!(error.to_string().contains("symbolic link"), "{error}");
        assert_eq!(fs::read_to_string(&outside).unwrap(), "secret");
        let dangling = dir.path().join("dangling");
        symlink(dir.path().join("missing"), &dangling).unwrap();
        assert!(open_append(&dangling).is_err());
        assert!(!dir.path().join("missing").exists());
    }

    #[test]
    fn fifos_and_directories_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let error = open_regular(&fifo).unwrap_err();
        assert!(error.to_string().contains("FIFO"), "{error}");
        assert!(open_append(&fifo).is_err());
        let error = open_regular(dir.path()).unwrap_err();
        assert!(error.to_string().contains("directory"), "{error}");
    }

    #[test]
    fn replacing_refuses_a_symlink_and_writes_regular_files_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        fs::write(&outside, "keep").unwrap();
        let link = dir.path().join(".gitignore");
        symlink(&outside, &link).unwrap();
        assert!(replace_regular(&link, b"*\n").is_err());
        assert_eq!(fs::read_to_string(&outside).unwrap(), "keep");
        let plain = dir.path().join("plain");
        replace_regular(&plain, b"one").unwrap();
        replace_regular(&plain, b"two").unwrap();
        assert_eq!(fs::read_to_string(&plain).unwrap(), "two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 3);
    }

    #[test]
    fn a_hone_dir_that_is_a_symlink_is_refused_with_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = dir.path().join("elsewhere");
        let root = dir.path().join("project");
        fs::create_dir_all(&elsewhere).unwrap();
        fs::create_dir_all(&root).unwrap();
        assert_eq!(hone_dir(&root).unwrap(), root.join(".hone"));
        symlink(&elsewhere, root.join(".hone")).unwrap();
        let message = hone_dir(&root).unwrap_err().to_string();
        assert!(message.contains("symbolic link to"), "{message}");
        assert!(create_dir_inside(&root, Path::new(".hone/logs")).is_err());
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
    }

    #[test]
    fn directories_are_created_below_the_root_only_through_real_directories() {
        let dir = tempfile::tempdir().unwrap();
        let made = create_dir_inside(dir.path(), Path::new(".hone/logs/commands")).unwrap();
        assert!(made.is_dir());
        assert!(create_dir_inside(dir.path(), Path::new("../x")).is_err());
    }
}
