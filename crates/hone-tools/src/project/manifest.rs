//! The commands a project's manifests declare for building, linting and formatting it
//! (`Cargo.toml`, `package.json` scripts, `go.mod`, a `Makefile`), with its test commands
//! as the checks find them.

use std::path::Path;

use super::{TestCommand, ThisMachine, test_commands};

/// The build, lint, format and test commands the manifests at `root` declare, in a
/// stable order, as `(kind, command)`: what `/init` writes into a first `AGENTS.md`.
pub fn manifest_commands(root: &Path) -> Vec<(&'static str, String)> {
    let mut commands = Vec::new();
    let has = |name: &str| root.join(name).is_file();
    if has("Cargo.toml") {
        commands.push(("build", "cargo build".to_string()));
        commands.push((
            "lint",
            "cargo clippy --all-targets -- -D warnings".to_string(),
        ));
        commands.push(("format", "cargo fmt --all".to_string()));
    }
    if has("package.json") {
        let runner = if has("pnpm-lock.yaml") {
            "pnpm"
        } else if has("yarn.lock") {
            "yarn"
        } else {
            "npm run"
        };
        let scripts = std::fs::read_to_string(root.join("package.json"))
            .ok()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
            .and_then(|json| json.get("scripts").cloned());
        for (kind, script) in [("build", "build"), ("lint", "lint")] {
            if scripts
                .as_ref()
                .is_some_and(|scripts| scripts.get(script).is_some())
            {
                commands.push((kind, format!("{runner} {script}")));
            }
        }
    }
    if has("go.mod") {
        commands.push(("build", "go build ./...".to_string()));
        commands.push(("lint", "go vet ./...".to_string()));
    }
    if has("Makefile") {
        commands.push(("build", "make".to_string()));
    }
    // The test commands as hone's checks find them: what the project declares, else the
    // first fallback.
    let tests = test_commands(root, &ThisMachine);
    let declared: Vec<&TestCommand> = tests
        .iter()
        .filter(|command| command.source != "fallback")
        .collect();
    let listed = if declared.is_empty() {
        tests.iter().take(1).collect()
    } else {
        declared
    };
    for command in listed {
        commands.push(("test", command.command_line()));
    }
    commands
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifests_declare_build_lint_format_and_test_commands() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
        std::fs::write(
            root.join("package.json"),
            r#"{"scripts": {"test": "vitest", "lint": "eslint ."}}"#,
        )
        .unwrap();
        std::fs::write(root.join("yarn.lock"), "").unwrap();
        let commands = manifest_commands(root);
        for expected in [
            ("build", "cargo build"),
            ("format", "cargo fmt --all"),
            ("lint", "yarn lint"),
            ("test", "cargo test"),
        ] {
            assert!(
                commands
                    .iter()
                    .any(|(kind, command)| (*kind, command.as_str()) == expected),
                "{expected:?} in {commands:?}"
            );
        }
        // A script the manifest does not declare is not offered.
        assert!(!commands.iter().any(|(_, command)| command == "yarn build"));
    }

    #[test]
    fn an_empty_directory_declares_no_build_command() {
        let dir = tempfile::tempdir().unwrap();
        assert!(
            manifest_commands(dir.path())
                .iter()
                .all(|(kind, _)| *kind == "test")
        );
    }
}
