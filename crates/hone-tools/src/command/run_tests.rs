//! `run_tests {path?, filter?}`: the project's test command, as
//! [`project::find_tests`](crate::project::find_tests) finds it.

use std::path::Path;
use std::time::Duration;

use hone_protocol::ToolSpec;
use serde_json::{Value, json};

use crate::project::{TestCommand, ThisMachine, find_tests, relative};
use crate::{
    Args, CommandPlan, Invocation, Plan, Tool, ToolContext, ToolError, ToolErrorKind, ToolKind,
};

/// Time limit of a test run.
const TEST_TIMEOUT_SECS: u64 = 600;

/// Everything looked for, as listed when nothing is found.
const LOOKED_FOR: &str = "tox.ini, pyproject.toml, setup.cfg, pytest.ini, a Makefile test \
                          target, package.json, Cargo.toml, go.mod, pom.xml, build.gradle, \
                          .github/workflows, test*.py files, a Java test class with a main method";

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
                "Run the project's tests the way the project declares them (tox.ini, pytest's \
                 settings, a Makefile test target, package.json's test script, Cargo, Go, \
                 Maven, Gradle, CI workflows), found in the root, or in `path` and its \
                 parents; else pytest or python -m unittest for test*.py files. `filter` \
                 selects tests by name. Time limit {TEST_TIMEOUT_SECS} s. When nothing is \
                 detected, run the test command with run_command."
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
        let found = find_tests(root, start, &ThisMachine);
        let narrowing = target != root || filter.is_some();
        let chosen = found.as_ref().and_then(|(project, commands)| {
            let command = choose(commands, narrowing)?;
            Some(command.narrowed(Some(&relative(&target, project)), filter.as_deref()))
        });
        let command = chosen.ok_or_else(|| {
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
        Ok(Plan::Command(CommandPlan {
            display: command.clone(),
            invocation: Invocation::Shell(command),
            timeout: Duration::from_secs(TEST_TIMEOUT_SECS),
            background: false,
        }))
    }
}

/// The command to run: the first that can run here (one that narrows to a path or name
/// when asked to), else the first found, so the model sees why it cannot run.
fn choose(commands: &[TestCommand], narrowing: bool) -> Option<&TestCommand> {
    commands
        .iter()
        .find(|command| command.available && (!narrowing || command.narrows()))
        .or_else(|| commands.iter().find(|command| command.available))
        .or_else(|| commands.first())
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
    use crate::project::Runner;

    fn command(name: &str, runner: Runner, available: bool) -> TestCommand {
        TestCommand {
            name: name.into(),
            source: "fallback".into(),
            dir: String::new(),
            env: Vec::new(),
            runner,
            available,
        }
    }

    #[test]
    fn the_first_runnable_command_is_chosen_and_one_that_narrows_when_asked() {
        let commands = [
            command("go test", Runner::Go, false),
            command("make test", Runner::Make, true),
            command("cargo test", Runner::Cargo { workspace: false }, true),
        ];
        assert_eq!(choose(&commands, false).unwrap().name, "make test");
        assert_eq!(choose(&commands, true).unwrap().name, "cargo test");
        // Nothing runs here: the first, so the model reads why.
        assert_eq!(choose(&commands[..1], false).unwrap().name, "go test");
        assert!(choose(&[], false).is_none());
    }
}
