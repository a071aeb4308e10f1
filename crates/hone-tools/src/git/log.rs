//! `git_log {max_count?, path?}`: recent commits, one line each.

use hone_protocol::ToolSpec;
use serde_json::{Value, json};

use super::{git, project_prefix};
use crate::command::truncate_output;
use crate::{Args, Plan, Tool, ToolContext, ToolError, ToolErrorKind, ToolKind, ToolOutput};

/// Commits shown when the model gives no count.
const DEFAULT_COUNT: u64 = 20;
/// Most commits shown in one call.
const MAX_COUNT: u64 = 500;
/// `abc1234 2024-05-01 Alice Smith (HEAD -> main, tag: v1) Subject`.
const FORMAT: &str = "--format=%h %ad %an%d %s";

/// The `git_log` tool.
pub(crate) struct GitLog;

impl Tool for GitLog {
    fn name(&self) -> &'static str {
        "git_log"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: format!(
                "Show recent commits, newest first, one line each: short hash, date, author, \
                 branches and tags, subject. Default {DEFAULT_COUNT} commits; path limits it to \
                 commits touching that file or directory."
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "max_count": {
                        "type": "integer",
                        "description": format!("How many commits (default {DEFAULT_COUNT}, at most {MAX_COUNT}).")
                    },
                    "path": {
                        "type": "string",
                        "description": "File or directory, relative to the project root."
                    }
                }
            }),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{max_count?, path?}", arguments)?;
        let count = match args.opt_integer("max_count")? {
            None => DEFAULT_COUNT,
            Some(0) => {
                return Err(ToolError::invalid(
                    "max_count must be at least 1; leave it out for the last 20 commits",
                ));
            }
            Some(count) => count.min(MAX_COUNT),
        };
        let path = match args.opt_string("path")? {
            Some(path) => Some(context.guard().resolve_read(&path)?.relative),
            None => None,
        };
        let root = context.root();
        let prefix = project_prefix(root)?;
        let count = count.to_string();
        let mut command = vec![
            "log",
            "--no-color",
            "--date=short",
            FORMAT,
            "-n",
            count.as_str(),
        ];
        match path.as_deref() {
            Some(path) if !path.is_empty() => command.extend(["--", path]),
            // A project inside a larger repository sees the commits that touch it.
            _ if !prefix.is_empty() => command.extend(["--", "."]),
            _ => {}
        }
        let output = git(root, &command)?;
        if !output.success {
            if output.stderr.contains("does not have any commits yet") {
                return Ok(Plan::Done(ToolOutput::ok(
                    "no commits yet on this branch; git_status shows what would be committed",
                )));
            }
            return Err(ToolError::new(
                ToolErrorKind::Command,
                format!("git log failed: {}", output.stderr.trim()),
            ));
        }
        if output.stdout.trim().is_empty() {
            let place = path.unwrap_or_default();
            return Ok(Plan::Done(ToolOutput::ok(format!(
                "no commits touch `{place}`; check the path with git_status or leave it out"
            ))));
        }
        Ok(Plan::Done(ToolOutput::ok(truncate_output(&output.stdout))))
    }
}
