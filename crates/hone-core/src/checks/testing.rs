//! The project's tests: the candidate commands ([`detect::test_candidates`]) are tried in
//! order until one runs the tests, and that one is kept for the session. A run that could
//! not collect or import the tests, or found none ([`harness_problem`]), is hone's problem
//! (the wrong command for this layout): it is reported as hone's own note, never handed
//! to the model as the bug, and the next command is tried. Once a command has run the
//! tests, the same failure after a change is the change's doing and goes to the model.

use hone_api::{CheckResult, CheckStatus, Event};
use tokio_util::sync::CancellationToken;

use super::harness::harness_problem;
use super::report::FailureReport;
use super::{PlannedCheck, detect};
use crate::session::Agent;

/// Which command runs the project's tests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum TestSelection {
    /// None tried yet.
    #[default]
    Unknown,
    /// This one ran the tests (passing or failing).
    Chosen(PlannedCheck),
    /// Every candidate failed to run the tests this turn (tried again next turn).
    NoneRuns,
}

impl TestSelection {
    /// A new turn tries the candidates again if none ran the tests.
    pub(super) fn start_turn(&mut self) {
        if *self == Self::NoneRuns {
            *self = Self::Unknown;
        }
    }
}

/// What running the project's tests gave.
#[derive(Default)]
pub(super) struct TestsRun {
    /// Each command tried, in order (those that could not run the tests as skipped, with
    /// hone's note).
    pub(super) results: Vec<CheckResult>,
    /// The failure report when the tests ran and failed.
    pub(super) failure: Option<FailureReport>,
    /// hone's notes on the commands that could not run the tests.
    pub(super) notes: Vec<String>,
}

impl Agent {
    /// Runs the project's tests after a change of `changed` (empty: before any change),
    /// trying the candidates until one runs them.
    pub(super) async fn run_project_tests(
        &mut self,
        changed: &[String],
        cancel: &CancellationToken,
    ) -> TestsRun {
        self.run_tests_announced(changed, None, cancel).await
    }

    /// [`run_project_tests`](Self::run_project_tests); with `call_id`, each command tried
    /// is shown as a `run_tests` call.
    async fn run_tests_announced(
        &mut self,
        changed: &[String],
        call_id: Option<&str>,
        cancel: &CancellationToken,
    ) -> TestsRun {
        let root = self.context.root().to_path_buf();
        let (candidates, settled) = match (&self.checks.tests, &self.checks.config.tests) {
            (TestSelection::NoneRuns, _) => return TestsRun::default(),
            (TestSelection::Chosen(check), _) => (vec![check.clone()], true),
            // The configured command is the user's word: tried alone.
            (TestSelection::Unknown, Some(command)) => {
                (vec![detect::configured_tests(command)], false)
            }
            (TestSelection::Unknown, None) => (detect::test_candidates(&root), false),
        };
        let mut run = TestsRun::default();
        for (attempt, candidate) in candidates.iter().enumerate() {
            let id = call_id.map(|id| format!("{id}_{}", attempt + 1));
            let started = self.start_clock();
            if let Some(id) = &id {
                self.emit(Event::ToolRequested {
                    call_id: id.clone(),
                    name: "run_tests".to_string(),
                    arguments: serde_json::json!({ "command": candidate.command }),
                });
            }
            let check = self.run_check(changed, candidate, cancel).await;
            let ran = check.result.status != CheckStatus::Skipped;
            // Before a command has run the tests, a run that did not get to them is hone's
            // problem, unless it names a file the change touched (the change broke the
            // import).
            let problem = (ran && !settled && !cancel.is_cancelled())
                .then(|| harness_problem(&check.output, check.exit_code))
                .flatten()
                .filter(|_| !names_any(&check.output, changed));
            let (text, is_error) = match (&problem, &check.failure, check.result.status) {
                (Some(problem), _, _) => (
                    format!(
                        "hone: {problem}; `{}` ({}) does not run this project's tests here \
                         (hone's problem, not the failure to fix)",
                        candidate.command, candidate.source
                    ),
                    false,
                ),
                (None, Some(_), _) => (format!("the tests fail: {}", check.result.detail), true),
                (None, None, CheckStatus::Passed) => ("the tests pass".to_string(), false),
                (None, None, _) => (format!("not run: {}", check.result.detail), false),
            };
            if let Some(id) = id {
                let duration_ms = self.execution_ms(started);
                self.emit(Event::ToolCompleted {
                    call_id: id,
                    name: "run_tests".to_string(),
                    output: text.clone(),
                    is_error,
                    exit_code: check.exit_code,
                    duration_ms,
                });
            }
            let mut result = check.result;
            if let Some(problem) = problem {
                tracing::info!(command = %candidate.command, %problem, "not the project's tests");
                result.status = CheckStatus::Skipped;
                result.detail = text;
                run.notes
                    .push(format!("`{}`: {problem}", candidate.command));
                run.results.push(result);
                continue;
            }
            if ran && !cancel.is_cancelled() {
                let mut chosen = candidate.clone();
                // The user may have edited the command when approving it.
                chosen.command.clone_from(&result.command);
                self.checks.tests = TestSelection::Chosen(chosen);
            }
            run.results.push(result);
            run.failure = check.failure;
            return run;
        }
        if !run.notes.is_empty() {
            self.checks.tests = TestSelection::NoneRuns;
        }
        run
    }

