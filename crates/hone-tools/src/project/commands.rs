//! The commands that run a project's tests, in the order hone tries them: what the
//! project declares (tox, pytest's settings, a Makefile, package.json, Cargo, Go, Maven,
//! Gradle, CI workflows), then the fallbacks (pytest or the standard library's unittest,
//! a plain Java test class).

use std::path::{Path, PathBuf};

use super::java::JavaMain;
use super::{Installed, ci, declared, python, relative};
use crate::command::shell_quote;

/// Where plain Java sources (no build tool) are compiled to: the command's temporary
/// directory (the sandbox gives each command a private, writable one; the project and
/// hone's `.hone` stay untouched and `.hone` is read-only inside the sandbox).
const JAVA_CLASSES_DIR: &str = "\"${TMPDIR:-/tmp}/hone-java-classes\"";

/// One way to run a project's tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestCommand {
    /// Short name for reports: `pytest`, `python3 -m unittest`, `npm test`, `make test`.
    pub name: String,
    /// The file that declares it (`tox.ini`, `pyproject.toml`, `package.json`,
    /// `.github/workflows/ci.yml`), or `fallback` when hone chose it from the files present.
    pub source: String,
    /// The directory it runs in, relative to the root (empty for the root).
    pub dir: String,
    /// Environment variables set on the command line (`PYTHONPATH=src`).
    pub env: Vec<(String, String)>,
    /// How it runs the tests.
    pub runner: Runner,
    /// Whether what it needs is installed here (the program, pytest).
    pub available: bool,
}

/// A test runner and how it is invoked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Runner {
    /// `PYTHON -m pytest`.
    Pytest {
        /// The interpreter: a virtual environment's, `python3` or `python`.
        python: String,
    },
    /// The standard library's `PYTHON -B -m unittest`.
    Unittest {
        /// The interpreter.
        python: String,
        /// Where discovery starts (`tests`); `None` for the project directory.
        start: Option<String>,
        /// Whether `start` is a package, so discovery imports it from the project
        /// directory (`-t .`); a directory without `__init__.py` is its own top level.
        package: bool,
    },
    /// A package's test script through its package manager.
    Package {
        /// npm, pnpm or yarn, by lockfile.
        manager: PackageManager,
        /// The script: `test`, or the first `test:…` one when there is no `test`.
        script: String,
    },
    /// `cargo test`.
    Cargo {
        /// A package that is also a workspace root: every member is tested.
        workspace: bool,
    },
    /// `go test`.
    Go,
    /// Maven's `test` phase.
    Maven {
        /// Through the project's `mvnw`.
        wrapper: bool,
    },
    /// Gradle's `test` task.
    Gradle {
        /// Through the project's `gradlew`.
        wrapper: bool,
    },
    /// `make test`.
    Make,
    /// Plain Java sources: compiled with `javac`, then the test class's `main` is run.
    JavaMain(JavaMain),
    /// A command line a project file declares (tox's `commands`, a CI step), run as written.
    Declared(String),
}

/// A Node package manager.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackageManager {
    /// npm (the default).
    Npm,
    /// pnpm (`pnpm-lock.yaml`).
    Pnpm,
    /// Yarn (`yarn.lock`).
    Yarn,
}

impl PackageManager {
    /// The program's name.
    pub fn program(self) -> &'static str {
        match self {
            Self::Npm => "npm",
            Self::Pnpm => "pnpm",
            Self::Yarn => "yarn",
        }
    }
}

impl TestCommand {
    pub(super) fn new(name: &str, source: &str, runner: Runner, available: bool) -> Self {
        Self {
            name: name.to_string(),
            source: source.to_string(),
            dir: String::new(),
            env: Vec::new(),
            runner,
            available,
        }
    }

    pub(super) fn with_env(mut self, env: Vec<(String, String)>) -> Self {
        self.env = env;
        self
    }

    /// The shell command line running every test.
    pub fn command_line(&self) -> String {
        self.narrowed(None, None)
    }

    /// Whether [`narrowed`](Self::narrowed) can select tests by path or name.
    pub fn narrows(&self) -> bool {
        !matches!(
            self.runner,
            Runner::Make | Runner::JavaMain(_) | Runner::Declared(_)
        )
    }

