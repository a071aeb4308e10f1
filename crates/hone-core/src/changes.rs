//! What a turn did to the project's files, for how it ends: an answer to a request that
//! asked for a change and changed nothing, or whose change was denied or could not be
//! written, does not end as answered ([`TurnEnd::NoChange`], [`TurnEnd::NotApplied`]).

use std::sync::{Mutex, PoisonError};

use hone_api::{Event, TaskKind, TurnEnd};

/// The changes proposed and applied in the running turn, from its events.
#[derive(Debug, Default)]
pub(crate) struct TurnChanges(Mutex<Seen>);

#[derive(Debug, Default)]
struct Seen {
    proposed: bool,
    applied: bool,
}

impl TurnChanges {
    /// A new turn: nothing proposed or applied yet.
    pub(crate) fn start_turn(&self) {
        *self.seen() = Seen::default();
    }

    /// Notes a proposed or applied change.
    pub(crate) fn observe(&self, event: &Event) {
        match event {
            Event::DiffProposed { .. } => self.seen().proposed = true,
            Event::DiffApplied { .. } => self.seen().applied = true,
            _ => {}
        }
    }

    /// How a turn that ended with `end` ends once its changes are counted: an answer
    /// after which no file changed is [`TurnEnd::NotApplied`] when a change was proposed
    /// (denied, or not written), and [`TurnEnd::NoChange`] when the request, of kind
    /// `task`, asked for one.
    pub(crate) fn settle(&self, end: TurnEnd, task: Option<TaskKind>) -> TurnEnd {
        let seen = self.seen();
        if end != TurnEnd::Answered || seen.applied {
            return end;
        }
        if seen.proposed {
            TurnEnd::NotApplied
        } else if matches!(task, Some(TaskKind::Change | TaskKind::Create)) {
            TurnEnd::NoChange
        } else {
            end
        }
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proposed() -> Event {
        Event::DiffProposed {
            call_id: "c1".into(),
            diff: "-a\n+b".into(),
        }
    }

    fn applied() -> Event {
        Event::DiffApplied {
            call_id: "c1".into(),
            paths: vec!["a.py".into()],
            diff: "-a\n+b".into(),
        }
    }

    #[test]
    fn an_answer_to_a_change_request_that_changed_nothing_is_no_change() {
        let changes = TurnChanges::default();
        assert_eq!(
            changes.settle(TurnEnd::Answered, Some(TaskKind::Change)),
            TurnEnd::NoChange
        );
        assert_eq!(
            changes.settle(TurnEnd::Answered, Some(TaskKind::Create)),
            TurnEnd::NoChange
        );
        // A question, or a request the rules could not place, may rightly change nothing.
        assert_eq!(
            changes.settle(TurnEnd::Answered, Some(TaskKind::Explain)),
            TurnEnd::Answered
        );
        assert_eq!(changes.settle(TurnEnd::Answered, None), TurnEnd::Answered);
    }

    #[test]
    fn a_proposed_change_never_applied_is_not_applied_whatever_was_asked() {
        let changes = TurnChanges::default();
        changes.observe(&proposed());
        assert_eq!(changes.settle(TurnEnd::Answered, None), TurnEnd::NotApplied);
        assert_eq!(
            changes.settle(TurnEnd::Answered, Some(TaskKind::Change)),
            TurnEnd::NotApplied
        );
    }

    #[test]
    fn an_applied_change_and_other_endings_stay_as_they_are() {
        let changes = TurnChanges::default();
        changes.observe(&proposed());
        changes.observe(&applied());
        assert_eq!(
            changes.settle(TurnEnd::Answered, Some(TaskKind::Change)),
            TurnEnd::Answered
        );
        changes.start_turn();
        assert_eq!(
            changes.settle(TurnEnd::Answered, Some(TaskKind::Change)),
            TurnEnd::NoChange
        );
        assert_eq!(
            changes.settle(TurnEnd::RoundLimit, Some(TaskKind::Change)),
            TurnEnd::RoundLimit
        );
        assert_eq!(
            changes.settle(TurnEnd::Unverified, Some(TaskKind::Change)),
            TurnEnd::Unverified
        );
    }
}
