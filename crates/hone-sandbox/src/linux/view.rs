//! The file system a command with namespaces sees, built by the init process in its own
//! mount namespace (where it holds every capability of its user namespace): every mount
//! read-only (so permissions, owners, times and extended attributes outside cannot change
//! either), a fresh `/proc` of the command's PID namespace, empty file systems over the home
//! directory, `/tmp`, `/var/tmp` and `/run` (no host sockets, no secrets in the home), a
//! `/dev` with the harmless devices only, and then what the command needs bound back: the
//! writable roots (read-write, without set-uid or device nodes, their `.git` and `.hone`
//! read-only) and the toolchain directories (read-only).

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use nix::mount::{MsFlags, mount};

use super::mountinfo::{self, Mount};
use crate::SandboxError;

/// The directories hidden behind an empty file system (where they exist and hold no
/// writable root).
const HIDDEN: [&str; 3] = ["/tmp", "/var/tmp", "/run"];

/// The device nodes bound into the new `/dev`.
const DEVICES: [&str; 6] = ["null", "zero", "full", "random", "urandom", "tty"];

/// The links of a usual `/dev`.
const DEV_LINKS: [(&str, &str); 4] = [
    ("fd", "/proc/self/fd"),
    ("stdin", "/proc/self/fd/0"),
    ("stdout", "/proc/self/fd/1"),
    ("stderr", "/proc/self/fd/2"),
];

/// Inside a writable root, what stays read-only: hone's and git's own state (git runs
/// hooks and configured programs from `.git` outside the sandbox later).
const PROTECTED: [&str; 2] = [".git", ".hone"];

/// What to build, decided from paths alone (nothing mounted yet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ViewPlan {
    /// Directories the command writes, canonical.
    pub writable: Vec<PathBuf>,
    /// Directories hidden behind an empty file system.
    pub hidden: Vec<PathBuf>,
    /// Paths bound back into the hidden directories: the writable roots and the readable
    /// directories inside them.
    pub kept: Vec<PathBuf>,
    /// Read-only paths inside the writable roots.
    pub protected: Vec<PathBuf>,
}

impl ViewPlan {
    /// The plan for `writable` roots, the `readable` directories (toolchains, the user's
    /// additions) and the home directory `home`. Paths that do not exist are left out.
    pub(crate) fn new(writable: &[PathBuf], readable: &[PathBuf], home: Option<&Path>) -> Self {
        let writable: Vec<PathBuf> = unique(writable.iter().filter_map(canonical));
        let holds_writable = |dir: &Path| writable.iter().any(|root| dir.starts_with(root));
        let hidden: Vec<PathBuf> = unique(
            home.filter(|home| home.is_absolute() && home.parent().is_some())
                .into_iter()
                .map(Path::to_path_buf)
                .chain(HIDDEN.iter().map(PathBuf::from))
                .filter_map(|dir| canonical(&dir))
                .filter(|dir| dir.is_dir() && !holds_writable(dir)),
        );
        let inside_hidden = |path: &Path| hidden.iter().any(|dir| path.starts_with(dir));
        let kept = unique(
            writable
                .iter()
                .cloned()
                .chain(readable.iter().filter_map(canonical))
                .filter(|path| inside_hidden(path)),
        );
        // A protected name that is a link is protected where it leads, when that is
        // inside a writable root (elsewhere it is read-only anyway).
        // A submodule's `.git` file is git state too: pointed elsewhere, the next `git
        // status` in the project would run that repository's configured programs.
        let protected = unique(
            writable
                .iter()
                .flat_map(|root| {
                    PROTECTED.iter().map(move |name| root.join(name)).chain(
                        submodules(root)
                            .into_iter()
                            .map(move |path| root.join(path).join(".git")),
                    )
                })
                .filter_map(canonical)
                .filter(|path| holds_writable(path)),
        );
        Self {
            writable,
            hidden,
            kept,
            protected,
        }
    }
}

/// The submodule paths `.gitmodules` of `root` lists (`path = lib/x` lines), relative
/// paths inside the root only.
fn submodules(root: &Path) -> Vec<PathBuf> {
    let Ok(text) = std::fs::read_to_string(root.join(".gitmodules")) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|line| {
            let (key, value) = line.split_once('=')?;
            (key.trim() == "path").then(|| PathBuf::from(value.trim()))
        })
        .filter(|path| {
            path.components()
                .all(|part| matches!(part, std::path::Component::Normal(_)))
        })
        .collect()
}

fn canonical(path: impl AsRef<Path>) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