    /// Runs the project's tests before a turn about failing tests, through the policy like
    /// any check, each command tried shown as a `run_tests` call; returns the failure
    /// report (the failing tests, the output and the code around the places it names),
    /// `None` when nothing ran, the tests pass, or no command could run them. With
    /// `about` (names the request writes as code), failures that name none of them are
    /// not the request's and are left out.
    pub(crate) async fn reproduce_failing_tests(
        &mut self,
        cancel: &CancellationToken,
        about: &[String],
    ) -> Option<String> {
        if !self.checks.config.enabled || !self.checks.config.run_tests {
            return None;
        }
        let call_id = format!("reproduce_{}", self.turns);
        self.checks.before_change = true;
        let run = self.run_tests_announced(&[], Some(&call_id), cancel).await;
        self.checks.before_change = false;
        let failure = run.failure?;
        if !about.is_empty() && !about.iter().any(|name| names_word(&failure.text, name)) {
            return None;
        }
        self.checks.reproduced = true;
        // What an attempt that changes nothing is told still fails.
        let summary = failure
            .summary
            .clone()
            .unwrap_or_else(|| super::report::first_error_line(&failure.text));
        self.checks
            .failure_lines
            .push(format!("the tests: {summary}"));
        // What fails before any change: an answer that leaves it failing just so did not
        // change what fails, and gets a fresh attempt (see `check_and_repair`).
        self.checks.last_failures = vec![failure.text.clone()];
        self.checks.leads = failure.leads;
        Some(failure.text)
    }
}

/// Whether `text` has `name` as a whole identifier (`sub` in `function sub`, not in
/// `subprocess`).
fn names_word(text: &str, name: &str) -> bool {
    let is_part = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(name).any(|(start, _)| {
        let before = text[..start].chars().next_back();
        let after = text[start + name.len()..].chars().next();
        !before.is_some_and(is_part) && !after.is_some_and(is_part)
    })
}

/// Whether `output` names one of `paths` (a project path, also as the tail of an absolute
/// one).
fn names_any(output: &str, paths: &[String]) -> bool {
    paths
        .iter()
        .any(|path| !path.is_empty() && output.contains(path.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_naming_a_changed_file_is_the_change_s() {
        let output =
            "ImportError: cannot import name 'total' from 'shop.cart' (/p/src/shop/cart.py)";
        assert!(names_any(output, &["src/shop/cart.py".into()]));
        assert!(!names_any(output, &["src/shop/prices.py".into()]));
        assert!(!names_any(output, &[]));
    }

    #[test]
    fn a_name_counts_only_as_a_whole_identifier() {
        assert!(names_word("'function sub' in f.read()", "sub"));
        assert!(names_word("count_words(\"Hello\")", "count_words"));
        assert!(!names_word("import subprocess", "sub"));
        assert!(!names_word("recount_words()", "count_words"));
    }

    #[test]
    fn a_turn_tries_again_only_when_nothing_ran() {
        let mut selection = TestSelection::NoneRuns;
        selection.start_turn();
        assert_eq!(selection, TestSelection::Unknown);
        let chosen = TestSelection::Chosen(PlannedCheck {
            name: "pytest".into(),
            command: "python3 -m pytest".into(),
            source: "pyproject.toml".into(),
            source_dirs: Vec::new(),
        });
        let mut kept = chosen.clone();
        kept.start_turn();
        assert_eq!(kept, chosen);
    }
}
