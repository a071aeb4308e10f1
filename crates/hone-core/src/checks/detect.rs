//! Which checks run for a set of changed files: the configured ones, those detected from
//! the project's files and the tools installed, then the tests as `run_tests` finds them.

use std::path::Path;

use hone_tools::{Invocation, Plan, ToolContext};

use super::{CheckTarget, ChecksConfig};
use crate::tools::ToolRegistry;

/// One check command to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PlannedCheck {
    /// Short name for reports.
    pub(crate) name: String,
    /// The shell command line.
    pub(crate) command: String,
}

/// Extensions of files that never warrant running the tests.
const DOC_EXTENSIONS: &[&str] = &["md", "markdown", "txt", "rst", "adoc"];

/// The checks for `changed` in stages: project checks, then the tests (a stage runs only
/// when the one before passed).
pub(crate) fn plan(
    root: &Path,
    changed: &[String],
    config: &ChecksConfig,
    registry: &ToolRegistry,
) -> Vec<Vec<PlannedCheck>> {
    let mut checks = configured(changed, config);
    for (language, check) in detected(root, changed) {
        let replaced = config.configured.iter().any(
            |entry| matches!(&entry.target, CheckTarget::Language { name, .. } if name == language),
        );
        if !replaced && !checks.contains(&check) {
            checks.push(check);
        }
    }
    let mut stages = vec![checks];
    if config.run_tests
        && let Some(tests) = tests(root, changed, registry)
    {
        stages.push(vec![tests]);
    }
    stages
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
            let check = PlannedCheck {
                name: label(&command),
                command,
            };
            if !checks.contains(&check) {
                checks.push(check);
            }
        }
    }
    checks
}

/// Checks found from the project's files and the tools on this machine, with the
/// language each one covers.
fn detected(root: &Path, changed: &[String]) -> Vec<(&'static str, PlannedCheck)> {
    let has = |extensions: &[&str]| {
        changed
            .iter()
            .any(|path| extension(path).is_some_and(|ext| extensions.contains(&ext)))
    };
    let mut checks = Vec::new();
    if has(&["rs"]) && root.join("Cargo.toml").is_file() && on_path("cargo") {
        checks.push(("rust", check("cargo check", "cargo check --quiet")));
    }
    if has(&["go"]) && root.join("go.mod").is_file() && on_path("go") {
        checks.push(("go", check("go vet", "go vet ./...")));
    }
    if has(&["ts", "tsx", "mts", "cts"]) && root.join("tsconfig.json").is_file() {
        if root.join("node_modules/.bin/tsc").is_file() {
            checks.push(("typescript", check("tsc", "node_modules/.bin/tsc --noEmit")));
        } else if on_path("tsc") {
            checks.push(("typescript", check("tsc", "tsc --noEmit")));
        }
    }
    let python: Vec<String> = changed
        .iter()
        .filter(|path| matches!(extension(path), Some("py" | "pyi")))
        .filter(|path| root.join(path).is_file())
        .map(|path| shell_quote(path))
        .collect();
    if !python.is_empty() {
        let files = python.join(" ");
        let pyproject = std::fs::read_to_string(root.join("pyproject.toml")).unwrap_or_default();
        let setup_cfg = std::fs::read_to_string(root.join("setup.cfg")).unwrap_or_default();
        let ruff = root.join("ruff.toml").is_file()
            || root.join(".ruff.toml").is_file()
            || pyproject.contains("[tool.ruff");
        if ruff && on_path("ruff") {
            checks.push(("python", check("ruff", &format!("ruff check {files}"))));
        }
        let mypy = root.join("mypy.ini").is_file()
            || root.join(".mypy.ini").is_file()
            || pyproject.contains("[tool.mypy")
            || setup_cfg.contains("[mypy");
        if mypy && on_path("mypy") {
            checks.push(("python", check("mypy", &format!("mypy {files}"))));
        }
    }
    checks
}

/// The project's test command, whatever changed (for running the tests before a turn).
pub(crate) fn test_command(root: &Path, registry: &ToolRegistry) -> Option<PlannedCheck> {
    tests(root, &["source".to_string()], registry)
}

/// The test command `run_tests` would run for the whole project, when one is found and
/// can run here (pytest installed, an npm `test` script that is not npm's placeholder).
fn tests(root: &Path, changed: &[String], registry: &ToolRegistry) -> Option<PlannedCheck> {
    let code_changed = changed
        .iter()
        .any(|path| extension(path).is_none_or(|ext| !DOC_EXTENSIONS.contains(&ext)));
    if !code_changed {
        return None;
    }
    let planned = registry.resolve("run_tests").ok().and_then(|tool| {
        let context = ToolContext::new(root).ok()?;
        match tool.plan(&context, &serde_json::json!({})) {
            Ok(Plan::Command(plan)) => match plan.invocation {
                Invocation::Shell(command) => Some(command),
                _ => None,
            },
            _ => None,
        }
    });
    let Some(command) = planned else {
        return python_unittest(root);
    };
    let name = if command.contains("-m pytest") {
        if !on_path("pytest") {
            return python_unittest(root);
        }
        "pytest"
    } else if command.contains("cargo test") {
        "cargo test"
    } else if command.contains("go test") {
        "go test"
    } else if command.contains("javac ") {
        "java tests"
    } else if command.contains("mvn") {
        "mvn test"
    } else if command.contains("gradle") {
        "gradle test"
    } else {
        if !has_test_script(root) {
            return None;
        }
        "npm test"
    };
    Some(check(name, &command))
}

