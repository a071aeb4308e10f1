//! Commands in namespaces, as bubblewrap runs them for other agents.
//!
//! The helper (stage one) leaves hone's user, mount, PID, IPC and (without network) network
//! namespaces, maps the user to root inside, and starts this executable again as the new
//! PID namespace's init (stage two, [`init_main`]), with the options on its command line and
//! [`INIT_VAR`] in its environment. The init builds the file system view
//! ([`super::view`]), enters a second user and mount namespace that maps the user back
//! (which locks every mount: the command can neither unmount nor loosen them, and keeps no
//! capability), sets the resource limits, applies Landlock and seccomp, and starts the
//! command. It reaps every process of the namespace and exits with the command; the
//! kernel then kills whatever the command left running. Each stage dies with its parent
//! (`PR_SET_PDEATHSIG`), so nothing outlives hone.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use nix::errno::Errno;
use nix::sched::{CloneFlags, unshare};
use nix::sys::signal::Signal;
use nix::sys::wait::{WaitStatus, waitpid};
use nix::unistd::{Pid, getgid, getpid, getuid};

use super::view::{ViewPlan, build};
use crate::helper::{NOT_STARTED, SETUP_FAILED};
use crate::overlay::Overlay;
use crate::{Isolation, Limits, MARKER_VAR, SandboxError, SandboxMode, SandboxPolicy};

/// The environment variable that makes this executable the sandbox's init; its value is
/// the user's `UID:GID` outside.
pub const INIT_VAR: &str = "HONE_SANDBOX_INIT";

/// Variables that lead out of the sandbox to a process that would act for the command
/// (a terminal multiplexer, an SSH or GPG agent, the session bus, a container engine, a
/// display server); removed from every command's environment.
pub const REACH_VARIABLES: [&str; 15] = [
    "TMUX",
    "TMUX_PANE",
    "STY",
    "SSH_AUTH_SOCK",
    "SSH_AGENT_PID",
    "GPG_AGENT_INFO",
    "DBUS_SESSION_BUS_ADDRESS",
    "DBUS_SYSTEM_BUS_ADDRESS",
    "DOCKER_HOST",
    "CONTAINER_HOST",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "XAUTHORITY",
    "KITTY_LISTEN_ON",
    "XDG_RUNTIME_DIR",
];

/// Why the command could not run in namespaces.
#[derive(Debug)]
pub(crate) enum NamespaceError {
    /// The kernel refused the namespaces: nothing changed, the caller may fall back.
    Unavailable(String),
    /// Setting up failed after the namespaces were entered.
    Setup(SandboxError),
    /// The init could not be started.
    Start(std::io::Error),
}

/// Stage one: runs `argv` in namespaces under `policy` and returns its exit code.
pub(crate) fn run(
    policy: &SandboxPolicy,
    workdir: &Path,
    argv: &[OsString],
    temp: Option<&Path>,
) -> Result<u8, NamespaceError> {
    let program = std::env::current_exe().map_err(NamespaceError::Start)?;
    let (uid, gid) = (getuid(), getgid());
    let mut flags = CloneFlags::CLONE_NEWUSER
        | CloneFlags::CLONE_NEWNS
        | CloneFlags::CLONE_NEWPID
        | CloneFlags::CLONE_NEWIPC;
    if !policy.network {
        flags |= CloneFlags::CLONE_NEWNET;
    }
    unshare(flags).map_err(|error| {
        NamespaceError::Unavailable(format!("the kernel refused new namespaces ({error})"))
    })?;
    map_ids(0, uid.as_raw(), 0, gid.as_raw()).map_err(NamespaceError::Setup)?;
    let status = Command::new(program)
        .args(InitArgs::encode(policy, workdir, argv, temp))
        .env(INIT_VAR, format!("{uid}:{gid}"))
        .status()
        .map_err(NamespaceError::Start)?;
    Ok(crate::helper::exit_code(&status))
}

/// Writes this process's user namespace maps: `inside_uid` is `outside_uid` of the parent
/// namespace, likewise the group; supplementary groups are refused first (the kernel
/// requires it of an unprivileged map).
fn map_ids(
    inside_uid: u32,
    outside_uid: u32,
    inside_gid: u32,
    outside_gid: u32,
) -> Result<(), SandboxError> {
    let write = |file: &str, text: String| {
        std::fs::write(format!("/proc/self/{file}"), text)
            .map_err(|error| SandboxError::Setup(format!("writing /proc/self/{file}: {error}")))
    };
    write("uid_map", format!("{inside_uid} {outside_uid} 1\n"))?;
    write("setgroups", "deny\n".to_string())?;
    write("gid_map", format!("{inside_gid} {outside_gid} 1\n"))
}

/// Stage two, this executable started with [`INIT_VAR`]: returns the command's exit code,
/// or [`SETUP_FAILED`] / [`NOT_STARTED`] after one line on stderr.
pub fn init_main(args: impl Iterator<Item = OsString>) -> u8 {
    match init(args) {
        Ok(code) => code,
        Err((code, message)) => {
            eprintln!("hone sandbox: {message}");
            code
        }
    }
}

