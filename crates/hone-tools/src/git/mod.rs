//! Git tools: `git_status`, `git_diff`, `git_log` (reads, run at once) and `git_commit`
//! (a write, planned as a command to approve).
//!
//! Reads run `git` synchronously in the project root with no pager, no prompts and no
//! optional locks, so they never hang and never rewrite the index. When the project is a
//! subdirectory of a repository, reads are limited to the project and paths are shown
//! relative to it.
//!
//! No git that hone runs starts a program the repository chose: every invocation (the
//! commit included) turns off `core.fsmonitor` and hooks, clears `diff.external`, skips
//! the system configuration, and refuses to discover bare repositories implicitly; reads
//! also take attributes from the empty tree (no textconv, filter or diff drivers from
//! `.gitattributes`) and pass `--no-textconv --no-ext-diff` where git shows diffs.

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

/// Configuration given to every git hone runs, so that a repository's own configuration
/// (a `.git/config` that came with the project) starts no program: no file-system monitor,
/// no hooks, no external diff, no pager, standard diff prefixes, and no bare repository
/// found by walking up from the project (`safe.bareRepository=explicit`).
pub(crate) const HARDENING: [&str; 14] = [
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "diff.external=",
    "-c",
    "core.pager=cat",
    "-c",
    "diff.noprefix=false",
    "-c",
    "safe.bareRepository=explicit",
    "-c",
    "core.untrackedCache=false",
];

/// Environment of every git hone runs: no system configuration, no pager, no credential
/// prompt.
pub(crate) const ENVIRONMENT: [(&str, &str); 3] = [
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_PAGER", "cat"),
    ("GIT_TERMINAL_PROMPT", "0"),
];

/// The empty tree: reads take `.gitattributes` from it, so no attribute names a textconv,
/// filter or diff driver.
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// More environment for git reads: attributes from the empty tree, no index refresh on
/// disk, and English messages (so a missing repository can be recognised).
const READ_ENVIRONMENT: [(&str, &str); 4] = [
    ("GIT_ATTR_SOURCE", EMPTY_TREE),
    ("GIT_OPTIONAL_LOCKS", "0"),
    ("LC_ALL", "C"),
    ("LANGUAGE", "C"),
];

/// `env NAME=value…` with [`ENVIRONMENT`]: the start of a planned command's argv.
pub(crate) fn environment_argv() -> Vec<String> {
    std::iter::once("env".to_string())
        .chain(
            ENVIRONMENT
                .iter()
                .map(|(name, value)| format!("{name}={value}")),
        )
        .collect()
}

/// The argv of `git ARGS` run as a planned command (the commit): through `env` so that it
/// gets [`ENVIRONMENT`], with [`HARDENING`] before `ARGS`.
pub(crate) fn hardened_argv(args: &[&str]) -> Vec<String> {
    let mut argv = environment_argv();
    argv.push("git".to_string());
    argv.extend(HARDENING.iter().chain(args).map(|part| part.to_string()));
    argv
}

/// Whether `argv` is hone's own hardened git ([`hardened_argv`]): such a command writes
/// `.git` (which the sandbox keeps read-only for commands) and runs hooks, filters and
/// configured programs of no one, so hone runs it outside the sandbox.
pub(crate) fn is_hardened_argv(argv: &[String]) -> bool {
    let prefix = hardened_argv(&[]);
    argv.len() > prefix.len() && argv.starts_with(&prefix)
}

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
        .args(HARDENING)
        .args(args)
        .current_dir(root)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_EXTERNAL_DIFF")
        .env_remove("GIT_CONFIG_PARAMETERS")
        .envs(ENVIRONMENT)
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
