//! Test commands from GitHub Actions workflows: the `run:` lines of the steps that run
//! tests, with the step's `working-directory` and the literal `env` values of the job and
//! the step.

use std::path::Path;

use yaml_rust2::{Yaml, YamlLoader};

use super::commands::{Runner, TestCommand};
use super::declared::test_line;
use super::{Installed, python};

/// Workflow files read, at most.
const MAX_WORKFLOWS: usize = 20;

/// The test steps of `.github/workflows/*.yml`, in file order.
pub(super) fn workflows(dir: &Path, installed: &dyn Installed, found: &mut Vec<TestCommand>) {
    let workflows = dir.join(".github/workflows");
    let Ok(entries) = std::fs::read_dir(&workflows) else {
        return;
    };
    let mut files: Vec<_> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.extension()
                .is_some_and(|ext| ext == "yml" || ext == "yaml")
        })
        .collect();
    files.sort();
    let python = python::interpreter(dir, installed);
    for path in files.into_iter().take(MAX_WORKFLOWS) {
        let Ok(text) = hone_fs::read_to_string_regular(&path) else {
            continue;
        };
        let Ok(documents) = YamlLoader::load_from_str(&text) else {
            continue;
        };
        let source = format!(
            ".github/workflows/{}",
            path.file_name().unwrap_or_default().to_string_lossy()
        );
        for document in &documents {
            for (line, env, working_dir) in test_steps(document) {
                let step_dir = match &working_dir {
                    Some(sub) => dir.join(sub),
                    None => dir.to_path_buf(),
                };
                let Some(line) = test_line(&line, &python, installed, &step_dir) else {
                    continue;
                };
                let mut command = TestCommand::new(
                    &line.name,
                    &source,
                    Runner::Declared(line.command),
                    line.available,
                )
                .with_env(env);
                command.dir = [working_dir.clone(), line.dir]
                    .into_iter()
                    .flatten()
                    .collect::<Vec<_>>()
                    .join("/");
                found.push(command);
            }
        }
    }
}

/// One line of a step's `run:`, with the job's and the step's literal environment and
/// the step's working directory (inside the project).
type StepLine = (String, Vec<(String, String)>, Option<String>);

/// Each `run:` line of each job's steps.
fn test_steps(document: &Yaml) -> Vec<StepLine> {
    let mut steps = Vec::new();
    let Some(jobs) = document["jobs"].as_hash() else {
        return steps;
    };
    for job in jobs.values() {
        let job_env = literal_env(&job["env"]);
        let Some(job_steps) = job["steps"].as_vec() else {
            continue;
        };
        for step in job_steps {
            let Some(run) = step["run"].as_str() else {
                continue;
            };
            let working_dir = step["working-directory"]
                .as_str()
                .map(|dir| {
                    dir.trim_start_matches("./")
                        .trim_end_matches('/')
                        .to_string()
                })
                .filter(|dir| {
                    !dir.is_empty()
                        && !dir.starts_with('/')
                        && !dir.contains("${{")
                        && !dir.split('/').any(|part| part == "..")
                });
            if step["working-directory"].as_str().is_some() && working_dir.is_none() {
                continue;
            }
            let mut env = job_env.clone();
            for (name, value) in literal_env(&step["env"]) {
                env.retain(|(known, _)| *known != name);
                env.push((name, value));
            }
            for line in joined_lines(run) {
                steps.push((line, env.clone(), working_dir.clone()));
            }
        }
    }
    steps
}

/// The lines of a `run:` block, continuation lines (ending in `\`) joined.
fn joined_lines(run: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for line in run.lines() {
        let line = line.trim();
        if let Some(start) = line.strip_suffix('\\') {
            current.push_str(start.trim_end());
            current.push(' ');
            continue;
        }
        current.push_str(line);
        if !current.trim().is_empty() && !current.trim_start().starts_with('#') {
            lines.push(current.trim().to_string());
        }
        current.clear();
    }
    lines
}

/// The `env:` entries whose values are literal (no `${{ … }}` expression, no `$VAR`);
/// names that look like secrets are left out.
fn literal_env(env: &Yaml) -> Vec<(String, String)> {
    let Some(entries) = env.as_hash() else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|(name, value)| {
            let name = name.as_str()?;
            let value = match value {
                Yaml::String(text) => text.clone(),
                Yaml::Integer(number) => number.to_string(),
                Yaml::Boolean(flag) => flag.to_string(),
                Yaml::Real(text) => text.clone(),
                _ => return None,
            };
            let plain_name =
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            let secret = ["TOKEN", "SECRET", "KEY", "PASSWORD"]
                .iter()
                .any(|word| name.to_ascii_uppercase().contains(word));
            (plain_name && !secret && !value.contains('$')).then(|| (name.to_string(), value))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::Fake;

    const WORKFLOW: &str = "name: CI\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    env:\n      PYTHONPATH: src\n      GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n    steps:\n      - uses: actions/checkout@v4\n      - run: pip install -e .[test]\n      - name: Tests\n        run: |\n          pytest -q \\\n            tests/\n      - name: Web\n        working-directory: web\n        env:\n          CI: true\n        run: npm test\n      - run: cargo test --manifest-path ${{ matrix.crate }}/Cargo.toml\n      - working-directory: /etc\n        run: make test\n";

    #[test]
    fn test_steps_become_commands_with_their_directory_and_environment() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".github/workflows")).unwrap();
        std::fs::write(dir.path().join(".github/workflows/ci.yml"), WORKFLOW).unwrap();
        std::fs::write(dir.path().join(".github/workflows/broken.yaml"), "jobs: [").unwrap();
        let mut found = Vec::new();
        workflows(dir.path(), &Fake::everything(), &mut found);
        let lines: Vec<String> = found.iter().map(TestCommand::command_line).collect();
        assert_eq!(
            lines,
            [
                "PYTHONPATH=src python3 -m pytest -q tests/",
                "cd web && PYTHONPATH=src CI=true npm test"
            ]
        );
        assert!(
            found
                .iter()
                .all(|command| command.source == ".github/workflows/ci.yml")
        );
    }

    #[test]
    fn continuation_lines_are_joined_and_comments_dropped() {
        assert_eq!(
            joined_lines("# set up\ncargo test \\\n  --all\nmake test\n"),
            ["cargo test --all", "make test"]
        );
    }
}