fn init(args: impl Iterator<Item = OsString>) -> Result<u8, (u8, String)> {
    let setup = |error: SandboxError| (SETUP_FAILED, error.to_string());
    // Dies with the helper, and with it every process of the namespace.
    nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)
        .map_err(|error| (SETUP_FAILED, format!("parent-death signal: {error}")))?;
    if getpid() != Pid::from_raw(1) {
        return Err((
            SETUP_FAILED,
            format!("{INIT_VAR} is only for the sandbox's own init process"),
        ));
    }
    let ids = std::env::var(INIT_VAR).unwrap_or_default();
    let (uid, gid) = ids
        .split_once(':')
        .and_then(|(uid, gid)| Some((uid.parse::<u32>().ok()?, gid.parse::<u32>().ok()?)))
        .ok_or_else(|| (SETUP_FAILED, format!("{INIT_VAR} is not UID:GID: {ids:?}")))?;
    let options = InitArgs::decode(args).map_err(|message| (SETUP_FAILED, message))?;
    // A mount namespace of the init's own: the helper keeps seeing the system as it is
    // (and removes its temporary directory there when the command ends).
    unshare(CloneFlags::CLONE_NEWNS).map_err(|error| {
        (
            SETUP_FAILED,
            format!("a mount namespace for the view: {error}"),
        )
    })?;
    let writable = options.policy.writable_paths(&options.workdir);
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut readable: Vec<PathBuf> = home
        .iter()
        .flat_map(|home| crate::TOOLCHAIN_DIRS.iter().map(move |dir| home.join(dir)))
        .collect();
    readable.extend(
        options
            .policy
            .readable_roots
            .iter()
            .map(|root| match &home {
                Some(home) if root.is_relative() => home.join(root),
                _ => root.clone(),
            }),
    );
    let plan = ViewPlan::new(&writable, &readable, home.as_deref());
    // The copy-on-write view goes first: its upper layer must still be writable.
    let overlay = match options.policy.copy_on_write() {
        Some(overlay) => {
            let workdir = std::fs::canonicalize(&options.workdir).map_err(|error| {
                (
                    SETUP_FAILED,
                    format!("resolving {}: {error}", options.workdir.display()),
                )
            })?;
            Some(super::overlay::mount_view(&workdir, overlay).map_err(setup)?)
        }
        None => None,
    };
    build(&plan).map_err(setup)?;
    if let Some(overlay) = &overlay {
        super::overlay::finish(overlay).map_err(setup)?;
    }
    // A second user namespace owns a copy of the mount table in which every mount is
    // locked; the user is mapped back to who they are outside.
    unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNS)
        .map_err(|error| (SETUP_FAILED, format!("locking the mounts: {error}")))?;
    map_ids(uid, 0, gid, 0).map_err(setup)?;
    // The command may not read the init's memory or environment (after the maps, which a
    // non-dumpable process cannot write).
    nix::sys::prctl::set_dumpable(false).map_err(|error| {
        (
            SETUP_FAILED,
            format!("making the init non-dumpable: {error}"),
        )
    })?;
    super::limits::apply(&options.policy.limits).map_err(setup)?;
    super::restrict_current_thread(&writable, options.policy.network).map_err(setup)?;
    let Some((program, rest)) = options.command.split_first() else {
        return Err((SETUP_FAILED, SandboxError::NoCommand.to_string()));
    };
    let mut command = Command::new(program);
    command
        .args(rest)
        .current_dir(&options.workdir)
        .env_remove(INIT_VAR)
        .env(MARKER_VAR, Isolation::Namespaces.as_str());
    for name in REACH_VARIABLES {
        command.env_remove(name);
    }
    if let Some(temp) = &options.temp {
        command.env("TMPDIR", temp);
    }
    let child = command.spawn().map_err(|error| {
        (
            NOT_STARTED,
            format!("could not run `{}`: {error}", program.to_string_lossy()),
        )
    })?;
    let child = Pid::from_raw(i32::try_from(child.id()).unwrap_or(i32::MAX));
    Ok(reap_until(child))
}

/// Reaps every process of the namespace until `child` ends; returns its exit code.
fn reap_until(child: Pid) -> u8 {
    loop {
        match waitpid(None::<Pid>, None) {
            Ok(WaitStatus::Exited(pid, code)) if pid == child => {
                return u8::try_from(code).unwrap_or(1);
            }
            Ok(WaitStatus::Signaled(pid, signal, _)) if pid == child => {
                return u8::try_from(128 + signal as i32).unwrap_or(1);
            }
            Ok(_) | Err(Errno::EINTR) => {}
            Err(_) => return 1,
        }
    }
}

/// The init's options, on its command line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct InitArgs {
    policy: SandboxPolicy,
    workdir: PathBuf,
    temp: Option<PathBuf>,
    command: Vec<OsString>,
}

