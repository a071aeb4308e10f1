//! Background jobs: long-running commands (dev servers, watchers) started with
//! `run_background`, read with `check_background`, ended with `stop_background`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::buffer::TailBuffer;
use super::execute::{Exit, seconds};
use super::launch::{Launcher, Tracker};
use super::process::{Ending, ProcessGroup, drive, spawn};
use super::truncate_output;
use crate::{CommandPlan, ToolError, ToolErrorKind};

/// Output kept per job (stdout and stderr interleaved); older output is dropped.
const JOB_OUTPUT_BYTES: usize = 1024 * 1024;

/// Commands started with `run_background`. Dropping this kills every job's process group.
#[derive(Debug, Default)]
pub struct BackgroundJobs {
    table: Mutex<JobTable>,
}

#[derive(Debug, Default)]
struct JobTable {
    last_id: u64,
    jobs: BTreeMap<u64, Job>,
}

#[derive(Debug)]
struct Job {
    command: String,
    started: Instant,
    shared: Arc<Mutex<JobShared>>,
    group: Arc<ProcessGroup>,
    cancel: CancellationToken,
    /// How many output bytes the model has already been shown.
    seen: u64,
    /// Set when `stop_background` killed the job: how long it had run.
    stopped_after: Option<Duration>,
}

/// What the job's driver task writes and the tools read.
#[derive(Debug)]
struct JobShared {
    output: TailBuffer,
    /// How the job ended (e.g. `exited with code 0 after 3.2s`), once it has.
    ended: Option<String>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl BackgroundJobs {
    /// Starts `plan` in `root` as `launcher` says, as a new job, and returns its id. Needs
    /// a Tokio runtime.
    pub(crate) fn start(
        &self,
        launcher: &Launcher,
        root: &Path,
        plan: &CommandPlan,
    ) -> Result<u64, ToolError> {
        // Jobs write straight to the project: a copy-on-write view would hide what a
        // watcher or server writes from everything else until it ends.
        let (child, group) = spawn(launcher, root, &plan.invocation, &Tracker::Off)?;
        let group = Arc::new(group);
        let shared = Arc::new(Mutex::new(JobShared {
            output: TailBuffer::new(JOB_OUTPUT_BYTES),
            ended: None,
        }));
        let cancel = CancellationToken::new();
        let started = Instant::now();
        tokio::spawn({
            let group = Arc::clone(&group);
            let shared = Arc::clone(&shared);
            let cancel = cancel.clone();
            async move {
                let outcome = drive(child, &group, None, &cancel, &mut |_, data| {
                    lock(&shared).output.push(data);
                })
                .await;
                let how = match outcome.ending {
                    Ending::Exited(status) => match Exit::of(&status) {
                        Exit::Code(code) => format!("exited with code {code}"),
                        Exit::Signal(signal) => format!("killed by signal {signal}"),
                        Exit::Unknown => "ended".to_string(),
                    },
                    Ending::TimedOut | Ending::Cancelled => "killed".to_string(),
                    Ending::WaitFailed(error) => format!("lost (waiting failed: {error})"),
                };
                lock(&shared).ended = Some(format!("{how} after {}", seconds(started.elapsed())));
            }
        });
        let mut table = lock(&self.table);
        table.last_id += 1;
        let id = table.last_id;
        table.jobs.insert(
            id,
            Job {
                command: plan.display.clone(),
                started,
                shared,
                group,
                cancel,
                seen: 0,
                stopped_after: None,
            },
        );
        Ok(id)
    }

    /// The job's status and the output the model has not seen yet.
    pub(crate) fn check(&self, id: u64) -> Result<String, ToolError> {
        let mut table = lock(&self.table);
        let known = table.describe();
        let job = table
            .jobs
            .get_mut(&id)
            .ok_or_else(|| unknown_job(id, &known))?;
        let running = lock(&job.shared).ended.is_none() && job.stopped_after.is_none();
        let mut text = format!("job {id} `{}`: {}\n", job.command, job.status());
        text.push_str(&job.take_new_output("new output"));
        if running {
            let _ = writeln!(
                text,
                "Check again later with check_background {{\"id\": {id}}}, or end it with \
                 stop_background {{\"id\": {id}}}."
            );
        }
        Ok(text)
    }

    /// Kills the job's process group and returns the output the model has not seen yet.
    pub(crate) fn stop(&self, id: u64) -> Result<String, ToolError> {
        let mut table = lock(&self.table);
        let known = table.describe();
        let job = table
            .jobs
            .get_mut(&id)
            .ok_or_else(|| unknown_job(id, &known))?;
        let already = lock(&job.shared).ended.clone();
        let mut text = match (already, job.stopped_after) {
            (Some(ended), _) => format!("job {id} `{}` had already {ended}\n", job.command),
            (None, Some(after)) => format!(
                "job {id} `{}` was already stopped after {}\n",
                job.command,
                seconds(after)
            ),
            (None, None) => {
                job.group.kill();
                job.cancel.cancel();
                let after = job.started.elapsed();
                job.stopped_after = Some(after);
                format!(
                    "stopped background job {id} `{}` after {}\n",
                    job.command,
                    seconds(after)
                )
            }
        };
        text.push_str(&job.take_new_output("final output since the last check"));
        Ok(text)
    }
}

impl Drop for BackgroundJobs {
    fn drop(&mut self) {
        for job in lock(&self.table).jobs.values() {
            job.cancel.cancel();
            job.group.kill();
        }
    }
}

impl JobTable {
    /// `1 (`npm run dev`), 2 (`cargo watch`)`, or `None` when there are no jobs.
    fn describe(&self) -> Option<String> {
        let list: Vec<String> = self
            .jobs
            .iter()
            .map(|(id, job)| format!("{id} (`{}`)", job.command))
            .collect();
        (!list.is_empty()).then(|| list.join(", "))
    }
}

impl Job {
    fn status(&self) -> String {
        if let Some(after) = self.stopped_after {
            return format!("stopped with stop_background after {}", seconds(after));
        }
        match &lock(&self.shared).ended {
            Some(ended) => ended.clone(),
            None => format!("running for {}s", self.started.elapsed().as_secs()),
        }
    }

    /// The output written since the last call, truncated by the usual tiers.
    fn take_new_output(&mut self, title: &str) -> String {
        let shared = lock(&self.shared);
        let (new, dropped) = shared.output.since(self.seen);
        self.seen = shared.output.total();
        let mut text = String::new();
        if dropped > 0 {
            let _ = writeln!(
                text,
                "[{dropped} bytes of output were dropped before this check; only the last 1 MB \
                 is kept]"
            );
        }
        if new.is_empty() {
            text.push_str("no new output since the last check\n");
        } else {
            let _ = writeln!(text, "--- {title} ---");
            text.push_str(&truncate_output(&new));
            if !text.ends_with('\n') {
                text.push('\n');
            }
        }
        text
    }
}

fn unknown_job(id: u64, known: &Option<String>) -> ToolError {
    let message = match known {
        Some(list) => format!(
            "there is no background job {id}; the jobs of this session are {list}. Use one of \
             these ids."
        ),
        None => format!(
            "there is no background job {id}: no background jobs were started in this session. \
             Start one with run_background."
        ),
    };
    ToolError::new(ToolErrorKind::InvalidArguments, message)
}
