//! The OS sandbox for the commands hone runs, and the environment they get.
//!
//! A [`SandboxPolicy`] says what a command may do: with [`SandboxMode::WorkspaceWrite`] it
//! writes only under the working directory (the project root) and the policy's writable
//! roots; with [`SandboxMode::ReadOnly`] only under the writable roots (hone passes its
//! private temporary directory); [`SandboxMode::Off`] does not restrict it. Reads are never
//! limited. Unless the policy allows the network, the command cannot open TCP connections or
//! internet sockets.
//!
//! The restrictions are applied to the *current* process ([`prepare`]), which then starts or
//! `exec`s the command: the `hone sandbox -- CMD` subcommand does this ([`Helper`]), and hone runs every
//! model command as `hone sandbox --mode … -- sh -c CMD`. On Linux the file rules are
//! Landlock's, and the network is cut twice: Landlock's TCP bind/connect rules (ABI 4 and
//! later) and a seccomp filter that makes `socket()` fail with `EPERM` for every address
//! family but `AF_UNIX`. On macOS the command runs under `/usr/bin/sandbox-exec` with a
//! Seatbelt profile (untested). [`support`] tells whether the running system can do it.
//!
//! [`SecretScrub`] decides which environment variables (API keys, tokens, passwords) a child
//! process must not see.

mod env;
mod helper;
mod limits;
#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "macos")]
mod macos;
mod mode;
pub mod overlay;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

pub use env::{SECRET_PATTERNS, SecretScrub};
pub use helper::{Helper, HelperError, HelperExit, HelperOptions, NOT_STARTED, SETUP_FAILED};
#[cfg(target_os = "linux")]
pub use linux::namespaces::{INIT_VAR, REACH_VARIABLES};

