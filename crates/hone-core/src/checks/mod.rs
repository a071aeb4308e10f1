//! Checks after edits: when a turn changed files, the changed files' syntax, then the
//! project's own checks (configured under `[checks]` or detected), then its tests. Failures
//! go back to the model with the error lines and the code around them, for at most
//! [`ChecksConfig::max_repair_rounds`] repair rounds; the turn's end says whether they
//! still fail ([`TurnEnd::ChecksFailed`]).

mod approval;
mod detect;
pub(crate) mod failures;
mod harness;
mod hints;
mod leads;
mod noise;
mod places;
mod reach;
mod report;
mod requested;
mod review;
mod snippets;
mod testing;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use hone_protocol::{Message, ToolCall};
use hone_tools::command::FullOutput;
use hone_tools::{CommandPlan, Invocation, SyntaxChecker};
use tokio_util::sync::CancellationToken;

use crate::command_changes::Asking;
use crate::session::Agent;
use hone_api::{CheckResult, CheckStatus, Event, TurnEnd};

pub(crate) use detect::PlannedCheck;
use testing::TestSelection;

/// Repair rounds per turn when the configuration does not say.
pub const DEFAULT_MAX_REPAIR_ROUNDS: u32 = 3;

/// Attempts per turn at a change a check reproduced, when the configuration does not say.
pub const DEFAULT_ATTEMPTS: u32 = 3;

/// Time limit of one check command.
const CHECK_TIMEOUT: Duration = Duration::from_secs(600);

/// The settings of the checks after edits (`[checks]` in the configuration).
#[derive(Clone)]
pub struct ChecksConfig {
    /// Whether checks run at all.
    pub enabled: bool,
    /// Whether the project's tests run after the other checks.
    pub run_tests: bool,
    /// The command that runs the tests (`[checks] tests`); without it hone tries what the
    /// project declares, then the fallbacks (see `hone_tools::project::test_commands`).
    pub tests: Option<String>,
    /// How many times per turn failing checks go back to the model (0: report only).
    pub max_repair_rounds: u32,
    /// Attempts per turn when a check reproduced the request before the change (a request
    /// check, or the project's tests failing): an attempt whose checks still fail is rolled
    /// back and a fresh one made; the first that passes is kept. 1: no fresh attempts.
    pub attempts: u32,
    /// Commands configured per language or glob; a language's entry replaces the checks
    /// hone would detect for that language.
    pub configured: Vec<ConfiguredCheck>,
    /// The syntax check of changed files (the code index's tree-sitter grammars); none
    /// skips it.
    pub syntax: Option<Arc<dyn SyntaxChecker>>,
}

impl Default for ChecksConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            run_tests: true,
            tests: None,
            max_repair_rounds: DEFAULT_MAX_REPAIR_ROUNDS,
            attempts: DEFAULT_ATTEMPTS,
            configured: Vec::new(),
            syntax: None,
        }
    }
}

impl ChecksConfig {
    /// No checks after edits.
    pub fn disabled() -> Self {
        Self {
            enabled: false,
            ..Self::default()
        }
    }
}

impl std::fmt::Debug for ChecksConfig {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ChecksConfig")
            .field("enabled", &self.enabled)
            .field("run_tests", &self.run_tests)
            .field("tests", &self.tests)
            .field("max_repair_rounds", &self.max_repair_rounds)
            .field("attempts", &self.attempts)
            .field("configured", &self.configured)
            .field("syntax", &self.syntax.is_some())
            .finish()
    }
}

/// Check commands for the files of one language or glob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfiguredCheck {
    /// Which changed files select these commands.
    pub target: CheckTarget,
    /// Shell command lines; `{files}` becomes the matching changed files, quoted.
    pub commands: Vec<String>,
}

/// What a configured check applies to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckTarget {
    /// A language: its name (`python`) and file extensions without the dot.
    Language {
        /// The language's name as written in the configuration.
        name: String,
        /// Its extensions (`py`, `pyi`).
        extensions: Vec<String>,
    },
    /// A glob over root-relative paths (`src/**/*.ts`).
    Glob(String),
}

