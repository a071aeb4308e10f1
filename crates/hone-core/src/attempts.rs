//! Verified attempts: when a check reproduced the request before the change (a request
//! check, or the project's tests failing), an attempt whose checks still fail after its
//! repair rounds is rolled back through the undo journal (the files exactly as they were)
//! and a fresh one is made, sampled wider, with the failure shown, up to `[checks]
//! attempts`. The first change that passes every check is kept; when none does, the last
//! one stays for the user to see (and undo). Each attempt ends with `attempt.completed`.

use hone_api::{Event, TurnEnd, TurnStats};
use hone_protocol::{ErrorCategory, HoneError, Message};
use tokio_util::sync::CancellationToken;

use crate::session::Agent;
use crate::turn::Ending;

impl Agent {
    /// Runs the turn's flow (after hone's own rename, when the request is one) as often as
    /// the attempts allow; returns how the turn ended.
    pub(crate) async fn run_attempts(
        &mut self,
        mut rename: Option<(String, String)>,
        cancel: &CancellationToken,
        stats: &mut TurnStats,
    ) -> Ending {
        let allowed = self.checks.attempts();
        self.attempt = 1;
        loop {
            let mark = self.changes.mark();
            let renamed = match rename.take() {
                Some((old, new)) => self.guided_rename(&old, &new, cancel).await,
                None => None,
            };
            let ending = match renamed {
                Some(end) => Ending::Done(end),
                None if self.flow.guided().is_some() => self.guided_loop(cancel, stats).await,
                None => self.turn_loop(cancel, stats).await,
            };
            let end = match ending {
                Ending::Done(_) if cancel.is_cancelled() => return Ending::Cancelled,
                Ending::Done(end) => self.settle_checks(end, cancel).await,
                other => return other,
            };
            if !self.checks.reproduced() {
                return Ending::Done(end);
            }
            stats.attempts = self.attempt;
            let (edits, paths) = self.changes.since(mark);
            // An attempt that changed nothing (the model copied the code back) left the
            // reproduced failure as it was.
            let unchanged =
                edits == 0 && matches!(end, TurnEnd::RepeatedFailure | TurnEnd::NoChange);
            let passed = end != TurnEnd::ChecksFailed && !unchanged;
            let failures = if passed {
                Vec::new()
            } else {
                self.checks.failure_lines().to_vec()
            };
            let last = self.attempt >= allowed || cancel.is_cancelled();
            // The last attempt's change stays, as does one the journal could not take back.
            let stop = passed
                || last
                || (edits == 0 && !unchanged)
                || (edits > 0 && !self.roll_back(edits, &paths));
            if stop {
                if edits > 0 || unchanged {
                    self.emit(Event::AttemptCompleted {
                        attempt: self.attempt,
                        attempts: allowed,
                        passed,
                        rolled_back: Vec::new(),
                        failures,
                        unchanged,
                    });
                }
                return Ending::Done(end);
            }
            self.changes.roll_back_to(mark);
            self.emit(Event::AttemptCompleted {
                attempt: self.attempt,
                attempts: allowed,
                passed,
                rolled_back: paths,
                failures,
                unchanged,
            });
            self.attempt += 1;
            self.start_fresh_attempt_after_rollback(allowed, edits == 0);
        }
    }

    /// Reverts the attempt's `edits` (which wrote `paths`); false, with the user told, when
    /// the journal could not take them back (the attempt's change then stays).
    fn roll_back(&mut self, edits: usize, paths: &[String]) -> bool {
        match self.revert_latest(edits) {
            Ok(_) => {
                // The files are as the model last saw them before the attempt: edits to them
                // are not stale.
                for path in paths {
                    if let Ok(resolved) = self.context.guard().resolve_read(path)
                        && let Ok(bytes) = std::fs::read(&resolved.absolute)
                    {
                        self.context
                            .reads()
                            .record(&resolved.relative, &hone_tools::files::hash_bytes(&bytes));
                    }
                }
                true
            }
            Err(error) => {
                self.emit(Event::Error {
                    error: crate::api::error_info(HoneError::new(
                        ErrorCategory::Tool,
                        format!(
                            "the failed attempt could not be rolled back ({error}), so no fresh \
                             attempt is made; its change stays"
                        ),
                    )),
                });
                false
            }
        }
    }

    /// Asks the request afresh after a rolled-back attempt (or one that `changed_nothing`),
    /// with what its checks said.
    fn start_fresh_attempt_after_rollback(&mut self, allowed: u32, changed_nothing: bool) {
        self.checks.start_attempt();
        let failed = self.attempt - 1;
        // One line per failing check: the full report showed the rolled-back code.
        let told: Vec<String> = self
            .checks
            .failure_lines()
            .iter()
            .map(|line| format!("- {line}"))
            .collect();
        let note = if changed_nothing {
            format!(
                "{} Attempt {failed} of {allowed} changed no file, and this still fails:\n{}\n\
                 Write the corrected code this time: it must differ from the current code.",
                hone_context::HONE_NOTE_PREFIX,
                told.join("\n")
            )
        } else {
            format!(
                "{} Attempt {failed} of {allowed} did not pass the checks, so hone rolled it \
                 back: the files are exactly as they were before it. What failed:\n{}\n\
                 Make a different change this time.",
                hone_context::HONE_NOTE_PREFIX,
                told.join("\n")
            )
        };
        match self.flow.guided_mut() {
            Some(step) => {
                step.restart();
                self.push_fresh_attempt(note);
            }
            None => self.push_history(Message::user(note)),
        }
    }
}
