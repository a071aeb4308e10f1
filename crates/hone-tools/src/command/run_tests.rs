//! `run_tests {path?, filter?}`: the project's test command, detected from its files.

use std::path::{Path, PathBuf};
use std::time::Duration;

use hone_protocol::ToolSpec;
use serde_json::{Value, json};

use super::quote::shell_quote;
use crate::{
    Args, CommandPlan, Invocation, Plan, Tool, ToolContext, ToolError, ToolErrorKind, ToolKind,
};

/// Time limit of a test run.
const TEST_TIMEOUT_SECS: u64 = 600;

/// Files whose presence marks a Python project.
const PYTHON_MARKERS: &[&str] = &[
    "pyproject.toml",
    "pytest.ini",
    "setup.cfg",
    "setup.py",
    "tox.ini",
    "conftest.py",
];

/// Everything looked for, as listed when nothing is found.
const LOOKED_FOR: &str = "Cargo.toml, go.mod, package.json, pyproject.toml, pytest.ini, \
                          setup.cfg, setup.py, tox.ini, conftest.py, tests/*.py, pom.xml, \
                          build.gradle, a Java test class with a main method";

/// Where plain Java sources (no build tool) are compiled to, inside hone's own directory.
const JAVA_CLASSES_DIR: &str = ".hone/java-classes";

/// A test runner and how it is invoked.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Runner {
    /// `cargo test`.
    Cargo,
    /// `go test`.
    Go,
    /// The package's `test` script through this package manager.
    Node(PackageManager),
    /// `python -m pytest`.
    Python,
    /// Maven's `test` phase.
    Maven,
    /// Gradle's `test` task.
    Gradle,
    /// Plain Java sources: compiled with `javac`, then the test class's `main` is run.
    JavaMain(JavaMain),
}

/// A Java test class with a `main` method among plain sources.
#[derive(Debug, Clone, PartialEq, Eq)]
struct JavaMain {
    /// The directory of the sources, relative to the project directory (empty for itself).
    sources: String,
    /// The class to run, with its package (`com.example.TestMain`).
    class: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PackageManager {
    Npm,
    Pnpm,
    Yarn,
}

/// The `run_tests` tool.
pub(crate) struct RunTests;

impl Tool for RunTests {
    fn name(&self) -> &'static str {
        "run_tests"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: format!(
                "Run the project's tests. The runner is detected from the project files in the \
                 root, or in `path` and its parents: Cargo.toml → cargo test, package.json → \
                 npm/pnpm/yarn test, pyproject.toml and friends → pytest, go.mod → go test, \
                 pom.xml → mvn test, build.gradle → gradle test, plain Java sources with a \
                 TestX/XTest class that has a main method → javac and java. \
                 `filter` selects tests by name. Time limit {TEST_TIMEOUT_SECS} s. When nothing \
                 is detected, run the test command with run_command."
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {
                        "type": "string",
                        "description": "Directory (or, for pytest, file) to test, relative to the project root; default the root."
                    },
                    "filter": {
                        "type": "string",
                        "description": "Test name filter (cargo test NAME, pytest -k, go test -run, passed on to the npm test script)."
                    }
                }
            }),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Command
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{path?, filter?}", arguments)?;
        let root = context.root();
        let target = match args.opt_string("path")? {
            Some(path) => {
                let resolved = context.guard().resolve_read(&path)?;
                if !resolved.absolute.exists() {
                    return Err(ToolError::new(
                        ToolErrorKind::NotFound,
                        format!(
                            "`{path}` does not exist; give a directory or test file inside the \
                             project, or leave out path to test the whole project"
                        ),
                    ));
                }
                resolved.absolute
            }
            None => root.to_path_buf(),
        };
        let filter = args
            .opt_string("filter")?
            .filter(|filter| !filter.trim().is_empty());
        let start = if target.is_dir() {
            target.as_path()
        } else {
            target.parent().unwrap_or(root)
        };
        let (project, runner) = find_runner(root, start).ok_or_else(|| {
            ToolError::new(
                ToolErrorKind::NotFound,
                format!(
                    "no test runner found in `{}` or its parents up to the project root (looked \
                     for {LOOKED_FOR}); run the project's test command with run_command instead, \
                     e.g. {{\"command\": \"make test\"}}",
                    display_relative(start, root)
                ),
            )
        })?;
        let command = test_command(root, &project, &runner, &target, filter.as_deref());
        Ok(Plan::Command(CommandPlan {
            display: command.clone(),
            invocation: Invocation::Shell(command),
            timeout: Duration::from_secs(TEST_TIMEOUT_SECS),
            background: false,
        }))
    }
}