/// The checks' state in a session: files changed since they last ran, repairs asked this
/// turn, and whether the last run failed.
pub(crate) struct CheckState {
    config: ChecksConfig,
    changed: Mutex<BTreeSet<String>>,
    repairs: u32,
    failing: bool,
    /// The checks authorized so far in the session, which number their call ids.
    checks_numbered: u32,
    /// What the model was told of the last failing run; before the turn's first change,
    /// the failing tests hone ran before asking the model.
    last_failures: Vec<String>,
    /// The turn changed files after the last check that could verify them (a passing
    /// check beyond the syntax check).
    unverified: bool,
    /// Which command runs the project's tests, once one did.
    tests: TestSelection,
    /// The project files the failing tests hone ran before the turn lead to (their
    /// traceback's code, the modules they import), for localisation to attach first.
    leads: Vec<String>,
    /// The checks this turn's request carries that reproduced it (they failed before the
    /// change); they run with the others after every change.
    requested: Vec<PlannedCheck>,
    /// A check failed before the turn's change (a request check, or the project's tests):
    /// the change can be verified, so failed attempts are rolled back and made afresh.
    reproduced: bool,
    /// One line per failing check of the last run.
    failure_lines: Vec<String>,
    /// Check commands the user allowed in this session: not asked again.
    allowed_by_user: BTreeSet<String>,
    /// The tests run now are the run before the change (the reproduction).
    before_change: bool,
}

impl CheckState {
    pub(crate) fn new(config: ChecksConfig) -> Self {
        Self {
            config,
            changed: Mutex::new(BTreeSet::new()),
            repairs: 0,
            failing: false,
            checks_numbered: 0,
            last_failures: Vec::new(),
            unverified: false,
            tests: TestSelection::default(),
            leads: Vec::new(),
            requested: Vec::new(),
            reproduced: false,
            failure_lines: Vec::new(),
            allowed_by_user: BTreeSet::new(),
            before_change: false,
        }
    }

    /// Notes the files an applied edit wrote.
    pub(crate) fn observe(&self, event: &Event) {
        if let Event::DiffApplied { paths, .. } = event
            && self.config.enabled
        {
            self.changed
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .extend(paths.iter().cloned());
        }
    }

    /// A new turn: no repairs asked yet, no failures seen.
    pub(crate) fn start_turn(&mut self) {
        self.repairs = 0;
        self.failing = false;
        self.last_failures.clear();
        self.unverified = false;
        self.leads.clear();
        self.requested.clear();
        self.reproduced = false;
        self.failure_lines.clear();
        self.tests.start_turn();
    }

    /// A fresh attempt in the same turn, after the last one was rolled back: its own repair
    /// rounds; what failed and what reproduced the request are kept.
    pub(crate) fn start_attempt(&mut self) {
        self.repairs = 0;
        self.failing = false;
        self.unverified = false;
        self.take_changed();
    }

    /// The attempts allowed when a check reproduced the request before the change; 1
    /// otherwise (nothing could tell a good attempt from a bad one).
    pub(crate) fn attempts(&self) -> u32 {
        if self.reproduced && self.config.enabled {
            self.config.attempts.max(1)
        } else {
            1
        }
    }

    /// Whether a check reproduced the request before the change.
    pub(crate) fn reproduced(&self) -> bool {
        self.reproduced && self.config.enabled
    }

    /// One line per failing check of the last run (`name: first error line`).
    pub(crate) fn failure_lines(&self) -> &[String] {
        &self.failure_lines
    }

    /// The project files the failing tests run before this turn lead to, best first.
    pub(crate) fn leads(&self) -> &[String] {
        &self.leads
    }

    fn take_changed(&self) -> Vec<String> {
        std::mem::take(&mut *self.changed.lock().unwrap_or_else(PoisonError::into_inner))
            .into_iter()
            .collect()
    }
}

/// One check command's run.
struct CheckRun {
    /// What the summary shows.
    result: CheckResult,
    /// What the model is told when it failed.
    failure: Option<report::FailureReport>,
    /// Its whole output, stdout then stderr, colours stripped.
    output: String,
    /// Its exit code, when it ran to its end.
    exit_code: Option<i32>,
}

/// What one run of the checks found.
struct RunOutcome {
    results: Vec<CheckResult>,
    /// What to tell the model, one section per failing check.
    failures: Vec<String>,
}

