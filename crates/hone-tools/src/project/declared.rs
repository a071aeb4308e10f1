//! Test commands from a Makefile, package.json and the build tools' files (Cargo, Go,
//! Maven, Gradle), and the test command lines other files write out (tox, CI steps).

use std::path::Path;

use super::Installed;
use super::commands::{PackageManager, Runner, TestCommand};

/// `make test` when a Makefile has a `test` target.
pub(super) fn makefile(dir: &Path, installed: &dyn Installed, found: &mut Vec<TestCommand>) {
    let has_target = ["GNUmakefile", "makefile", "Makefile"]
        .iter()
        .filter_map(|name| std::fs::read_to_string(dir.join(name)).ok())
        .any(|text| text.lines().any(is_test_target));
    if has_target {
        found.push(TestCommand::new(
            "make test",
            "Makefile",
            Runner::Make,
            installed.program("make"),
        ));
    }
}

/// `test:` or `test :` at the start of a rule line (not `test := …`, a variable).
fn is_test_target(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("test") else {
        return false;
    };
    let rest = rest.trim_start_matches([' ', '\t']);
    rest.starts_with(':') && !rest.starts_with(":=")
}

/// The package's test script: `test`, else the first `test:…` script. A package.json hone
/// cannot read may have one, so npm is asked; `npm init`'s placeholder is not a test.
pub(super) fn package_json(dir: &Path, installed: &dyn Installed, found: &mut Vec<TestCommand>) {
    let Ok(text) = std::fs::read_to_string(dir.join("package.json")) else {
        return;
    };
    let script = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(value) => {
            let Some(scripts) = value["scripts"].as_object() else {
                return;
            };
            let real = |name: &str| {
                scripts[name]
                    .as_str()
                    .is_some_and(|script| !script.contains("no test specified"))
            };
            if scripts.contains_key("test") {
                if !real("test") {
                    return;
                }
                "test".to_string()
            } else {
                match scripts
                    .keys()
                    .find(|name| name.starts_with("test:") && real(name))
                {
                    Some(name) => name.clone(),
                    None => return,
                }
            }
        }
        Err(_) => "test".to_string(),
    };
    let manager = package_manager(dir);
    let name = match script.as_str() {
        "test" => format!("{} test", manager.program()),
        other => format!("{} run {other}", manager.program()),
    };
    found.push(TestCommand::new(
        &name,
        "package.json",
        Runner::Package { manager, script },
        installed.program(manager.program()),
    ));
}

/// The package manager whose lockfile is nearest to `dir` (monorepos keep it at the top).
fn package_manager(dir: &Path) -> PackageManager {
    dir.ancestors()
        .find_map(|ancestor| {
            if ancestor.join("pnpm-lock.yaml").is_file() {
                Some(PackageManager::Pnpm)
            } else if ancestor.join("yarn.lock").is_file() {
                Some(PackageManager::Yarn)
            } else if ancestor.join("package-lock.json").is_file() || ancestor.join(".git").exists()
            {
                // The repository's top: no lockfile above it counts.
                Some(PackageManager::Npm)
            } else {
                None
            }
        })
        .unwrap_or(PackageManager::Npm)
}

/// Cargo (a workspace root with a package of its own tests every member), Go, Maven and
/// Gradle, each through the project's wrapper script when it has one.
pub(super) fn build_tools(dir: &Path, installed: &dyn Installed, found: &mut Vec<TestCommand>) {
    if let Ok(manifest) = std::fs::read_to_string(dir.join("Cargo.toml")) {
        let workspace = manifest.lines().any(|line| line.trim() == "[workspace]")
            && manifest.lines().any(|line| line.trim() == "[package]");
        found.push(TestCommand::new(
            "cargo test",
            "Cargo.toml",
            Runner::Cargo { workspace },
            installed.program("cargo"),
        ));
    }
    if dir.join("go.mod").is_file() {
        found.push(TestCommand::new(
            "go test",
            "go.mod",
            Runner::Go,
            installed.program("go"),
        ));
    }
    if dir.join("pom.xml").is_file() {
        let wrapper = dir.join("mvnw").is_file();
        found.push(TestCommand::new(
            "mvn test",
            "pom.xml",
            Runner::Maven { wrapper },
            wrapper || installed.program("mvn"),
        ));
    }
    for file in ["build.gradle", "build.gradle.kts"] {
        if dir.join(file).is_file() {
            let wrapper = dir.join("gradlew").is_file();
            found.push(TestCommand::new(
                "gradle test",
                file,
                Runner::Gradle { wrapper },
                wrapper || installed.program("gradle"),
            ));
            break;
        }
    }
}

