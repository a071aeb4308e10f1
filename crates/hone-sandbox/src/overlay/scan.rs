//! Reading an overlay's upper layer after the command: what it wrote, removed and replaced.
//!
//! The layer is walked by file descriptor (`openat` with `O_NOFOLLOW` below the layer's
//! own descriptor), so no name in it — a link the command made, or a directory swapped for
//! one — can lead the reader anywhere else. With the `userxattr` mount option the overlay
//! marks a removed entry with a whiteout (a character device 0/0) and a directory that
//! replaced one of the project (`rm -r d; mkdir d`) with the attribute
//! `user.overlay.opaque = "y"`.

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

use rustix::fs::{
    AtFlags, CWD, Dir, FileType, Mode, OFlags, fgetxattr, openat, readlinkat, statat,
};

/// Directories deeper than this are not walked (reported as [`UpperEntry::Unsupported`]).
const MAX_DEPTH: usize = 128;

/// The attributes that mark an opaque directory (`userxattr` mounts use the first).
const OPAQUE_ATTRIBUTES: [&str; 2] = ["user.overlay.opaque", "trusted.overlay.opaque"];

/// One entry of the upper layer; paths are relative to the overlay's root, `/`-separated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpperEntry {
    /// A regular file the command wrote: created, or copied up from the project (and
    /// perhaps changed).
    File {
        /// Where.
        path: String,
        /// Its size in bytes.
        size: u64,
        /// Its permission bits (`0o644`).
        mode: u32,
    },
    /// A directory: created, or copied up to hold a change below it. `opaque` when it
    /// replaced a directory of the project: what the project has below it is gone.
    Directory {
        /// Where.
        path: String,
        /// Whether it hides the project's directory below.
        opaque: bool,
    },
    /// A symbolic link the command made.
    Symlink {
        /// Where.
        path: String,
        /// What it points to, as written.
        target: PathBuf,
    },
    /// The command removed what the project has at this path (file or directory).
    Removed {
        /// Where.
        path: String,
    },
    /// Something hone does not carry over: a named pipe, a socket, a device, a name that
    /// is not UTF-8, an entry it could not read.
    Unsupported {
        /// Where (lossy for names that are not UTF-8).
        path: String,
        /// What it is, in words.
        what: String,
    },
}

impl UpperEntry {
    /// The entry's path.
    pub fn path(&self) -> &str {
        match self {
            Self::File { path, .. }
            | Self::Directory { path, .. }
            | Self::Symlink { path, .. }
            | Self::Removed { path }
            | Self::Unsupported { path, .. } => path,
        }
    }
}

/// An upper layer opened for reading.
#[derive(Debug)]
pub struct UpperLayer {
    root: OwnedFd,
}

impl UpperLayer {
    /// Opens the layer at `path` (itself not a link).
    pub fn open(path: &Path) -> io::Result<Self> {
        Ok(Self {
            root: openat(CWD, path, dir_flags(), Mode::empty())?,
        })
    }

    /// Every entry, parents before children, sorted by path within a directory.
    pub fn entries(&self) -> io::Result<Vec<UpperEntry>> {
        let mut entries = Vec::new();
        walk(&self.root, "", 0, &mut entries)?;
        Ok(entries)
    }

    /// Opens the regular file at `path` in the layer for reading, by descriptor from the
    /// layer's root: a link anywhere on the way is refused.
    pub fn open_file(&self, path: &str) -> io::Result<File> {
        let parts: Vec<&str> = path.split('/').collect();
        let Some((name, dirs)) = parts.split_last() else {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "empty path"));
        };
        if parts
            .iter()
            .any(|part| part.is_empty() || *part == "." || *part == "..")
        {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{path} is not a plain relative path"),
            ));
        }
        let mut dir: Option<OwnedFd> = None;
        for part in dirs {
            let next = openat(
                dir.as_ref().unwrap_or(&self.root),
                *part,
                dir_flags(),
                Mode::empty(),
            )?;
            dir = Some(next);
        }
        let file: OwnedFd = openat(
            dir.as_ref().unwrap_or(&self.root),
            *name,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        let file = File::from(file);
        if !file.metadata()?.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{path} is not a regular file"),
            ));
        }
        Ok(file)
    }
}

fn dir_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
}

/// Appends the entries below `dir` (whose path is `prefix`) to `out`.
fn walk(dir: &OwnedFd, prefix: &str, depth: usize, out: &mut Vec<UpperEntry>) -> io::Result<()> {
    let mut names: Vec<Vec<u8>> = Vec::new();
    for entry in Dir::read_from(dir)? {
        let name = entry?.file_name().to_bytes().to_vec();
        if name != b"." && name != b".." {
            names.push(name);
        }
    }
    names.sort();
    for name in names {
        let shown = String::from_utf8_lossy(&name).into_owned();
        let path = if prefix.is_empty() {
            shown.clone()
        } else {
            format!("{prefix}/{shown}")
        };
        let unsupported = |what: String| UpperEntry::Unsupported {
            path: path.clone(),
            what,
        };
        if std::str::from_utf8(&name).is_err() {
            out.push(unsupported("a name that is not UTF-8".to_string()));
            continue;
        }
        let stat = match statat(dir, name.as_slice(), AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => stat,
            Err(error) => {
                out.push(unsupported(format!("unreadable ({error})")));
                continue;
            }
        };
        match FileType::from_raw_mode(stat.st_mode) {
            FileType::Directory if depth >= MAX_DEPTH => {
                out.push(unsupported("a directory nested too deeply".to_string()));
            }
            FileType::Directory => match openat(dir, name.as_slice(), dir_flags(), Mode::empty()) {
                Ok(child) => {
                    out.push(UpperEntry::Directory {
                        path: path.clone(),
                        opaque: is_opaque(&child),
                    });
                    walk(&child, &path, depth + 1, out)?;
                }
                Err(error) => out.push(unsupported(format!("unreadable ({error})"))),
            },
            FileType::RegularFile => out.push(UpperEntry::File {
                size: u64::try_from(stat.st_size).unwrap_or(0),
                mode: stat.st_mode & 0o7777,
                path,
            }),
            FileType::Symlink => match readlinkat(dir, name.as_slice(), Vec::new()) {
                Ok(target) => out.push(UpperEntry::Symlink {
                    path,
                    target: PathBuf::from(OsString::from_vec(target.into_bytes())),
                }),
                Err(error) => out.push(unsupported(format!("unreadable ({error})"))),
            },
            FileType::CharacterDevice if stat.st_rdev == 0 => {
                out.push(UpperEntry::Removed { path });
            }
            FileType::Fifo => out.push(unsupported("a named pipe".to_string())),
            FileType::Socket => out.push(unsupported("a socket".to_string())),
            FileType::CharacterDevice | FileType::BlockDevice => {
                out.push(unsupported("a device".to_string()));
            }
            FileType::Unknown => out.push(unsupported("of an unknown kind".to_string())),
        }
    }
    Ok(())
}

