//! Calls a model repeats within a turn: identical failures end the turn after a few tries,
//! and a change already applied (or a call already run in the same reply) is answered
//! instead of being run again. Small models loop like this after a successful edit.

use std::collections::HashMap;

use hone_protocol::ToolCall;
use serde_json::Value;

/// Identical failing calls allowed before the turn stops.
pub(crate) const MAX_IDENTICAL_FAILURES: u32 = 3;

/// A call's identity: its tool and its arguments, normalised.
type CallKey = (String, String);

/// What the turn's calls did so far.
#[derive(Debug, Default)]
pub(crate) struct CallTracker {
    failures: HashMap<CallKey, u32>,
    /// Changes applied in this turn → the call that applied them.
    applied: HashMap<CallKey, String>,
    /// Calls answered as a repeat of an applied change.
    applied_repeats: u32,
}

/// Why a call is answered without running.
pub(crate) enum Repeat {
    /// The same call ran earlier in the same reply.
    SameReply(String),
    /// The same change was applied earlier in the turn.
    AlreadyApplied(String),
}

impl Repeat {
    /// The result the model gets.
    pub(crate) fn explanation(&self) -> String {
        match self {
            Self::SameReply(first) => format!(
                "not run: this is the same call as {first} earlier in this reply (same tool, \
                 same arguments); its result above stands. Do not repeat a call that already ran."
            ),
            Self::AlreadyApplied(first) => format!(
                "not run: this exact change was already applied by {first} earlier in this turn, \
                 so the file already has it. Do not repeat it. If the request is done, answer \
                 the user now in one or two sentences without calling a tool."
            ),
        }
    }

    /// Whether it counts as a failure (a loop the turn should stop).
    pub(crate) fn is_error(&self) -> bool {
        matches!(self, Self::AlreadyApplied(_))
    }
}

/// The identity of `call`.
pub(crate) fn key(call: &ToolCall) -> CallKey {
    (call.name.clone(), normalize_arguments(&call.arguments))
}

fn normalize_arguments(raw: &str) -> String {
    // Keys sorted explicitly: serde_json keeps insertion order when a dependency elsewhere
    // in the build turns on its `preserve_order` feature (llguidance does).
    serde_json::from_str::<Value>(raw).map_or_else(
        |_| raw.trim().to_string(),
        |mut value| {
            value.sort_all_objects();
            value.to_string()
        },
    )
}

impl CallTracker {
    /// Records a failure of `call`; returns how often it failed identically in this turn.
    pub(crate) fn record_failure(&mut self, call: &ToolCall) -> u32 {
        let count = self.failures.entry(key(call)).or_insert(0);
        *count += 1;
        *count
    }

    /// Records that a call was answered as a repeat of an applied change.
    pub(crate) fn record_applied_repeat(&mut self) {
        self.applied_repeats += 1;
    }

    /// How many calls were answered as repeats of applied changes in this turn.
    pub(crate) fn applied_repeats(&self) -> u32 {
        self.applied_repeats
    }

    /// Whether a change was applied in this turn.
    pub(crate) fn applied_any(&self) -> bool {
        !self.applied.is_empty()
    }

    /// Records that `call` applied a change.
    pub(crate) fn record_applied(&mut self, call: &ToolCall) {
        self.applied.insert(key(call), call.id.clone());
    }

    /// Whether `call` would apply a change it already applied in this turn; with
    /// `same_reply`, the calls run earlier in the current reply.
    pub(crate) fn repeat_of(
        &self,
        call: &ToolCall,
        same_reply: &HashMap<CallKey, String>,
    ) -> Option<Repeat> {
        let key = key(call);
        if let Some(first) = self.applied.get(&key) {
            return Some(Repeat::AlreadyApplied(first.clone()));
        }
        same_reply
            .get(&key)
            .map(|first| Repeat::SameReply(first.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, arguments: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: "edit_file".into(),
            arguments: arguments.into(),
        }
    }

    #[test]
    fn identical_failures_are_counted_with_normalised_arguments() {
        let mut tracker = CallTracker::default();
        assert_eq!(tracker.record_failure(&call("1", r#"{"a": 1, "b": 2}"#)), 1);
        assert_eq!(tracker.record_failure(&call("2", r#"{"b":2,"a":1}"#)), 2);
        assert_eq!(tracker.record_failure(&call("3", r#"{"a": 2}"#)), 1);
    }

    #[test]
    fn an_applied_change_is_a_repeat_for_the_rest_of_the_turn() {
        let mut tracker = CallTracker::default();
        let same_reply = HashMap::new();
        assert!(
            tracker
                .repeat_of(&call("1", r#"{"a":1}"#), &same_reply)
                .is_none()
        );
        tracker.record_applied(&call("1", r#"{"a":1}"#));
        let repeat = tracker
            .repeat_of(&call("7", r#"{ "a": 1 }"#), &same_reply)
            .unwrap();
        assert!(repeat.is_error());
        assert!(repeat.explanation().contains("already applied by 1"));
        assert!(
            tracker
                .repeat_of(&call("8", r#"{"a":2}"#), &same_reply)
                .is_none()
        );
    }
}
