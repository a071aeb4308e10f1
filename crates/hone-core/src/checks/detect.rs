//! Which checks run for a set of changed files: the configured ones and those the
//! project's toolchains offer ([`lint_commands`]), then the project's tests, whose
//! candidate commands ([`test_commands`]: what the project declares, then the fallbacks)
//! are tried in order until one runs the tests.

use std::path::Path;

use hone_tools::project::{ThisMachine, lint_commands, test_commands};

use super::{CheckTarget, ChecksConfig};

/// One check command to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PlannedCheck {
    /// Short name for reports.
    pub(crate) name: String,
    /// The shell command line.
    pub(crate) command: String,
    /// For a test command: the file that declares it (`pyproject.toml`), or `fallback`.
    pub(crate) source: String,
    /// Directories the command puts on Python's path (its `PYTHONPATH`), where a failing
    /// test's imports are looked for.
    pub(crate) source_dirs: Vec<String>,
}

/// Extensions of files that never warrant running the tests.
const DOC_EXTENSIONS: &[&str] = &["md", "markdown", "txt", "rst", "adoc"];

/// The checks for `changed` before the tests: the configured commands whose language or
/// glob matches, and the detected ones of languages no configured entry replaces.
pub(crate) fn plan(root: &Path, changed: &[String], config: &ChecksConfig) -> Vec<PlannedCheck> {
    let mut checks = configured(changed, config);
    for lint in lint_commands(root, changed, &ThisMachine) {
        let replaced = config.configured.iter().any(|entry| {
            matches!(&entry.target, CheckTarget::Language { name, .. } if name == lint.language)
        });
        let check = check(&lint.name, &lint.command);
        if !replaced && !checks.contains(&check) {
            checks.push(check);
        }
    }
    checks
}

/// Whether `changed` warrants running the tests (not only documentation changed).
pub(crate) fn code_changed(changed: &[String]) -> bool {
    changed
        .iter()
        .any(|path| extension(path).is_none_or(|ext| !DOC_EXTENSIONS.contains(&ext)))
}

/// The commands that may run the project's tests here, in the order to try them.
pub(crate) fn test_candidates(root: &Path) -> Vec<PlannedCheck> {
    test_commands(root, &ThisMachine)
        .into_iter()
        .filter(|command| command.available)
        .map(|command| PlannedCheck {
            name: command.name.clone(),
            command: command.command_line(),
            source: command.source.clone(),
            source_dirs: command
                .env
                .iter()
                .filter(|(name, _)| name == "PYTHONPATH")
                .flat_map(|(_, value)| value.split(':').map(str::to_string))
                .collect(),
        })
        .collect()
}

/// The test command `[checks] tests` configures.
pub(crate) fn configured_tests(command: &str) -> PlannedCheck {
    let source_dirs = command
        .split_whitespace()
        .take_while(|word| word.contains('='))
        .filter_map(|word| word.strip_prefix("PYTHONPATH="))
        .flat_map(|value| value.split(':').map(str::to_string))
        .collect();
    PlannedCheck {
        source: "configuration".to_string(),
        source_dirs,
        ..check(&label(command), command)
    }
}

/// The configured commands whose language or glob matches a changed file.
fn configured(changed: &[String], config: &ChecksConfig) -> Vec<PlannedCheck> {
    let mut checks = Vec::new();
    for entry in &config.configured {
        let files: Vec<&String> = match &entry.target {
            CheckTarget::Language { extensions, .. } => changed
                .iter()
                .filter(|path| extensions.iter().any(|ext| extension(path) == Some(ext)))
                .collect(),
            CheckTarget::Glob(glob) => match globset::Glob::new(glob) {
                Ok(glob) => {
                    let matcher = glob.compile_matcher();
                    changed
                        .iter()
                        .filter(|path| matcher.is_match(path))
                        .collect()
                }
                Err(_) => Vec::new(),
            },
        };
        if files.is_empty() {
            continue;
        }
        let quoted: Vec<String> = files.iter().map(|path| shell_quote(path)).collect();
        for command in &entry.commands {
            let command = command.replace("{files}", &quoted.join(" "));
            let check = check(&label(&command), &command);
            if !checks.contains(&check) {
                checks.push(check);
            }
        }
    }
    checks
}

fn check(name: &str, command: &str) -> PlannedCheck {
    PlannedCheck {
        name: name.to_string(),
        command: command.to_string(),
        source: String::new(),
        source_dirs: Vec::new(),
    }
}

