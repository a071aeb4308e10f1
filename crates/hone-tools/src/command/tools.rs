//! The tools `run_command`, `run_background`, `check_background` and `stop_background`.

use std::time::Duration;

use hone_protocol::ToolSpec;
use serde_json::{Value, json};

use crate::{
    Args, CommandPlan, Invocation, Plan, Tool, ToolContext, ToolError, ToolKind, ToolOutput,
};

/// Time limit of `run_command` when the model gives none.
const DEFAULT_TIMEOUT_SECS: u64 = 120;
/// Longest time limit `run_command` accepts.
const MAX_TIMEOUT_SECS: u64 = 1800;

/// `run_command {command, timeout_secs?}`: a shell command run to completion.
pub(crate) struct RunCommand;

impl Tool for RunCommand {
    fn name(&self) -> &'static str {
        "run_command"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: format!(
                "Run a shell command (sh -c) in the project root and return its exit code, \
                 stdout and stderr (long output is shortened to its start, end and error lines). \
                 Stdin is closed, so interactive commands fail instead of waiting. The command \
                 and everything it starts is killed after timeout_secs (default \
                 {DEFAULT_TIMEOUT_SECS}, at most {MAX_TIMEOUT_SECS}). Use run_background for \
                 servers and watchers, run_tests for the test suite."
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "command": {
                        "type": "string",
                        "description": "Shell command line, e.g. `cargo build 2>&1 | head -50`."
                    },
                    "timeout_secs": {
                        "type": "integer",
                        "description": format!(
                            "Time limit in seconds (default {DEFAULT_TIMEOUT_SECS}, at most {MAX_TIMEOUT_SECS})."
                        )
                    }
                },
                "required": ["command"]
            }),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Command
    }

    fn plan(&self, _context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{command, timeout_secs?}", arguments)?;
        let command = command_text(&args, self.name())?;
        let timeout_secs = match args.opt_integer("timeout_secs")? {
            None => DEFAULT_TIMEOUT_SECS,
            Some(0) => {
                return Err(ToolError::invalid(
                    "timeout_secs must be at least 1; leave it out for the default of 120 seconds",
                ));
            }
            Some(secs) if secs > MAX_TIMEOUT_SECS => {
                return Err(ToolError::invalid(format!(
                    "timeout_secs is at most {MAX_TIMEOUT_SECS} (30 minutes), got {secs}; for \
                     longer-running commands use run_background and check on them with \
                     check_background"
                )));
            }
            Some(secs) => secs,
        };
        Ok(Plan::Command(CommandPlan {
            display: command.clone(),
            invocation: Invocation::Shell(command),
            timeout: Duration::from_secs(timeout_secs),
            background: false,
        }))
    }
}

/// `run_background {command}`: a shell command started as a background job.
pub(crate) struct RunBackground;

impl Tool for RunBackground {
    fn name(&self) -> &'static str {
        "run_background"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: "Start a long-running shell command (dev server, watcher, slow build) \
                          in the project root without waiting for it; returns a job id at once. \
                          Read its new output with check_background and end it with \
                          stop_background. The last 1 MB of output is kept."
                .to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "command": {
                        "type": "string",
                        "description": "Shell command line, e.g. `npm run dev`."
                    }
                },
                "required": ["command"]
            }),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Command
    }

    fn plan(&self, _context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{command}", arguments)?;
        let command = command_text(&args, self.name())?;
        Ok(Plan::Command(CommandPlan {
            display: command.clone(),
            invocation: Invocation::Shell(command),
            // Only foreground commands have a time limit; jobs run until they exit or are stopped.
            timeout: Duration::ZERO,
            background: true,
        }))
    }
}

/// `check_background {id}`: status and new output of a background job.
pub(crate) struct CheckBackground;

impl Tool for CheckBackground {
    fn name(&self) -> &'static str {
        "check_background"
    }

    fn spec(&self) -> ToolSpec {
        job_spec(
            self.name(),
            "Show whether a background job (from run_background) is still running and the \
             output it printed since the last check.",
        )
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let id = Args::new(self.name(), "{id}", arguments)?.integer("id")?;
        Ok(Plan::Done(ToolOutput::ok(context.jobs().check(id)?)))
    }
}

/// `stop_background {id}`: kills a background job and everything it started.
pub(crate) struct StopBackground;

impl Tool for StopBackground {
    fn name(&self) -> &'static str {
        "stop_background"
    }

    fn spec(&self) -> ToolSpec {
        job_spec(
            self.name(),
            "Stop a background job (from run_background), killing it and every process it \
             started, and show the output it printed since the last check.",
        )
    }

    fn kind(&self) -> ToolKind {
        // Stopping hone's own job is a control action: it needs no approval.
        ToolKind::Read
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let id = Args::new(self.name(), "{id}", arguments)?.integer("id")?;
        Ok(Plan::Done(ToolOutput::ok(context.jobs().stop(id)?)))
    }
}

fn job_spec(name: &str, description: &str) -> ToolSpec {
    ToolSpec {
        name: name.to_string(),
        description: description.to_string(),
        parameters: json!({
            "type": "object",
            "properties": {
                "id": {
                    "type": "integer",
                    "description": "Job id returned by run_background."
                }
            },
            "required": ["id"]
        }),
    }
}

/// The required, non-blank `command` argument.
fn command_text(args: &Args<'_>, tool: &str) -> Result<String, ToolError> {
    let command = args.string("command")?;
    if command.trim().is_empty() {
        return Err(ToolError::invalid(format!(
            "the command of {tool} is empty; pass the shell command line to run, e.g. \
             {{\"command\": \"ls -la\"}}"
        )));
    }
    Ok(command)
}
