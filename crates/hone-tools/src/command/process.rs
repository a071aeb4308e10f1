//! Starting a command in its own process group and driving it to the end: reading both
//! streams, enforcing the deadline, honouring cancellation, and killing the whole tree.

use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Child;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::launch::{Launcher, Tracker};
use crate::{Invocation, ToolError, ToolErrorKind};

/// How long output is still read after the command ended or was killed; processes that
/// escaped the process group may keep the pipes open forever.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// Environment that keeps commands from waiting on a pager or a credential prompt.
const QUIET_ENVIRONMENT: [(&str, &str); 3] = [
    ("GIT_PAGER", "cat"),
    ("PAGER", "cat"),
    ("GIT_TERMINAL_PROMPT", "0"),
];

/// Which output stream a chunk came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// Why a command stopped.
#[derive(Debug)]
pub(crate) enum Ending {
    /// It exited on its own (or was killed by someone else).
    Exited(ExitStatus),
    /// It ran past its deadline and was killed.
    TimedOut,
    /// It was cancelled and killed.
    Cancelled,
    /// Waiting for it failed.
    WaitFailed(String),
}

/// How a driven command ended.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// Why it stopped.
    pub(crate) ending: Ending,
    /// Processes it left running in its group were killed after it exited.
    pub(crate) killed_leftovers: bool,
    /// Reading stopped while a pipe was still open (held by a process outside the group).
    pub(crate) output_abandoned: bool,
}

/// A started command's process group: killing it kills every process the command started
/// (unless one moved to a group of its own). Dropping it kills the group.
#[derive(Debug)]
pub(crate) struct ProcessGroup {
    id: Option<u32>,
    /// Set once the leader was reaped and the group cleaned up; the id may then be reused
    /// by an unrelated process, so it is never signalled again.
    finished: AtomicBool,
}

impl ProcessGroup {
    fn of(child: &Child) -> Self {
        Self {
            id: child.id(),
            finished: AtomicBool::new(false),
        }
    }

    /// Kills every process in the group; true when there was one to kill.
    pub(crate) fn kill(&self) -> bool {
        !self.finished.load(Ordering::SeqCst) && self.id.is_some_and(kill_group)
    }