fn unique(paths: impl Iterator<Item = PathBuf>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for path in paths {
        if !out.contains(&path) {
            out.push(path);
        }
    }
    out
}

/// Builds the view of `plan` in the calling process's mount namespace.
pub(crate) fn build(plan: &ViewPlan) -> Result<(), SandboxError> {
    let fail = |what: &str, path: &Path, error: &dyn std::fmt::Display| {
        SandboxError::Setup(format!("{what} {}: {error}", path.display()))
    };
    mount(
        None::<&str>,
        "/",
        None::<&str>,
        MsFlags::MS_REC | MsFlags::MS_PRIVATE,
        None::<&str>,
    )
    .map_err(|error| fail("making private", Path::new("/"), &error))?;
    // Handles on what is bound back later, opened while it is still visible.
    let kept = open_all(&plan.kept).map_err(|(path, error)| fail("opening", &path, &error))?;
    let devices: Vec<PathBuf> = DEVICES
        .iter()
        .map(|name| Path::new("/dev").join(name))
        .collect();
    let devices = open_all(&devices).map_err(|(path, error)| fail("opening", &path, &error))?;
    let table = std::fs::read_to_string("/proc/self/mountinfo")
        .map_err(|error| fail("reading", Path::new("/proc/self/mountinfo"), &error))?;
    let mounts = mountinfo::parse(&table);
    for entry in &mounts {
        if entry.point.starts_with("/proc") {
            continue;
        }
        let flags = MsFlags::MS_REMOUNT | MsFlags::MS_BIND | MsFlags::MS_RDONLY | entry.flags;
        match mount(
            None::<&str>,
            &entry.point,
            None::<&str>,
            flags,
            None::<&str>,
        ) {
            // A mount point under another mount, or one this user cannot reach, is not
            // visible to the command either.
            Ok(()) | Err(nix::errno::Errno::ENOENT | nix::errno::Errno::EACCES) => {}
            Err(error) => return Err(fail("making read-only", &entry.point, &error)),
        }
    }
    mount(
        Some("proc"),
        "/proc",
        Some("proc"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
        None::<&str>,
    )
    .map_err(|error| fail("mounting a new", Path::new("/proc"), &error))?;
    for dir in &plan.hidden {
        mount_tmpfs(dir, "mode=0755").map_err(|error| fail("hiding", dir, &error))?;
    }
    build_dev(&devices).map_err(|error| fail("building", Path::new("/dev"), &error))?;
    for (path, handle) in &kept {
        bind_back(path, handle).map_err(|error| fail("binding back", path, &error))?;
    }
    for root in &plan.writable {
        let flags = containing(&mounts, root).map_or(MsFlags::empty(), |entry| entry.flags);
        if flags.contains(MsFlags::MS_RDONLY) {
            continue;
        }
        bind(root, root).map_err(|error| fail("binding", root, &error))?;
        remount(
            root,
            flags | MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
            "making writable",
        )?;
    }
    for path in &plan.protected {
        bind(path, path).map_err(|error| fail("binding", path, &error))?;
        remount(
            path,
            MsFlags::MS_RDONLY | MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
            "making read-only",
        )?;
    }
    Ok(())
}

/// The mount `path` lives on: the one with the longest mount point above it.
fn containing<'a>(mounts: &'a [Mount], path: &Path) -> Option<&'a Mount> {
    mounts
        .iter()
        .filter(|entry| path.starts_with(&entry.point))
        .max_by_key(|entry| entry.point.as_os_str().len())
}

fn open_all(paths: &[PathBuf]) -> Result<Vec<(PathBuf, File)>, (PathBuf, io::Error)> {
    paths
        .iter()
        .filter(|path| path.exists())
        .map(|path| {
            std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_PATH | libc::O_CLOEXEC)
                .open(path)
                .map(|file| (path.clone(), file))
                .map_err(|error| (path.clone(), error))
        })
        .collect()
}

