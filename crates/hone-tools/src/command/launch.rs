//! How a command the model runs is started: under the OS sandbox (through a helper program,
//! `hone sandbox`), with a private temporary directory, and without secrets in its
//! environment.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use hone_sandbox::{SandboxMode, SandboxPolicy};
use tokio::process::Command;

use super::changes::{ChangeTracking, CommandChanges, Snapshot, SnapshotCache};
use crate::{Invocation, ToolContext, ToolError, ToolErrorKind};

/// How the commands of a session are started.
#[derive(Debug, Clone, Default)]
pub struct CommandSetup {
    /// Environment variables removed from every command's environment (API keys and other
    /// secrets; `hone_sandbox::SecretScrub` picks them).
    pub remove_env: Vec<String>,
    /// Run commands under the OS sandbox through this helper; `None` runs them directly.
    pub sandbox: Option<SandboxHelper>,
    /// How the file changes of foreground commands are found (background jobs write
    /// straight to the project either way).
    pub tracking: ChangeTracking,
}

/// The program that applies a sandbox policy and then becomes the command.
#[derive(Debug, Clone)]
pub struct SandboxHelper {
    /// The helper executable: the `hone` binary itself.
    pub program: PathBuf,
    /// Its arguments before the policy's flags (for hone: `sandbox --exec`).
    pub args: Vec<OsString>,
    /// What commands may do. The session's private temporary directory is added to its
    /// writable roots.
    pub policy: SandboxPolicy,
}

/// A [`CommandSetup`] made ready for one session: it owns the private temporary directory
/// (removed with the session).
#[derive(Debug, Default)]
pub(crate) struct Launcher {
    remove_env: Vec<String>,
    sandbox: Option<(SandboxHelper, tempfile::TempDir)>,
    tracking: ChangeTracking,
    snapshots: SnapshotCache,
}

/// How one command's file changes are being found.
#[derive(Debug)]
pub(crate) enum Tracker {
    /// They are not.
    Off,
    /// On a copy-on-write view with this private directory; `made` are the directories
    /// passed through that were created for the command (removed again when left empty).
    #[cfg(target_os = "linux")]
    Overlay {
        dir: hone_sandbox::overlay::OverlayDir,
        passthrough: Vec<PathBuf>,
        made: Vec<PathBuf>,
    },
    /// By comparing the project with this snapshot.
    Snapshot(Snapshot),
}

impl Tracker {
    /// Whether the command's writes wait on a copy-on-write view.
    pub(crate) fn is_overlay(&self) -> bool {
        match self {
            #[cfg(target_os = "linux")]
            Self::Overlay { .. } => true,
            Self::Off | Self::Snapshot(_) => false,
        }
    }

    /// What the command changed, once it has ended.
    pub(crate) fn finish(self, context: &ToolContext, command: &str) -> Option<CommandChanges> {
        match self {
            Self::Off => None,
            #[cfg(target_os = "linux")]
            Self::Overlay { dir, made, .. } => {
                let changes = super::changes::from_overlay(context, dir, command);
                for path in made.iter().rev() {
                    // Still empty: it was only made to be passed through.
                    let _ = std::fs::remove_dir(path);
                }
                Some(changes)
            }
            Self::Snapshot(snapshot) => Some(snapshot.changes(context, command)),
        }
    }
}

impl Launcher {
    /// Prepares `setup`, creating the temporary directory when commands are sandboxed.
    pub(crate) fn new(setup: CommandSetup) -> Result<Self, ToolError> {
        let sandbox = match setup.sandbox {
            Some(mut helper) if helper.policy.mode != SandboxMode::Off => {
                let temp = tempfile::Builder::new()
                    .prefix("hone-cmd-")
                    .tempdir()
                    .map_err(|error| {
                        ToolError::new(
                            ToolErrorKind::Io,
                            format!("could not create the commands' temporary directory: {error}"),
                        )
                    })?;
                helper.policy.writable_roots.push(temp.path().to_path_buf());
                Some((helper, temp))
            }
            _ => None,
        };
        Ok(Self {
            remove_env: setup.remove_env,
            sandbox,
            tracking: setup.tracking,
            snapshots: SnapshotCache::default(),
        })
    }

