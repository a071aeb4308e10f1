//! How the model's commands are started: the sandbox mode from `[sandbox]`, `--sandbox`
//! and the approval mode, this binary as the sandbox helper, and the environment variables
//! kept from every command; and the secret values to redact.

use std::sync::atomic::{AtomicBool, Ordering};

use hone_config::{Config, ProviderConfig};
use hone_policy::ApprovalMode;
use hone_sandbox::{SandboxMode, SandboxPolicy, SecretScrub, Support};
use hone_tools::command::{CommandSetup, SandboxHelper};

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
    let policy = SandboxPolicy {
        mode: settings.mode.unwrap_or_else(|| default_mode(approval)),
        writable_roots: settings.writable_roots.clone(),
        network: settings.network,
    };
    let unsandboxed = |status: String, unavailable: bool| CommandSandbox {
        setup: CommandSetup {
            remove_env: remove_env.clone(),
            sandbox: None,
        },
        sandboxed: false,
        unavailable,
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
    let status = format!(
        "{}, network {} ({})",
        policy.mode,
        if policy.network { "on" } else { "off" },
        support.describe()
    );
    CommandSandbox {
        setup: CommandSetup {
            remove_env,
            sandbox: Some(SandboxHelper {
                program,
                args: vec!["sandbox".into(), "--exec".into()],
                policy,
            }),
        },
        sandboxed: true,
        unavailable: false,
        status,
    }
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
