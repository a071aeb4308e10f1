//! What `hone exec --json` and `hone ask --json` print: `hone-api` event frames, one JSON
//! object per line on stdout, ending with one `result` event (`docs/protocol.md`).

use std::io::Write;
use std::time::Instant;

use hone_api::{Event, EventFrame, ModelPrice, RunStatus, Usage};
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
    price: Option<ModelPrice>,
}

impl RunRecord {
    /// A run starting now.
    pub(crate) fn new() -> Self {
        Self {
            started: Instant::now(),
            text: String::new(),
            session_id: None,
            usage: Usage::default(),
            price: None,
        }
    }

    /// The session's model costs `price` (`None`: unknown, the result's cost is null).
    pub(crate) fn set_price(&mut self, price: Option<ModelPrice>) {
        self.price = price;
    }

    /// The session's model's price, when known.
    pub(crate) fn price(&self) -> Option<ModelPrice> {
        self.price
    }

    /// What the run cost in US dollars, when the model's price is known.
    pub(crate) fn cost(&self) -> Option<f64> {
        self.price.map(|price| price.cost(&self.usage))
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
            cost: self.cost(),
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
        assert_eq!(cost, None, "no price, no cost");
        assert_eq!(error, None);
        record.set_price(Some(ModelPrice {
            input: 1.0,
            cached_input: 0.1,
            output: 1_000_000.0,
        }));
        let Event::Result { cost, .. } = record.result(RunStatus::Completed, 0, None) else {
            unreachable!()
        };
        assert!(
            cost.is_some_and(|cost| (cost - 3.000_007).abs() < 1e-9),
            "{cost:?}"
        );
    }
}
