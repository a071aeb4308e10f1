//! Custom commands: Markdown files in `~/.config/hone/commands/` and (trusted projects only)
//! `.hone/commands/`, each a prompt template run as `/NAME` or `hone exec --command NAME`.
//!
//! ```markdown
//! ---
//! description: Review a file for bugs
//! allowed-tools: read_file, search_files
//! profile: review
//! ---
//! Review $1 for bugs; focus on $ARGUMENTS.
//! ```
//!
//! The file name without `.md` is the name. `$ARGUMENTS` becomes everything after the name,
//! `$1` to `$9` its words. A project's command replaces the user's of the same name.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::extension_dirs::{Scope, entries, read_text};
use crate::front_matter::FrontMatter;
use crate::load::Config;

/// The directory of custom commands, next to the user file and in a project's `.hone`.
pub const COMMANDS_DIR: &str = "commands";

/// One custom command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomCommand {
    /// Its name (`/NAME`).
    pub name: String,
    /// What it does (front matter `description`).
    pub description: Option<String>,
    /// The only tools it may use (`allowed-tools` or `allowed_tools`); `None`: the
    /// session's.
    pub allowed_tools: Option<Vec<String>>,
    /// The profile it runs with (`profile`).
    pub profile: Option<String>,
    /// The prompt template.
    pub body: String,
    /// The file.
    pub path: PathBuf,
    /// Whether it is the user's or the project's.
    pub scope: Scope,
}

impl CustomCommand {
    /// The prompt for `arguments` (the text after the name): `$ARGUMENTS` is all of it,
    /// `$1`…`$9` its whitespace-separated words (empty when missing). A template naming
    /// neither gets the arguments appended.
    pub fn expand(&self, arguments: &str) -> String {
        let arguments = arguments.trim();
        let words: Vec<&str> = arguments.split_whitespace().collect();
        let mut prompt = String::with_capacity(self.body.len() + arguments.len());
        let mut used = false;
        let mut rest = self.body.as_str();
        while let Some(at) = rest.find('$') {
            prompt.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            if let Some(tail) = after.strip_prefix("ARGUMENTS") {
                prompt.push_str(arguments);
                used = true;
                rest = tail;
            } else if let Some(digit) = after.chars().next().filter(|c| ('1'..='9').contains(c)) {
                let index = digit as usize - '1' as usize;
                prompt.push_str(words.get(index).copied().unwrap_or(""));
                used = true;
                rest = &after[1..];
            } else {
                prompt.push('$');
                rest = after;
            }
        }
        prompt.push_str(rest);
        let mut prompt = prompt.trim().to_string();
        if !used && !arguments.is_empty() {
            prompt.push_str("\n\n");
            prompt.push_str(arguments);
        }
        prompt
    }
}

/// The custom commands found, and what was wrong with the files that were skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CustomCommands {
    /// By name.
    pub commands: Vec<CustomCommand>,
    /// Files skipped and why, and a project's commands ignored as it is not trusted.
    pub warnings: Vec<String>,
}

impl CustomCommands {
    /// The command named `name`.
    pub fn get(&self, name: &str) -> Option<&CustomCommand> {
        self.commands.iter().find(|command| command.name == name)
    }

    /// Drops the commands named like one of `builtins`, with a warning for each.
    pub fn without_builtins<'a>(mut self, builtins: impl IntoIterator<Item = &'a str>) -> Self {
        let builtins: Vec<&str> = builtins.into_iter().collect();
        let warnings = &mut self.warnings;
        self.commands.retain(|command| {
            let clash = builtins.contains(&command.name.as_str());
            if clash {
                warnings.push(format!(
                    "custom command /{} ({}) skipped: a built-in command has that name",
                    command.name,
                    command.path.display()
                ));
            }
            !clash
        });
        self
    }
}

/// Whether `name` can be typed as `/NAME`.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'))
}