/// A test command line another file writes out (a tox `commands` line, a CI step).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TestLine {
    /// Its name for reports (`pytest`, `npm test`).
    pub(super) name: String,
    /// The line as hone runs it.
    pub(super) command: String,
    /// Whether it can run here.
    pub(super) available: bool,
    /// The directory a leading `cd DIR &&` entered (inside the project).
    pub(super) dir: Option<String>,
}

/// `line` when it runs tests. pytest is run as `PYTHON -m pytest` (the interpreter's,
/// wherever `pytest` the script is); a line that installs, builds containers or needs the
/// CI's variables is not a test.
pub(super) fn test_line(
    line: &str,
    python: &str,
    installed: &dyn Installed,
    dir: &Path,
) -> Option<TestLine> {
    let line = line.trim().trim_start_matches('-').trim();
    if line.is_empty() || line.contains("${{") || line.contains('`') || line.contains("$(") {
        return None;
    }
    // `cd web && npm test`: the directory is kept, the rest recognised.
    if let Some(rest) = line.strip_prefix("cd ")
        && let Some((target, command)) = rest.split_once("&&")
    {
        let target = target.trim().trim_start_matches("./").trim_end_matches('/');
        if target.is_empty()
            || target.starts_with('/')
            || target.split('/').any(|part| part == "..")
        {
            return None;
        }
        let mut inner = test_line(command, python, installed, &dir.join(target))?;
        inner.dir = Some(match inner.dir {
            Some(deeper) => format!("{target}/{deeper}"),
            None => target.to_string(),
        });
        return Some(inner);
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let after = |marker: &[&str]| {
        words
            .windows(marker.len())
            .position(|window| window == marker)
            .map(|at| words[at + marker.len()..].join(" "))
    };
    let found = |name: &str, command: String, available: bool| {
        Some(TestLine {
            name: name.to_string(),
            command,
            available,
            dir: None,
        })
    };
    let with_rest = |head: String, rest: String| {
        if rest.is_empty() {
            head
        } else {
            format!("{head} {rest}")
        }
    };
    let pytest = || installed.python_module(dir, python, "pytest");
    let program = *words.first()?;
    if matches!(program, "pytest" | "py.test") {
        let rest = words[1..].join(" ");
        return found(
            "pytest",
            with_rest(format!("{python} -m pytest"), rest),
            pytest(),
        );
    }
    if let Some(rest) = after(&["-m", "pytest"]) {
        return found(
            "pytest",
            with_rest(format!("{python} -m pytest"), rest),
            pytest(),
        );
    }
    if let Some(rest) = after(&["-m", "unittest"]) {
        let short = python.rsplit('/').next().unwrap_or(python);
        return found(
            &format!("{short} -m unittest"),
            with_rest(format!("{python} -B -m unittest"), rest),
            installed.program(python) || python.contains('/'),
        );
    }
    let second = words.get(1).copied().unwrap_or_default();
    let has = |names: &[&str]| words.iter().any(|word| names.contains(word));
    let name = match (program, second) {
        ("npm" | "pnpm" | "yarn", "test" | "t") => format!("{program} test"),
        ("npm" | "pnpm", "run") if words.get(2).is_some_and(|s| s.starts_with("test")) => {
            format!("{program} run {}", words[2])
        }
        ("cargo", "test" | "nextest") => format!("cargo {second}"),
        ("go", "test") => "go test".into(),
        ("make", "test" | "check") => format!("make {second}"),
        ("mvn" | "./mvnw", _) if has(&["test", "verify"]) => "mvn test".into(),
        ("gradle" | "./gradlew", _) if has(&["test", "check"]) => "gradle test".into(),
        _ => return None,
    };
    let available = if program.starts_with("./") {
        dir.join(program).is_file()
    } else {
        installed.program(program)
    };
    found(&name, line.to_string(), available)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::Fake;

    #[test]
    fn a_makefile_test_target_is_found_and_a_variable_is_not() {
        assert!(is_test_target("test: build"));
        assert!(is_test_target("test :"));
        assert!(!is_test_target("test := 1"));
        assert!(!is_test_target("tests: x"));
        assert!(!is_test_target("\ttest: x"));
    }

    #[test]
    fn package_scripts_placeholders_and_test_variants() {
        let dir = tempfile::tempdir().unwrap();
        let commands = |text: &str| {
            std::fs::write(dir.path().join("package.json"), text).unwrap();
            let mut found = Vec::new();
            package_json(dir.path(), &Fake::everything(), &mut found);
            found
                .iter()
                .map(TestCommand::command_line)
                .collect::<Vec<_>>()
        };
        assert!(
            commands(r#"{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}"#)
                .is_empty()
        );
        assert!(commands(r#"{"name": "x"}"#).is_empty());
        assert_eq!(
            commands(r#"{"scripts": {"test": "node --test"}}"#),
            ["npm test"]
        );
        assert_eq!(
            commands(r#"{"scripts": {"build": "tsc", "test:unit": "vitest run"}}"#),
            ["npm run test:unit"]
        );
        // Unreadable: npm decides.
        assert_eq!(commands(""), ["npm test"]);
    }

    #[test]
    fn test_lines_are_recognised_and_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let installed = Fake::everything();
        let line = |text: &str| {
            test_line(text, "python3", &installed, dir.path())
                .map(|line| (line.name, line.command, line.available, line.dir))
        };
        assert_eq!(
            line("pytest -x tests/"),
            Some((
                "pytest".into(),
                "python3 -m pytest -x tests/".into(),
                true,
                None
            ))
        );
        assert_eq!(
            line("coverage run -m pytest"),
            Some(("pytest".into(), "python3 -m pytest".into(), true, None))
        );
        assert_eq!(
            line("python -m unittest discover -s tests"),
            Some((
                "python3 -m unittest".into(),
                "python3 -B -m unittest discover -s tests".into(),
                true,
                None
            ))
        );
        assert_eq!(
            line("cargo test --all-features"),
            Some((
                "cargo test".into(),
                "cargo test --all-features".into(),
                true,
                None
            ))
        );
        assert_eq!(
            line("cd ./web/ && npm test"),
            Some((
                "npm test".into(),
                "npm test".into(),
                true,
                Some("web".into())
            ))
        );
        assert_eq!(line("./mvnw -B verify").map(|found| found.2), Some(false));
        for other in [
            "pip install -e .",
            "npm ci",
            "cargo build",
            "pytest --cov=${{ matrix.pkg }}",
            "cd /tmp && make test",
            "cd .. && make test",
            "echo $(cat secret)",
        ] {
            assert_eq!(line(other), None, "{other}");
        }
    }

    #[test]
    fn the_nearest_lockfile_picks_the_package_manager() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("yarn.lock"), "").unwrap();
        std::fs::create_dir_all(dir.path().join("web")).unwrap();
        assert_eq!(
            package_manager(&dir.path().join("web")),
            PackageManager::Yarn
        );
        std::fs::write(dir.path().join("web/package-lock.json"), "").unwrap();
        assert_eq!(
            package_manager(&dir.path().join("web")),
            PackageManager::Npm
        );
    }
}
