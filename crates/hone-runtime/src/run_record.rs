//! What a one-shot run (`hone exec --json`, `hone ask --json`) reports in its last event,
//! `result`, gathered from the run's events.

use std::time::Instant;

use hone_api::{Event, ModelPrice, RunStatus, TurnEnd, TurnStats, Usage};
use hone_protocol::{ErrorCategory, HoneError, Outcome, ResponseCollector, StreamEvent};

/// The exit code of each error category, so scripts can tell failures apart: every
/// command's, and a one-shot run's `result.exit_code`.
pub fn exit_code(category: ErrorCategory) -> u8 {
    match category {
        ErrorCategory::Config => 2,
        ErrorCategory::Auth => 4,
        ErrorCategory::Network => 5,
        ErrorCategory::RateLimit => 6,
        ErrorCategory::Provider => 7,
        ErrorCategory::Validation => 8,
        ErrorCategory::Tool => 3,
        ErrorCategory::Storage => 9,
        ErrorCategory::Cancelled => INTERRUPTED,
    }
}

/// A one-shot run's exit code when its turn ended without an answer (round limit, repeated
/// failures, skipped).
pub const NOT_ANSWERED: u8 = 1;

/// A one-shot run's exit code when the model answered and changed files that no check
/// could verify (no test or project check applies, or every one was skipped).
pub const UNVERIFIED: u8 = 10;

/// A one-shot run's exit code when the request asked for a change and no file changed.
pub const NO_CHANGE: u8 = 11;

/// A one-shot run's exit code when the turn's change was denied (by the policy or the
/// user) or could not be written, and no file changed.
pub const NOT_APPLIED: u8 = 12;

/// A one-shot run's exit code when the checks after the turn's change still fail.
pub const CHECKS_FAILED: u8 = 13;

/// A one-shot run's exit code when it was interrupted (128 + SIGINT).
pub const INTERRUPTED: u8 = 130;

/// How the event ending a turn ends a one-shot run (`hone exec`).
#[derive(Debug, Clone)]
pub struct RunEnd {
    /// The `result`'s status.
    pub status: RunStatus,
    /// 0 when answered, [`NOT_ANSWERED`], [`UNVERIFIED`], [`NO_CHANGE`], [`NOT_APPLIED`],
    /// [`CHECKS_FAILED`], [`INTERRUPTED`], or the error's [`exit_code`].
    pub exit_code: u8,
    /// How it ended, for the summary line: `done`, `unverified …`, `no change …`, `not
    /// applied …`, `checks failed …`, `failed` or `interrupted`.
    pub what: &'static str,
    /// The turn's error, when it failed.
    pub error: Option<HoneError>,
    /// The turn's figures.
    pub stats: TurnStats,
}

impl RunEnd {
    /// The end of the run when `event` ends its turn, else `None`.
    pub fn of(event: &Event) -> Option<Self> {
        let (status, exit_code, what, error, stats) = match event {
            Event::TurnCompleted { end, stats } => {
                let (status, code, what) = turn_end(*end);
                (status, code, what, None, stats)
            }
            Event::TurnFailed { error, stats } => {
                let error = hone_core::hone_error(error);
                let code = exit_code(error.category);
                (RunStatus::Failed, code, "failed", Some(error), stats)
            }
            Event::TurnCancelled { stats } => (
                RunStatus::Cancelled,
                INTERRUPTED,
                "interrupted",
                None,
                stats,
            ),
            _ => return None,
        };
        Some(Self {
            status,
            exit_code,
            what,
            error,
            stats: *stats,
        })
    }
}

