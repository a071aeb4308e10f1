//! The compile, lint and type checks a project's toolchains offer for changed files:
//! `cargo check`, `go vet`, `tsc`, ruff and mypy when the project configures them.

use std::path::Path;

use super::Installed;
use crate::command::shell_quote;

/// One check command for changed files of one language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LintCommand {
    /// The language it covers (`rust`, `python`), as `[checks]` names languages.
    pub language: &'static str,
    /// Short name for reports (`cargo check`, `ruff`).
    pub name: String,
    /// The shell command line.
    pub command: String,
}

/// The checks for `changed` (root-relative paths) in the project at `root`, from its files
/// and the tools installed.
pub fn lint_commands(
    root: &Path,
    changed: &[String],
    installed: &dyn Installed,
) -> Vec<LintCommand> {
    let has = |extensions: &[&str]| {
        changed
            .iter()
            .any(|path| extension(path).is_some_and(|ext| extensions.contains(&ext)))
    };
    let check = |language, name: &str, command: &str| LintCommand {
        language,
        name: name.to_string(),
        command: command.to_string(),
    };
    let mut checks = Vec::new();
    if has(&["rs"]) && root.join("Cargo.toml").is_file() && installed.program("cargo") {
        checks.push(check("rust", "cargo check", "cargo check --quiet"));
    }
    if has(&["go"]) && root.join("go.mod").is_file() && installed.program("go") {
        checks.push(check("go", "go vet", "go vet ./..."));
    }
    if has(&["ts", "tsx", "mts", "cts"]) && root.join("tsconfig.json").is_file() {
        if root.join("node_modules/.bin/tsc").is_file() {
            checks.push(check("typescript", "tsc", "node_modules/.bin/tsc --noEmit"));
        } else if installed.program("tsc") {
            checks.push(check("typescript", "tsc", "tsc --noEmit"));
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
        if ruff && installed.program("ruff") {
            checks.push(check("python", "ruff", &format!("ruff check {files}")));
        }
        let mypy = root.join("mypy.ini").is_file()
            || root.join(".mypy.ini").is_file()
            || pyproject.contains("[tool.mypy")
            || setup_cfg.contains("[mypy");
        if mypy && installed.program("mypy") {
            checks.push(check("python", "mypy", &format!("mypy {files}")));
        }
    }
    checks
}

fn extension(path: &str) -> Option<&str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.').map(|(_, ext)| ext)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::Fake;

    #[test]
    fn each_toolchain_checks_its_own_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("Cargo.toml"), "[package]\n").unwrap();
        std::fs::write(root.join("tsconfig.json"), "{}").unwrap();
        std::fs::write(root.join("pyproject.toml"), "[tool.ruff]\n[tool.mypy]\n").unwrap();
        std::fs::write(root.join("my app.py"), "").unwrap();
        let changed = |paths: &[&str]| {
            let paths: Vec<String> = paths.iter().map(|path| path.to_string()).collect();
            lint_commands(root, &paths, &Fake::everything())
                .into_iter()
                .map(|check| check.command)
                .collect::<Vec<_>>()
        };
        assert_eq!(changed(&["src/lib.rs"]), ["cargo check --quiet"]);
        assert_eq!(changed(&["web/a.ts"]), ["tsc --noEmit"]);
        assert_eq!(
            changed(&["my app.py", "gone.py"]),
            ["ruff check 'my app.py'", "mypy 'my app.py'"]
        );
        assert!(changed(&["README.md"]).is_empty());
        let nothing = Fake {
            programs: Vec::new(),
            pytest: false,
        };
        assert!(lint_commands(root, &["src/lib.rs".into()], &nothing).is_empty());
    }
}
