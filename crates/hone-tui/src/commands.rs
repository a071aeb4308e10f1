//! Slash commands: their names, help, completion and parsing.

/// One slash command, as listed by `/help` and the completion popup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SlashCommand {
    /// Name with the slash.
    pub(crate) name: &'static str,
    /// Argument syntax (empty when none).
    pub(crate) args: &'static str,
    /// One line of help.
    pub(crate) help: &'static str,
}

/// Every slash command.
pub(crate) const COMMANDS: &[SlashCommand] = &[
    SlashCommand {
        name: "/help",
        args: "",
        help: "keys and commands",
    },
    SlashCommand {
        name: "/clear",
        args: "",
        help: "start a fresh conversation",
    },
    SlashCommand {
        name: "/undo",
        args: "[N|list]",
        help: "take back the last N edits (default 1), or list them",
    },
    SlashCommand {
        name: "/rewind",
        args: "[N [fork]]",
        help: "back to before prompt N, files too; no N: list",
    },
    SlashCommand {
        name: "/sessions",
        args: "[load|delete ID]",
        help: "list, load or delete saved sessions",
    },
    SlashCommand {
        name: "/status",
        args: "",
        help: "provider, model, index, context, session stats",
    },
    SlashCommand {
        name: "/init",
        args: "[force]",
        help: "write AGENTS.md from the project (a diff to approve)",
    },
    SlashCommand {
        name: "/reindex",
        args: "",
        help: "bring the code index up to date",
    },
    SlashCommand {
        name: "/eval",
        args: "",
        help: "check the last answer against the code it read",
    },
    SlashCommand {
        name: "/auto-apply",
        args: "on|off",
        help: "apply edits without asking (diffs still shown)",
    },
    SlashCommand {
        name: "/model",
        args: "NAME",
        help: "switch the model",
    },
    SlashCommand {
        name: "/compact",
        args: "",
        help: "summarise older history to free context",
    },
    SlashCommand {
        name: "/diff",
        args: "",
        help: "every change made this session",
    },
    SlashCommand {
        name: "/add",
        args: "[--summary] GLOB…",
        help: "keep matching files in the context (outlines with --summary)",
    },
    SlashCommand {
        name: "/drop",
        args: "GLOB…",
        help: "stop keeping matching files in the context",
    },
    SlashCommand {
        name: "/think",
        args: "off|low|medium|high|TOKENS",
        help: "how much the model reasons in this session",
    },
    SlashCommand {
        name: "/image",
        args: "PATH|clear",
        help: "attach an image (PNG, JPEG, WebP, GIF) to the next message",
    },
    SlashCommand {
        name: "/quit",
        args: "",
        help: "leave hone (the session is kept)",
    },
    SlashCommand {
        name: "/mcp",
        args: "",
        help: "MCP servers: state, tools and prompts",
    },
];

/// Aliases `parse` accepts besides the names in [`COMMANDS`].
const ALIASES: [&str; 4] = ["/?", "/new", "/exit", "/q"];

/// The names of the built-in commands and their aliases, without the `/`: a custom command
/// may not take one.
pub fn builtin_names() -> Vec<&'static str> {
    COMMANDS
        .iter()
        .map(|command| command.name)
        .chain(ALIASES)
        .map(|name| name.trim_start_matches('/'))
        .collect()
}

/// The commands whose names start with `prefix` (which starts with `/`).
pub(crate) fn matching(prefix: &str) -> Vec<SlashCommand> {
    let prefix = prefix.to_ascii_lowercase();
    COMMANDS
        .iter()
        .filter(|command| command.name.starts_with(&prefix))
        .copied()
        .collect()
}

/// A parsed slash command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Command {
    Help,
    Clear,
    Undo(usize),
    UndoList,
    /// `/rewind` lists the prompts; `/rewind N [fork]` goes back to before prompt N.
    Rewind(Option<(u32, bool)>),
    Sessions(String),
    Status,
    Reindex,
    /// `/init`, `/init force` (replace an existing AGENTS.md).
    Init {
        force: bool,
    },
    Mcp,
    Eval,
    AutoApply(Option<bool>),
    Model(Option<String>),
    Compact,
    Diff,
    Add {
        patterns: Vec<String>,
        summary: bool,
    },
    Drop(Vec<String>),
    /// `/think LEVEL`: the session's reasoning level (checked by the session).
    Think(String),
    /// `/image PATH` attaches, `/image clear` drops what was attached.
    Image(String),
    ImageClear,
    Quit,
}

/// `/rewind`, `/rewind N`, `/rewind N fork`.
fn parse_rewind(rest: &str) -> Result<Command, String> {
    let mut words = rest.split_whitespace();
    let (Some(number), fork) = (words.next(), words.next()) else {
        return Ok(Command::Rewind(None));
    };
    let prompt = match number.parse::<u32>() {
        Ok(prompt) if prompt > 0 => prompt,
        _ => {
            return Err(format!(
                "/rewind takes a prompt number (see /rewind), not `{number}`"
            ));
        }
    };
    match (fork, words.next()) {
        (None, _) => Ok(Command::Rewind(Some((prompt, false)))),
        (Some("fork"), None) => Ok(Command::Rewind(Some((prompt, true)))),
        (Some(other), _) => Err(format!(
            "/rewind N takes nothing or `fork` after it, not `{other}`"
        )),
    }
}