/// The nearest directory from `start` up to `root` with a recognised project file.
fn find_runner(root: &Path, start: &Path) -> Option<(PathBuf, Runner)> {
    start
        .ancestors()
        .take_while(|dir| dir.starts_with(root))
        .find_map(|dir| runner_in(root, dir).map(|runner| (dir.to_path_buf(), runner)))
}

/// The runner for the project files directly in `dir` (Cargo, Go, Node, Python, in that order).
fn runner_in(root: &Path, dir: &Path) -> Option<Runner> {
    if dir.join("Cargo.toml").is_file() {
        Some(Runner::Cargo)
    } else if dir.join("go.mod").is_file() {
        Some(Runner::Go)
    } else if dir.join("package.json").is_file() {
        Some(Runner::Node(package_manager(root, dir)))
    } else if PYTHON_MARKERS.iter().any(|name| dir.join(name).is_file())
        || has_python_tests(&dir.join("tests"))
    {
        Some(Runner::Python)
    } else if dir.join("pom.xml").is_file() {
        Some(Runner::Maven)
    } else if dir.join("build.gradle").is_file() || dir.join("build.gradle.kts").is_file() {
        Some(Runner::Gradle)
    } else {
        java_main(dir).map(Runner::JavaMain)
    }
}

/// A test class with a `main` method (`TestMain.java`, `ParserTest.java`) directly in `dir`,
/// `dir/src` or `dir/test`.
fn java_main(dir: &Path) -> Option<JavaMain> {
    ["", "src", "test"].into_iter().find_map(|sources| {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(sources))
            .ok()?
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "java"))
            .collect();
        files.sort();
        files.into_iter().find_map(|path| {
            let stem = path.file_stem()?.to_str()?.to_string();
            let test_named =
                stem.starts_with("Test") || stem.ends_with("Test") || stem.ends_with("Tests");
            let source = std::fs::read_to_string(&path).ok()?;
            if !test_named || !source.contains("static void main") {
                return None;
            }
            let package = source.lines().find_map(|line| {
                line.trim()
                    .strip_prefix("package ")
                    .map(|rest| rest.trim_end_matches(';').trim().to_string())
            });
            let class = match package {
                Some(package) if !package.is_empty() => format!("{package}.{stem}"),
                _ => stem,
            };
            Some(JavaMain {
                sources: sources.to_string(),
                class,
            })
        })
    })
}

/// The package manager whose lockfile is nearest to `dir` (monorepos keep it at the top).
fn package_manager(root: &Path, dir: &Path) -> PackageManager {
    dir.ancestors()
        .take_while(|ancestor| ancestor.starts_with(root))
        .find_map(|ancestor| {
            if ancestor.join("pnpm-lock.yaml").is_file() {
                Some(PackageManager::Pnpm)
            } else if ancestor.join("yarn.lock").is_file() {
                Some(PackageManager::Yarn)
            } else if ancestor.join("package-lock.json").is_file() {
                Some(PackageManager::Npm)
            } else {
                None
            }
        })
        .unwrap_or(PackageManager::Npm)
}

fn has_python_tests(tests: &Path) -> bool {
    std::fs::read_dir(tests).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|entry| entry.path().extension().is_some_and(|ext| ext == "py"))
    })
}

