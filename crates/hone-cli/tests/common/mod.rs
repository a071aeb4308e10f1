//! Helpers shared by the end-to-end tests of the `hone` binary: a clean environment under
//! the project's `.home`, running the binary off the async runtime, reading its output, and
//! committing a test project to git; [`pty`] runs it in a pseudo-terminal.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod pty;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// `hone` in `root` with nothing of the caller's environment but `PATH`: `HOME` is
/// `root/.home` (with its `.config`), stdin is empty.
pub fn command(root: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hone"));
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", root.join(".home"))
        .env("XDG_CONFIG_HOME", root.join(".home/.config"))
        .current_dir(root)
        .stdin(Stdio::null());
    command
}

/// Runs `command` with `env` and `args` added, on a blocking thread.
pub async fn run(mut command: Command, env: &[(&str, &str)], args: &[&str]) -> Output {
    command.args(args);
    for (name, value) in env {
        command.env(name, value);
    }
    tokio::task::spawn_blocking(move || command.output().expect("hone runs"))
        .await
        .unwrap()
}

/// Runs `hone ARGS` in `root` ([`command`]) with `env` added.
pub async fn hone(root: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    run(command(root), env, args).await
}

/// Like [`hone`], with the embedded models and the session store under `root/.home/data`
/// (`HONE_DATA_DIR`).
pub async fn hone_with_data_dir(root: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut command = command(root);
    command.env("HONE_DATA_DIR", root.join(".home/data"));
    run(command, env, args).await
}

/// What the run printed on stderr.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Every stdout line as JSON (a line that is not JSON fails the test).
pub fn events(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect()
}

/// The events of type `kind`.
pub fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|event| event["type"] == kind)
        .collect()
}

/// Makes `root` a git repository with everything in it committed.
pub fn commit_all(root: &Path) {
    for args in [
        vec!["init", "-q"],
        vec!["config", "user.email", "t@example.com"],
        vec!["config", "user.name", "T"],
        vec!["add", "-A"],
        vec!["commit", "-qm", "init"],
    ] {
        let status = Command::new("git")
            .args(&args)
            .current_dir(root)
            .status()
            .unwrap();
        assert!(status.success());
    }
}

/// `hone exec --provider lmstudio --base-url URL ARGS` in `root`: a run against a mock
/// OpenAI-compatible server.
pub async fn exec_on(root: &Path, url: &str, args: &[&str]) -> Output {
    let mut all = vec!["exec", "--provider", "lmstudio", "--base-url", url];
    all.extend_from_slice(args);
    hone(root, &[], &all).await
}