    /// Starts finding the file changes of `invocation` in the project of `context`, as
    /// the setup says: a copy-on-write view (its private directory made, missing
    /// directories to pass through created), a snapshot, or nothing.
    pub(crate) fn track(
        &self,
        context: &ToolContext,
        invocation: &Invocation,
    ) -> Result<Tracker, ToolError> {
        if is_own_git(invocation) {
            return Ok(Tracker::Off);
        }
        match &self.tracking {
            ChangeTracking::Off => Ok(Tracker::Off),
            ChangeTracking::Snapshot => {
                Ok(Tracker::Snapshot(Snapshot::take(context, &self.snapshots)))
            }
            #[cfg(target_os = "linux")]
            ChangeTracking::Overlay { passthrough } if self.sandbox.is_some() => {
                let root = context.root();
                let mut made = Vec::new();
                for relative in passthrough {
                    let path = root.join(relative);
                    let parent_is_dir = path.parent().is_some_and(|parent| {
                        std::fs::symlink_metadata(parent).is_ok_and(|meta| meta.is_dir())
                    });
                    if parent_is_dir
                        && std::fs::symlink_metadata(&path).is_err()
                        && hone_fs::create_dir_inside(root, relative).is_ok()
                    {
                        made.push(path);
                    }
                }
                let mut passthrough = passthrough.clone();
                for dir in super::changes::home_dirs(root) {
                    if !passthrough.contains(&dir) {
                        passthrough.push(dir);
                    }
                }
                let dir = hone_sandbox::overlay::OverlayDir::create().map_err(|error| {
                    ToolError::new(
                        ToolErrorKind::Io,
                        format!("could not create the command's copy-on-write view: {error}"),
                    )
                })?;
                if dir.path().starts_with(root) {
                    // The temporary directory is inside the project: an overlay cannot keep
                    // its upper layer in its own lower one.
                    return Ok(Tracker::Snapshot(Snapshot::take(context, &self.snapshots)));
                }
                Ok(Tracker::Overlay {
                    dir,
                    passthrough,
                    made,
                })
            }
            ChangeTracking::Overlay { .. } => Ok(Tracker::Off),
        }
    }

    /// The policy commands run under, when they are sandboxed.
    pub(crate) fn policy(&self) -> Option<&SandboxPolicy> {
        self.sandbox.as_ref().map(|(helper, _)| &helper.policy)
    }

    /// The process to start for `invocation` in `root` (environment and working directory
    /// set; streams and process group are the caller's).
    pub(crate) fn command(
        &self,
        root: &Path,
        invocation: &Invocation,
        tracker: &Tracker,
    ) -> Result<Command, ToolError> {
        let argv: Vec<OsString> = match invocation {
            Invocation::Shell(text) => vec!["sh".into(), "-c".into(), text.into()],
            Invocation::Argv(argv) if argv.is_empty() => {
                return Err(ToolError::new(
                    ToolErrorKind::Command,
                    "the command is empty; give a program to run",
                ));
            }
            Invocation::Argv(argv) => argv.iter().map(OsString::from).collect(),
        };
        let mut command = match &self.sandbox {
            Some((helper, temp)) if !is_own_git(invocation) => {
                let mut policy = helper.policy.clone();
                #[cfg(target_os = "linux")]
                if let Tracker::Overlay {
                    dir, passthrough, ..
                } = tracker
                {
                    policy.overlay = Some(hone_sandbox::overlay::Overlay {
                        dir: dir.path().to_path_buf(),
                        passthrough: passthrough.clone(),
                    });
                }
                #[cfg(not(target_os = "linux"))]
                let _ = tracker;
                let mut command = Command::new(&helper.program);
                command
                    .args(&helper.args)
                    .args(policy.helper_args())
                    .arg("--")
                    .args(&argv)
                    .env("TMPDIR", temp.path());
                command
            }
            _ => {
                let mut command = Command::new(&argv[0]);
                command.args(&argv[1..]);
                command
            }
        };
        for name in &self.remove_env {
            command.env_remove(name);
        }
        command.current_dir(root);
        Ok(command)
    }

    /// A note for the model when a sandboxed command's `output` shows a denied write or
    /// connection: what the sandbox allows.
    pub(crate) fn denial_note(&self, root: &Path, output: &str) -> Option<String> {
        let policy = self.policy()?;
        let denied = DENIAL_SIGNS.iter().any(|sign| output.contains(sign));
        if !denied {
            return None;
        }
        let writable: Vec<String> = policy
            .writable_paths(root)
            .iter()
            .map(|path| path.display().to_string())
            .collect();
        let network = if policy.network { "allowed" } else { "off" };
        Some(format!(
            "[commands run in a sandbox (mode {}): they may write only under {} and use \
             $TMPDIR for temporary files; network {network}. A \"Permission denied\" or \
             \"Operation not permitted\" on a path outside these, or on a network connection, \
             comes from the sandbox: work inside the project, or tell the user what needs \
             to run outside it.]",
            policy.mode,
            writable.join(", ")
        ))
    }
}

/// Whether `invocation` is hone's own git (the commit): it writes `.git`, read-only
/// inside the sandbox, and its hardening already turns off every program a repository
/// could configure.
fn is_own_git(invocation: &Invocation) -> bool {
    matches!(invocation, Invocation::Argv(argv) if crate::git::is_hardened_argv(argv))
}

