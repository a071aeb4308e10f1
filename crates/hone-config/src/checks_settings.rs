//! `[checks]`: the checks hone runs after the agent's edits.
//!
//! ```toml
//! [checks]
//! enabled = true             # run checks after edits (default true)
//! run_tests = true           # run the project's tests after the other checks (default true)
//! tests = "PYTHONPATH=src pytest -q"   # the test command (default: what the project declares)
//! max_repair_rounds = 3      # times per turn failures go back to the model (0 to 10)
//! attempts = 3               # fresh attempts when a check reproduced the request (1 to 10)
//! python = ["python3 -m py_compile {files}"]   # per language: replaces the detected checks
//! "src/**/*.ts" = ["npx tsc --noEmit"]         # per glob over root-relative paths
//! ```
//!
//! Other keys are a language name ([`CHECK_LANGUAGES`]) or a glob, each with a list of shell
//! commands; `{files}` becomes the changed files the key matches. Scalars: the project
//! file's value wins over the user file's. Command lists: the project file's list for a key
//! replaces the user file's. Check commands go through the command policy like the model's.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::error::ConfigError;
use crate::load::Config;
use crate::show::ShownValue;
use crate::source::{Source, Sourced};

/// `max_repair_rounds` when nothing sets it.
pub const DEFAULT_MAX_REPAIR_ROUNDS: u32 = 3;

/// The values `max_repair_rounds` accepts.
pub const MAX_REPAIR_ROUNDS_RANGE: RangeInclusive<u32> = 0..=10;

/// `attempts` when nothing sets it.
pub const DEFAULT_ATTEMPTS: u32 = 3;

/// The values `attempts` accepts.
pub const ATTEMPTS_RANGE: RangeInclusive<u32> = 1..=10;

/// Language names a `[checks]` key may use, with their file extensions.
pub const CHECK_LANGUAGES: &[(&str, &[&str])] = &[
    ("python", &["py", "pyi"]),
    ("typescript", &["ts", "tsx", "mts", "cts"]),
    ("javascript", &["js", "jsx", "mjs", "cjs"]),
    ("rust", &["rs"]),
    ("go", &["go"]),
    ("java", &["java"]),
    ("kotlin", &["kt", "kts"]),
    ("c", &["c", "h"]),
    ("cpp", &["cc", "cpp", "cxx", "hpp", "hh", "hxx"]),
    ("csharp", &["cs"]),
    ("ruby", &["rb"]),
    ("php", &["php"]),
    ("swift", &["swift"]),
    ("shell", &["sh", "bash"]),
];

/// What a `[checks]` command list applies to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckKey {
    /// A language of [`CHECK_LANGUAGES`]: its name and extensions.
    Language {
        /// The name (`python`).
        name: String,
        /// Its extensions without the dot.
        extensions: Vec<String>,
    },
    /// A glob over root-relative paths.
    Glob(String),
}

/// One `[checks]` command list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckCommands {
    /// What it applies to.
    pub key: CheckKey,
    /// The commands, in order.
    pub commands: Vec<String>,
}

/// `[checks]` after layering ([`Config::checks_settings`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChecksSettings {
    /// Whether checks run after edits.
    pub enabled: bool,
    /// Whether the project's tests run after the other checks.
    pub run_tests: bool,
    /// The command that runs the tests, when configured (else hone finds it).
    pub tests: Option<String>,
    /// Repair rounds per turn.
    pub max_repair_rounds: u32,
    /// Attempts per turn when a check reproduced the request before the change: a failed
    /// one is rolled back and a fresh one made.
    pub attempts: u32,
    /// Configured commands, by key in the order of the keys' names.
    pub commands: Vec<CheckCommands>,
}

/// `[checks]` as written in a file: every key with its span, checked by [`validate`].
#[derive(Debug, Default, Deserialize)]
#[serde(transparent)]
pub(crate) struct ChecksSection {
    entries: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
    #[serde(skip)]
    checked: CheckedSection,
}

#[derive(Debug, Default, Clone)]
struct CheckedSection {
    enabled: Option<bool>,
    run_tests: Option<bool>,
    tests: Option<String>,
    max_repair_rounds: Option<u32>,
    attempts: Option<u32>,
    commands: BTreeMap<String, CheckCommands>,
}