/// When this process was started as the sandbox's init ([`INIT_VAR`] is set): runs it and
/// returns the exit code; `None` otherwise. Front ends call this first thing in `main`.
pub fn init_stage() -> Option<u8> {
    #[cfg(target_os = "linux")]
    {
        std::env::var_os(INIT_VAR)?;
        Some(linux::namespaces::init_main(std::env::args_os().skip(1)))
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Makes this process non-dumpable (Linux): its `/proc/PID/environ`, `mem` and the like become
/// unreadable to other processes of the user, and it cannot be traced — so a command that runs
/// outside the namespaces (the Landlock-only fallback) cannot read the API key from hone's
/// environment. Returns whether it took effect. Call it in long-running front ends, never in
/// `hone sandbox` itself (a non-dumpable process cannot write its own user-namespace maps).
pub fn protect_process() -> bool {
    #[cfg(target_os = "linux")]
    {
        nix::sys::prctl::set_dumpable(false).is_ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

pub use limits::Limits;
pub use mode::{ParseModeError, SandboxMode};

/// The flag of `hone sandbox` that selects the mode.
pub const MODE_FLAG: &str = "--mode";
/// The flag of `hone sandbox` that adds a writable root (repeatable).
pub const WRITABLE_FLAG: &str = "--writable";
/// The flag of `hone sandbox` that allows the network.
pub const NETWORK_FLAG: &str = "--allow-network";
/// The flag of `hone sandbox` that keeps a directory of the home readable (repeatable).
pub const READABLE_FLAG: &str = "--readable";
/// The flag of `hone sandbox` that turns the namespaces off (Landlock and seccomp only).
pub const NO_NAMESPACES_FLAG: &str = "--no-namespaces";
/// The variable a sandboxed command finds in its environment: how it is isolated
/// ([`Isolation::as_str`]).
pub const MARKER_VAR: &str = "HONE_SANDBOX";

/// The directories of the home directory a command with namespaces may read (where they
/// exist): the toolchains and their package caches. The rest of the home is hidden.
pub const TOOLCHAIN_DIRS: [&str; 14] = [
    ".cargo",
    ".rustup",
    ".npm",
    ".nvm",
    ".cache/pip",
    ".pyenv",
    ".local/bin",
    ".local/lib",
    ".m2",
    ".gradle",
    ".sdkman",
    ".deno",
    ".bun",
    "go/pkg/mod",
];

/// Paths every sandboxed command may write besides its roots: the null device.
const ALWAYS_WRITABLE: [&str; 1] = ["/dev/null"];

/// What a sandboxed command may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxPolicy {
    /// How much it may write.
    pub mode: SandboxMode,
    /// Directories it may write besides the working directory (which only
    /// [`SandboxMode::WorkspaceWrite`] adds).
    pub writable_roots: Vec<PathBuf>,
    /// Whether it may use the network.
    pub network: bool,
    /// Directories in the home directory it may read besides the toolchains' (with
    /// namespaces the rest of the home is hidden).
    pub readable_roots: Vec<PathBuf>,
    /// Resource limits.
    pub limits: Limits,
    /// Whether to isolate the command in its own namespaces (Linux; on by default). Off,
    /// only Landlock and seccomp apply: the command sees every file and process.
    pub namespaces: bool,
    /// Run the command on a copy-on-write view of the working directory (Linux, with
    /// namespaces, in [`SandboxMode::WorkspaceWrite`]): its writes land in a private
    /// directory hone applies from afterwards.
    pub overlay: Option<overlay::Overlay>,
}

impl SandboxPolicy {
    /// A policy in `mode` with no extra writable roots and no network.
    pub fn new(mode: SandboxMode) -> Self {
        Self {
            mode,
            writable_roots: Vec::new(),
            network: false,
            readable_roots: Vec::new(),
            limits: Limits::default(),
            namespaces: true,
            overlay: None,
        }
    }

    /// The directories writable for a command started in `workdir`, in order, without
    /// duplicates; empty when the mode is [`SandboxMode::Off`] (everything is writable).
    pub fn writable_paths(&self, workdir: &Path) -> Vec<PathBuf> {
        let mut paths = Vec::new();
        match self.mode {
            SandboxMode::Off => return paths,
            SandboxMode::WorkspaceWrite => paths.push(workdir.to_path_buf()),
            SandboxMode::ReadOnly => {}
        }
        for root in &self.writable_roots {
            let root = if root.is_absolute() {
                root.clone()
            } else {
                workdir.join(root)
            };
            if !paths.contains(&root) {
                paths.push(root);
            }
        }
        paths
    }

    /// The arguments of `hone sandbox` that select this policy (before the `--`).
    pub fn helper_args(&self) -> Vec<OsString> {
        let mut args = vec![OsString::from(MODE_FLAG), self.mode.as_str().into()];
        for root in &self.writable_roots {
            args.push(WRITABLE_FLAG.into());
            args.push(root.clone().into_os_string());
        }
        for root in &self.readable_roots {
            args.push(READABLE_FLAG.into());
            args.push(root.clone().into_os_string());
        }
        if self.network {
            args.push(NETWORK_FLAG.into());
        }
        if !self.namespaces {
            args.push(NO_NAMESPACES_FLAG.into());
        }
        if let Some(overlay) = &self.overlay {
            args.push(overlay::OVERLAY_FLAG.into());
            args.push(overlay.dir.clone().into_os_string());
            for path in &overlay.passthrough {
                args.push(overlay::PASSTHROUGH_FLAG.into());
                args.push(path.clone().into_os_string());
            }
        }
        args.extend(self.limits.helper_args());
        args
    }

    /// The copy-on-write view the command gets, if any: only on Linux with namespaces,
    /// and only where the working directory is writable.
    pub fn copy_on_write(&self) -> Option<&overlay::Overlay> {
        self.overlay.as_ref().filter(|_| {
            cfg!(target_os = "linux") && self.namespaces && self.mode == SandboxMode::WorkspaceWrite
        })
    }

    /// The rules in words, for a command started in `workdir`: one line per rule.
    pub fn describe(&self, workdir: &Path) -> String {
        if self.mode == SandboxMode::Off {
            return "sandbox off: the command may write anywhere the user can and use the network"
                .to_string();
        }
        let writable = self.writable_paths(workdir);
        let roots = if writable.is_empty() {
            "nothing".to_string()
        } else {
            writable
                .iter()
                .map(|path| path.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut lines = vec![format!("sandbox mode: {}", self.mode)];
        if self.namespaces && cfg!(target_os = "linux") {
            let mut readable = TOOLCHAIN_DIRS
                .iter()
                .map(|dir| format!("~/{dir}"))
                .collect::<Vec<_>>();
            readable.extend(
                self.readable_roots
                    .iter()
                    .map(|root| root.display().to_string()),
            );
            lines.push(
                "isolation: own user, mount, PID and IPC namespaces (hone, your shell and every \
                 other process are invisible and cannot be signalled; the command's processes \
                 end with it)"
                    .to_string(),
            );
            lines.push(format!(
                "reads: the system, read-only; of the home directory only {} (where they exist); \
                 /tmp, /var/tmp and /run are empty (no host sockets); /dev has only null, zero, \
                 full, random, urandom and tty",
                readable.join(", ")
            ));
            lines.push(format!(
                "writes: only under {roots} (and {}); .git and .hone in them are read-only; \
                 no set-uid programs or device nodes; everything else is read-only, including \
                 its permissions, owners and times",
                ALWAYS_WRITABLE.join(", ")
            ));
            if let Some(overlay) = self.copy_on_write() {
                let through = overlay
                    .passthrough
                    .iter()
                    .map(|path| path.display().to_string())
                    .collect::<Vec<_>>();
                lines.push(format!(
                    "copy-on-write: {} is a copy-on-write view; what the command writes there \
                     lands in {} for hone to apply afterwards{}",
                    workdir.display(),
                    overlay.dir.display(),
                    if through.is_empty() {
                        String::new()
                    } else {
                        format!(" (written straight through: {})", through.join(", "))
                    }
                ));
            }
        } else {
            lines.push("isolation: Landlock and seccomp only (no namespaces)".to_string());
            lines.push("reads: anywhere".to_string());
            lines.push(format!(
                "writes: only under {roots} (and {})",
                ALWAYS_WRITABLE.join(", ")
            ));
        }
        lines.push(
            if self.network {
                "network: allowed"
            } else if self.namespaces && cfg!(target_os = "linux") {
                "network: off (own network namespace: no connections, no abstract Unix sockets)"
            } else {
                "network: off (no TCP connections, no internet or netlink sockets; Unix sockets work)"
            }
            .to_string(),
        );
        lines.push(self.limits.describe());
        lines.join("\n")
    }
}

/// How a sandboxed command is isolated, as [`MARKER_VAR`] tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isolation {
    /// Its own namespaces, a read-only view of the system, Landlock and seccomp.
    Namespaces,
    /// Landlock and seccomp only (no namespaces here, or turned off).
    Landlock,
}

impl Isolation {
    /// The value of [`MARKER_VAR`].
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Namespaces => "namespaces",
            Self::Landlock => "landlock",
        }
    }

    /// The isolation a [`MARKER_VAR`] value names.
    pub fn from_marker(value: &str) -> Option<Self> {
        match value.trim() {
            "namespaces" => Some(Self::Namespaces),
            "landlock" => Some(Self::Landlock),
            _ => None,
        }
    }
}

/// Whether the running system can sandbox commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    /// Linux with Landlock at this ABI version (6 means 6 or later); `network_rules` when it
    /// has Landlock's TCP rules (ABI 4 and later); the seccomp socket filter is used either
    /// way.
    Landlock {
        /// The kernel's Landlock ABI as far as the landlock crate knows it.
        abi: u32,
        /// Whether Landlock can also restrict TCP bind and connect.
        network_rules: bool,
    },
    /// macOS with `/usr/bin/sandbox-exec`.
    Seatbelt,
    /// No sandbox: why not.
    Unavailable(String),
}

impl Support {
    /// Whether commands can run sandboxed.
    pub fn is_available(&self) -> bool {
        !matches!(self, Self::Unavailable(_))
    }

    /// One line for `hone doctor`.
    pub fn describe(&self) -> String {
        match self {
            Self::Landlock { abi, network_rules } => format!(
                "Landlock ABI {abi}{}{} and a seccomp socket filter",
                if *abi >= 6 { " or later" } else { "" },
                if *network_rules {
                    " (files and TCP)"
                } else {
                    " (files only; TCP by seccomp alone)"
                }
            ),
            Self::Seatbelt => "Seatbelt (sandbox-exec; untested)".to_string(),
            Self::Unavailable(reason) => format!("unavailable: {reason}"),
        }
    }
}

/// Whether the running system can sandbox commands (no restriction is applied).
pub fn support() -> Support {
    #[cfg(target_os = "linux")]
    {
        linux::support()
    }
    #[cfg(target_os = "macos")]
    {
        macos::support()
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        Support::Unavailable("no sandbox is implemented for this operating system".to_string())
    }
}

/// A sandbox that could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The system has no sandbox hone can use.
    #[error("the sandbox is not available here: {0}")]
    Unavailable(String),
    /// Setting up the restrictions failed.
    #[error("could not set up the sandbox: {0}")]
    Setup(String),
    /// The command line is empty.
    #[error("no command to run: give one after `--`")]
    NoCommand,
}