/// `python3 -m unittest` for a Python project whose tests are `test*.py` files at the root
/// or in `tests/` (the standard library runs them when pytest is not installed).
fn python_unittest(root: &Path) -> Option<PlannedCheck> {
    let has_tests = |dir: &Path| {
        std::fs::read_dir(dir).is_ok_and(|entries| {
            entries.flatten().any(|entry| {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                name.starts_with("test") && name.ends_with(".py")
            })
        })
    };
    if !on_path("python3") {
        return None;
    }
    if has_tests(root) {
        Some(check("python3 -m unittest", "python3 -B -m unittest -q"))
    } else if has_tests(&root.join("tests")) {
        Some(check(
            "python3 -m unittest",
            "python3 -B -m unittest discover -q -s tests -t .",
        ))
    } else {
        None
    }
}

/// Whether `package.json` has a real `test` script (not `npm init`'s placeholder).
fn has_test_script(root: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(root.join("package.json")) else {
        return false;
    };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
        return false;
    };
    value["scripts"]["test"]
        .as_str()
        .is_some_and(|script| !script.contains("no test specified"))
}

fn check(name: &str, command: &str) -> PlannedCheck {
    PlannedCheck {
        name: name.to_string(),
        command: command.to_string(),
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

/// Whether `program` is an executable file in a `PATH` directory.
pub(crate) fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
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
    use crate::profile::PromptProfile;

    fn registry() -> ToolRegistry {
        ToolRegistry::with(Vec::new(), Vec::new(), PromptProfile::Full)
    }

    fn names(stages: &[Vec<PlannedCheck>]) -> Vec<Vec<String>> {
        stages
            .iter()
            .map(|stage| stage.iter().map(|check| check.command.clone()).collect())
            .collect()
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
        let stages = plan(dir.path(), &changed, &config, &registry());
        assert_eq!(
            names(&stages),
            [["python3 -m py_compile a.py 'my file.py'".to_string()]]
        );
        assert_eq!(stages[0][0].name, "python3 -m py_compile");
        let stages = plan(dir.path(), &["web/app/x.ts".into()], &config, &registry());
        assert_eq!(names(&stages), [["npx tsc --noEmit".to_string()]]);
        assert_eq!(stages[0][0].name, "npx tsc");
    }

    #[test]
    fn cargo_projects_get_cargo_check_then_tests() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
        let config = ChecksConfig::default();
        let stages = plan(dir.path(), &["src/lib.rs".into()], &config, &registry());
        assert_eq!(
            names(&stages),
            [
                ["cargo check --quiet".to_string()],
                ["cargo test".to_string()]
            ]
        );
        // Only documentation changed: no tests.
        let stages = plan(dir.path(), &["README.md".into()], &config, &registry());
        assert_eq!(names(&stages), [Vec::<String>::new()]);
    }

    #[test]
    fn python_unittest_files_are_run_without_pytest_or_a_project_file() {
        if !on_path("python3") || on_path("pytest") {
            eprintln!("SKIPPED: needs python3 without pytest");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("shop.py"), "x = 1\n").unwrap();
        let config = ChecksConfig::default();
        // No tests: nothing to run.
        let stages = plan(dir.path(), &["shop.py".into()], &config, &registry());
        assert!(
            stages
                .iter()
                .flatten()
                .all(|check| !check.command.contains("unittest"))
        );
        std::fs::write(dir.path().join("test_shop.py"), "import unittest\n").unwrap();
        let stages = plan(dir.path(), &["shop.py".into()], &config, &registry());
        let commands: Vec<String> = names(&stages).into_iter().flatten().collect();
        assert!(
            commands.contains(&"python3 -B -m unittest -q".to_string()),
            "{commands:?}"
        );
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
        let stages = plan(dir.path(), &["src/lib.rs".into()], &config, &registry());
        assert_eq!(names(&stages), [["cargo clippy".to_string()]]);
    }

    #[test]
    fn npm_placeholder_test_scripts_are_not_run() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}"#,
        )
        .unwrap();
        assert!(tests(dir.path(), &["a.js".into()], &registry()).is_none());
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"scripts": {"test": "node --test"}}"#,
        )
        .unwrap();
        let check = tests(dir.path(), &["a.js".into()], &registry()).unwrap();
        assert_eq!(check.name, "npm test");
    }

    #[test]
    fn labels_stop_at_arguments() {
        assert_eq!(label("python -m py_compile a.py"), "python -m py_compile");
        assert_eq!(label("npx tsc --noEmit"), "npx tsc");
        assert_eq!(label("make lint"), "make lint");
        assert_eq!(label("python3 -B -m unittest -q x"), "python3 -m unittest");
    }
}
