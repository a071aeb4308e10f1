//! How the model's commands are started: the sandbox mode from `[sandbox]`, `--sandbox`
//! and the approval mode, this binary as the sandbox helper, and the environment variables
//! kept from every command; and the secret values to redact.

use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use hone_config::{Config, ProviderConfig};
use hone_policy::ApprovalMode;
use hone_sandbox::{Isolation, MARKER_VAR, SandboxMode, SandboxPolicy, SecretScrub, Support};
use hone_tools::command::{ChangeTracking, CommandSetup, SandboxHelper};

use crate::interaction::Interaction;

/// Whether the "no sandbox here" warning was printed (once per process).
static WARNED: AtomicBool = AtomicBool::new(false);

/// How the session's commands will run.
#[derive(Debug, Clone)]
pub struct CommandSandbox {
    /// What hone-tools needs to start them.
    pub setup: CommandSetup,
    /// Whether they really run sandboxed (the mode is not off and the system can do it).
    pub sandboxed: bool,
    /// A sandbox was wanted but the system cannot provide one: full-auto then asks for
    /// commands as auto-edit does.
    pub unavailable: bool,
    /// Whether they run in their own namespaces with a read-only view of the system (hone's
    /// environment, the user's other processes and the home directory out of reach): only
    /// then may hone run the project's own code (its tests as checks) without asking.
    pub isolated: bool,
    /// One line for `/status` and `hone doctor`.
    pub status: String,
}

/// The mode when neither `[sandbox] mode` nor `--sandbox` sets one: read-only under the
/// read-only approval (commands should not write either), workspace-write otherwise.
pub fn default_mode(approval: ApprovalMode) -> SandboxMode {
    match approval {
        ApprovalMode::ReadOnly => SandboxMode::ReadOnly,
        _ => SandboxMode::WorkspaceWrite,
    }
}