    /// The shell command line running the tests in `target` (a directory or file relative
    /// to the command's directory, where the runner takes one) whose names match `filter`.
    /// Runners that cannot narrow run everything.
    pub fn narrowed(&self, target: Option<&str>, filter: Option<&str>) -> String {
        let mut command = String::new();
        if !self.dir.is_empty() {
            command.push_str(&format!("cd {} && ", shell_quote(&self.dir)));
        }
        for (name, value) in &self.env {
            command.push_str(&format!("{name}={} ", shell_quote(value)));
        }
        let target = target.filter(|target| !target.is_empty() && *target != ".");
        let quoted_filter = filter.map(shell_quote);
        match &self.runner {
            Runner::Pytest { python } => {
                command.push_str(&format!("{python} -m pytest"));
                if let Some(filter) = &quoted_filter {
                    command.push_str(&format!(" -k {filter}"));
                }
                if let Some(target) = target {
                    command.push_str(&format!(" {}", shell_quote(target)));
                }
            }
            Runner::Unittest {
                python,
                start,
                package,
            } => {
                command.push_str(&format!("{python} -B -m unittest"));
                let filter = quoted_filter
                    .as_ref()
                    .map(|filter| format!(" -k {filter}"))
                    .unwrap_or_default();
                match (target, start) {
                    (Some(target), _) if target.ends_with(".py") => {
                        command.push_str(&format!(" -q{filter} {}", shell_quote(target)));
                    }
                    (Some(start), _) => {
                        command
                            .push_str(&format!(" discover -q{filter} -s {}", shell_quote(start)));
                    }
                    (None, Some(start)) => {
                        command
                            .push_str(&format!(" discover -q{filter} -s {}", shell_quote(start)));
                        if *package {
                            command.push_str(" -t .");
                        }
                    }
                    (None, None) => command.push_str(&format!(" -q{filter}")),
                }
            }
            Runner::Package { manager, script } => {
                let run = match (manager, script.as_str()) {
                    (_, "test") => format!("{} test", manager.program()),
                    (PackageManager::Yarn, script) => format!("yarn {}", shell_quote(script)),
                    (manager, script) => {
                        format!("{} run {}", manager.program(), shell_quote(script))
                    }
                };
                command.push_str(&run);
                if let Some(filter) = &quoted_filter {
                    let separator = if *manager == PackageManager::Npm {
                        " --"
                    } else {
                        ""
                    };
                    command.push_str(&format!("{separator} {filter}"));
                }
            }
            Runner::Cargo { workspace } => {
                command.push_str("cargo test");
                if *workspace && target.is_none() {
                    command.push_str(" --workspace");
                }
                if let Some(filter) = &quoted_filter {
                    command.push_str(&format!(" {filter}"));
                }
            }
            Runner::Go => {
                let packages = match target {
                    None => "./...".to_string(),
                    Some(target) => {
                        let dir = if target.ends_with(".go") {
                            target.rsplit_once('/').map_or("", |(dir, _)| dir)
                        } else {
                            target
                        };
                        if dir.is_empty() {
                            "./...".to_string()
                        } else {
                            format!("./{}/...", dir.trim_end_matches('/'))
                        }
                    }
                };
                command.push_str(&format!("go test {}", shell_quote(&packages)));
                if let Some(filter) = &quoted_filter {
                    command.push_str(&format!(" -run {filter}"));
                }
            }
            Runner::Maven { wrapper } => {
                let maven = if *wrapper { "./mvnw" } else { "mvn" };
                command.push_str(&format!("{maven} -q test"));
                if let Some(filter) = &quoted_filter {
                    command.push_str(&format!(" -Dtest={filter}"));
                }
            }
            Runner::Gradle { wrapper } => {
                let gradle = if *wrapper { "./gradlew" } else { "gradle" };
                command.push_str(&format!("{gradle} test"));
                if let Some(filter) = &quoted_filter {
                    command.push_str(&format!(" --tests {filter}"));
                }
            }
            Runner::Make => command.push_str("make test"),
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
            Runner::Declared(line) => command.push_str(line),
        }
        command
    }
}