/// Checks `section`, from the contents `text` of `path`; errors name the file, line and
/// column.
pub(crate) fn validate(
    path: &Path,
    text: &str,
    section: &mut ChecksSection,
) -> Result<(), ConfigError> {
    let error = |offset: usize, message: String| crate::file::error_at(path, text, offset, message);
    let mut checked = CheckedSection::default();
    for (key, value) in &section.entries {
        let name = key.get_ref().as_str();
        let at = value.span().start;
        match name {
            "enabled" | "run_tests" => {
                let Some(flag) = value.get_ref().as_bool() else {
                    return Err(error(
                        at,
                        format!("invalid `checks.{name}`: expected true or false"),
                    ));
                };
                if name == "enabled" {
                    checked.enabled = Some(flag);
                } else {
                    checked.run_tests = Some(flag);
                }
            }
            "tests" => {
                let command = value
                    .get_ref()
                    .as_str()
                    .map(str::trim)
                    .filter(|command| !command.is_empty());
                let Some(command) = command else {
                    return Err(error(
                        at,
                        "invalid `checks.tests`: expected the command line that runs the \
                         project's tests, e.g. \"make test\""
                            .to_string(),
                    ));
                };
                checked.tests = Some(command.to_string());
            }
            "max_repair_rounds" | "attempts" => {
                let range = if name == "attempts" {
                    ATTEMPTS_RANGE
                } else {
                    MAX_REPAIR_ROUNDS_RANGE
                };
                let number = value
                    .get_ref()
                    .as_integer()
                    .and_then(|number| u32::try_from(number).ok())
                    .filter(|number| range.contains(number));
                let Some(number) = number else {
                    return Err(error(
                        at,
                        format!(
                            "invalid `checks.{name}` {}: expected a number from {} to {}",
                            value.get_ref(),
                            range.start(),
                            range.end()
                        ),
                    ));
                };
                if name == "attempts" {
                    checked.attempts = Some(number);
                } else {
                    checked.max_repair_rounds = Some(number);
                }
            }
            _ => {
                let key_at = key.span().start;
                let target = check_key(name).map_err(|message| error(key_at, message))?;
                let commands = command_list(value.get_ref()).ok_or_else(|| {
                    error(
                        at,
                        format!(
                            "invalid `checks.\"{name}\"`: expected a list of command lines, e.g. \
                             [\"python3 -m py_compile {{files}}\"]"
                        ),
                    )
                })?;
                checked.commands.insert(
                    name.to_string(),
                    CheckCommands {
                        key: target,
                        commands,
                    },
                );
            }
        }
    }
    section.checked = checked;
    Ok(())
}

/// A language name, or a glob (a key with `*`, `?`, `[`, `{`, `/` or `.`).
fn check_key(name: &str) -> Result<CheckKey, String> {
    if let Some((language, extensions)) = CHECK_LANGUAGES
        .iter()
        .find(|(language, _)| *language == name)
    {
        return Ok(CheckKey::Language {
            name: (*language).to_string(),
            extensions: extensions.iter().map(|ext| (*ext).to_string()).collect(),
        });
    }
    let glob_like = name.contains(['*', '?', '[', '{', '/', '.']);
    if !glob_like {
        let known: Vec<&str> = CHECK_LANGUAGES
            .iter()
            .map(|(language, _)| *language)
            .collect();
        return Err(format!(
            "unknown key `checks.{name}`: expected enabled, run_tests, tests, max_repair_rounds, \
             attempts, a \
             language ({}) or a glob such as \"src/**/*.ts\"",
            known.join(", ")
        ));
    }
    globset::Glob::new(name)
        .map(|_| CheckKey::Glob(name.to_string()))
        .map_err(|glob_error| format!("invalid glob `checks.\"{name}\"`: {glob_error}"))
}

/// A non-empty list of non-empty strings.
fn command_list(value: &toml::Value) -> Option<Vec<String>> {
    let commands: Vec<String> = value
        .as_array()?
        .iter()
        .map(|item| item.as_str().map(str::trim).map(str::to_string))
        .collect::<Option<_>>()?;
    (!commands.is_empty() && commands.iter().all(|command| !command.is_empty())).then_some(commands)
}

/// `[checks]` merged over the files.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChecksLayers {
    enabled: Option<Sourced<bool>>,
    run_tests: Option<Sourced<bool>>,
    tests: Option<Sourced<String>>,
    max_repair_rounds: Option<Sourced<u32>>,
    attempts: Option<Sourced<u32>>,
    commands: BTreeMap<String, Sourced<CheckCommands>>,
}