/// The `result` status, exit code and summary word of a turn that ended with `end`.
fn turn_end(end: TurnEnd) -> (RunStatus, u8, &'static str) {
    match end {
        TurnEnd::Answered => (RunStatus::Completed, 0, "done"),
        // A failed turn never reads "done".
        TurnEnd::RoundLimit => (
            RunStatus::Failed,
            NOT_ANSWERED,
            "stopped at the round limit",
        ),
        TurnEnd::RepeatedFailure => (
            RunStatus::Failed,
            NOT_ANSWERED,
            "stopped (the same failure again, or no answer changed a file)",
        ),
        TurnEnd::Skipped => (
            RunStatus::Failed,
            NOT_ANSWERED,
            "skipped (the rest of the turn)",
        ),
        TurnEnd::Unverified => (
            RunStatus::Unverified,
            UNVERIFIED,
            "unverified (no check could verify the change)",
        ),
        TurnEnd::NoChange => (
            RunStatus::NoChange,
            NO_CHANGE,
            "no change (a change was asked for and no file changed)",
        ),
        TurnEnd::NotApplied => (
            RunStatus::NotApplied,
            NOT_APPLIED,
            "not applied (the change was denied or could not be written)",
        ),
        TurnEnd::ChecksFailed => (
            RunStatus::ChecksFailed,
            CHECKS_FAILED,
            "checks failed (the change is in place; its checks still fail)",
        ),
    }
}

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
            attempts: 0,
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

    /// What a one-request run without tools (`hone ask --json`) shows of a provider's
    /// stream event: its text and reasoning deltas.
    pub fn event_of(event: &StreamEvent) -> Option<Event> {
        match event {
            StreamEvent::TextDelta { text } => Some(Event::MessageDelta { text: text.clone() }),
            StreamEvent::ThinkingDelta { text } => {
                Some(Event::ThinkingDelta { text: text.clone() })
            }
            _ => None,
        }
    }

    /// How a one-request run's reply ended: `None` when it completed, else its error (a
    /// cancelled one, or a provider error when the stream ended without a result).
    pub fn failure_of(collector: &ResponseCollector) -> Option<HoneError> {
        match collector.outcome() {
            Some(Outcome::Completed(_)) => None,
            Some(Outcome::Failed(error)) => Some(error.clone()),
            Some(Outcome::Cancelled) => Some(HoneError::cancelled()),
            None => Some(HoneError::provider("the response ended without a result")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_have_distinct_exit_codes() {
        let categories = [
            ErrorCategory::Config,
            ErrorCategory::Auth,
            ErrorCategory::Network,
            ErrorCategory::RateLimit,
            ErrorCategory::Provider,
            ErrorCategory::Validation,
            ErrorCategory::Tool,
            ErrorCategory::Storage,
            ErrorCategory::Cancelled,
        ];
        let mut codes: Vec<_> = categories.iter().map(|c| exit_code(*c)).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), categories.len());
        assert!(!codes.contains(&NOT_ANSWERED) && !codes.contains(&0));
    }

    #[test]
    fn a_turn_end_gives_the_run_its_status_and_exit_code() {
        let stats = TurnStats::default();
        let end =
            |event: Event| RunEnd::of(&event).map(|end| (end.status, end.exit_code, end.what));
        assert_eq!(
            end(Event::TurnCompleted {
                end: TurnEnd::Answered,
                stats
            }),
            Some((RunStatus::Completed, 0, "done"))
        );
        assert_eq!(
            end(Event::TurnCompleted {
                end: TurnEnd::RoundLimit,
                stats
            }),
            Some((
                RunStatus::Failed,
                NOT_ANSWERED,
                "stopped at the round limit"
            ))
        );
        for failed in [TurnEnd::RepeatedFailure, TurnEnd::Skipped] {
            let (status, code, what) = end(Event::TurnCompleted { end: failed, stats }).unwrap();
            assert_eq!((status, code), (RunStatus::Failed, NOT_ANSWERED));
            assert_ne!(what, "done", "{failed:?}");
        }
        assert_eq!(
            end(Event::TurnCancelled { stats }),
            Some((RunStatus::Cancelled, INTERRUPTED, "interrupted"))
        );
        let failed = RunEnd::of(&Event::TurnFailed {
            error: hone_core::error_info(HoneError::network("down")),
            stats,
        })
        .unwrap();
        assert_eq!((failed.status, failed.exit_code), (RunStatus::Failed, 5));
        assert_eq!(failed.error.unwrap().message, "down");
        assert!(RunEnd::of(&Event::TurnStarted { turn: 1 }).is_none());
    }

    #[test]
    fn turns_that_did_not_do_the_job_have_codes_of_their_own() {
        let stats = TurnStats::default();
        let mut codes = Vec::new();
        for (turn, status, code) in [
            (TurnEnd::Unverified, RunStatus::Unverified, UNVERIFIED),
            (TurnEnd::NoChange, RunStatus::NoChange, NO_CHANGE),
            (TurnEnd::NotApplied, RunStatus::NotApplied, NOT_APPLIED),
            (
                TurnEnd::ChecksFailed,
                RunStatus::ChecksFailed,
                CHECKS_FAILED,
            ),
        ] {
            let end = RunEnd::of(&Event::TurnCompleted { end: turn, stats }).unwrap();
            assert_eq!((end.status, end.exit_code), (status, code), "{turn:?}");
            assert_ne!(end.what, "done", "{turn:?}");
            codes.push(code);
        }
        let categories = [
            ErrorCategory::Config,
            ErrorCategory::Auth,
            ErrorCategory::Network,
            ErrorCategory::RateLimit,
            ErrorCategory::Provider,
            ErrorCategory::Validation,
            ErrorCategory::Tool,
            ErrorCategory::Storage,
            ErrorCategory::Cancelled,
        ];
        codes.extend(categories.iter().map(|category| exit_code(*category)));
        codes.extend([0, NOT_ANSWERED]);
        let all = codes.len();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), all, "every code means one thing");
    }

    #[test]
    fn a_single_reply_shows_its_deltas_and_fails_without_an_ending() {
        assert_eq!(
            RunRecord::event_of(&StreamEvent::TextDelta { text: "Hi".into() }),
            Some(Event::MessageDelta { text: "Hi".into() })
        );
        let collector = ResponseCollector::new();
        let failure = RunRecord::failure_of(&collector).unwrap();
        assert_eq!(failure.category, ErrorCategory::Provider);
    }

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