/// The command setup for a session under `config` with `approval`. Warns once through
/// `interaction` when a sandbox is wanted but the system has none (commands then run
/// unsandboxed). The sandbox helper is this process's executable run as `sandbox --exec`.
pub fn command_sandbox(
    config: &Config,
    approval: ApprovalMode,
    interaction: &dyn Interaction,
) -> CommandSandbox {
    let settings = config.sandbox_settings();
    if !settings.ignored.is_empty() {
        tracing::warn!(
            ignored = %settings.ignored.join(", "),
            "[sandbox] settings of an untrusted project file were ignored"
        );
    }
    let scrub = SecretScrub::new(
        config.known_key_variables(),
        settings.env_passthrough.clone(),
    );
    let remove_env = scrub.names_to_remove(std::env::vars_os());
    let mut policy = SandboxPolicy {
        mode: settings.mode.unwrap_or_else(|| default_mode(approval)),
        writable_roots: settings.writable_roots.clone(),
        network: settings.network,
        readable_roots: settings.readable_roots.clone(),
        limits: settings.limits,
        namespaces: settings.namespaces,
        overlay: None,
    };
    // Without a sandbox (off, or none here) commands write straight to the project; where
    // one was wanted hone still snapshots it so their changes can be undone.
    let unsandboxed = |status: String, unavailable: bool| CommandSandbox {
        setup: CommandSetup {
            remove_env: remove_env.clone(),
            sandbox: None,
            tracking: if unavailable {
                ChangeTracking::Snapshot
            } else {
                ChangeTracking::Off
            },
        },
        sandboxed: false,
        unavailable,
        isolated: false,
        status,
    };
    if policy.mode == SandboxMode::Off {
        return unsandboxed("off (commands run unconfined)".to_string(), false);
    }
    let support = hone_sandbox::support();
    if let Support::Unavailable(reason) = &support {
        let full_auto = if approval == ApprovalMode::FullAuto {
            "; full-auto asks before commands, as auto-edit does"
        } else {
            ""
        };
        warn_once(
            interaction,
            &format!(
                "commands will run without a sandbox: {reason}{full_auto} (set `[sandbox] mode = \
             \"off\"` or pass `--sandbox off` to silence this)"
            ),
        );
        return unsandboxed(
            format!(
                "{} wanted, but unavailable ({reason}): commands run unconfined",
                policy.mode
            ),
            true,
        );
    }
    let program = match std::env::current_exe() {
        Ok(program) => program,
        Err(error) => {
            warn_once(
                interaction,
                &format!(
                    "commands will run without a sandbox: hone cannot find its own executable \
                 ({error})"
                ),
            );
            return unsandboxed(
                format!(
                    "{} wanted, but hone cannot find its own executable: commands run \
                     unconfined",
                    policy.mode
                ),
                true,
            );
        }
    };
    let args: Vec<std::ffi::OsString> = vec!["sandbox".into(), "--exec".into()];
    let wanted = policy.namespaces;
    let isolation = if wanted {
        probe(&program, &args, &policy).unwrap_or_else(reason_isolation)
    } else {
        Isolation::Landlock
    };
    let full_auto = if approval == ApprovalMode::FullAuto {
        "; full-auto asks before commands, as auto-edit does"
    } else {
        ""
    };
    let mut fallback = wanted && isolation == Isolation::Landlock;
    if fallback {
        policy.namespaces = false;
        warn_once(
            interaction,
            &format!(
                "commands run under Landlock and seccomp only: this system gives hone no user \
                 namespaces, so they can read the whole file system and see other \
                 processes, and write straight to the project (hone snapshots its files so \
                 undo takes their changes back){full_auto} (`[sandbox] namespaces = false` \
                 silences this)"
            ),
        );
    }
    let tracking = match tracking(&settings, &policy, isolation, &program, &args) {
        Ok(tracking) => tracking,
        Err(reason) => {
            fallback = true;
            warn_once(
                interaction,
                &format!(
                    "commands write straight to the project: this system gives hone no \
                     copy-on-write view ({reason}); hone snapshots the project's files so undo \
                     takes their changes back{full_auto} (`[sandbox] overlay = false` silences \
                     this)"
                ),
            );
            ChangeTracking::Snapshot
        }
    };
    let status = format!(
        "{}, network {} ({}; {}; {})",
        policy.mode,
        if policy.network { "on" } else { "off" },
        support.describe(),
        match isolation {
            Isolation::Namespaces => "own namespaces, read-only system view",
            Isolation::Landlock => "no namespaces",
        },
        match &tracking {
            ChangeTracking::Overlay { .. } => "commands on a copy-on-write view",
            ChangeTracking::Snapshot => "commands write straight, snapshots for undo",
            ChangeTracking::Off => "commands cannot write the project",
        }
    );
    CommandSandbox {
        setup: CommandSetup {
            remove_env,
            sandbox: Some(SandboxHelper {
                program,
                args,
                policy,
            }),
            tracking,
        },
        sandboxed: true,
        unavailable: fallback,
        isolated: isolation == Isolation::Namespaces,
        status,
    }
}

/// How the file changes of commands are found: on a copy-on-write view where namespaces
/// and the overlay work (and `[sandbox] overlay` is on), else by snapshots. Read-only
/// commands cannot change the project. `Err` says why a wanted view is not available.
fn tracking(
    settings: &hone_config::SandboxSettings,
    policy: &SandboxPolicy,
    isolation: Isolation,
    program: &Path,
    args: &[std::ffi::OsString],
) -> Result<ChangeTracking, String> {
    if policy.mode != SandboxMode::WorkspaceWrite {
        return Ok(ChangeTracking::Off);
    }
    if !settings.overlay || isolation != Isolation::Namespaces || !cfg!(target_os = "linux") {
        return Ok(ChangeTracking::Snapshot);
    }
    match probe_overlay(program, args, policy) {
        Ok(()) => Ok(ChangeTracking::Overlay {
            passthrough: settings.passthrough.clone(),
        }),
        Err(reason) => {
            tracing::warn!(%reason, "the copy-on-write view could not be set up");
            Err(reason
                .lines()
                .next()
                .filter(|line| !line.is_empty())
                .unwrap_or("the overlay could not be mounted")
                .to_string())
        }
    }
}

