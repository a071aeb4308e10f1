//! Running an approved [`CommandPlan`] and reporting the result to the model.

use std::path::Path;
use std::process::ExitStatus;
use std::time::Duration;

use hone_protocol::ToolEffect;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::buffer::Capture;
use super::changes::{ChangesState, CommandChanges};
use super::launch::{Launcher, Tracker};
use super::process::{Ending, Outcome, Stream, drive, spawn};
use super::truncate_output;
use crate::{CommandPlan, ToolContext, ToolOutput};

/// Runs an approved command plan in the project root, and applies the file changes it
/// made on a copy-on-write view (without an undo journal: callers that keep one use
/// [`execute_full`] and apply [`FullOutput::changes`] themselves).
///
/// Foreground commands run to completion, their timeout, or `cancel`, whichever comes
/// first; on timeout or cancellation their whole process tree is killed. Background plans
/// start a job in [`ToolContext::jobs`] and return its id at once.
pub async fn execute(
    context: &ToolContext,
    plan: &CommandPlan,
    cancel: &CancellationToken,
) -> ToolOutput {
    let full = execute_full(context, plan, cancel).await;
    let mut output = full.output;
    if let Some(changes) = full.changes {
        let outcome = match changes.state {
            ChangesState::Written => "made".to_string(),
            ChangesState::Pending => match crate::edit::apply(context, &changes.plan) {
                Ok(_) => {
                    let failed = changes.apply_direct(context);
                    if failed.is_empty() {
                        "applied".to_string()
                    } else {
                        format!("applied, except {}", failed.join("; "))
                    }
                }
                Err(error) => format!("not applied: {}", error.message),
            },
        };
        output.content.push_str(&changes.report(&outcome));
    }
    output
}

/// A command's result with its output as printed, before [`truncate_output`] shortened
/// it for the model (each stream still bounded to its first and last megabytes).
#[derive(Debug)]
pub struct FullOutput {
    /// The result as [`execute`] reports it.
    pub output: ToolOutput,
    /// Standard output (empty for a background job).
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// What the command changed in the project, when its changes are tracked and there
    /// are any: on its copy-on-write view (to apply) or already on disk (to record).
    pub changes: Option<CommandChanges>,
}

/// [`execute`], keeping the whole output: for callers that read it themselves (hone's
/// checks find the failing tests in it).
pub async fn execute_full(
    context: &ToolContext,
    plan: &CommandPlan,
    cancel: &CancellationToken,
) -> FullOutput {
    if plan.background {
        let output = match context
            .jobs()
            .start(context.launcher(), context.root(), plan)
        {
            Ok(id) => ToolOutput::ok(format!(
                "started background job {id}: {}\nSee its output with check_background {{\"id\": {id}}}; \
                 stop it with stop_background {{\"id\": {id}}}.",
                plan.display
            )),
            Err(error) => ToolOutput::error(error.message),
        };
        return FullOutput {
            output,
            stdout: String::new(),
            stderr: String::new(),
            changes: None,
        };
    }
    let tracker = match blocking(|| context.launcher().track(context, &plan.invocation)) {
        Ok(tracker) => tracker,
        Err(error) => {
            return FullOutput {
                output: ToolOutput::error(error.message),
                stdout: String::new(),
                stderr: String::new(),
                changes: None,
            };
        }
    };
    let (mut full, ran) =
        run_foreground(context.launcher(), context.root(), plan, cancel, &tracker).await;
    if ran == Ran::NotStarted {
        return full;
    }
    if ran == Ran::Ended || !tracker.is_overlay() {
        full.changes = blocking(|| tracker.finish(context, &plan.display))
            .filter(|changes| !changes.is_empty());
    } else {
        // Killed before it ended: what it wrote on its view is dropped with the view.
        full.output
            .content
            .push_str("[the command did not finish: its file changes were discarded]\n");
    }
    if full.output.is_error
        && let Some(note) = context
            .launcher()
            .denial_note(context.root(), &full.output.content)
    {
        full.output.content.push_str(&note);
        full.output.content.push('\n');
    }
    full
}

/// Runs blocking file work (a snapshot, reading a view) off the async worker where the
/// runtime has others.
fn blocking<T>(work: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(work)
        }
        _ => work(),
    }
}

/// How a foreground command went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ran {
    /// It could not be started.
    NotStarted,
    /// It ended by itself.
    Ended,
    /// A timeout or a cancellation killed it (or waiting for it failed).
    Killed,
}

/// Runs the command; also says how it went.
async fn run_foreground(
    launcher: &Launcher,
    root: &Path,
    plan: &CommandPlan,
    cancel: &CancellationToken,
    tracker: &Tracker,
) -> (FullOutput, Ran) {
    let started = Instant::now();
    let (child, group) = match spawn(launcher, root, &plan.invocation, tracker) {
        Ok(spawned) => spawned,
        Err(error) => {
            let output = FullOutput {
                output: ToolOutput::error(error.message),
                stdout: String::new(),
                stderr: String::new(),
                changes: None,
            };
            return (output, Ran::NotStarted);
        }
    };
    let mut stdout = Capture::default();
    let mut stderr = Capture::default();
    let outcome = drive(
        child,
        &group,
        Some(started + plan.timeout),
        cancel,
        &mut |stream, data| match stream {
            Stream::Stdout => stdout.push(data),
            Stream::Stderr => stderr.push(data),
        },
    )
    .await;
    let (stdout, stderr) = (stdout.text(), stderr.text());
    let ran = if matches!(outcome.ending, Ending::Exited(_)) {
        Ran::Ended
    } else {
        Ran::Killed
    };
    let output = FullOutput {
        output: report(&outcome, plan.timeout, started.elapsed(), &stdout, &stderr),
        stdout,
        stderr,
        changes: None,
    };
    (output, ran)
}