/// A short name for a configured command: its words before the first file or option
/// argument after the program (`python -m py_compile a.py` → `python -m py_compile`).
fn label(command: &str) -> String {
    let mut words = Vec::new();
    for (index, word) in command.split_whitespace().enumerate() {
        let is_argument = word.contains('/')
            || word.contains('.') && index > 0
            || word.starts_with('\'')
            || (word.starts_with("--") && index > 0);
        if words.is_empty() && word.contains('=') && !word.starts_with('-') {
            // An environment assignment before the program.
            continue;
        }
        if is_argument || words.len() == 3 {
            break;
        }
        if word.starts_with('-') && word != "-m" {
            continue;
        }
        words.push(word);
    }
    if words.is_empty() {
        command.chars().take(40).collect()
    } else {
        words.join(" ")
    }
}

fn extension(path: &str) -> Option<&str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.').map(|(_, ext)| ext)
}

/// `text` quoted for a POSIX shell when it needs it.
fn shell_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./+=:@%".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commands(checks: &[PlannedCheck]) -> Vec<String> {
        checks.iter().map(|check| check.command.clone()).collect()
    }

    #[test]
    fn configured_commands_get_the_matching_files() {
        let config = ChecksConfig {
            configured: vec![
                super::super::ConfiguredCheck {
                    target: CheckTarget::Language {
                        name: "python".into(),
                        extensions: vec!["py".into()],
                    },
                    commands: vec!["python3 -m py_compile {files}".into()],
                },
                super::super::ConfiguredCheck {
                    target: CheckTarget::Glob("web/**/*.ts".into()),
                    commands: vec!["npx tsc --noEmit".into()],
                },
            ],
            run_tests: false,
            ..ChecksConfig::default()
        };
        let dir = tempfile::tempdir().unwrap();
        let changed = vec!["a.py".to_string(), "my file.py".into(), "README.md".into()];
        let checks = plan(dir.path(), &changed, &config);
        assert_eq!(
            commands(&checks),
            ["python3 -m py_compile a.py 'my file.py'"]
        );
        assert_eq!(checks[0].name, "python3 -m py_compile");
        let checks = plan(dir.path(), &["web/app/x.ts".into()], &config);
        assert_eq!(commands(&checks), ["npx tsc --noEmit"]);
        assert_eq!(checks[0].name, "npx tsc");
    }

    #[test]
    fn cargo_projects_get_cargo_check_and_their_tests() {
        if !hone_tools::project::on_path("cargo") {
            eprintln!("SKIPPED: needs cargo");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
        let config = ChecksConfig::default();
        let checks = plan(dir.path(), &["src/lib.rs".into()], &config);
        assert_eq!(commands(&checks), ["cargo check --quiet"]);
        assert_eq!(commands(&test_candidates(dir.path())), ["cargo test"]);
        assert!(code_changed(&["src/lib.rs".into()]));
        // Only documentation changed: no tests.
        assert!(!code_changed(&["README.md".into(), "docs/a.rst".into()]));
    }

    #[test]
    fn a_src_layout_s_tests_get_the_source_directory() {
        if !hone_tools::project::on_path("python3") {
            eprintln!("SKIPPED: needs python3");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/shop")).unwrap();
        std::fs::create_dir_all(dir.path().join("tests")).unwrap();
        std::fs::write(dir.path().join("src/shop/__init__.py"), "").unwrap();
        std::fs::write(dir.path().join("tests/test_shop.py"), "import unittest\n").unwrap();
        let candidates = test_candidates(dir.path());
        let unittest = candidates
            .iter()
            .find(|check| check.command.contains("unittest"))
            .unwrap();
        assert_eq!(
            unittest.command,
            "PYTHONPATH=src python3 -B -m unittest discover -q -s tests"
        );
        assert_eq!(unittest.source_dirs, ["src"]);
        assert_eq!(unittest.source, "fallback");
    }

    #[test]
    fn a_configured_language_replaces_the_detected_check() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
        let config = ChecksConfig {
            configured: vec![super::super::ConfiguredCheck {
                target: CheckTarget::Language {
                    name: "rust".into(),
                    extensions: vec!["rs".into()],
                },
                commands: vec!["cargo clippy".into()],
            }],
            run_tests: false,
            ..ChecksConfig::default()
        };
        let checks = plan(dir.path(), &["src/lib.rs".into()], &config);
        assert_eq!(commands(&checks), ["cargo clippy"]);
    }

    #[test]
    fn a_configured_test_command_is_labelled_and_sourced() {
        let check = configured_tests("PYTHONPATH=src pytest -q");
        assert_eq!(check.command, "PYTHONPATH=src pytest -q");
        assert_eq!(check.source, "configuration");
        assert_eq!(check.name, "pytest");
        assert_eq!(check.source_dirs, ["src"]);
        assert_eq!(configured_tests("make test").name, "make test");
    }

    #[test]
    fn labels_stop_at_arguments() {
        assert_eq!(label("python -m py_compile a.py"), "python -m py_compile");
        assert_eq!(label("npx tsc --noEmit"), "npx tsc");
        assert_eq!(label("make lint"), "make lint");
        assert_eq!(label("python3 -B -m unittest -q x"), "python3 -m unittest");
    }
}
