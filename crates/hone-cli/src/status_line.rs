//! The live status line of `hone exec` on a terminal: one spinner line on stderr (indicatif)
//! drawing the runtime's [`LiveLine`] (what the agent does now, with the code index's
//! progress in front while it is built) and for how long. Anything else printed on stderr
//! goes through [`suspend`], which takes the line away first, so output never mixes with
//! it. Off unless [`enable`] was called (stderr a terminal, no `--quiet`, no `--json`).

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use hone_api::Event;
use hone_runtime::report::live::LiveLine;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// What the line shows, and the bar that draws it while it is shown.
struct Line {
    live: LiveLine,
    bar: Option<ProgressBar>,
}

static LINE: Mutex<Option<Line>> = Mutex::new(None);

fn line() -> MutexGuard<'static, Option<Line>> {
    LINE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Turns the status line on for this process.
pub(crate) fn enable() {
    *line() = Some(Line {
        live: LiveLine::default(),
        bar: None,
    });
}

/// Whether the status line is on.
pub(crate) fn enabled() -> bool {
    line().is_some()
}

/// Follows a session event (`answer_open`: the answer's text is on the current line).
pub(crate) fn observe(event: &Event, answer_open: bool) {
    if let Some(line) = line().as_mut() {
        let restart = line.live.observe(event, answer_open);
        line.redraw(restart);
    }
}

/// Sets the code index's part of the line (`None` once it is ready or skipped).
pub(crate) fn set_index(progress: Option<String>) {
    if let Some(line) = line().as_mut()
        && line.live.set_index(progress)
    {
        line.redraw(false);
    }
}

/// Takes the line off the terminal until the next event is observed.
pub(crate) fn hide() {
    if let Some(line) = line().as_mut()
        && line.live.set_visible(false)
    {
        line.redraw(false);
    }
}

/// Runs `print` with the line taken off the terminal, then draws it again.
pub(crate) fn suspend<R>(print: impl FnOnce() -> R) -> R {
    let bar = line().as_ref().and_then(|line| line.bar.clone());
    match bar {
        Some(bar) => bar.suspend(print),
        None => print(),
    }
}

/// Takes the line off the terminal for good (the run is over).
pub(crate) fn finish() {
    if let Some(line) = line().take()
        && let Some(bar) = line.bar
    {
        bar.finish_and_clear();
    }
}

impl Line {
    /// Draws the line as it is now; `restart` starts the shown clock again.
    fn redraw(&mut self, restart: bool) {
        let Some(text) = self.live.text() else {
            if let Some(bar) = self.bar.take() {
                bar.finish_and_clear();
            }
            return;
        };
        match &self.bar {
            Some(bar) => {
                if restart {
                    bar.reset_elapsed();
                }
                bar.set_message(text);
            }
            None => {
                let style = ProgressStyle::with_template("{spinner} {wide_msg} {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner());
                let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
                    .with_style(style)
                    .with_elapsed(self.live.elapsed())
                    .with_message(text);
                bar.enable_steady_tick(Duration::from_millis(120));
                self.bar = Some(bar);
            }
        }
    }
}
