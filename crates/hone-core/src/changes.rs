//! What a turn did to the project's files, for how it ends: an answer to a request that
//! asked for a change and changed nothing, or whose change was denied or could not be
//! written, does not end as answered ([`TurnEnd::NoChange`], [`TurnEnd::NotApplied`]).

use std::sync::{Mutex, PoisonError};

use hone_api::{Event, TaskKind, TurnEnd};

/// A point in the turn's changes (see [`TurnChanges::mark`]).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ChangeMark {
    proposed: bool,
    edits: usize,
    paths: usize,
}

/// The changes proposed and applied in the running turn, from its events.
#[derive(Debug, Default)]
pub(crate) struct TurnChanges(Mutex<Seen>);

#[derive(Debug, Default)]
struct Seen {
    /// Tool calls, applied code blocks, test runs and checks of this turn.
    actions: u32,
    proposed: bool,
    applied: bool,
    /// Edits written in this turn, and the files they wrote, in order.
    edits: usize,
    paths: Vec<String>,
    /// Notices of protected files (instruction files, hone's own) a command wrote straight.
    protected: Vec<String>,
    /// Model requests made beside the turn's own (the checker's), and their usage.
    side_requests: u32,
    side_usage: hone_api::Usage,
}

impl TurnChanges {
    /// A new turn: nothing proposed or applied yet.
    pub(crate) fn start_turn(&self) {
        *self.seen() = Seen::default();
    }

    /// Notes that a command wrote protected files straight to the project; `notice` says so.
    pub(crate) fn note_protected(&self, notice: String) {
        let mut seen = self.seen();
        if !seen.protected.contains(&notice) {
            seen.protected.push(notice);
        }
    }

    /// The notices of protected files written in this turn, taken once (at its end).
    pub(crate) fn take_protected(&self) -> Vec<String> {
        std::mem::take(&mut self.seen().protected)
    }

    /// Notes a proposed or applied change.
    pub(crate) fn observe(&self, event: &Event) {
        match event {
            Event::DiffProposed { .. } => self.seen().proposed = true,
            Event::DiffApplied { paths, .. } => {
                let mut seen = self.seen();
                seen.applied = true;
                seen.edits += 1;
                for path in paths {
                    if !seen.paths.contains(path) {
                        seen.paths.push(path.clone());
                    }
                }
            }
            // Every action the user sees: the model's tool calls, code blocks applied as
            // edits, hone's own test runs and checks (attempts rolled back still ran).
            Event::ToolRequested { .. } | Event::ChecksStarted { .. } => self.seen().actions += 1,
            _ => {}
        }
    }

    /// Counts a model request made beside the turn's own (the checker's review).
    pub(crate) fn note_side_request(&self, usage: Option<hone_protocol::Usage>) {
        let mut seen = self.seen();
        seen.side_requests += 1;
        if let Some(usage) = usage {
            seen.side_usage = crate::turn::add_usage(seen.side_usage, usage);
        }
    }

    /// The requests made beside the turn's own, and their usage.
    pub(crate) fn side_requests(&self) -> (u32, hone_api::Usage) {
        let seen = self.seen();
        (seen.side_requests, seen.side_usage)
    }

    /// The actions of this turn so far (see [`TurnChanges::observe`]).
    pub(crate) fn actions(&self) -> u32 {
        self.seen().actions
    }

    /// Where the turn's changes are now: the edits written so far and the files they wrote.
    pub(crate) fn mark(&self) -> ChangeMark {
        let seen = self.seen();
        ChangeMark {
            proposed: seen.proposed,
            edits: seen.edits,
            paths: seen.paths.len(),
        }
    }

    /// The edits written since `mark`, and the files they wrote.
    pub(crate) fn since(&self, mark: ChangeMark) -> (usize, Vec<String>) {
        let seen = self.seen();
        (
            seen.edits.saturating_sub(mark.edits),
            seen.paths.iter().skip(mark.paths).cloned().collect(),
        )
    }

    /// Forgets the changes since `mark` (they were rolled back): the turn counts as if
    /// they had not been made.
    pub(crate) fn roll_back_to(&self, mark: ChangeMark) {
        let mut seen = self.seen();
        seen.proposed = mark.proposed;
        seen.edits = mark.edits;
        seen.paths.truncate(mark.paths);
        seen.applied = mark.edits > 0;
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
    fn the_changes_since_a_mark_are_counted_and_can_be_forgotten() {
        let changes = TurnChanges::default();
        let start = changes.mark();
        changes.observe(&proposed());
        changes.observe(&applied());
        changes.observe(&Event::DiffApplied {
            call_id: "c2".into(),
            paths: vec!["a.py".into(), "b.py".into()],
            diff: String::new(),
        });
        assert_eq!(
            changes.since(start),
            (2, vec!["a.py".to_string(), "b.py".to_string()])
        );
        changes.roll_back_to(start);
        assert_eq!(changes.since(start), (0, Vec::new()));
        assert_eq!(
            changes.settle(TurnEnd::Answered, Some(TaskKind::Change)),
            TurnEnd::NoChange
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