impl Agent {
    /// Runs the checks when files changed since they last ran. When they fail and repair
    /// rounds are left, tells the model what failed and returns true: the turn goes on.
    pub(crate) async fn check_and_repair(&mut self, cancel: &CancellationToken) -> bool {
        let Some(outcome) = self.run_checks(cancel).await else {
            return false;
        };
        // A cancelled check proves nothing; the turn ends as cancelled.
        if cancel.is_cancelled() {
            return false;
        }
        let passed = outcome.failures.is_empty();
        let verified = passed
            && outcome
                .results
                .iter()
                .any(|result| result.status == CheckStatus::Passed && !result.command.is_empty());
        self.checks.unverified = !verified;
        let repair = !passed && self.checks.repairs < self.checks.config.max_repair_rounds;
        if repair {
            self.checks.repairs += 1;
        }
        self.checks.failing = !passed;
        self.checks.failure_lines = failure_lines(&outcome.results);
        self.emit(Event::ChecksCompleted {
            passed,
            failures: self.checks.failure_lines.clone(),
            checks: outcome.results,
            repair_round: repair.then_some(self.checks.repairs),
            max_repair_rounds: self.checks.config.max_repair_rounds,
        });
        // What the model is told: the failures, and the checker's reading of them.
        let mut told = outcome.failures.clone();
        if repair && let Some(review) = self.review_failures(&told, cancel).await {
            told.push(format!("A reviewer read these failures: {review}"));
        }
        if repair {
            // A guided step whose new answer failed just as the last one starts afresh: a
            // small model shown its own failing code mostly writes it again. An answer
            // that changed what fails is repaired in place.
            let stalled = report::same_failures(&self.checks.last_failures, &outcome.failures);
            if !self.flow.offers_tools() && stalled {
                self.start_fresh_attempt(&told);
            } else {
                let text = report::repair_message(
                    &told,
                    self.checks.repairs,
                    self.checks.config.max_repair_rounds,
                    self.flow.offers_tools(),
                );
                self.push_history(Message::user(text));
            }
        }
        self.checks.last_failures = outcome.failures;
        repair
    }

    /// Asks for the turn's request to be answered anew: the failed answers are left out
    /// of the next requests, and the model is told what the checks said of them.
    fn start_fresh_attempt(&mut self, failures: &[String]) {
        let text = report::fresh_attempt_message(
            failures,
            self.checks.repairs,
            self.checks.config.max_repair_rounds,
        );
        self.push_fresh_attempt(text);
    }

    /// Takes one of the turn's repair rounds for a retry that is not about failing checks
    /// (a guided answer that changed nothing); false when none is left.
    pub(crate) fn use_repair_round(&mut self) -> bool {
        if self.checks.repairs >= self.checks.config.max_repair_rounds {
            return false;
        }
        self.checks.repairs += 1;
        true
    }

    /// The model answered failing checks with the code the file already holds. While repair
    /// rounds are left it is told so — the failures still stand — and asked for different
    /// code (a round is used); returns whether the turn goes on.
    pub(crate) fn repair_unchanged(&mut self) -> bool {
        if !self.checks.failing || self.checks.repairs >= self.checks.config.max_repair_rounds {
            return false;
        }
        self.checks.repairs += 1;
        if self.flow.offers_tools() {
            self.push_history(Message::user(report::unchanged_repair_message(
                self.checks.repairs,
                self.checks.config.max_repair_rounds,
            )));
        } else {
            let failures = self.checks.last_failures.clone();
            self.start_fresh_attempt(&failures);
        }
        true
    }

    /// The turn's end once the checks have had their say: files changed but not checked
    /// (the turn ended another way) are checked for the report, and an answer whose checks
    /// still fail ends as [`TurnEnd::ChecksFailed`].
    pub(crate) async fn settle_checks(
        &mut self,
        end: TurnEnd,
        cancel: &CancellationToken,
    ) -> TurnEnd {
        let saved = self.checks.config.max_repair_rounds;
        self.checks.config.max_repair_rounds = 0;
        self.check_and_repair(cancel).await;
        self.checks.config.max_repair_rounds = saved;
        if self.checks.failing && end == TurnEnd::Answered {
            TurnEnd::ChecksFailed
        } else if self.checks.unverified && end == TurnEnd::Answered {
            TurnEnd::Unverified
        } else {
            end
        }
    }

