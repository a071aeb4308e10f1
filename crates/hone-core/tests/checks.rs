//! Checks after edits against a scripted model: failures go back to the model with the
//! error lines and the code around them, repairs are counted, the policy is obeyed.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hone_api::{CheckStatus, Event, Request, TurnEnd};
use hone_config::{ApiKey, ProviderConfig, preset};
use hone_core::{CheckTarget, ChecksConfig, ConfiguredCheck, SessionConfig};
use hone_policy::{ApprovalMode, CommandPolicy, Permissions};
use hone_testkit::{MockServer, Reply};
use hone_tools::{SyntaxChecker, SyntaxError};
use serde_json::json;

const BUGGY: &str = "def add(a, b):\n    return a - b\n";
const TEST: &str = "import unittest\n\nimport calc\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(calc.add(2, 3), 5)\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n";
const UNITTEST: &str = "python3 -B -m unittest -q test_calc";

fn python_checks(max_repair_rounds: u32) -> ChecksConfig {
    ChecksConfig {
        configured: vec![ConfiguredCheck {
            target: CheckTarget::Language {
                name: "python".into(),
                extensions: vec!["py".into()],
            },
            commands: vec![UNITTEST.into()],
        }],
        run_tests: false,
        max_repair_rounds,
        ..ChecksConfig::default()
    }
}

struct Run {
    events: Vec<Event>,
    requests: Vec<serde_json::Value>,
    root: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

async fn run(
    replies: Vec<Reply>,
    checks: ChecksConfig,
    permissions: Permissions,
    interactive: bool,
) -> Run {
    run_with_roles(
        replies,
        checks,
        permissions,
        interactive,
        hone_core::RoleModels::default(),
    )
    .await
}

async fn run_with_roles(
    replies: Vec<Reply>,
    checks: ChecksConfig,
    permissions: Permissions,
    interactive: bool,
    roles: hone_core::RoleModels,
) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("calc.py"), BUGGY).unwrap();
    std::fs::write(root.join("test_calc.py"), TEST).unwrap();
    let server = MockServer::start().await;
    for reply in replies {
        server.enqueue(reply.openai_chat());
    }
    let mut config = ProviderConfig::from_preset(preset("openai").unwrap());
    config.base_url = server.url();
    config.api_key = Some(ApiKey::new("key-for-tests-123"));
    let provider = hone_providers::build_provider(config).unwrap();
    let (handle, mut events) = hone_core::start_session(SessionConfig {
        root: root.clone(),
        provider,
        model: String::new(),
        permissions,
        max_tool_rounds: 25,
        interactive,
        audit: false,
        secrets: Vec::new(),
        extra_tools: Vec::new(),
        tool_sources: Vec::new(),
        repo_map: None,
        prompt_profile: hone_core::PromptProfile::Full,
        memory: None,
        context: hone_core::ContextConfig::default(),
        checks,
        code_mapper: None,
        commands: Default::default(),
        localizer: None,
        guidance: hone_core::Guidance::default(),
        roles,
        hooks: hone_core::Hooks::default(),
    })
    .unwrap();
    handle.send(Request::user_message("fix add in calc.py"));
    let mut seen = Vec::new();
    loop {
        let event = tokio::time::timeout(Duration::from_secs(60), events.recv())
            .await
            .expect("no event for 60 s")
            .expect("session alive")
            .event;
        let done = matches!(
            event,
            Event::TurnCompleted { .. } | Event::TurnFailed { .. } | Event::TurnCancelled { .. }
        );
        seen.push(event);
        if done {
            break;
        }
    }
    Run {
        events: seen,
        requests: server.requests().iter().map(|r| r.json()).collect(),
        root,
        _dir: dir,
    }
}

fn full_auto() -> Permissions {
    Permissions::new(ApprovalMode::FullAuto, CommandPolicy::default())
}

fn edit(old: &str, new: &str) -> Reply {
    Reply::new().tool_call(
        "edit_file",
        json!({"path": "calc.py", "old_text": old, "new_text": new}),
    )
}

/// The `checks.completed` events as (passed, repair round, statuses).
fn completions(events: &[Event]) -> Vec<(bool, Option<u32>, Vec<CheckStatus>)> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::ChecksCompleted {
                passed,
                checks,
                repair_round,
                ..
            } => Some((
                *passed,
                *repair_round,
                checks.iter().map(|check| check.status).collect(),
            )),
            _ => None,
        })
        .collect()
}

fn end(events: &[Event]) -> TurnEnd {
    match events.last() {
        Some(Event::TurnCompleted { end, .. }) => *end,
        other => panic!("the turn did not complete: {other:?}"),
    }
}

