//! What "always for this session" grants, in one place for every kind of call: the tool
//! for writes and outside tools, the command prefix (the program and its subcommand, of the
//! first part of the line that asks) for the model's commands and hone's checks alike, the
//! file for a read of a file that may hold secrets, and nothing for a change that always
//! asks.

use crate::{Action, CommandClass, CommandPolicy};

/// One "always for this session" grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grant {
    /// The tool may write (or, for an outside tool, run) without asking.
    Tool(String),
    /// Commands starting with these words may run without asking (`cargo test`).
    CommandPrefix(String),
    /// The file, which may hold secrets, may be read without asking.
    SecretFile(String),
}

/// Programs whose first argument is a subcommand worth keeping in a grant (`cargo test` is
/// granted, not every `cargo …`).
const SUBCOMMAND_PROGRAMS: &[&str] = &[
    "cargo", "npm", "pnpm", "yarn", "npx", "git", "go", "pip", "pip3", "poetry", "uv", "docker",
    "kubectl", "make", "bundle", "rake", "dotnet", "mvn", "gradle", "deno", "bun",
];

/// Interpreters whose `-m MODULE` names what runs (`python3 -m pytest` is granted, not
/// every `python3 …`).
const MODULE_RUNNERS: &[&str] = &["python", "python3"];

/// What "always for this session" grants for `action` by `tool`; `None` when the action
/// cannot be granted (reads need no grant; protected writes always ask).
pub(crate) fn grant_for(
    commands: &CommandPolicy,
    tool: &str,
    action: &Action<'_>,
) -> Option<Grant> {
    match *action {
        Action::Read | Action::WriteProtected { .. } => None,
        Action::ReadSecret { path } => Some(Grant::SecretFile(path.to_string())),
        Action::Write { .. } | Action::External { .. } => Some(Grant::Tool(tool.to_string())),
        Action::Command { command } | Action::Check { command } => {
            let prefix = command_prefix(&asking_part(commands, command));
            (!prefix.is_empty()).then_some(Grant::CommandPrefix(prefix))
        }
    }
}

/// The first sub-command of `command` that asks (so `cd x && cargo test` grants `cargo
/// test`, not `cd x`); the whole line when none does.
fn asking_part(commands: &CommandPolicy, command: &str) -> String {
    commands
        .classify(command)
        .sub_commands
        .into_iter()
        .find(|sub| commands.classify(sub).class == CommandClass::Ask)
        .unwrap_or_else(|| command.to_string())
}

/// The words a grant keeps of `command`: the program and, for programs with subcommands,
/// the subcommand; for `python3 [-B …] -m MODULE`, the options and the module too.
pub(crate) fn command_prefix(command: &str) -> String {
    let words: Vec<&str> = command.split_whitespace().collect();
    let Some((program, rest)) = words.split_first() else {
        return String::new();
    };
    if MODULE_RUNNERS.contains(program) {
        let options = rest
            .iter()
            .take_while(|word| word.starts_with('-') && **word != "-m")
            .count();
        if let ["-m", _module, ..] = &rest[options..] {
            return words[..options + 3].join(" ");
        }
        return (*program).to_string();
    }
    match rest {
        [sub, ..] if !sub.starts_with('-') && SUBCOMMAND_PROGRAMS.contains(program) => {
            format!("{program} {sub}")
        }
        _ => (*program).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_prefixes_keep_the_subcommand_or_the_module() {
        assert_eq!(command_prefix("cargo test --all"), "cargo test");
        assert_eq!(command_prefix("ls -la"), "ls");
        assert_eq!(command_prefix("touch one"), "touch");
        assert_eq!(command_prefix("make"), "make");
        assert_eq!(command_prefix("npm --silent test"), "npm");
        assert_eq!(
            command_prefix("python3 -m unittest discover -s tests"),
            "python3 -m unittest"
        );
        assert_eq!(
            command_prefix("python3 -B -m unittest -q test_calc"),
            "python3 -B -m unittest"
        );
        assert_eq!(command_prefix("python3 script.py"), "python3");
        assert_eq!(command_prefix("python3 -c 'print(1)'"), "python3");
        assert_eq!(command_prefix(""), "");
    }
}
