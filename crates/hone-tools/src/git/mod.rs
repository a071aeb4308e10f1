//! Git tools: `git_status`, `git_diff`, `git_log` (reads, run at once) and `git_commit`
//! (a write, planned as a command to approve).
//!
//! Reads run `git` synchronously in the project root with no pager, no prompts and no
//! optional locks, so they never hang and never rewrite the index. When the project is a
//! subdirectory of a repository, reads are limited to the project and paths are shown
//! relative to it.

mod commit;
mod diff;
mod log;
mod status;

use std::io::ErrorKind;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;

use crate::{Tool, ToolError, ToolErrorKind};

/// The git tools.
pub fn tools() -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(status::GitStatus),
        Arc::new(diff::GitDiff),
        Arc::new(log::GitLog),
        Arc::new(commit::GitCommit),
    ]
}

/// Environment for git reads: no pager, no credential prompt, no index refresh on disk,
/// and English messages (so a missing repository can be recognised).
const READ_ENVIRONMENT: [(&str, &str); 5] = [
    ("GIT_PAGER", "cat"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("GIT_OPTIONAL_LOCKS", "0"),
    ("LC_ALL", "C"),
    ("LANGUAGE", "C"),
];

/// What a finished git command printed.
struct GitOutput {
    /// Whether it exited with code 0.
    success: bool,
    /// Its exit code (`None` when killed by a signal).
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `git <args>` in `root` and waits for it, without the secrets of hone's
/// environment (every variable named like an API key, token or password).
fn git(root: &Path, args: &[&str]) -> Result<GitOutput, ToolError> {
    let mut command = Command::new("git");
    for name in hone_sandbox::SecretScrub::default().names_to_remove(std::env::vars_os()) {
        command.env_remove(name);
    }
    let output = command
        .args([
            "--no-pager",
            "-c",
            "core.quotepath=false",
            "-c",
            "color.ui=false",
        ])
        .args(args)
        .current_dir(root)
        .envs(READ_ENVIRONMENT)
        .stdin(Stdio::null())
        .output()
        .map_err(|error| {
            let reason = match error.kind() {
                ErrorKind::NotFound => "git is not installed or not on PATH".to_string(),
                _ => format!("git could not be started: {error}"),
            };
            ToolError::new(
                ToolErrorKind::Command,
                format!("{reason}; the git tools cannot work without it"),
            )
        })?;
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    if stderr.contains("not a git repository") {
        return Err(ToolError::new(
            ToolErrorKind::Command,
            format!(
                "the project at {} is not inside a git repository, so there is no status, diff, \
                 log or commit; if the user wants version control, run `git init` with \
                 run_command",
                root.display()
            ),
        ));
    }
    Ok(GitOutput {
        success: output.status.success(),
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr,
    })
}

/// Like [`git`], but a failure becomes an error quoting git's message.
fn git_ok(root: &Path, args: &[&str]) -> Result<String, ToolError> {
    let output = git(root, args)?;
    if output.success {
        Ok(output.stdout)
    } else {
        Err(ToolError::new(
            ToolErrorKind::Command,
            format!("`git {}` failed: {}", args.join(" "), output.stderr.trim()),
        ))
    }
}

/// Where the project root sits inside its repository (`""` at the top, else `sub/dir/`);
/// fails with a clear message when there is no repository.
fn project_prefix(root: &Path) -> Result<String, ToolError> {
    Ok(git_ok(root, &["rev-parse", "--show-prefix"])?
        .trim_end_matches('\n')
        .to_string())
}

/// A repository-relative path as the model knows it: relative to the project root.
fn project_path<'a>(path: &'a str, prefix: &str) -> &'a str {
    path.strip_prefix(prefix).unwrap_or(path)
}