fn mount_tmpfs(dir: &Path, options: &str) -> nix::Result<()> {
    mount(
        Some("tmpfs"),
        dir,
        Some("tmpfs"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
        Some(options),
    )
}

fn bind(source: &Path, target: &Path) -> nix::Result<()> {
    mount(
        Some(source),
        target,
        None::<&str>,
        MsFlags::MS_BIND | MsFlags::MS_REC,
        None::<&str>,
    )
}

fn remount(path: &Path, flags: MsFlags, what: &str) -> Result<(), SandboxError> {
    mount(
        None::<&str>,
        path,
        None::<&str>,
        MsFlags::MS_REMOUNT | MsFlags::MS_BIND | flags,
        None::<&str>,
    )
    .map_err(|error| SandboxError::Setup(format!("{what} {}: {error}", path.display())))
}

/// Binds the file or directory `handle` (opened at `path` before it was hidden) back at
/// `path`, creating the mount point in the empty file system above it.
fn bind_back(path: &Path, handle: &File) -> io::Result<()> {
    if handle.metadata()?.is_dir() {
        std::fs::create_dir_all(path)?;
    } else {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        File::create(path)?;
    }
    let source = PathBuf::from(format!("/proc/self/fd/{}", handle.as_raw_fd()));
    bind(&source, path).map_err(io::Error::from)
}

/// A new `/dev`: the harmless devices bound from the old one, the usual links, an empty
/// `/dev/shm`; the rest (disks, terminals of other sessions, kernel interfaces) absent.
fn build_dev(devices: &[(PathBuf, File)]) -> io::Result<()> {
    let dev = Path::new("/dev");
    mount_tmpfs(dev, "mode=0755")?;
    for (path, handle) in devices {
        bind_back(path, handle)?;
    }
    for (name, target) in DEV_LINKS {
        std::os::unix::fs::symlink(target, dev.join(name))?;
    }
    let shm = dev.join("shm");
    std::fs::create_dir(&shm)?;
    mount_tmpfs(&shm, "mode=1777")?;
    mount(
        None::<&str>,
        dev,
        None::<&str>,
        MsFlags::MS_REMOUNT
            | MsFlags::MS_BIND
            | MsFlags::MS_RDONLY
            | MsFlags::MS_NOSUID
            | MsFlags::MS_NODEV,
        None::<&str>,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_home_and_temporary_directories_are_hidden_and_what_is_needed_kept() {
        let home = tempfile::tempdir().unwrap();
        let home = home.path().canonicalize().unwrap();
        let project = home.join("src/proj");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        std::fs::create_dir_all(home.join(".cargo")).unwrap();
        let plan = ViewPlan::new(
            std::slice::from_ref(&project),
            &[home.join(".cargo"), home.join(".absent")],
            Some(&home),
        );
        assert_eq!(plan.writable, vec![project.clone()]);
        assert!(plan.hidden.contains(&home), "{plan:?}");
        assert!(plan.kept.contains(&project), "{plan:?}");
        assert!(plan.kept.contains(&home.join(".cargo")), "{plan:?}");
        assert!(!plan.kept.contains(&home.join(".absent")), "{plan:?}");
        assert_eq!(plan.protected, vec![project.join(".git")]);
    }

    #[test]
    fn submodules_git_files_are_protected_but_not_paths_outside_the_root() {
        let home = tempfile::tempdir().unwrap();
        let project = home.path().canonicalize().unwrap().join("proj");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        std::fs::create_dir_all(project.join("lib/dep")).unwrap();
        std::fs::write(
            project.join("lib/dep/.git"),
            "gitdir: ../../.git/modules/dep\n",
        )
        .unwrap();
        std::fs::write(
            project.join(".gitmodules"),
            "[submodule \"dep\"]\n\tpath = lib/dep\n\turl = x\n\
             [submodule \"up\"]\n\tpath = ../up\n[submodule \"gone\"]\n\tpath = gone\n",
        )
        .unwrap();
        let plan = ViewPlan::new(std::slice::from_ref(&project), &[], None);
        assert_eq!(
            plan.protected,
            vec![project.join(".git"), project.join("lib/dep/.git")]
        );
    }

    #[test]
    fn a_directory_holding_a_writable_root_is_never_hidden() {
        let home = tempfile::tempdir().unwrap();
        let home = home.path().canonicalize().unwrap();
        let plan = ViewPlan::new(std::slice::from_ref(&home), &[], Some(&home));
        assert!(!plan.hidden.contains(&home), "{plan:?}");
        let root = ViewPlan::new(&[PathBuf::from("/")], &[], Some(&home));
        assert!(root.hidden.is_empty(), "{root:?}");
    }

    #[test]
    fn the_containing_mount_is_the_longest_mount_point_above() {
        let mounts =
            mountinfo::parse("1 0 0:1 / / rw - ext4 a rw\n2 1 0:2 / /home ro,nosuid - ext4 b rw\n");
        let entry = containing(&mounts, Path::new("/home/u/p")).unwrap();
        assert_eq!(entry.point, PathBuf::from("/home"));
        assert_eq!(
            containing(&mounts, Path::new("/srv")).unwrap().point,
            PathBuf::from("/")
        );
    }
}
