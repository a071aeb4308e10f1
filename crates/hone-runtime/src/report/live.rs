//! What a line-oriented front end's live status line shows while a turn runs: what the
//! agent does now ([`super::events::live_state`]: `thinking`, `running cargo test`,
//! `retrying in 4 s after 429`, `compacting…`) since when, with the code index's progress in
//! front while it is built, and whether the line may be on the terminal at all (not while
//! the answer's text is being written, nor while the user is asked). The front end draws it.

use std::time::{Duration, Instant};

use hone_api::Event;

use super::events::live_state;

/// The state of the live status line.
#[derive(Debug, Clone)]
pub struct LiveLine {
    /// What the agent does, since when.
    state: Option<(String, Instant)>,
    /// The code index's progress while it is being built (`indexing 40%`).
    index: Option<String>,
    /// Whether the line may be drawn now.
    visible: bool,
    /// Whether the model is writing (its text is the sign of life meanwhile).
    writing: bool,
}

impl Default for LiveLine {
    fn default() -> Self {
        Self {
            state: None,
            index: None,
            visible: true,
            writing: false,
        }
    }
}

impl LiveLine {
    /// Follows `event` (`answer_open`: the answer's text is on the terminal's current line).
    /// Returns whether the state changed, so its clock starts again.
    pub fn observe(&mut self, event: &Event, answer_open: bool) -> bool {
        let state = live_state(event);
        self.writing = matches!(
            event,
            Event::MessageDelta { .. } | Event::ThinkingDelta { .. }
        ) || (self.writing && state.is_none());
        let restart = state.is_some_and(|what| self.set_state(what.as_deref()));
        let waits_for_user = matches!(
            event,
            Event::ApprovalNeeded { .. }
                | Event::EditConflict { .. }
                | Event::TurnCompleted { .. }
                | Event::TurnFailed { .. }
                | Event::TurnCancelled { .. }
        );
        self.visible = !answer_open && !self.writing && !waits_for_user;
        restart
    }

    /// Shows `what` with its own clock (kept when the same state is set again); `None` shows
    /// nothing but the index's progress. Returns whether the state changed.
    pub fn set_state(&mut self, what: Option<&str>) -> bool {
        let same = self.state.as_ref().map(|(shown, _)| shown.as_str()) == what;
        if !same {
            self.state = what.map(|what| (what.to_string(), Instant::now()));
        }
        !same
    }

    /// Sets the code index's part (`None` once it is ready or skipped); returns whether it
    /// changed.
    pub fn set_index(&mut self, progress: Option<String>) -> bool {
        let changed = self.index != progress;
        self.index = progress;
        changed
    }

    /// Lets the line be drawn or not; returns whether that changed.
    pub fn set_visible(&mut self, visible: bool) -> bool {
        let changed = self.visible != visible;
        self.visible = visible;
        changed
    }

    /// The text after the spinner, `None` when there is nothing to show or the line may
    /// not be drawn now.
    pub fn text(&self) -> Option<String> {
        if !self.visible {
            return None;
        }
        match (&self.index, &self.state) {
            (Some(index), Some((what, _))) => Some(format!("{index} · {what}")),
            (Some(index), None) => Some(index.clone()),
            (None, Some((what, _))) => Some(what.clone()),
            (None, None) => None,
        }
    }

    /// How long the current state has lasted.
    pub fn elapsed(&self) -> Duration {
        self.state
            .as_ref()
            .map_or(Duration::ZERO, |(_, since)| since.elapsed())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_progress_comes_before_the_state() {
        let mut line = LiveLine::default();
        assert!(line.set_state(Some("thinking")));
        assert!(!line.set_state(Some("thinking")));
        assert!(line.set_index(Some("indexing 40%".into())));
        assert_eq!(line.text().as_deref(), Some("indexing 40% · thinking"));
        line.set_index(None);
        assert_eq!(line.text().as_deref(), Some("thinking"));
        line.set_state(None);
        assert_eq!(line.text(), None);
    }

    #[test]
    fn the_line_keeps_away_while_the_model_writes_or_the_user_is_asked() {
        let mut line = LiveLine::default();
        assert!(line.observe(&Event::TurnStarted { turn: 1 }, false));
        assert_eq!(line.text().as_deref(), Some("thinking"));
        line.observe(&Event::MessageDelta { text: "Hi".into() }, true);
        assert_eq!(line.text(), None);
        // Still writing: an event without a state of its own keeps the line away.
        line.observe(&Event::MessageDelta { text: "\n".into() }, false);
        assert_eq!(line.text(), None);
        assert!(!line.observe(&Event::TurnStarted { turn: 2 }, false));
        assert_eq!(line.text().as_deref(), Some("thinking"));
        line.observe(
            &Event::TurnCancelled {
                stats: hone_api::TurnStats::default(),
            },
            false,
        );
        assert_eq!(line.text(), None);
    }
}
