//! Running a shell command that reads its input on stdin (hooks): the same launcher as the
//! model's commands (sandbox, secrets removed from the environment, own process group), a
//! deadline, and the exit code and both streams kept apart for the caller to read.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::buffer::Capture;
use super::execute::Exit;
use super::launch::Tracker;
use super::process::{Ending, Stream, drive, spawn_with_stdin};
use crate::{Invocation, ToolContext};

/// How a command run by [`run_with_input`] ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunEnding {
    /// It exited with this code (`None`: killed by a signal).
    Exited(Option<i32>),
    /// It ran past its timeout and was killed.
    TimedOut,
    /// The caller cancelled it.
    Cancelled,
    /// It could not be started, for this reason.
    NotStarted(String),
}

/// A command's ending and output.
#[derive(Debug, Clone)]
pub struct InputRun {
    /// How it ended.
    pub ending: RunEnding,
    /// Its standard output.
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
}

/// Runs `command` with `sh -c` in the project root of `context`, as the model's commands
/// run (under the sandbox when the session has one), with `input` on its standard input,
/// until it exits, `timeout` passes or `cancel` fires. Its file changes are not tracked:
/// they are the user's own command's.
pub async fn run_with_input(
    context: &ToolContext,
    command: &str,
    input: &[u8],
    timeout: Duration,
    cancel: &CancellationToken,
) -> InputRun {
    let invocation = Invocation::Shell(command.to_string());
    let spawned = spawn_with_stdin(
        context.launcher(),
        context.root(),
        &invocation,
        &Tracker::Off,
        Stdio::piped(),
    );
    let (mut child, group) = match spawned {
        Ok(spawned) => spawned,
        Err(error) => {
            return InputRun {
                ending: RunEnding::NotStarted(error.message),
                stdout: String::new(),
                stderr: String::new(),
            };
        }
    };
    if let Some(mut stdin) = child.stdin.take() {
        let input = input.to_vec();
        // A command that never reads its input must not block it: the write runs beside.
        tokio::spawn(async move {
            let _ = stdin.write_all(&input).await;
            let _ = stdin.shutdown().await;
        });
    }
    let mut stdout = Capture::default();
    let mut stderr = Capture::default();
    let outcome = drive(
        child,
        &group,
        Some(Instant::now() + timeout),
        cancel,
        &mut |stream, data| match stream {
            Stream::Stdout => stdout.push(data),
            Stream::Stderr => stderr.push(data),
        },
    )
    .await;
    let ending = match &outcome.ending {
        Ending::Exited(status) => match Exit::of(status) {
            Exit::Code(code) => RunEnding::Exited(Some(code)),
            Exit::Signal(_) | Exit::Unknown => RunEnding::Exited(None),
        },
        Ending::TimedOut => RunEnding::TimedOut,
        Ending::Cancelled => RunEnding::Cancelled,
        Ending::WaitFailed(reason) => RunEnding::NotStarted(reason.clone()),
    };
    InputRun {
        ending,
        stdout: stdout.text(),
        stderr: stderr.text(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn run(command: &str, input: &str, timeout: Duration) -> InputRun {
        let dir = tempfile::tempdir().unwrap();
        let context = ToolContext::new(dir.path()).unwrap();
        run_with_input(
            &context,
            command,
            input.as_bytes(),
            timeout,
            &CancellationToken::new(),
        )
        .await
    }

    #[tokio::test]
    async fn the_command_reads_its_input_and_reports_code_and_streams() {
        let run = run(
            "cat; echo oops >&2; exit 2",
            "{\"a\":1}",
            Duration::from_secs(30),
        )
        .await;
        assert_eq!(run.ending, RunEnding::Exited(Some(2)));
        assert_eq!(run.stdout, "{\"a\":1}");
        assert_eq!(run.stderr, "oops\n");
    }

    #[tokio::test]
    async fn a_command_past_its_timeout_is_killed() {
        let run = run("sleep 30", "", Duration::from_millis(200)).await;
        assert_eq!(run.ending, RunEnding::TimedOut);
    }
}