/// Prepares `argv` to run under `policy` from `workdir`: on Linux the restrictions are
/// applied to the current thread (and so to every process it starts or becomes by `exec`);
/// on macOS the returned command runs `argv` under `sandbox-exec`. With
/// [`SandboxMode::Off`] nothing is restricted. The caller spawns or `exec`s the command
/// from the same thread.
pub fn prepare(
    policy: &SandboxPolicy,
    workdir: &Path,
    argv: &[OsString],
) -> Result<Command, SandboxError> {
    let Some((program, args)) = argv.split_first() else {
        return Err(SandboxError::NoCommand);
    };
    if policy.mode == SandboxMode::Off {
        let mut command = Command::new(program);
        command.args(args);
        return Ok(command);
    }
    let writable = policy.writable_paths(workdir);
    #[cfg(target_os = "linux")]
    {
        linux::restrict_current_thread(&writable, policy.network)?;
        let mut command = Command::new(program);
        command.args(args);
        Ok(command)
    }
    #[cfg(target_os = "macos")]
    {
        Ok(macos::command(&writable, policy.network, program, args))
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        let _ = (writable, program, args);
        Err(SandboxError::Unavailable(
            "no sandbox is implemented for this operating system".to_string(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn a_protected_process_is_not_dumpable() {
        // nextest runs every test in a process of its own, so this changes nothing else.
        assert!(protect_process());
        assert_eq!(nix::sys::prctl::get_dumpable(), Ok(false));
    }

    #[test]
    fn workspace_write_adds_the_working_directory_first_and_skips_duplicates() {
        let policy = SandboxPolicy {
            mode: SandboxMode::WorkspaceWrite,
            writable_roots: vec!["/work".into(), "/tmp/x".into(), "cache".into()],
            ..SandboxPolicy::new(SandboxMode::WorkspaceWrite)
        };
        assert_eq!(
            policy.writable_paths(Path::new("/work")),
            vec![
                PathBuf::from("/work"),
                PathBuf::from("/tmp/x"),
                PathBuf::from("/work/cache")
            ]
        );
    }

    #[test]
    fn read_only_writes_only_the_listed_roots_and_off_restricts_nothing() {
        let mut policy = SandboxPolicy::new(SandboxMode::ReadOnly);
        assert!(policy.writable_paths(Path::new("/work")).is_empty());
        policy.writable_roots.push("/tmp/t".into());
        assert_eq!(
            policy.writable_paths(Path::new("/work")),
            vec![PathBuf::from("/tmp/t")]
        );
        policy.mode = SandboxMode::Off;
        assert!(policy.writable_paths(Path::new("/work")).is_empty());
    }

    #[test]
    fn helper_args_name_every_setting() {
        let policy = SandboxPolicy {
            mode: SandboxMode::ReadOnly,
            writable_roots: vec!["/a".into(), "/b".into()],
            network: true,
            ..SandboxPolicy::new(SandboxMode::ReadOnly)
        };
        let args: Vec<String> = policy
            .helper_args()
            .into_iter()
            .map(|arg| arg.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            args,
            [
                "--mode",
                "read-only",
                "--writable",
                "/a",
                "--writable",
                "/b",
                "--allow-network"
            ]
        );
    }

    #[test]
    fn the_description_names_mode_roots_and_network() {
        let policy = SandboxPolicy::new(SandboxMode::WorkspaceWrite);
        let text = policy.describe(Path::new("/proj"));
        assert!(text.contains("workspace-write"), "{text}");
        assert!(text.contains("/proj"), "{text}");
        assert!(text.contains("network: off"), "{text}");
        let off = SandboxPolicy::new(SandboxMode::Off).describe(Path::new("/proj"));
        assert!(off.starts_with("sandbox off"), "{off}");
    }

    #[test]
    fn an_empty_command_is_refused() {
        let policy = SandboxPolicy::new(SandboxMode::Off);
        assert!(matches!(
            prepare(&policy, Path::new("/"), &[]),
            Err(SandboxError::NoCommand)
        ));
    }
}