/// The ways to run the tests of the project at `dir`, in the order they are tried: what
/// the project's files declare, then the fallbacks. Duplicates (pytest named by two files)
/// are listed once; unavailable ones are kept, marked.
pub fn test_commands(dir: &Path, installed: &dyn Installed) -> Vec<TestCommand> {
    let mut found = Vec::new();
    python::declared(dir, installed, &mut found);
    declared::makefile(dir, installed, &mut found);
    declared::package_json(dir, installed, &mut found);
    declared::build_tools(dir, installed, &mut found);
    ci::workflows(dir, installed, &mut found);
    python::fallbacks(dir, installed, &mut found);
    if let Some(main) = super::java::java_main(dir) {
        let available = installed.program("javac") && installed.program("java");
        found.push(TestCommand::new(
            "java tests",
            "fallback",
            Runner::JavaMain(main),
            available,
        ));
    }
    let mut unique: Vec<TestCommand> = Vec::new();
    for command in found {
        if !unique
            .iter()
            .any(|known| known.command_line() == command.command_line())
        {
            unique.push(command);
        }
    }
    unique
}

/// The nearest directory from `start` up to `root` that has test commands, and them
/// (each entering that directory with `cd` when it is not the root). A test directory
/// (`tests/`) is where tests are, not a project of its own.
pub fn find_tests(
    root: &Path,
    start: &Path,
    installed: &dyn Installed,
) -> Option<(PathBuf, Vec<TestCommand>)> {
    start
        .ancestors()
        .take_while(|dir| dir.starts_with(root))
        .find_map(|dir| {
            let inside = relative(dir, root);
            if !inside.is_empty() && super::is_test_path(&format!("{inside}/")) {
                return None;
            }
            let mut commands = test_commands(dir, installed);
            for command in &mut commands {
                command.dir = match (inside.is_empty(), command.dir.is_empty()) {
                    (true, _) => std::mem::take(&mut command.dir),
                    (false, true) => inside.clone(),
                    (false, false) => format!("{inside}/{}", command.dir),
                };
            }
            (!commands.is_empty()).then(|| (dir.to_path_buf(), commands))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::Fake;

    fn write(dir: &Path, files: &[(&str, &str)]) {
        for (path, text) in files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    }

    fn lines(dir: &Path, installed: &dyn Installed) -> Vec<String> {
        test_commands(dir, installed)
            .iter()
            .filter(|command| command.available)
            .map(TestCommand::command_line)
            .collect()
    }

    #[test]
    fn a_src_layout_gets_its_source_directory_on_the_path() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[
                (
                    "pyproject.toml",
                    "[project]\nname = \"shop\"\n\n[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n",
                ),
                ("src/shop/__init__.py", ""),
                ("src/shop/cart.py", "def total(): pass\n"),
                ("tests/test_cart.py", "from shop.cart import total\n"),
            ],
        );
        assert_eq!(
            lines(dir.path(), &Fake::everything()),
            [
                "PYTHONPATH=src python3 -m pytest",
                "PYTHONPATH=src python3 -B -m unittest discover -q -s tests"
            ]
        );
        // Without pytest, the standard library runs them.
        assert_eq!(
            lines(dir.path(), &Fake::without_pytest()),
            ["PYTHONPATH=src python3 -B -m unittest discover -q -s tests"]
        );
        let commands = test_commands(dir.path(), &Fake::without_pytest());
        assert_eq!(commands[0].source, "pyproject.toml");
        assert!(!commands[0].available);
    }

    #[test]
    fn pytest_s_own_pythonpath_setting_is_left_to_it() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[
                (
                    "pyproject.toml",
                    "[tool.pytest.ini_options]\npythonpath = [\"src\"]\n",
                ),
                ("src/shop/__init__.py", ""),
                ("tests/__init__.py", ""),
                ("tests/test_cart.py", ""),
            ],
        );
        assert_eq!(
            lines(dir.path(), &Fake::everything()),
            [
                "python3 -m pytest",
                "PYTHONPATH=src python3 -B -m unittest discover -q -s tests -t ."
            ]
        );
    }

    #[test]
    fn test_files_at_the_root_and_in_tests_are_both_tried() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[
                ("calc.py", ""),
                ("test_calc.py", ""),
                ("tests/test_more.py", ""),
            ],
        );
        assert_eq!(
            lines(dir.path(), &Fake::without_pytest()),
            [
                "python3 -B -m unittest -q",
                "python3 -B -m unittest discover -q -s tests"
            ]
        );
        assert_eq!(
            lines(dir.path(), &Fake::everything())[0],
            "python3 -m pytest"
        );
    }

    #[test]
    fn declared_commands_come_first_in_the_documented_order() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[
                (
                    "tox.ini",
                    "[testenv]\ndeps = pytest\ncommands =\n    pytest {posargs:tests}\n",
                ),
                (
                    "Makefile",
                    "build:\n\tcc x.c\n\ntest: build\n\t./run-tests\n",
                ),
                ("package.json", r#"{"scripts": {"test": "jest"}}"#),
                (
                    "Cargo.toml",
                    "[package]\nname = \"x\"\n\n[workspace]\nmembers = [\"y\"]\n",
                ),
                ("go.mod", "module x\n"),
                ("pom.xml", "<project/>"),
                ("mvnw", ""),
                ("tests/test_x.py", ""),
            ],
        );
        let commands = test_commands(dir.path(), &Fake::everything());
        let sources: Vec<&str> = commands
            .iter()
            .map(|command| command.source.as_str())
            .collect();
        assert_eq!(
            sources,
            [
                "tox.ini",
                "Makefile",
                "package.json",
                "Cargo.toml",
                "go.mod",
                "pom.xml",
                "fallback",
                "fallback"
            ]
        );
        let lines: Vec<String> = commands.iter().map(TestCommand::command_line).collect();
        assert_eq!(
            lines,
            [
                "python3 -m pytest tests",
                "make test",
                "npm test",
                "cargo test --workspace",
                "go test ./...",
                "./mvnw -q test",
                "python3 -m pytest",
                "python3 -B -m unittest discover -q -s tests"
            ]
        );
    }

    #[test]
    fn missing_programs_are_marked_unavailable() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[("go.mod", "module x\n"), ("Makefile", "test:\n\tgo test\n")],
        );
        let installed = Fake {
            programs: vec!["make"],
            pytest: false,
        };
        let commands = test_commands(dir.path(), &installed);
        let available: Vec<(&str, bool)> = commands
            .iter()
            .map(|command| (command.name.as_str(), command.available))
            .collect();
        assert_eq!(available, [("make test", true), ("go test", false)]);
    }

    #[test]
    fn narrowing_follows_each_runner() {
        let pytest = TestCommand::new(
            "pytest",
            "fallback",
            Runner::Pytest {
                python: "python3".into(),
            },
            true,
        )
        .with_env(vec![("PYTHONPATH".into(), "src".into())]);
        assert_eq!(
            pytest.narrowed(Some("tests/test_a.py"), Some("parse")),
            "PYTHONPATH=src python3 -m pytest -k parse tests/test_a.py"
        );
        let unittest = TestCommand::new(
            "python3 -m unittest",
            "fallback",
            Runner::Unittest {
                python: "python3".into(),
                start: Some("tests".into()),
                package: true,
            },
            true,
        );
        assert_eq!(
            unittest.narrowed(None, Some("hours")),
            "python3 -B -m unittest discover -q -k hours -s tests -t ."
        );
        assert_eq!(
            unittest.narrowed(Some("tests/test_a.py"), None),
            "python3 -B -m unittest -q tests/test_a.py"
        );
        let mut go = TestCommand::new("go test", "go.mod", Runner::Go, true);
        go.dir = "svc".into();
        assert_eq!(
            go.narrowed(Some("pkg/parse"), Some("TestX")),
            "cd svc && go test ./pkg/parse/... -run TestX"
        );
        let yarn = TestCommand::new(
            "yarn",
            "package.json",
            Runner::Package {
                manager: PackageManager::Yarn,
                script: "test:unit".into(),
            },
            true,
        );
        assert_eq!(yarn.narrowed(None, Some("a b")), "yarn test:unit 'a b'");
        let make = TestCommand::new("make test", "Makefile", Runner::Make, true);
        assert!(!make.narrows());
        assert_eq!(make.narrowed(Some("x"), Some("y")), "make test");
    }

    #[test]
    fn the_nearest_project_under_the_root_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(
            root,
            &[
                ("pnpm-lock.yaml", ""),
                ("web/package.json", r#"{"scripts": {"test": "vitest"}}"#),
                ("web/src/a.ts", ""),
            ],
        );
        let (project, commands) =
            find_tests(root, &root.join("web/src"), &Fake::everything()).unwrap();
        assert_eq!(project, root.join("web"));
        assert_eq!(commands[0].command_line(), "cd web && pnpm test");
        assert!(find_tests(root, root, &Fake::everything()).is_none());
    }
}
