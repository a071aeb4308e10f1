//! `hone exec --command NAME ARGS`: the prompt of a custom command, and its profile and
//! tools set on the session's overrides.

use hone_config::CliOverrides;
use hone_protocol::HoneError;

use crate::cli::GlobalArgs;

/// The prompt of the custom command `name` for the arguments `words`; its `profile` (unless
/// `--profile` was given) and `allowed-tools` go into `overrides`. Warnings about skipped
/// command files are printed on stderr.
pub(crate) fn prompt(
    global: &GlobalArgs,
    overrides: &mut CliOverrides,
    name: &str,
    words: &[String],
) -> Result<String, HoneError> {
    let config = crate::load_config_with(global, overrides.clone())?;
    let commands = config
        .custom_commands()
        .without_builtins(hone_tui::builtin_names());
    for warning in &commands.warnings {
        eprintln!("hone: warning: {warning}");
    }
    let name = name.trim_start_matches('/');
    let Some(command) = commands.get(name) else {
        let known: Vec<&str> = commands
            .commands
            .iter()
            .map(|command| command.name.as_str())
            .collect();
        let known = if known.is_empty() {
            "there are none; add Markdown files to ~/.config/hone/commands/".to_string()
        } else {
            format!("the custom commands are: {}", known.join(", "))
        };
        return Err(HoneError::config(format!(
            "no custom command named `{name}`; {known}"
        )));
    };
    if overrides.profile.is_none() {
        overrides.profile.clone_from(&command.profile);
    }
    overrides.allowed_tools.clone_from(&command.allowed_tools);
    Ok(command.expand(&words.join(" ")))
}