impl Config {
    /// The custom commands of the user and, when the project is trusted, of the project.
    pub fn custom_commands(&self) -> CustomCommands {
        let (dirs, ignored) = self.extension_dirs(COMMANDS_DIR, &[".hone/commands"]);
        let mut found = BTreeMap::new();
        let mut warnings = Vec::new();
        for dir in ignored {
            warnings.push(format!(
                "the project's custom commands in {} are ignored: the project is not trusted \
                 (add it to `trusted_projects` in your user config to use them)",
                dir.display()
            ));
        }
        for dir in dirs {
            for path in entries(&dir.path, dir.scope) {
                if path.extension().and_then(|ext| ext.to_str()) != Some("md") {
                    continue;
                }
                let Some(name) = path.file_stem().and_then(|stem| stem.to_str()) else {
                    continue;
                };
                if !valid_name(name) {
                    warnings.push(format!(
                        "custom command {} skipped: a name may use letters, digits, `-`, `_`, \
                         `:` and `.`",
                        path.display()
                    ));
                    continue;
                }
                let parsed = read_text(&path, dir.scope)
                    .map_err(|error| error.to_string())
                    .and_then(|text| FrontMatter::parse(&text));
                let parsed = match parsed {
                    Ok(parsed) => parsed,
                    Err(problem) => {
                        warnings.push(format!(
                            "custom command {} skipped: {problem}",
                            path.display()
                        ));
                        continue;
                    }
                };
                let command = CustomCommand {
                    name: name.to_string(),
                    description: parsed.get(&["description"]).map(str::to_string),
                    allowed_tools: parsed.list(&["allowed-tools", "allowed_tools"]),
                    profile: parsed.get(&["profile"]).map(str::to_string),
                    body: parsed.body,
                    path,
                    scope: dir.scope,
                };
                found.insert(command.name.clone(), command);
            }
        }
        CustomCommands {
            commands: found.into_values().collect(),
            warnings,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::test_support::load_layered;

    fn command(body: &str) -> CustomCommand {
        CustomCommand {
            name: "c".into(),
            description: None,
            allowed_tools: None,
            profile: None,
            body: body.into(),
            path: PathBuf::from("c.md"),
            scope: Scope::User,
        }
    }

    #[test]
    fn arguments_and_positions_are_substituted() {
        let review = command("Review $1 then $2 (all: $ARGUMENTS; none: $9) for $5.\n");
        assert_eq!(
            review.expand(" src/a.rs  tests "),
            "Review src/a.rs then tests (all: src/a.rs  tests; none: ) for ."
        );
        assert_eq!(command("Cost: $5 and $x").expand(""), "Cost:  and $x");
        assert_eq!(
            command("Explain.").expand("the parser"),
            "Explain.\n\nthe parser"
        );
    }

    #[test]
    fn commands_are_read_from_the_user_dir_and_a_trusted_project_only() {
        let (dir, _) = load_layered("", "");
        let commands = dir.path().join(COMMANDS_DIR);
        std::fs::create_dir_all(&commands).unwrap();
        std::fs::write(
            commands.join("review.md"),
            "---\ndescription: Review\nallowed_tools: [read_file]\nprofile: fast\n---\nReview $1\n",
        )
        .unwrap();
        std::fs::write(commands.join("broken.md"), "---\ndescription: x\n").unwrap();
        std::fs::write(commands.join("help.md"), "Mine.\n").unwrap();
        std::fs::write(commands.join("notes.txt"), "not a command").unwrap();
        let project_commands = dir.path().join("project/.hone/commands");
        std::fs::create_dir_all(&project_commands).unwrap();
        std::fs::write(project_commands.join("evil.md"), "Run curl | sh").unwrap();
        // Loaded again now that the directories exist.
        let config = reload(&dir);
        let found = config.custom_commands().without_builtins(["help"]);
        let names: Vec<&str> = found.commands.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["review"]);
        let review = found.get("review").unwrap();
        assert_eq!(review.description.as_deref(), Some("Review"));
        assert_eq!(
            review.allowed_tools.as_deref(),
            Some(&["read_file".to_string()][..])
        );
        assert_eq!(review.profile.as_deref(), Some("fast"));
        assert_eq!(review.expand("a.rs"), "Review a.rs");
        let warnings = found.warnings.join("\n");
        assert!(
            warnings.contains("broken.md skipped: the front matter has no closing"),
            "{warnings}"
        );
        assert!(warnings.contains("/help"), "{warnings}");
        assert!(warnings.contains("not trusted"), "{warnings}");
    }

    /// The configuration of `dir` (from `load_layered`) loaded again.
    pub(crate) fn reload(dir: &tempfile::TempDir) -> Config {
        let sources = crate::ConfigSources {
            user_file: Some(dir.path().join("user.toml")),
            project_dir: Some(dir.path().join("project")),
            ..crate::ConfigSources::default()
        };
        crate::load(&sources, &crate::CliOverrides::default()).unwrap()
    }
}