/// Text of the last user message of a recorded OpenAI request.
fn last_user_text(request: &serde_json::Value) -> String {
    let messages = request["messages"].as_array().unwrap();
    messages
        .iter()
        .rev()
        .find(|message| message["role"] == "user")
        .map(|message| message["content"].to_string())
        .unwrap_or_default()
}

#[tokio::test]
async fn a_failing_check_goes_back_to_the_model_until_it_is_fixed() {
    let run = run(
        vec![
            edit("def add(a, b):", "def add(a, b):  # adds"),
            Reply::new().text("Done."),
            edit("return a - b", "return a + b"),
            Reply::new().text("Fixed: add now adds."),
        ],
        python_checks(3),
        full_auto(),
        false,
    )
    .await;
    assert_eq!(
        completions(&run.events),
        [
            (false, Some(1), vec![CheckStatus::Failed]),
            (true, None, vec![CheckStatus::Passed]),
        ]
    );
    assert_eq!(end(&run.events), TurnEnd::Answered);
    assert_eq!(run.requests.len(), 4);
    let told = last_user_text(&run.requests[2]);
    assert!(told.contains("repair round 1 of 3"), "{told}");
    assert!(told.contains("AssertionError: -1 != 5"), "{told}");
    assert!(told.contains(UNITTEST), "{told}");
    assert!(told.contains("test_calc.py around line 8"), "{told}");
    assert!(
        told.contains(">  8 |         self.assertEqual(calc.add(2, 3), 5)"),
        "{told}"
    );
    let fixed = std::fs::read_to_string(run.root.join("calc.py")).unwrap();
    assert!(fixed.contains("a + b"));
    let started = run
        .events
        .iter()
        .filter(|event| matches!(event, Event::ChecksStarted { .. }))
        .count();
    assert_eq!(started, 2);
}

#[tokio::test]
async fn repairs_stop_at_max_repair_rounds_and_the_turn_says_checks_failed() {
    let run = run(
        vec![
            edit("def add(a, b):", "def add(a, b):  # one"),
            Reply::new().text("Done."),
            edit("# one", "# two"),
            Reply::new().text("Done again."),
        ],
        python_checks(1),
        full_auto(),
        false,
    )
    .await;
    assert_eq!(
        completions(&run.events),
        [
            (false, Some(1), vec![CheckStatus::Failed]),
            (false, None, vec![CheckStatus::Failed]),
        ]
    );
    assert_eq!(run.requests.len(), 4);
    assert_eq!(end(&run.events), TurnEnd::ChecksFailed);
    let Some(Event::ChecksCompleted { failures, .. }) = run
        .events
        .iter()
        .rev()
        .find(|event| matches!(event, Event::ChecksCompleted { .. }))
    else {
        unreachable!()
    };
    assert!(
        failures[0] == "python3 -m unittest: test_calc.T.test_add: AssertionError: -1 != 5",
        "{failures:?}"
    );
}

#[tokio::test]
async fn no_repair_rounds_reports_only() {
    let run = run(
        vec![edit("# none", "# none"), Reply::new().text("ok")],
        python_checks(0),
        full_auto(),
        false,
    )
    .await;
    // The edit failed (no such text): nothing changed, so no checks ran, and the turn
    // asked to fix something says it changed nothing.
    assert!(completions(&run.events).is_empty());
    assert_eq!(end(&run.events), TurnEnd::NoChange);
    let run = run_with_comment(python_checks(0)).await;
    assert_eq!(
        completions(&run.events),
        [(false, None, vec![CheckStatus::Failed])]
    );
    assert_eq!(run.requests.len(), 2);
    assert_eq!(end(&run.events), TurnEnd::ChecksFailed);
}

async fn run_with_comment(checks: ChecksConfig) -> Run {
    run(
        vec![
            edit("def add(a, b):", "def add(a, b):  # adds"),
            Reply::new().text("Done."),
        ],
        checks,
        full_auto(),
        false,
    )
    .await
}

#[tokio::test]
async fn a_check_the_policy_denies_is_skipped() {
    let policy = CommandPolicy::new(&[], &["python3".to_string()]).unwrap();
    let run = run(
        vec![
            edit("def add(a, b):", "def add(a, b):  # adds"),
            Reply::new().text("Done."),
        ],
        python_checks(3),
        Permissions::new(ApprovalMode::FullAuto, policy),
        false,
    )
    .await;
    assert_eq!(
        completions(&run.events),
        [(true, None, vec![CheckStatus::Skipped])]
    );
    // No check verified the change: the turn says so.
    assert_eq!(end(&run.events), TurnEnd::Unverified);
    let Some(Event::ChecksCompleted { checks, .. }) = run
        .events
        .iter()
        .find(|event| matches!(event, Event::ChecksCompleted { .. }))
    else {
        unreachable!()
    };
    assert!(checks[0].detail.contains("denied"), "{:?}", checks[0]);
}