impl ChecksSection {
    /// Drops a `max_repair_rounds` above `below`'s, which an untrusted project may not set.
    pub(crate) fn restrict_untrusted(&mut self, below: &ChecksSettings, ignored: &mut Vec<String>) {
        crate::untrusted::cap(
            &mut self.checked.max_repair_rounds,
            below.max_repair_rounds,
            "[checks] max_repair_rounds",
            ignored,
        );
    }
}

impl ChecksLayers {
    /// Layers `section`, read from `source`, over the files merged so far.
    pub(crate) fn merge(&mut self, section: &ChecksSection, source: &Source) {
        let checked = &section.checked;
        if let Some(flag) = checked.enabled {
            self.enabled = Some(Sourced::new(flag, source.clone()));
        }
        if let Some(flag) = checked.run_tests {
            self.run_tests = Some(Sourced::new(flag, source.clone()));
        }
        if let Some(command) = &checked.tests {
            self.tests = Some(Sourced::new(command.clone(), source.clone()));
        }
        if let Some(rounds) = checked.max_repair_rounds {
            self.max_repair_rounds = Some(Sourced::new(rounds, source.clone()));
        }
        if let Some(attempts) = checked.attempts {
            self.attempts = Some(Sourced::new(attempts, source.clone()));
        }
        for (name, commands) in &checked.commands {
            self.commands
                .insert(name.clone(), Sourced::new(commands.clone(), source.clone()));
        }
    }
}

impl Config {
    /// The checks after edits (`[checks]`).
    pub fn checks_settings(&self) -> ChecksSettings {
        let layers = &self.checks;
        ChecksSettings {
            enabled: layers.enabled.as_ref().is_none_or(|flag| flag.value),
            run_tests: layers.run_tests.as_ref().is_none_or(|flag| flag.value),
            tests: layers.tests.as_ref().map(|command| command.value.clone()),
            max_repair_rounds: layers
                .max_repair_rounds
                .as_ref()
                .map_or(DEFAULT_MAX_REPAIR_ROUNDS, |rounds| rounds.value),
            attempts: layers
                .attempts
                .as_ref()
                .map_or(DEFAULT_ATTEMPTS, |attempts| attempts.value),
            commands: layers
                .commands
                .values()
                .map(|commands| commands.value.clone())
                .collect(),
        }
    }

