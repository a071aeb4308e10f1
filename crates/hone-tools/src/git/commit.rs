//! `git_commit {message, files?}`: a commit, planned as a command for approval.
//!
//! - With `files`: those paths are added (new files included) and committed alone, whatever
//!   else is staged. Adding and committing are two git commands, so the plan runs a constant
//!   `sh -c` script that receives the message and paths as arguments: nothing the model
//!   wrote becomes shell text. The plan's display shows the equivalent quoted command line.
//! - Without `files`: what is staged is committed; when nothing is staged, every change to
//!   tracked files in the project (`git commit -a`). New files need `files`.
//!
//! Planning checks that there is something to commit, so the model learns it before asking
//! the user for approval.

use std::path::Path;
use std::time::Duration;

use hone_protocol::ToolSpec;
use serde_json::{Value, json};

use super::{
    HARDENING, environment_argv, git, git_ok, hardened_argv, project_path, project_prefix,
};
use crate::command::shell_quote;
use crate::{
    Args, CommandPlan, Invocation, Plan, Tool, ToolContext, ToolError, ToolErrorKind, ToolKind,
};

/// Time limit of a commit (hooks may run linters).
const COMMIT_TIMEOUT_SECS: u64 = 300;
/// Untracked files named in the "nothing to commit" message.
const MAX_UNTRACKED_LISTED: usize = 10;

/// Adds the paths, then commits only them. `$1` is the message, the rest are the paths;
/// `{git}` is git with its hardening options.
const ADD_AND_COMMIT: &str =
    r#"message=$1; shift; {git} add -- "$@" && {git} commit --only -m "$message" -- "$@""#;

/// The `git_commit` tool.
pub(crate) struct GitCommit;

impl Tool for GitCommit {
    fn name(&self) -> &'static str {
        "git_commit"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: "Commit changes with a message. With files, exactly those paths are \
                          added (new files too) and committed. Without files, the staged changes \
                          are committed, or when nothing is staged every change to tracked \
                          files; new files are only committed when listed in files."
                .to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "message": {
                        "type": "string",
                        "description": "Commit message: a short summary line, optionally a blank line and details."
                    },
                    "files": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "Paths to add and commit, relative to the project root."
                    }
                },
                "required": ["message"]
            }),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Write
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{message, files?}", arguments)?;
        let message = args.string("message")?;
        if message.trim().is_empty() {
            return Err(ToolError::invalid(
                "the commit message is empty; describe the change, e.g. {\"message\": \"Fix \
                 off-by-one in the parser\"}",
            ));
        }
        let files = args.opt_string_list("files")?.unwrap_or_default();
        let root = context.root();
        let prefix = project_prefix(root)?;
        let (display, argv) = if files.is_empty() {
            commit_changes(root, &prefix, &message)?
        } else {
            let mut paths = Vec::with_capacity(files.len());
            for file in &files {
                let relative = context.guard().resolve_write(file)?.relative;
                paths.push(if relative.is_empty() {
                    ".".to_string()
                } else {
                    relative
                });
            }
            commit_paths(root, &message, &paths)?
        };
        Ok(Plan::Command(CommandPlan {
            display,
            invocation: Invocation::Argv(argv),
            timeout: Duration::from_secs(COMMIT_TIMEOUT_SECS),
            background: false,
        }))
    }
}

/// Add-and-commit of `paths`, after checking that they have changes.
fn commit_paths(
    root: &Path,
    message: &str,
    paths: &[String],
) -> Result<(String, Vec<String>), ToolError> {
    let mut status = vec![
        "status",
        "--porcelain=v1",
        "-z",
        "--untracked-files=all",
        "--",
    ];
    status.extend(paths.iter().map(String::as_str));
    if git_ok(root, &status)?.is_empty() {
        return Err(ToolError::new(
            ToolErrorKind::InvalidArguments,
            format!(
                "nothing to commit: {} has no changes; git_status shows which files changed",
                paths.join(", ")
            ),
        ));
    }
    let quoted: Vec<String> = paths.iter().map(|path| shell_quote(path)).collect();
    let quoted = quoted.join(" ");
    let display = format!(
        "git add -- {quoted} && git commit --only -m {} -- {quoted}",
        shell_quote(message)
    );
    let git = std::iter::once("git")
        .chain(HARDENING)
        .collect::<Vec<_>>()
        .join(" ");
    let script = ADD_AND_COMMIT.replace("{git}", &git);
    let mut argv = environment_argv();
    argv.extend(
        ["sh", "-c", &script, "git_commit", message]
            .iter()
            .map(|part| part.to_string()),
    );
    argv.extend(paths.iter().cloned());
    Ok((display, argv))
}

/// Commit of what is staged, or else of every change to tracked files in the project.
fn commit_changes(
    root: &Path,
    prefix: &str,
    message: &str,
) -> Result<(String, Vec<String>), ToolError> {
    let quoted = shell_quote(message);
    if has_differences(root, &["diff", "--cached", "--quiet"])? {
        return Ok((
            format!("git commit -m {quoted}"),
            hardened_argv(&["commit", "-m", message]),
        ));
    }
    if has_differences(root, &["diff", "--quiet", "--", "."])? {
        // `-a` would also take changes outside a project that is a repository subdirectory.
        return Ok(if prefix.is_empty() {
            (
                format!("git commit -a -m {quoted}"),
                hardened_argv(&["commit", "-a", "-m", message]),
            )
        } else {
            (
                format!("git commit --only -m {quoted} -- ."),
                hardened_argv(&["commit", "--only", "-m", message, "--", "."]),
            )
        });
    }
    let untracked = git_ok(
        root,
        &[
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--",
            ".",
        ],
    )?;
    let untracked: Vec<&str> = untracked
        .split('\0')
        .filter_map(|entry| entry.strip_prefix("?? "))
        .map(|path| project_path(path, prefix))
        .collect();
    let message = if untracked.is_empty() {
        "nothing to commit, working tree clean".to_string()
    } else {
        let mut listed: Vec<String> = untracked
            .iter()
            .take(MAX_UNTRACKED_LISTED)
            .map(|path| format!("\"{path}\""))
            .collect();
        if untracked.len() > MAX_UNTRACKED_LISTED {
            listed.push(format!("… {} more", untracked.len() - MAX_UNTRACKED_LISTED));
        }
        format!(
            "nothing to commit without files: no tracked file changed, and new files are \
             committed only when listed. Call git_commit {{\"message\": ..., \"files\": [{}]}} \
             with the new files that belong in the commit.",
            listed.join(", ")
        )
    };
    Err(ToolError::new(ToolErrorKind::InvalidArguments, message))
}

/// Runs a `--quiet` diff: true when it found differences (exit code 1).
fn has_differences(root: &Path, args: &[&str]) -> Result<bool, ToolError> {
    let output = git(root, args)?;
    match output.code {
        Some(0) => Ok(false),
        Some(1) => Ok(true),
        _ => Err(ToolError::new(
            ToolErrorKind::Command,
            format!("`git {}` failed: {}", args.join(" "), output.stderr.trim()),
        )),
    }
}