/// Parses a line starting with `/`; the error says what to type instead.
pub(crate) fn parse(line: &str) -> Result<Command, String> {
    let line = line.trim();
    let (name, rest) = line
        .split_once(char::is_whitespace)
        .map_or((line, ""), |(name, rest)| (name, rest.trim()));
    let name = name.to_ascii_lowercase();
    let no_args = |command: Command| {
        if rest.is_empty() {
            Ok(command)
        } else {
            Err(format!("{name} takes no arguments"))
        }
    };
    match name.as_str() {
        "/help" | "/?" => no_args(Command::Help),
        "/clear" | "/new" => no_args(Command::Clear),
        "/undo" => match rest {
            "" => Ok(Command::Undo(1)),
            "list" => Ok(Command::UndoList),
            count => match count.parse::<usize>() {
                Ok(count) if count > 0 => Ok(Command::Undo(count)),
                _ => Err(format!(
                    "/undo takes a positive number of edits, not `{count}`"
                )),
            },
        },
        "/rewind" => parse_rewind(rest),
        "/sessions" => Ok(Command::Sessions(rest.to_string())),
        "/status" => no_args(Command::Status),
        "/reindex" => no_args(Command::Reindex),
        "/init" => match rest {
            "" => Ok(Command::Init { force: false }),
            "force" => Ok(Command::Init { force: true }),
            other => Err(format!("/init takes nothing or `force`, not `{other}`")),
        },
        "/mcp" => no_args(Command::Mcp),
        "/eval" => no_args(Command::Eval),
        "/auto-apply" => match rest.to_ascii_lowercase().as_str() {
            "" => Ok(Command::AutoApply(None)),
            "on" => Ok(Command::AutoApply(Some(true))),
            "off" => Ok(Command::AutoApply(Some(false))),
            other => Err(format!("/auto-apply takes `on` or `off`, not `{other}`")),
        },
        "/model" => Ok(Command::Model(
            Some(rest.to_string()).filter(|model| !model.is_empty()),
        )),
        "/compact" => no_args(Command::Compact),
        "/diff" => no_args(Command::Diff),
        "/add" | "/drop" if rest.is_empty() => Err(format!(
            "{name} needs a path or glob, e.g. `{name} src/**/*.rs`"
        )),
        "/add" => {
            let mut summary = false;
            let patterns: Vec<String> = rest
                .split_whitespace()
                .filter(|word| {
                    let flag = matches!(*word, "--summary" | "--outline");
                    summary |= flag;
                    !flag
                })
                .map(str::to_string)
                .collect();
            if patterns.is_empty() {
                return Err("/add needs a path or glob after --summary".into());
            }
            Ok(Command::Add { patterns, summary })
        }
        "/drop" => Ok(Command::Drop(
            rest.split_whitespace().map(str::to_string).collect(),
        )),
        "/think" => match rest {
            "" => Err("/think needs a level: off, low, medium, high, or a token budget".into()),
            level => Ok(Command::Think(level.to_ascii_lowercase())),
        },
        "/image" => match rest {
            "" => Err("/image needs the path of a picture, e.g. `/image ~/shot.png`".into()),
            "clear" => Ok(Command::ImageClear),
            path => Ok(Command::Image(path.trim_matches(['\'', '"']).to_string())),
        },
        "/quit" | "/exit" | "/q" => no_args(Command::Quit),
        _ => {
            let close = matching(&name[..name.len().min(3)]);
            let hint = close
                .first()
                .map(|command| format!(" — did you mean {}?", command.name))
                .unwrap_or_default();
            Err(format!("unknown command {name}{hint} (/help lists them)"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_complete_to_commands() {
        let names: Vec<_> = matching("/d").iter().map(|command| command.name).collect();
        assert_eq!(names, ["/diff", "/drop"]);
        assert_eq!(matching("/").len(), COMMANDS.len());
        assert!(matching("/zz").is_empty());
    }

    #[test]
    fn arguments_are_parsed_and_checked() {
        assert_eq!(parse("/undo"), Ok(Command::Undo(1)));
        assert_eq!(parse("/undo 3"), Ok(Command::Undo(3)));
        assert_eq!(parse("/undo list"), Ok(Command::UndoList));
        assert!(parse("/undo x").unwrap_err().contains("positive number"));
        assert_eq!(parse("/auto-apply ON"), Ok(Command::AutoApply(Some(true))));
        assert_eq!(
            parse("/model  gpt-4o "),
            Ok(Command::Model(Some("gpt-4o".into())))
        );
        assert_eq!(
            parse("/add src/**/*.rs --summary lib.rs"),
            Ok(Command::Add {
                patterns: vec!["src/**/*.rs".into(), "lib.rs".into()],
                summary: true
            })
        );
        assert_eq!(
            parse("/drop a b"),
            Ok(Command::Drop(vec!["a".into(), "b".into()]))
        );
        assert!(parse("/add").unwrap_err().contains("needs a path"));
        assert!(parse("/status now").unwrap_err().contains("no arguments"));
        assert_eq!(parse("/init"), Ok(Command::Init { force: false }));
        assert_eq!(parse("/init force"), Ok(Command::Init { force: true }));
        assert!(parse("/init now").unwrap_err().contains("`force`"));
    }

    #[test]
    fn builtin_names_include_aliases_without_the_slash() {
        let names = builtin_names();
        assert!(names.contains(&"help"));
        assert!(names.contains(&"exit"));
        assert!(!names.iter().any(|name| name.starts_with('/')));
    }

    #[test]
    fn unknown_commands_suggest_a_close_one() {
        let error = parse("/stat").unwrap_err();
        assert!(error.contains("did you mean /status?"), "{error}");
    }
}
