//! The live status line of `hone exec` on a terminal: one spinner line on stderr (indicatif)
//! saying what the agent does now (`thinking`, `running cargo test`, `retrying in 4 s after
//! 429`, `compacting…`, with the code index's progress in front while it is built) and for
//! how long. Anything else printed on stderr goes through [`suspend`], which takes the line
//! away first, so output never mixes with it. Off unless [`enable`] was called (stderr a
//! terminal, no `--quiet`, no `--json`).

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// What the line shows, and the bar that draws it while it is shown.
struct Line {
    /// What the agent does, since when.
    state: Option<(String, Instant)>,
    /// The code index's progress while it is being built (`indexing 40%`).
    index: Option<String>,
    /// Whether the line may be drawn now (not while the answer's text is being printed).
    visible: bool,
    bar: Option<ProgressBar>,
}

static LINE: Mutex<Option<Line>> = Mutex::new(None);

fn line() -> MutexGuard<'static, Option<Line>> {
    LINE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Turns the status line on for this process.
pub(crate) fn enable() {
    *line() = Some(Line {
        state: None,
        index: None,
        visible: true,
        bar: None,
    });
}

/// Whether the status line is on.
pub(crate) fn enabled() -> bool {
    line().is_some()
}

/// Shows `what` with its own clock (kept when the same state is set again); `None` shows
/// nothing but the index's progress.
pub(crate) fn set_state(what: Option<&str>) {
    let mut guard = line();
    let Some(line) = guard.as_mut() else {
        return;
    };
    let same = line.state.as_ref().map(|(shown, _)| shown.as_str()) == what;
    if !same {
        line.state = what.map(|what| (what.to_string(), Instant::now()));
    }
    line.redraw(!same);
}

/// Sets the code index's part of the line (`None` once it is ready or skipped).
pub(crate) fn set_index(progress: Option<String>) {
    let mut guard = line();
    let Some(line) = guard.as_mut() else {
        return;
    };
    if line.index != progress {
        line.index = progress;
        line.redraw(false);
    }
}

/// Whether the line may be drawn: not while the answer's text is on the terminal's
/// current line.
pub(crate) fn set_visible(visible: bool) {
    let mut guard = line();
    let Some(line) = guard.as_mut() else {
        return;
    };
    if line.visible != visible {
        line.visible = visible;
        line.redraw(false);
    }
}

/// Runs `print` with the line taken off the terminal, then draws it again.
pub(crate) fn suspend<R>(print: impl FnOnce() -> R) -> R {
    let guard = line();
    match guard.as_ref().and_then(|line| line.bar.clone()) {
        Some(bar) => {
            drop(guard);
            bar.suspend(print)
        }
        None => {
            drop(guard);
            print()
        }
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
    /// The text after the spinner, `None` when there is nothing to show.
    fn text(&self) -> Option<String> {
        match (&self.index, &self.state) {
            (Some(index), Some((what, _))) => Some(format!("{index} · {what}")),
            (Some(index), None) => Some(index.clone()),
            (None, Some((what, _))) => Some(what.clone()),
            (None, None) => None,
        }
    }

    /// Draws the line as it is now; `restart` starts the shown clock again.
    fn redraw(&mut self, restart: bool) {
        let text = self.text().filter(|_| self.visible);
        let Some(text) = text else {
            if let Some(bar) = self.bar.take() {
                bar.finish_and_clear();
            }
            return;
        };
        let since = self
            .state
            .as_ref()
            .map_or(Duration::ZERO, |(_, since)| since.elapsed());
        match &self.bar {
            Some(bar) => {
                if restart {
                    bar.reset_elapsed();
                }
                bar.set_message(text);
            }
            None => {
                let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
                    .with_style(style())
                    .with_elapsed(since)
                    .with_message(text);
                bar.enable_steady_tick(Duration::from_millis(120));
                self.bar = Some(bar);
            }
        }
    }
}

fn style() -> ProgressStyle {
    ProgressStyle::with_template("{spinner} {wide_msg} {elapsed}")
        .unwrap_or_else(|_| ProgressStyle::default_spinner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_progress_comes_before_the_state() {
        let mut line = Line {
            state: Some(("thinking".into(), Instant::now())),
            index: Some("indexing 40%".into()),
            visible: true,
            bar: None,
        };
        assert_eq!(line.text().as_deref(), Some("indexing 40% · thinking"));
        line.index = None;
        assert_eq!(line.text().as_deref(), Some("thinking"));
        line.state = None;
        assert_eq!(line.text(), None);
    }
}
