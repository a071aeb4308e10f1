//! The session's hooks, from `[[hooks]]` of the configuration.

use std::time::Duration;

use hone_config::Config;
use hone_core::{Hook, Hooks};

/// The hooks `config` defines (an untrusted project's are already left out, and named by
/// the warning about ignored project settings); a hook that cannot be built is skipped
/// with a warning added to `warnings`.
pub(crate) fn session_hooks(config: &Config, warnings: &mut Vec<String>) -> Hooks {
    let mut hooks = Vec::new();
    for settings in config.hooks_settings().hooks {
        match Hook::new(
            settings.event,
            settings.matcher.as_deref(),
            settings.paths.as_deref(),
            &settings.command,
            Duration::from_secs(settings.timeout_secs),
        ) {
            Ok(hook) => hooks.push(hook),
            Err(problem) => warnings.push(format!(
                "{} hook `{}` skipped: {problem}",
                settings.event, settings.command
            )),
        }
    }
    Hooks::new(hooks)
}