    /// The `[checks]` values as `hone config show` lists them.
    pub(crate) fn show_checks(&self, values: &mut Vec<ShownValue>) {
        let layers = &self.checks;
        let settings = self.checks_settings();
        let source_of = |value: Option<&Source>| Some(value.cloned().unwrap_or(Source::Default));
        let mut push = |key: &str, value: String, source: Option<Source>| {
            values.push(ShownValue {
                section: "checks".to_string(),
                key: key.to_string(),
                value,
                source,
            });
        };
        push(
            "enabled",
            settings.enabled.to_string(),
            source_of(layers.enabled.as_ref().map(|flag| &flag.source)),
        );
        push(
            "run_tests",
            settings.run_tests.to_string(),
            source_of(layers.run_tests.as_ref().map(|flag| &flag.source)),
        );
        if let Some(command) = &layers.tests {
            push(
                "tests",
                format!("{:?}", command.value),
                Some(command.source.clone()),
            );
        }
        push(
            "max_repair_rounds",
            settings.max_repair_rounds.to_string(),
            source_of(
                layers
                    .max_repair_rounds
                    .as_ref()
                    .map(|rounds| &rounds.source),
            ),
        );
        push(
            "attempts",
            settings.attempts.to_string(),
            source_of(layers.attempts.as_ref().map(|attempts| &attempts.source)),
        );
        for (name, commands) in &layers.commands {
            let key = if name.contains(['*', '?', '[', '{', '/', '.']) {
                format!("\"{name}\"")
            } else {
                name.clone()
            };
            push(
                &key,
                format!("{:?}", commands.value.commands),
                Some(commands.source.clone()),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CliOverrides, ConfigSources};

    fn parse(text: &str) -> Result<ChecksSection, ConfigError> {
        let file = crate::file::parse(
            Path::new("/p/config.toml"),
            text,
            crate::file::FileRole::User,
        )?;
        Ok(file.checks)
    }

    fn parse_error(text: &str) -> (Option<usize>, Option<usize>, String) {
        match parse(text) {
            Err(ConfigError::Parse {
                line,
                column,
                message,
                path,
            }) => {
                assert_eq!(path, Path::new("/p/config.toml"));
                (line, column, message)
            }
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn languages_globs_and_flags_are_read() {
        let section = parse(
            "[checks]\nenabled = false\nrun_tests = false\nmax_repair_rounds = 1\nattempts = 2\ntests = \" make test \"\n\
             python = [\"python3 -m py_compile {files}\"]\n\"src/**/*.ts\" = [\"npx tsc --noEmit\", \"npx eslint {files}\"]\n",
        )
        .unwrap();
        let checked = section.checked;
        assert_eq!(checked.enabled, Some(false));
        assert_eq!(checked.run_tests, Some(false));
        assert_eq!(checked.max_repair_rounds, Some(1));
        assert_eq!(checked.attempts, Some(2));
        assert_eq!(checked.tests.as_deref(), Some("make test"));
        assert_eq!(
            checked.commands["python"],
            CheckCommands {
                key: CheckKey::Language {
                    name: "python".into(),
                    extensions: vec!["py".into(), "pyi".into()],
                },
                commands: vec!["python3 -m py_compile {files}".into()],
            }
        );
        assert_eq!(
            checked.commands["src/**/*.ts"].key,
            CheckKey::Glob("src/**/*.ts".into())
        );
        assert_eq!(checked.commands["src/**/*.ts"].commands.len(), 2);
    }

    #[test]
    fn bad_values_name_the_line_and_column() {
        let (line, column, message) = parse_error("[checks]\nmax_repair_rounds = 11\n");
        assert_eq!((line, column), (Some(2), Some(21)));
        assert!(message.contains("from 0 to 10"), "{message}");
        let (line, _, message) = parse_error("[checks]\ntests = [\"make test\"]\n");
        assert_eq!(line, Some(2));
        assert!(message.contains("invalid `checks.tests`"), "{message}");
        let (_, _, message) = parse_error("[checks]\ntests = \"  \"\n");
        assert!(message.contains("invalid `checks.tests`"), "{message}");
        let (line, _, message) = parse_error("[checks]\nenabled = \"yes\"\n");
        assert_eq!(line, Some(2));
        assert!(message.contains("true or false"), "{message}");
        let (line, column, message) = parse_error("\n[checks]\npyhton = [\"x\"]\n");
        assert_eq!((line, column), (Some(3), Some(1)));
        assert!(message.contains("unknown key `checks.pyhton`"), "{message}");
        assert!(message.contains("python"), "{message}");
        let (line, _, message) = parse_error("[checks]\npython = \"ruff check\"\n");
        assert_eq!(line, Some(2));
        assert!(message.contains("list of command lines"), "{message}");
        let (_, _, message) = parse_error("[checks]\npython = []\n");
        assert!(message.contains("list of command lines"), "{message}");
        let (_, _, message) = parse_error("[checks]\nattempts = 0\n");
        assert!(
            message.contains("`checks.attempts` 0: expected a number from 1 to 10"),
            "{message}"
        );
        let (line, _, message) = parse_error("[checks]\n\"src/[*.ts\" = [\"x\"]\n");
        assert_eq!(line, Some(2));
        assert!(message.contains("invalid glob"), "{message}");
    }

    #[test]
    fn defaults_and_layering() {
        let defaults = crate::load(&ConfigSources::default(), &CliOverrides::default()).unwrap();
        assert_eq!(
            defaults.checks_settings(),
            ChecksSettings {
                enabled: true,
                run_tests: true,
                tests: None,
                max_repair_rounds: DEFAULT_MAX_REPAIR_ROUNDS,
                attempts: DEFAULT_ATTEMPTS,
                commands: Vec::new(),
            }
        );
        let (_dir, config) = crate::test_support::load_layered(
            "[checks]\nmax_repair_rounds = 5\npython = [\"mypy {files}\"]\nrust = [\"cargo clippy\"]\n",
            "[checks]\nrun_tests = false\ntests = \"make test\"\npython = [\"ruff check {files}\"]\n",
        );
        let settings = config.checks_settings();
        assert!(settings.enabled);
        assert!(!settings.run_tests);
        assert_eq!(settings.max_repair_rounds, 5);
        assert_eq!(settings.tests.as_deref(), Some("make test"));
        let commands: Vec<&str> = settings
            .commands
            .iter()
            .map(|entry| entry.commands[0].as_str())
            .collect();
        assert_eq!(commands, ["ruff check {files}", "cargo clippy"]);
        let shown = config.render_show();
        assert!(shown.contains("max_repair_rounds"), "{shown}");
        assert!(shown.contains("\"make test\""), "{shown}");
    }
}