/// Error texts that a sandbox denial produces.
const DENIAL_SIGNS: [&str; 3] = [
    "Permission denied",
    "Operation not permitted",
    "Read-only file system",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(launcher: &Launcher) -> PathBuf {
        launcher
            .policy()
            .unwrap()
            .writable_roots
            .last()
            .unwrap()
            .clone()
    }

    fn sandboxed() -> Launcher {
        Launcher::new(CommandSetup {
            remove_env: vec!["SECRET_TOKEN".into()],
            sandbox: Some(SandboxHelper {
                program: "/opt/hone".into(),
                args: vec!["sandbox".into(), "--exec".into()],
                policy: SandboxPolicy::new(SandboxMode::WorkspaceWrite),
            }),
            tracking: ChangeTracking::Off,
        })
        .unwrap()
    }

    #[test]
    fn sandboxed_commands_go_through_the_helper_with_the_policy_and_a_temp_dir() {
        let launcher = sandboxed();
        let temp = temp_dir(&launcher);
        assert!(temp.is_dir());
        let command = launcher
            .command(
                Path::new("/proj"),
                &Invocation::Shell("ls".into()),
                &Tracker::Off,
            )
            .unwrap();
        let std = command.as_std();
        assert_eq!(std.get_program(), "/opt/hone");
        let args: Vec<String> = std
            .get_args()
            .map(|arg| arg.to_string_lossy().into_owned())
            .collect();
        let temp_text = temp.display().to_string();
        assert_eq!(
            args,
            [
                "sandbox",
                "--exec",
                "--mode",
                "workspace-write",
                "--writable",
                temp_text.as_str(),
                "--",
                "sh",
                "-c",
                "ls"
            ]
        );
        let envs: Vec<_> = std.get_envs().collect();
        assert!(envs.contains(&(std::ffi::OsStr::new("TMPDIR"), Some(temp.as_os_str()))));
        assert!(envs.contains(&(std::ffi::OsStr::new("SECRET_TOKEN"), None)));
        assert_eq!(std.get_current_dir(), Some(Path::new("/proj")));
    }

    #[test]
    fn the_temp_dir_goes_with_the_launcher() {
        let launcher = sandboxed();
        let temp = temp_dir(&launcher);
        drop(launcher);
        assert!(!temp.exists());
    }

    #[test]
    fn without_a_sandbox_commands_run_directly_and_off_means_no_sandbox() {
        let direct = Launcher::new(CommandSetup::default()).unwrap();
        let command = direct
            .command(
                Path::new("/proj"),
                &Invocation::Argv(vec!["cargo".into(), "test".into()]),
                &Tracker::Off,
            )
            .unwrap();
        assert_eq!(command.as_std().get_program(), "cargo");
        let off = Launcher::new(CommandSetup {
            remove_env: Vec::new(),
            sandbox: Some(SandboxHelper {
                program: "/opt/hone".into(),
                args: Vec::new(),
                policy: SandboxPolicy::new(SandboxMode::Off),
            }),
            tracking: ChangeTracking::Off,
        })
        .unwrap();
        assert!(off.policy().is_none());
        assert!(
            direct
                .command(Path::new("/"), &Invocation::Argv(Vec::new()), &Tracker::Off)
                .is_err()
        );
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_helper_runs_the_command_with_the_temp_dir_and_without_removed_variables() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        // A stand-in for `hone sandbox --exec`: drops its own flags and becomes the command.
        let helper = dir.path().join("helper");
        std::fs::write(
            &helper,
            "#!/bin/sh\nwhile [ \"$1\" != -- ]; do shift; done\nshift\nexec \"$@\"\n",
        )
        .unwrap();
        std::fs::set_permissions(&helper, std::fs::Permissions::from_mode(0o755)).unwrap();
        let launcher = Launcher::new(CommandSetup {
            remove_env: vec!["HOME".into()],
            sandbox: Some(SandboxHelper {
                program: helper,
                args: vec!["sandbox".into(), "--exec".into()],
                policy: SandboxPolicy::new(SandboxMode::WorkspaceWrite),
            }),
            tracking: ChangeTracking::Off,
        })
        .unwrap();
        let temp = temp_dir(&launcher);
        let invocation = Invocation::Shell("echo \"tmp=$TMPDIR home=${HOME:-none}\"; pwd".into());
        let output = launcher
            .command(dir.path(), &invocation, &Tracker::Off)
            .unwrap()
            .output()
            .await
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(output.status.success(), "{text}");
        assert!(
            text.contains(&format!("tmp={} home=none", temp.display())),
            "{text}"
        );
        assert!(text.contains(&dir.path().display().to_string()), "{text}");
    }

    #[test]
    fn a_denial_note_appears_only_for_sandboxed_denials() {
        let launcher = sandboxed();
        let note = launcher
            .denial_note(
                Path::new("/proj"),
                "touch: cannot touch '/x': Permission denied",
            )
            .unwrap();
        assert!(note.contains("mode workspace-write"), "{note}");
        assert!(note.contains("/proj"), "{note}");
        assert!(
            launcher
                .denial_note(Path::new("/proj"), "all good")
                .is_none()
        );
        let direct = Launcher::new(CommandSetup::default()).unwrap();
        assert!(
            direct
                .denial_note(Path::new("/proj"), "Permission denied")
                .is_none()
        );
    }
}