impl InitArgs {
    fn encode(
        policy: &SandboxPolicy,
        workdir: &Path,
        argv: &[OsString],
        temp: Option<&Path>,
    ) -> Vec<OsString> {
        let mut args: Vec<OsString> = vec!["--workdir".into(), workdir.into()];
        if let Some(temp) = temp {
            args.extend(["--tmpdir".into(), temp.into()]);
        }
        args.extend(policy.helper_args());
        args.push("--".into());
        args.extend(argv.iter().cloned());
        args
    }

    fn decode(mut args: impl Iterator<Item = OsString>) -> Result<Self, String> {
        let mut policy = SandboxPolicy::new(SandboxMode::WorkspaceWrite);
        let mut workdir = None;
        let mut temp = None;
        let value = |args: &mut dyn Iterator<Item = OsString>, flag: &str| {
            args.next().ok_or_else(|| format!("{flag} needs a value"))
        };
        let number = |text: OsString, flag: &str| {
            text.to_str()
                .and_then(|text| text.parse::<u64>().ok())
                .map(Limits::parse_value)
                .ok_or_else(|| format!("{flag} needs a number"))
        };
        while let Some(arg) = args.next() {
            let flag = arg.to_string_lossy().into_owned();
            match flag.as_str() {
                "--" => break,
                "--workdir" => workdir = Some(PathBuf::from(value(&mut args, &flag)?)),
                "--tmpdir" => temp = Some(PathBuf::from(value(&mut args, &flag)?)),
                crate::MODE_FLAG => {
                    policy.mode = value(&mut args, &flag)?
                        .to_string_lossy()
                        .parse()
                        .map_err(|error| format!("{error}"))?;
                }
                crate::WRITABLE_FLAG => policy.writable_roots.push(value(&mut args, &flag)?.into()),
                crate::READABLE_FLAG => policy.readable_roots.push(value(&mut args, &flag)?.into()),
                crate::NETWORK_FLAG => policy.network = true,
                crate::NO_NAMESPACES_FLAG => policy.namespaces = false,
                crate::overlay::OVERLAY_FLAG => {
                    let dir = PathBuf::from(value(&mut args, &flag)?);
                    let passthrough = policy
                        .overlay
                        .take()
                        .map(|overlay| overlay.passthrough)
                        .unwrap_or_default();
                    policy.overlay = Some(Overlay { dir, passthrough });
                }
                crate::overlay::PASSTHROUGH_FLAG => {
                    let path = PathBuf::from(value(&mut args, &flag)?);
                    match &mut policy.overlay {
                        Some(overlay) => overlay.passthrough.push(path),
                        None => {
                            return Err(format!(
                                "{flag} needs {} first",
                                crate::overlay::OVERLAY_FLAG
                            ));
                        }
                    }
                }
                crate::limits::CPU_FLAG => {
                    policy.limits.cpu_seconds = number(value(&mut args, &flag)?, &flag)?;
                }
                crate::limits::MEMORY_FLAG => {
                    policy.limits.memory_mb = number(value(&mut args, &flag)?, &flag)?;
                }
                crate::limits::PROCESSES_FLAG => {
                    policy.limits.processes = number(value(&mut args, &flag)?, &flag)?;
                }
                _ => return Err(format!("unknown init option {flag:?}")),
            }
        }
        Ok(Self {
            policy,
            workdir: workdir.ok_or("--workdir is missing")?,
            temp,
            command: args.collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_init_options_survive_their_command_line() {
        let policy = SandboxPolicy {
            mode: SandboxMode::ReadOnly,
            writable_roots: vec!["/a b".into()],
            network: true,
            readable_roots: vec![".config/x".into()],
            limits: Limits {
                cpu_seconds: None,
                memory_mb: Some(512),
                processes: Some(10),
            },
            namespaces: true,
            overlay: Some(Overlay {
                dir: "/tmp/hone-overlay-1".into(),
                passthrough: vec!["target".into(), "web/node_modules".into()],
            }),
        };
        let argv: Vec<OsString> = ["sh", "-c", "echo -- --mode"].map(OsString::from).to_vec();
        let encoded = InitArgs::encode(&policy, Path::new("/w"), &argv, Some(Path::new("/t")));
        let decoded = InitArgs::decode(encoded.into_iter()).unwrap();
        assert_eq!(
            decoded,
            InitArgs {
                policy,
                workdir: "/w".into(),
                temp: Some("/t".into()),
                command: argv,
            }
        );
    }

    #[test]
    fn bad_init_options_are_named() {
        let decode = |args: &[&str]| InitArgs::decode(args.iter().map(OsString::from)).unwrap_err();
        assert!(decode(&["--bogus"]).contains("--bogus"));
        assert!(decode(&["--", "true"]).contains("--workdir"));
        assert!(decode(&["--workdir"]).contains("needs a value"));
        assert!(decode(&["--workdir", "/", "--limit-cpu", "x"]).contains("number"));
        assert!(decode(&["--workdir", "/", "--passthrough", "target"]).contains("--overlay-dir"));
    }
}
