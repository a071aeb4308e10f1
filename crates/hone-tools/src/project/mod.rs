//! What hone knows of a project's layout, in one place: where its root is
//! ([`ProjectPlace`]), how it runs its tests ([`test_commands`]: the commands its files
//! declare, then the fallbacks), which lint and type checks its toolchains offer
//! ([`lint_commands`]), what its manifests declare for building and formatting it
//! ([`manifest_commands`]), and which of its paths are tests ([`is_test_path`]).
//!
//! Detection reads files only; what is installed comes from an [`Installed`], which on
//! this machine ([`ThisMachine`]) looks at `PATH` and asks the system Python once whether
//! pytest is there (no project file is executed to find out).

mod ci;
mod commands;
mod declared;
mod java;
mod lint;
mod manifest;
mod paths;
mod python;
mod root;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{LazyLock, Mutex, PoisonError};

pub use commands::{PackageManager, Runner, TestCommand, find_tests, test_commands};
pub use java::JavaMain;
pub use lint::{LintCommand, lint_commands};
pub use manifest::manifest_commands;
pub use paths::is_test_path;
pub use root::ProjectPlace;

/// What is installed, as test detection needs to know it.
pub trait Installed {
    /// Whether `program` is an executable file in a `PATH` directory.
    fn program(&self, name: &str) -> bool;

    /// Whether the Python interpreter `python` can import `module` without running
    /// anything of the project. `python` is a program on `PATH` or a project's virtual
    /// environment interpreter (`.venv/bin/python`, relative to `dir`).
    fn python_module(&self, dir: &Path, python: &str, module: &str) -> bool;
}

/// This machine: `PATH` and the system Python, each answer cached for the process.
#[derive(Debug, Clone, Copy, Default)]
pub struct ThisMachine;

/// Answers of [`ThisMachine::python_module`] by interpreter and module.
static PYTHON_MODULES: LazyLock<Mutex<HashMap<(PathBuf, String), bool>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

impl Installed for ThisMachine {
    fn program(&self, name: &str) -> bool {
        on_path(name)
    }

    fn python_module(&self, dir: &Path, python: &str, module: &str) -> bool {
        if python.contains('/') {
            // A project's virtual environment: its interpreter is the project's file, so
            // it is not run; the module's directory in its site-packages tells.
            let venv = dir.join(python);
            return venv
                .parent()
                .and_then(Path::parent)
                .is_some_and(|venv| venv_has_module(venv, module));
        }
        let key = (PathBuf::from(python), module.to_string());
        let mut cache = PYTHON_MODULES
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(known) = cache.get(&key) {
            return *known;
        }
        let found = on_path(python) && system_python_has(python, module);
        cache.insert(key, found);
        found
    }
}