#[tokio::test]
async fn a_check_that_would_ask_is_skipped_without_a_terminal() {
    let run = run(
        vec![
            edit("def add(a, b):", "def add(a, b):  # adds"),
            Reply::new().text("Done."),
        ],
        python_checks(3),
        Permissions::new(ApprovalMode::AutoEdit, CommandPolicy::default()),
        false,
    )
    .await;
    assert_eq!(
        completions(&run.events),
        [(true, None, vec![CheckStatus::Skipped])]
    );
    let Some(Event::ChecksCompleted { checks, .. }) = run
        .events
        .iter()
        .find(|event| matches!(event, Event::ChecksCompleted { .. }))
    else {
        unreachable!()
    };
    assert!(
        checks[0].detail.contains("needs approval"),
        "{:?}",
        checks[0]
    );
}

#[tokio::test]
async fn disabled_checks_do_not_run() {
    let mut checks = python_checks(3);
    checks.enabled = false;
    let run = run_with_comment(checks).await;
    assert!(completions(&run.events).is_empty());
    assert_eq!(end(&run.events), TurnEnd::Answered);
}

/// Reports a syntax error on every line holding `((`.
struct DoubleParen;

impl SyntaxChecker for DoubleParen {
    fn syntax_errors(&self, path: &Path, source: &str) -> Option<Vec<SyntaxError>> {
        if path.extension().is_none_or(|ext| ext != "py") {
            return None;
        }
        Some(
            source
                .lines()
                .enumerate()
                .filter(|(_, line)| line.contains("(("))
                .map(|(index, _)| SyntaxError {
                    line: index + 1,
                    column: 1,
                    message: "unbalanced `(`".into(),
                })
                .collect(),
        )
    }
}

#[tokio::test]
async fn syntax_errors_come_first_and_stop_the_other_checks() {
    let mut checks = python_checks(3);
    checks.syntax = Some(Arc::new(DoubleParen));
    let run = run(
        vec![
            edit("return a - b", "return ((a + b)"),
            Reply::new().text("Done."),
            edit("return ((a + b)", "return a + b"),
            Reply::new().text("Fixed."),
        ],
        checks,
        full_auto(),
        false,
    )
    .await;
    assert_eq!(
        completions(&run.events),
        [
            (false, Some(1), vec![CheckStatus::Failed]),
            (true, None, vec![CheckStatus::Passed, CheckStatus::Passed]),
        ]
    );
    let told = last_user_text(&run.requests[2]);
    assert!(told.contains("syntax errors in calc.py"), "{told}");
    assert!(told.contains("calc.py:2:1: unbalanced `(`"), "{told}");
    assert!(!told.contains("unittest"), "{told}");
}

#[tokio::test]
async fn a_checker_reads_the_failures_and_the_coder_is_told_what_it_said() {
    let roles = hone_core::RoleModels {
        checker: Some(hone_core::RoleModel::named("checker-model")),
        ..hone_core::RoleModels::default()
    };
    let result = run_with_roles(
        vec![
            edit("return a - b", "return a * b"),
            Reply::new().text("Done."),
            Reply::new().text("add multiplies its arguments; it should return a + b."),
            edit("return a * b", "return a + b"),
            Reply::new().text("Fixed."),
        ],
        python_checks(2),
        full_auto(),
        false,
        roles,
    )
    .await;
    assert_eq!(end(&result.events), TurnEnd::Answered);
    assert_eq!(
        std::fs::read_to_string(result.root.join("calc.py")).unwrap(),
        "def add(a, b):\n    return a + b\n"
    );
    let checker = &result.requests[2];
    assert_eq!(checker["model"], "checker-model");
    assert!(
        checker
            .to_string()
            .contains("You review the failing checks"),
        "{checker}"
    );
    assert!(checker.to_string().contains("test_add"), "{checker}");
    let repair = result.requests[3].to_string();
    assert!(
        repair.contains("A reviewer read these failures: add multiplies its arguments"),
        "{repair}"
    );
    let stats = result
        .events
        .iter()
        .find_map(|event| match event {
            Event::TurnCompleted { stats, .. } => Some(*stats),
            _ => None,
        })
        .unwrap();
    assert_eq!(stats.model_requests, 5);
}