/// How a process ended, from its exit status.
pub(crate) enum Exit {
    /// It exited with this code.
    Code(i32),
    /// A signal killed it.
    Signal(i32),
    /// Neither is known.
    Unknown,
}

impl Exit {
    /// Reads `status`.
    pub(crate) fn of(status: &ExitStatus) -> Self {
        if let Some(code) = status.code() {
            return Self::Code(code);
        }
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            if let Some(signal) = status.signal() {
                return Self::Signal(signal);
            }
        }
        Self::Unknown
    }
}

/// `1.2s`.
pub(crate) fn seconds(duration: Duration) -> String {
    format!("{:.1}s", duration.as_secs_f64())
}

fn report(
    outcome: &Outcome,
    timeout: Duration,
    elapsed: Duration,
    stdout: &str,
    stderr: &str,
) -> ToolOutput {
    let exit_code = match &outcome.ending {
        Ending::Exited(status) => match Exit::of(status) {
            Exit::Code(code) => Some(code),
            Exit::Signal(_) | Exit::Unknown => None,
        },
        Ending::TimedOut | Ending::Cancelled | Ending::WaitFailed(_) => None,
    };
    let (status, ending_note, is_error) = match &outcome.ending {
        Ending::Exited(status) => match Exit::of(status) {
            Exit::Code(0) => ("exit code 0".to_string(), None, false),
            Exit::Code(code) => (
                format!("exit code {code}"),
                Some(format!(
                    "The command failed with exit code {code}. Read the errors above, fix the \
                     cause, then run it again."
                )),
                true,
            ),
            Exit::Signal(signal) => (
                format!("killed by signal {signal}"),
                Some(format!(
                    "The command was killed by signal {signal} (it may have crashed or run out \
                     of memory)."
                )),
                true,
            ),
            Exit::Unknown => (
                "exit status unknown".to_string(),
                Some("The command ended without an exit code.".to_string()),
                true,
            ),
        },
        Ending::TimedOut => (
            "timed out".to_string(),
            Some(format!(
                "[timed out after {} s; killed]\nIf it needs longer, pass a larger timeout_secs \
                 (at most 1800) or start it with run_background.",
                timeout.as_secs()
            )),
            true,
        ),
        Ending::Cancelled => (
            "cancelled".to_string(),
            Some("[cancelled]".to_string()),
            true,
        ),
        Ending::WaitFailed(error) => (
            "exit status unknown".to_string(),
            Some(format!("Waiting for the command failed: {error}.")),
            true,
        ),
    };
    let mut text = format!("{status} · {}\n", seconds(elapsed));
    push_stream(&mut text, "stdout", stdout);
    push_stream(&mut text, "stderr", stderr);
    if stdout.is_empty() && stderr.is_empty() {
        text.push_str("(no output)\n");
    }
    if outcome.killed_leftovers {
        text.push_str(
            "[processes the command left running were killed; start long-running processes \
             with run_background]\n",
        );
    }
    if outcome.output_abandoned {
        text.push_str(
            "[stopped reading output still held open by a process outside the command's \
             process group]\n",
        );
    }
    if let Some(note) = ending_note {
        text.push_str(&note);
        text.push('\n');
    }
    ToolOutput {
        content: text,
        is_error,
        effect: ToolEffect::default(),
        exit_code,
    }
}

fn push_stream(text: &mut String, name: &str, output: &str) {
    if output.is_empty() {
        return;
    }
    text.push_str(&format!("--- {name} ---\n"));
    text.push_str(&truncate_output(output));
    if !text.ends_with('\n') {
        text.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exited(code: i32) -> Outcome {
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("exit {code}"))
            .status()
            .unwrap();
        Outcome {
            ending: Ending::Exited(status),
            killed_leftovers: false,
            output_abandoned: false,
        }
    }

    #[test]
    fn success_shows_header_and_both_sections() {
        let output = report(
            &exited(0),
            Duration::from_secs(120),
            Duration::from_millis(1234),
            "out\n",
            "err",
        );
        assert!(!output.is_error);
        assert_eq!(
            output.content,
            "exit code 0 · 1.2s\n--- stdout ---\nout\n--- stderr ---\nerr\n"
        );
    }

    #[test]
    fn a_failure_is_an_error_with_a_hint() {
        let output = report(&exited(3), Duration::from_secs(120), Duration::ZERO, "", "");
        assert!(output.is_error);
        assert!(
            output
                .content
                .starts_with("exit code 3 · 0.0s\n(no output)\n")
        );
        assert!(output.content.contains("fix the cause"));
    }

    #[test]
    fn a_timeout_names_the_limit_and_the_way_out() {
        let outcome = Outcome {
            ending: Ending::TimedOut,
            killed_leftovers: false,
            output_abandoned: false,
        };
        let output = report(
            &outcome,
            Duration::from_secs(5),
            Duration::from_secs(5),
            "partial\n",
            "",
        );
        assert!(output.is_error);
        assert!(
            output
                .content
                .contains("partial\n[timed out after 5 s; killed]\n")
        );
        assert!(output.content.contains("run_background"));
    }
}