/// The shell command running `runner` in `project` (entered with `cd` when it is not the
/// root), narrowed to `target` where the runner supports paths.
fn test_command(
    root: &Path,
    project: &Path,
    runner: &Runner,
    target: &Path,
    filter: Option<&str>,
) -> String {
    let mut command = String::new();
    if project != root {
        command.push_str(&format!("cd {} && ", shell_quote(&relative(project, root))));
    }
    let inside = relative(target, project);
    match runner {
        Runner::Cargo => {
            command.push_str("cargo test");
            if let Some(filter) = filter {
                command.push_str(&format!(" {}", shell_quote(filter)));
            }
        }
        Runner::Go => {
            let package_dir = if target.is_dir() {
                inside
            } else {
                target
                    .parent()
                    .map(|dir| relative(dir, project))
                    .unwrap_or_default()
            };
            let packages = match package_dir.as_str() {
                "" => "./...".to_string(),
                dir => format!("./{dir}/..."),
            };
            command.push_str(&format!("go test {}", shell_quote(&packages)));
            if let Some(filter) = filter {
                command.push_str(&format!(" -run {}", shell_quote(filter)));
            }
        }
        Runner::Node(manager) => {
            let (program, separator) = match manager {
                PackageManager::Npm => ("npm test", " --"),
                PackageManager::Pnpm => ("pnpm test", ""),
                PackageManager::Yarn => ("yarn test", ""),
            };
            command.push_str(program);
            if let Some(filter) = filter {
                command.push_str(&format!("{separator} {}", shell_quote(filter)));
            }
        }
        Runner::Maven => {
            let maven = if project.join("mvnw").is_file() {
                "./mvnw"
            } else {
                "mvn"
            };
            command.push_str(&format!("{maven} -q test"));
            if let Some(filter) = filter {
                command.push_str(&format!(" -Dtest={}", shell_quote(filter)));
            }
        }
        Runner::Gradle => {
            let gradle = if project.join("gradlew").is_file() {
                "./gradlew"
            } else {
                "gradle"
            };
            command.push_str(&format!("{gradle} test"));
            if let Some(filter) = filter {
                command.push_str(&format!(" --tests {}", shell_quote(filter)));
            }
        }
        Runner::JavaMain(main) => {
            let sources = match main.sources.as_str() {
                "" => "*.java".to_string(),
                dir => format!("{}/*.java", shell_quote(dir)),
            };
            command.push_str(&format!(
                "javac -d {JAVA_CLASSES_DIR} {sources} && java -cp {JAVA_CLASSES_DIR} {}",
                main.class
            ));
        }
        Runner::Python => {
            command.push_str(&format!("{} -m pytest", python(project)));
            if let Some(filter) = filter {
                command.push_str(&format!(" -k {}", shell_quote(filter)));
            }
            if !inside.is_empty() {
                command.push_str(&format!(" {}", shell_quote(&inside)));
            }
        }
    }
    command
}

/// The project's virtualenv interpreter if it has one, else `python` or `python3`,
/// whichever is on PATH.
fn python(project: &Path) -> &'static str {
    for venv_python in [".venv/bin/python", "venv/bin/python"] {
        if project.join(venv_python).is_file() {
            return venv_python;
        }
    }
    let on_path = |name: &str| {
        std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(name).is_file()))
    };
    if !on_path("python") && on_path("python3") {
        "python3"
    } else {
        "python"
    }
}

/// `path` relative to `base` with `/` separators; empty when they are the same.
fn relative(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .map(|relative| {
            relative
                .components()
                .map(|part| part.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/")
        })
        .unwrap_or_default()
}

fn display_relative(path: &Path, root: &Path) -> String {
    match relative(path, root).as_str() {
        "" => ".".to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_marker_wins_and_lockfiles_are_searched_upwards() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("pnpm-lock.yaml"), "").unwrap();
        std::fs::create_dir_all(root.join("web/src")).unwrap();
        std::fs::write(root.join("web/package.json"), "{}").unwrap();
        let (project, runner) = find_runner(root, &root.join("web/src")).unwrap();
        assert_eq!(project, root.join("web"));
        assert_eq!(runner, Runner::Node(PackageManager::Pnpm));
        assert_eq!(find_runner(root, root), None);
    }

    #[test]
    fn java_projects_get_maven_gradle_or_their_test_main() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/Inventory.java"), "class Inventory {}\n").unwrap();
        assert_eq!(runner_in(root, root), None);
        std::fs::write(
            root.join("src/TestMain.java"),
            "package shop;\npublic final class TestMain {\n  public static void main(String[] a) {}\n}\n",
        )
        .unwrap();
        let runner = runner_in(root, root).unwrap();
        assert_eq!(
            test_command(root, root, &runner, root, None),
            "javac -d .hone/java-classes src/*.java && java -cp .hone/java-classes shop.TestMain"
        );
        std::fs::write(root.join("build.gradle"), "").unwrap();
        assert_eq!(runner_in(root, root), Some(Runner::Gradle));
        std::fs::write(root.join("pom.xml"), "<project/>").unwrap();
        let maven = runner_in(root, root).unwrap();
        assert_eq!(
            test_command(root, root, &maven, root, Some("ParserTest")),
            "mvn -q test -Dtest=ParserTest"
        );
    }

    #[test]
    fn cargo_is_preferred_over_other_markers_in_the_same_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("package.json"), "{}").unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), "").unwrap();
        assert_eq!(runner_in(dir.path(), dir.path()), Some(Runner::Cargo));
    }

    #[test]
    fn go_packages_follow_the_target_directory() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("pkg/parse")).unwrap();
        let command = test_command(
            root,
            root,
            &Runner::Go,
            &root.join("pkg/parse"),
            Some("TestX"),
        );
        assert_eq!(command, "go test ./pkg/parse/... -run TestX");
    }

    #[test]
    fn a_virtualenv_interpreter_is_used_when_present() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".venv/bin")).unwrap();
        std::fs::write(dir.path().join(".venv/bin/python"), "").unwrap();
        assert_eq!(python(dir.path()), ".venv/bin/python");
    }
}
