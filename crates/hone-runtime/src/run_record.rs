//! What a one-shot run (`hone exec --json`, `hone ask --json`) reports in its last event,
//! `result`, gathered from the run's events.

use std::time::Instant;

use hone_api::{Event, ModelPrice, RunStatus, TurnEnd, TurnStats, Usage};
use hone_protocol::{ErrorCategory, HoneError};

/// What a run's `result` reports, gathered from its events.
#[derive(Debug)]
pub struct RunRecord {
    started: Instant,
    text: String,
    session_id: Option<String>,
    usage: Usage,
    price: Option<ModelPrice>,
}

impl Default for RunRecord {
    fn default() -> Self {
        Self::new()
    }
}

impl RunRecord {
    /// A run starting now.
    pub fn new() -> Self {
        Self {
            started: Instant::now(),
            text: String::new(),
            session_id: None,
            usage: Usage::default(),
            price: None,
        }
    }

    /// The session's model costs `price` (`None`: unknown, the result's cost is null).
    pub fn set_price(&mut self, price: Option<ModelPrice>) {
        self.price = price;
    }

    /// The session's model's price, when known.
    pub fn price(&self) -> Option<ModelPrice> {
        self.price
    }

    /// What the run cost in US dollars, when the model's price is known.
    pub fn cost(&self) -> Option<f64> {
        self.price.map(|price| price.cost(&self.usage))
    }

    /// Notes what `event` tells about the run: the saved session, the last reply, the
    /// turn's usage.
    pub fn observe(&mut self, event: &Event) {
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
    pub fn result(&self, status: RunStatus, exit_code: u8, error: Option<&HoneError>) -> Event {
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

    /// The events that end a one-request run without tools (`hone ask --json`) in the
    /// `hone exec --json` dialect: the reply, its usage and how the turn ended, then the
    /// `result` (`failure`: the error and its exit code).
    pub fn single_reply_ending(
        &mut self,
        reply: String,
        usage: Usage,
        failure: Option<(&HoneError, u8)>,
    ) -> Vec<Event> {
        let stats = TurnStats {
            model_requests: 1,
            tool_calls: 0,
            usage,
            duration_ms: u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX),
        };
        let mut events = match failure {
            None => vec![
                Event::MessageCompleted { text: reply },
                Event::Usage { usage },
                Event::TurnCompleted {
                    end: TurnEnd::Answered,
                    stats,
                },
            ],
            Some((error, _)) if error.category == ErrorCategory::Cancelled => {
                vec![Event::TurnCancelled { stats }]
            }
            Some((error, _)) => vec![Event::TurnFailed {
                error: hone_core::error_info(error.clone()),
                stats,
            }],
        };
        for event in &events {
            self.observe(event);
        }
        let result = match failure {
            None => self.result(RunStatus::Completed, 0, None),
            Some((error, code)) if error.category == ErrorCategory::Cancelled => {
                self.result(RunStatus::Cancelled, code, Some(error))
            }
            Some((error, code)) => self.result(RunStatus::Failed, code, Some(error)),
        };
        events.push(result);
        events
    }
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn a_single_reply_ends_answered_and_a_cancelled_one_with_its_exit_code() {
        let usage = Usage {
            input_tokens: 5,
            output_tokens: 2,
            ..Usage::default()
        };
        let events = RunRecord::new().single_reply_ending("Hi.".into(), usage, None);
        assert!(matches!(
            events[2],
            Event::TurnCompleted {
                end: TurnEnd::Answered,
                ..
            }
        ));
        let Event::Result {
            text,
            usage: reported,
            status,
            ..
        } = &events[3]
        else {
            panic!("{events:?}")
        };
        assert_eq!(
            (text.as_str(), *reported, *status),
            ("Hi.", usage, RunStatus::Completed)
        );

        let cancelled = HoneError::cancelled();
        let events =
            RunRecord::new().single_reply_ending(String::new(), usage, Some((&cancelled, 130)));
        assert!(matches!(events[0], Event::TurnCancelled { .. }));
        let Event::Result {
            status,
            exit_code,
            error,
            ..
        } = &events[1]
        else {
            panic!("{events:?}")
        };
        assert_eq!((*status, *exit_code), (RunStatus::Cancelled, 130));
        assert!(error.is_some());
    }
}