/// Whether the helper can run a command on a copy-on-write view here, found once per
/// process by writing a file through one: the write must land in the view's upper layer
/// and not in the directory.
fn probe_overlay(
    program: &Path,
    args: &[std::ffi::OsString],
    policy: &SandboxPolicy,
) -> Result<(), String> {
    static PROBED: OnceLock<Result<(), String>> = OnceLock::new();
    PROBED
        .get_or_init(|| {
            let error = |error: std::io::Error| format!("could not prepare the probe: {error}");
            let workdir = tempfile::Builder::new()
                .prefix("hone-probe-")
                .tempdir()
                .map_err(error)?;
            let view = hone_sandbox::overlay::OverlayDir::create().map_err(error)?;
            let mut policy = policy.clone();
            policy.overlay = Some(hone_sandbox::overlay::Overlay {
                dir: view.path().to_path_buf(),
                passthrough: Vec::new(),
            });
            let output = std::process::Command::new(program)
                .args(args)
                .args(policy.helper_args())
                .args(["--", "sh", "-c", "echo probe > probe.txt"])
                .current_dir(workdir.path())
                .stdin(std::process::Stdio::null())
                .output()
                .map_err(|error| format!("could not run the sandbox helper: {error}"))?;
            let landed = view.path().join("upper/probe.txt").is_file()
                && !workdir.path().join("probe.txt").exists();
            if output.status.success() && landed {
                Ok(())
            } else {
                Err(String::from_utf8_lossy(&output.stderr).trim().to_string())
            }
        })
        .clone()
}

/// What a failed probe leaves: Landlock only (the helper's own error is logged).
fn reason_isolation(reason: String) -> Isolation {
    tracing::warn!(%reason, "the sandbox's namespaces could not be set up");
    Isolation::Landlock
}

/// How the helper isolates commands on this system, found once per process by running
/// `true`-like shell code through it and reading the marker it sets.
fn probe(
    program: &Path,
    args: &[std::ffi::OsString],
    policy: &SandboxPolicy,
) -> Result<Isolation, String> {
    static PROBED: OnceLock<Result<Isolation, String>> = OnceLock::new();
    PROBED
        .get_or_init(|| {
            let output = std::process::Command::new(program)
                .args(args)
                .args(policy.helper_args())
                .arg("--")
                .args(["sh", "-c", &format!("printf %s \"${MARKER_VAR}\"")])
                .current_dir(std::env::temp_dir())
                .stdin(std::process::Stdio::null())
                .output()
                .map_err(|error| format!("could not run the sandbox helper: {error}"))?;
            let marker = String::from_utf8_lossy(&output.stdout);
            match Isolation::from_marker(&marker) {
                Some(isolation) if output.status.success() => Ok(isolation),
                _ => Err(String::from_utf8_lossy(&output.stderr).trim().to_string()),
            }
        })
        .clone()
}

fn warn_once(interaction: &dyn Interaction, message: &str) {
    if !WARNED.swap(true, Ordering::SeqCst) {
        interaction.warn(message);
    }
}

/// The secret values to redact from logs, events, the session store and output: the
/// selected provider's key and the value of every known key variable (every vendor's,
/// every configured `api_key_env`) or secret-looking variable in the environment.
pub fn secrets(config: &Config, provider: &ProviderConfig) -> Vec<String> {
    let scrub = SecretScrub::new(config.known_key_variables(), Vec::<String>::new());
    let mut secrets = scrub.values_to_redact(std::env::vars_os());
    secrets.extend(provider.api_key.iter().map(|key| key.expose().to_string()));
    secrets.sort();
    secrets.dedup();
    secrets
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_approval_defaults_to_a_read_only_sandbox() {
        assert_eq!(default_mode(ApprovalMode::ReadOnly), SandboxMode::ReadOnly);
        for approval in [
            ApprovalMode::Ask,
            ApprovalMode::AutoEdit,
            ApprovalMode::FullAuto,
        ] {
            assert_eq!(default_mode(approval), SandboxMode::WorkspaceWrite);
        }
    }
}