/// Whether the directory is marked opaque.
fn is_opaque(dir: &OwnedFd) -> bool {
    OPAQUE_ATTRIBUTES.iter().any(|attribute| {
        let mut value = [0_u8; 8];
        fgetxattr(dir, *attribute, &mut value[..]).is_ok_and(|length| value[..length] == *b"y")
    })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    fn upper() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::write(root.join("src/lib.rs"), "fn main() {}\n").unwrap();
        std::fs::write(root.join("src/deep/blob.bin"), [0_u8, 159, 146, 150]).unwrap();
        symlink("../outside", root.join("src/link")).unwrap();
        dir
    }

    #[test]
    fn files_directories_and_links_are_listed_in_order() {
        let dir = upper();
        let layer = UpperLayer::open(dir.path()).unwrap();
        let entries = layer.entries().unwrap();
        let paths: Vec<&str> = entries.iter().map(UpperEntry::path).collect();
        assert_eq!(
            paths,
            [
                "src",
                "src/deep",
                "src/deep/blob.bin",
                "src/lib.rs",
                "src/link"
            ]
        );
        assert!(matches!(
            &entries[2],
            UpperEntry::File { size: 4, mode, .. } if mode & 0o600 == 0o600
        ));
        assert_eq!(
            entries[4],
            UpperEntry::Symlink {
                path: "src/link".to_string(),
                target: PathBuf::from("../outside"),
            }
        );
        assert!(matches!(
            &entries[0],
            UpperEntry::Directory { opaque: false, .. }
        ));
    }

    #[test]
    fn opaque_directories_are_recognised_by_their_attribute() {
        let dir = upper();
        let marked = rustix::fs::setxattr(
            dir.path().join("src/deep"),
            "user.overlay.opaque",
            b"y",
            rustix::fs::XattrFlags::empty(),
        );
        if marked.is_err() {
            eprintln!("SKIPPED: no user extended attributes on this file system");
            return;
        }
        let entries = UpperLayer::open(dir.path()).unwrap().entries().unwrap();
        assert!(entries.contains(&UpperEntry::Directory {
            path: "src/deep".to_string(),
            opaque: true
        }));
    }

    #[test]
    fn files_open_only_through_real_directories_and_never_through_links() {
        let dir = upper();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "s").unwrap();
        symlink(outside.path(), dir.path().join("out")).unwrap();
        let layer = UpperLayer::open(dir.path()).unwrap();
        let mut text = String::new();
        std::io::Read::read_to_string(&mut layer.open_file("src/lib.rs").unwrap(), &mut text)
            .unwrap();
        assert_eq!(text, "fn main() {}\n");
        assert!(layer.open_file("out/secret").is_err());
        assert!(layer.open_file("src/link").is_err());
        assert!(layer.open_file("src").is_err());
        assert!(layer.open_file("src/../src/lib.rs").is_err());
        assert!(layer.open_file("").is_err());
    }

    #[test]
    fn names_that_are_not_utf8_and_fifos_are_unsupported() {
        let dir = tempfile::tempdir().unwrap();
        let odd = OsString::from_vec(vec![b'a', 0xff]);
        std::fs::write(dir.path().join(&odd), "x").unwrap();
        rustix::fs::mknodat(
            CWD,
            dir.path().join("pipe"),
            FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let entries = UpperLayer::open(dir.path()).unwrap().entries().unwrap();
        assert!(matches!(
            &entries[0],
            UpperEntry::Unsupported { what, .. } if what.contains("UTF-8")
        ));
        assert_eq!(
            entries[1],
            UpperEntry::Unsupported {
                path: "pipe".to_string(),
                what: "a named pipe".to_string()
            }
        );
    }

    #[test]
    fn a_whiteout_is_a_removal() {
        let dir = tempfile::tempdir().unwrap();
        // The kernel lets anyone make the 0/0 device overlays use as whiteouts.
        let made = rustix::fs::mknodat(
            CWD,
            dir.path().join("gone.txt"),
            FileType::CharacterDevice,
            Mode::empty(),
            0,
        );
        if let Err(error) = made {
            eprintln!("SKIPPED: cannot make a whiteout here ({error})");
            return;
        }
        let entries = UpperLayer::open(dir.path()).unwrap().entries().unwrap();
        assert_eq!(
            entries,
            [UpperEntry::Removed {
                path: "gone.txt".to_string()
            }]
        );
    }
}
