//! What `hone exec --json` and `hone ask --json` print: `hone-api` event frames, one JSON
//! object per line on stdout, ending with one `result` event (`docs/protocol.md`).

use std::io::Write;
use std::time::Instant;

use hone_api::{Event, EventFrame, RunStatus, Usage};
use hone_protocol::HoneError;

/// The request id of a run's prompt (its `user.message`); the turn's events carry it.
pub(crate) const PROMPT_ID: &str = "prompt";

/// The request id of `hone exec --file`'s `files.track`.
pub(crate) const FILES_ID: &str = "files";

/// Prints one frame as a line on stdout.
pub(crate) fn print(frame: &EventFrame) {
    if let Ok(line) = serde_json::to_string(frame) {
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "{line}").and_then(|()| stdout.flush());
    }
}

/// What a run's `result` reports, gathered from its events.
#[derive(Debug)]
pub(crate) struct RunRecord {
    started: Instant,
    text: String,
    session_id: Option<String>,
    usage: Usage,
}

impl RunRecord {
    /// A run starting now.
    pub(crate) fn new() -> Self {
        Self {
            started: Instant::now(),
            text: String::new(),
            session_id: None,
            usage: Usage::default(),
        }
    }

    /// Notes what `event` tells about the run: the saved session, the last reply, the
    /// turn's usage.
    pub(crate) fn observe(&mut self, event: &Event) {
        match event {
            Event::SessionStarted { session_id, .. } => self.session_id.clone_from(session_id),
            Event::MessageCompleted { text } => self.text.clone_from(text),
            Event::TurnCompleted { stats, .. }
            | Event::TurnFailed { stats, .. }
            | Event::TurnCancelled { stats } => self.usage = stats.usage,
            _ => {}
        }
    }

    /// The `result` event of a run that ended with `status` and `exit_code`.
    pub(crate) fn result(
        &self,
        status: RunStatus,
        exit_code: u8,
        error: Option<&HoneError>,
    ) -> Event {
        Event::Result {
            status,
            exit_code,
            text: self.text.clone(),
            session_id: self.session_id.clone(),
            usage: self.usage,
            // hone knows no model prices yet.
            cost: None,
            duration_ms: u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX),
            error: error.cloned().map(hone_core::error_info),
        }
    }

    /// Prints an error that stopped the run (before its session started, or before its
    /// turn ended) and the run's `result`.
    pub(crate) fn print_failure(&self, error: &HoneError, exit_code: u8) {
        print(&EventFrame::new(
            None,
            Event::Error {
                error: hone_core::error_info(error.clone()),
            },
        ));
        print(&EventFrame::new(
            None,
            self.result(RunStatus::Failed, exit_code, Some(error)),
        ));
    }
}

#[cfg(test)]
mod tests {
    use hone_api::TurnStats;

    use super::*;

    #[test]
    fn the_result_reports_the_last_reply_the_session_and_the_turn_usage() {
        let mut record = RunRecord::new();
        record.observe(&Event::SessionStarted {
            provider: "p".into(),
            model: "m".into(),
            approval: "ask".into(),
            root: "/r".into(),
            session_id: Some("01J".into()),
            forked_from: None,
        });
        record.observe(&Event::MessageCompleted {
            text: "Let me look.".into(),
        });
        record.observe(&Event::MessageCompleted {
            text: "Fixed.".into(),
        });
        let usage = Usage {
            input_tokens: 7,
            output_tokens: 3,
            ..Usage::default()
        };
        record.observe(&Event::TurnCancelled {
            stats: TurnStats {
                usage,
                ..TurnStats::default()
            },
        });
        let Event::Result {
            status,
            exit_code,
            text,
            session_id,
            usage: reported,
            cost,
            error,
            ..
        } = record.result(RunStatus::Cancelled, 130, None)
        else {
            unreachable!()
        };
        assert_eq!(status, RunStatus::Cancelled);
        assert_eq!(exit_code, 130);
        assert_eq!(text, "Fixed.");
        assert_eq!(session_id.as_deref(), Some("01J"));
        assert_eq!(reported, usage);
        assert_eq!(cost, None);
        assert_eq!(error, None);
    }
}