    /// Runs every check that applies to the files changed since the last run; `None` when
    /// checks are off or nothing changed.
    async fn run_checks(&mut self, cancel: &CancellationToken) -> Option<RunOutcome> {
        if !self.checks.config.enabled || cancel.is_cancelled() {
            return None;
        }
        let changed = self.checks.take_changed();
        if changed.is_empty() {
            return None;
        }
        self.emit(Event::ChecksStarted {
            files: changed.clone(),
        });
        let mut outcome = RunOutcome {
            results: Vec::new(),
            failures: Vec::new(),
        };
        let root = self.context.root().to_path_buf();
        if let Some(syntax) = self.checks.config.syntax.clone() {
            let started = Instant::now();
            let found = report::syntax_failures(self.context.guard(), &changed, syntax.as_ref());
            outcome.results.push(CheckResult {
                name: "syntax".to_string(),
                command: String::new(),
                status: if found.is_empty() {
                    CheckStatus::Passed
                } else {
                    CheckStatus::Failed
                },
                duration_ms: millis(started),
                detail: found
                    .first()
                    .and_then(|text| text.lines().nth(1))
                    .unwrap_or("")
                    .to_string(),
            });
            if !found.is_empty() {
                outcome.failures.push(found.join("\n"));
                return Some(outcome);
            }
        }
        let requested = self.checks.requested.clone();
        for check in detect::plan(&root, &changed, &self.checks.config)
            .into_iter()
            .chain(requested)
        {
            let run = self.run_check(&changed, &check, cancel).await;
            outcome.results.push(run.result);
            outcome
                .failures
                .extend(run.failure.map(|failure| failure.text));
            if cancel.is_cancelled() {
                return Some(outcome);
            }
        }
        // Tests after failing compile checks only add noise.
        if outcome.failures.is_empty()
            && self.checks.config.run_tests
            && detect::code_changed(&changed)
        {
            let tests = self.run_project_tests(&changed, cancel).await;
            outcome.results.extend(tests.results);
            outcome
                .failures
                .extend(tests.failure.map(|failure| failure.text));
        }
        Some(outcome)
    }

    /// Runs one check command through the policy and the command runner.
    async fn run_check(
        &mut self,
        changed: &[String],
        check: &PlannedCheck,
        cancel: &CancellationToken,
    ) -> CheckRun {
        let mut result = CheckResult {
            name: check.name.clone(),
            command: check.command.clone(),
            status: CheckStatus::Skipped,
            duration_ms: 0,
            detail: String::new(),
        };
        let command = match self.allow_check(&check.command, cancel).await {
            Ok(command) => command,
            Err(why) => {
                result.detail = why;
                return CheckRun {
                    result,
                    failure: None,
                    output: String::new(),
                    exit_code: None,
                };
            }
        };
        result.command.clone_from(&command);
        let plan = CommandPlan {
            display: command.clone(),
            invocation: Invocation::Shell(command.clone()),
            timeout: CHECK_TIMEOUT,
            background: false,
        };
        let started = Instant::now();
        self.audit.command_script(&plan.display);
        let FullOutput {
            output,
            stdout,
            stderr,
            changes,
        } = hone_tools::command::execute_full(&self.context, &plan, cancel).await;
        result.duration_ms = millis(started);
        if let Some(changes) = changes {
            // A check that writes files (snapshots, generated code) has them applied and
            // journaled like a command's, never asking in the middle of the checks.
            let call = ToolCall {
                id: format!("check_changes_{}", check.name),
                name: "check".to_string(),
                arguments: serde_json::json!({ "command": command }).to_string(),
            };
            let report = self
                .settle_command_changes(&call, changes, Asking::Never, cancel)
                .await;
            tracing::info!(check = %check.name, %report, "a check changed files");
        }
        // The whole output, colours stripped: the failing tests are found in it even
        // where the model's shortened copy leaves them out.
        let whole = failures::strip_colors(&format!("{stdout}\n{stderr}"));
        if !output.is_error {
            result.status = CheckStatus::Passed;
            return CheckRun {
                result,
                failure: None,
                output: whole,
                exit_code: output.exit_code,
            };
        }
        result.status = CheckStatus::Failed;
        let report = report::command_failure(
            self.context.guard(),
            changed,
            &command,
            &output.content,
            &whole,
            &check.source_dirs,
        );
        result.detail = requested::verdict(&whole)
            .or_else(|| report.summary.clone())
            .unwrap_or_else(|| report::first_error_line(&output.content));
        CheckRun {
            result,
            failure: Some(report),
            output: whole,
            exit_code: output.exit_code,
        }
    }
}

/// `name: first error line` for each failing check.
fn failure_lines(results: &[CheckResult]) -> Vec<String> {
    results
        .iter()
        .filter(|result| result.status == CheckStatus::Failed)
        .map(|result| {
            if result.detail.is_empty() {
                result.name.clone()
            } else {
                format!("{}: {}", result.name, result.detail)
            }
        })
        .collect()
}

fn millis(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}