/// Whether the interpreter `python` on `PATH` finds `module`: `find_spec` only, run from
/// the root directory so no project file shadows it.
fn system_python_has(python: &str, module: &str) -> bool {
    let script = format!(
        "import importlib.util, sys; sys.exit(importlib.util.find_spec({module:?}) is None)"
    );
    Command::new(python)
        .args(["-c", &script])
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// Whether the virtual environment `venv` has `module` in a `lib/python*/site-packages`.
fn venv_has_module(venv: &Path, module: &str) -> bool {
    let Ok(entries) = std::fs::read_dir(venv.join("lib")) else {
        return false;
    };
    entries.flatten().any(|entry| {
        let packages = entry.path().join("site-packages");
        packages.join(module).is_dir() || packages.join(format!("{module}.py")).is_file()
    })
}

/// Whether `program` is an executable file in a `PATH` directory.
pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// The project's files (root-relative paths, `/`-separated, sorted), at most `max`, as
/// hone's file tools see them: ignored files (`.gitignore`, `.honeignore`) and `.git/` left
/// out, symlinks not followed. For finding a file a tool names only by its tail
/// (`CalcTest.java`, `com/example/CalcTest.java`).
pub fn project_files(guard: &hone_policy::PathGuard, max: usize) -> Vec<String> {
    let root = guard.root();
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .add_custom_ignore_filename(".honeignore");
    let filter_guard = guard.clone();
    builder.filter_entry(move |entry| {
        if entry.depth() == 0 {
            return true;
        }
        let skipped = matches!(
            entry.file_name().to_str(),
            Some(".git" | "node_modules" | "target" | "__pycache__" | ".venv" | "venv")
        );
        let is_dir = entry.file_type().is_some_and(|kind| kind.is_dir());
        !skipped && !filter_guard.is_ignored(&relative(entry.path(), filter_guard.root()), is_dir)
    });
    let mut files: Vec<String> = builder
        .build()
        .flatten()
        .filter(|entry| entry.file_type().is_some_and(|kind| kind.is_file()))
        .map(|entry| relative(entry.path(), root))
        .take(max)
        .collect();
    files.sort();
    files
}

/// `path` relative to `base` with `/` separators; empty when they are the same or `path`
/// is not inside `base`.
pub(crate) fn relative(path: &Path, base: &Path) -> String {
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

/// An [`Installed`] for tests: the programs given, and pytest when asked.
#[cfg(test)]
pub(crate) struct Fake {
    pub(crate) programs: Vec<&'static str>,
    pub(crate) pytest: bool,
}

#[cfg(test)]
impl Fake {
    /// Everything hone looks for, pytest included.
    pub(crate) fn everything() -> Self {
        Self {
            programs: vec![
                "python3", "python", "npm", "pnpm", "yarn", "node", "cargo", "go", "mvn", "gradle",
                "make", "javac", "java", "ruff", "mypy", "tsc",
            ],
            pytest: true,
        }
    }

    /// Everything but pytest.
    pub(crate) fn without_pytest() -> Self {
        Self {
            pytest: false,
            ..Self::everything()
        }
    }
}

#[cfg(test)]
impl Installed for Fake {
    fn program(&self, name: &str) -> bool {
        self.programs.contains(&name)
    }

    fn python_module(&self, _dir: &Path, _python: &str, module: &str) -> bool {
        module == "pytest" && self.pytest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_virtual_environment_is_read_not_run() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".venv/bin")).unwrap();
        // An interpreter that would fail loudly if it were run.
        std::fs::write(dir.path().join(".venv/bin/python"), "#!/bin/sh\nexit 3\n").unwrap();
        let machine = ThisMachine;
        assert!(!machine.python_module(dir.path(), ".venv/bin/python", "pytest"));
        std::fs::create_dir_all(dir.path().join(".venv/lib/python3.12/site-packages/pytest"))
            .unwrap();
        assert!(machine.python_module(dir.path(), ".venv/bin/python", "pytest"));
    }

    #[test]
    fn a_missing_interpreter_has_no_modules() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!ThisMachine.python_module(dir.path(), "no-such-python-for-hone", "sys"));
    }

    #[test]
    fn project_files_leave_out_ignored_and_dependency_directories() {
        let dir = tempfile::tempdir().unwrap();
        for path in [
            "src/a.py",
            "node_modules/x/index.js",
            "build/out.js",
            "secret/key.txt",
        ] {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        std::fs::write(dir.path().join(".gitignore"), "build/\n").unwrap();
        std::fs::write(dir.path().join(".honeignore"), "secret/\n").unwrap();
        let guard = hone_policy::PathGuard::new(dir.path()).unwrap();
        assert_eq!(
            project_files(&guard, 100),
            [".gitignore", ".honeignore", "src/a.py"]
        );
        assert_eq!(project_files(&guard, 1).len(), 1);
    }

    #[test]
    fn paths_are_made_relative_with_slashes() {
        let base = Path::new("/p");
        assert_eq!(relative(Path::new("/p/a/b"), base), "a/b");
        assert_eq!(relative(base, base), "");
        assert_eq!(relative(Path::new("/q"), base), "");
    }
}