    /// Called once the leader was reaped: kills what it left behind (true when there was
    /// something) and retires the id.
    pub(crate) fn finish(&self) -> bool {
        !self.finished.swap(true, Ordering::SeqCst) && self.id.is_some_and(kill_group)
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(unix)]
fn kill_group(id: u32) -> bool {
    use rustix::process::{Pid, Signal, kill_process_group};
    i32::try_from(id)
        .ok()
        .and_then(Pid::from_raw)
        .is_some_and(|pid| kill_process_group(pid, Signal::KILL).is_ok())
}

#[cfg(not(unix))]
fn kill_group(_id: u32) -> bool {
    // Without process groups only the direct child is killed (by `kill_on_drop`).
    false
}

/// Starts `invocation` in `root` as `launcher` says (sandbox, environment) with stdin
/// closed and both streams piped, as the leader of a new process group. Through the
/// sandbox helper the group leader is the helper, which `exec`s the command: the process id
/// and group stay the same.
pub(crate) fn spawn(
    launcher: &Launcher,
    root: &Path,
    invocation: &Invocation,
    tracker: &Tracker,
) -> Result<(Child, ProcessGroup), ToolError> {
    spawn_with_stdin(launcher, root, invocation, tracker, Stdio::null())
}

/// [`spawn`] with `stdin` as the command's standard input (a pipe for hooks, which read
/// their event there).
pub(crate) fn spawn_with_stdin(
    launcher: &Launcher,
    root: &Path,
    invocation: &Invocation,
    tracker: &Tracker,
    stdin: Stdio,
) -> Result<(Child, ProcessGroup), ToolError> {
    let mut command = launcher.command(root, invocation, tracker)?;
    command
        .envs(QUIET_ENVIRONMENT)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    let child = command.spawn().map_err(|error| {
        let program = match invocation {
            Invocation::Shell(_) => "sh",
            Invocation::Argv(argv) => argv.first().map_or("", String::as_str),
        };
        ToolError::new(
            ToolErrorKind::Command,
            format!("could not start `{program}`: {error}; check that it is installed and on PATH"),
        )
    })?;
    let group = ProcessGroup::of(&child);
    Ok((child, group))
}

/// Reads both streams of `child` into `sink` until it ends, is killed at `deadline`, or
/// `cancel` fires; kills anything left in `group` once the leader exits.
pub(crate) async fn drive(
    mut child: Child,
    group: &ProcessGroup,
    deadline: Option<Instant>,
    cancel: &CancellationToken,
    sink: &mut (dyn FnMut(Stream, &[u8]) + Send),
) -> Outcome {
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let mut stdout_chunk = vec![0u8; 8192];
    let mut stderr_chunk = vec![0u8; 8192];
    let mut ending: Option<Ending> = None;
    let mut reaped = false;
    let mut killed_leftovers = false;
    let mut drain_until: Option<Instant> = None;
    loop {
        if reaped && stdout.is_none() && stderr.is_none() {
            break;
        }
        let alarm = if ending.is_none() {
            deadline
        } else {
            drain_until
        };
        tokio::select! {
            read = read_some(&mut stdout, &mut stdout_chunk) => match read {
                Some(count) => sink(Stream::Stdout, &stdout_chunk[..count]),
                None => stdout = None,
            },
            read = read_some(&mut stderr, &mut stderr_chunk) => match read {
                Some(count) => sink(Stream::Stderr, &stderr_chunk[..count]),
                None => stderr = None,
            },
            status = child.wait(), if !reaped => {
                reaped = true;
                let found_leftovers = group.finish();
                if ending.is_none() {
                    killed_leftovers = found_leftovers;
                    ending = Some(match status {
                        Ok(status) => Ending::Exited(status),
                        Err(error) => Ending::WaitFailed(error.to_string()),
                    });
                    drain_until = Some(Instant::now() + DRAIN_GRACE);
                }
            },
            () = cancel.cancelled(), if ending.is_none() => {
                kill(&mut child, group);
                ending = Some(Ending::Cancelled);
                drain_until = Some(Instant::now() + DRAIN_GRACE);
            },
            () = sleep_until(alarm) => {
                if let Some(ending) = ending.take() {
                    return Outcome {
                        ending,
                        killed_leftovers,
                        output_abandoned: stdout.is_some() || stderr.is_some(),
                    };
                }
                kill(&mut child, group);
                ending = Some(Ending::TimedOut);
                drain_until = Some(Instant::now() + DRAIN_GRACE);
            },
        }
    }
    Outcome {
        // Reaping always records an ending, so the fallback is never used.
        ending: ending.unwrap_or_else(|| Ending::WaitFailed("no exit status".to_string())),
        killed_leftovers,
        output_abandoned: false,
    }
}

fn kill(child: &mut Child, group: &ProcessGroup) {
    group.kill();
    // The group kill already covers the leader on unix; elsewhere this is the only kill.
    let _ = child.start_kill();
}

/// The next chunk of `stream`: `Some(count)` with data, `None` at the end or on an error;
/// never ready when the stream is already closed.
async fn read_some<R: AsyncRead + Unpin>(
    stream: &mut Option<R>,
    chunk: &mut [u8],
) -> Option<usize> {
    match stream {
        Some(reader) => match reader.read(chunk).await {
            Ok(0) | Err(_) => None,
            Ok(count) => Some(count),
        },
        None => std::future::pending().await,
    }
}

async fn sleep_until(alarm: Option<Instant>) {
    match alarm {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_finished_group_is_never_signalled_again() {
        let root = std::env::temp_dir();
        let (mut child, group) = spawn(
            &Launcher::default(),
            &root,
            &Invocation::Shell("exit 0".to_string()),
            &Tracker::Off,
        )
        .unwrap();
        child.wait().await.unwrap();
        assert!(!group.finish(), "nothing was left behind");
        assert!(!group.kill(), "a retired id must not be signalled");
    }

    #[tokio::test]
    async fn output_is_read_from_both_streams() {
        let root = std::env::temp_dir();
        let invocation = Invocation::Shell("echo out; echo err >&2".to_string());
        let (child, group) =
            spawn(&Launcher::default(), &root, &invocation, &Tracker::Off).unwrap();
        let mut seen = Vec::new();
        let outcome = drive(
            child,
            &group,
            None,
            &CancellationToken::new(),
            &mut |stream, data| seen.push((stream, data.to_vec())),
        )
        .await;
        assert!(matches!(outcome.ending, Ending::Exited(status) if status.success()));
        assert!(seen.contains(&(Stream::Stdout, b"out\n".to_vec())));
        assert!(seen.contains(&(Stream::Stderr, b"err\n".to_vec())));
    }
}
