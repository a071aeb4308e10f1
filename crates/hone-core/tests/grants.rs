//! What "always for this session" grants, through a session: the one rule of the policy,
//! whether the user answered it for one of hone's checks or for the model's command.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use hone_api::{ApprovalDecision, Event, EventFrame, Request};
use hone_config::{ApiKey, ProviderConfig, preset};
use hone_core::{CheckTarget, ChecksConfig, ConfiguredCheck, SessionConfig, SessionHandle};
use hone_policy::{ApprovalMode, CommandPolicy, Permissions};
use hone_testkit::{MockServer, Reply};
use serde_json::json;
use tokio::sync::mpsc::UnboundedReceiver;

const UNITTEST: &str = "python3 -B -m unittest -q test_calc";

struct Session {
    _dir: tempfile::TempDir,
    _server: MockServer,
    handle: SessionHandle,
    events: UnboundedReceiver<EventFrame>,
}

async fn session(replies: Vec<Reply>) -> Session {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("calc.py"), "def add(a, b):\n    return a - b\n").unwrap();
    std::fs::write(
        root.join("test_calc.py"),
        "import unittest\n\nimport calc\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(calc.add(2, 3), 5)\n",
    )
    .unwrap();
    let server = MockServer::start().await;
    for reply in replies {
        server.enqueue(reply.openai_chat());
    }
    let mut config = ProviderConfig::from_preset(preset("openai").unwrap());
    config.base_url = server.url();
    config.api_key = Some(ApiKey::new("key-for-tests-123"));
    let provider = hone_providers::build_provider(config).unwrap();
    let (handle, events) = hone_core::start_session(SessionConfig {
        root,
        provider,
        model: String::new(),
        permissions: Permissions::new(ApprovalMode::AutoEdit, CommandPolicy::default()),
        max_tool_rounds: 25,
        interactive: true,
        audit: false,
        secrets: Vec::new(),
        commands: Default::default(),
        extra_tools: Vec::new(),
        tool_sources: Vec::new(),
        repo_map: None,
        prompt_profile: hone_core::PromptProfile::Full,
        memory: None,
        context: hone_core::ContextConfig::default(),
        checks: ChecksConfig {
            configured: vec![ConfiguredCheck {
                target: CheckTarget::Language {
                    name: "python".into(),
                    extensions: vec!["py".into()],
                },
                commands: vec![UNITTEST.into()],
            }],
            run_tests: false,
            ..ChecksConfig::default()
        },
        code_mapper: None,
        localizer: None,
        guidance: hone_core::Guidance::default(),
        roles: hone_core::RoleModels::default(),
        hooks: hone_core::Hooks::default(),
    })
    .unwrap();
    Session {
        _dir: dir,
        _server: server,
        handle,
        events,
    }
}

impl Session {
    /// Runs a turn, answering every question "always"; returns its events and the
    /// commands asked about.
    async fn turn(&mut self, text: &str) -> (Vec<Event>, Vec<String>) {
        self.turn_answering(text, ApprovalDecision::AlwaysForSession)
            .await
    }

    /// Runs a turn, answering every question `decision`; returns its events and the
    /// commands asked about.
    async fn turn_answering(
        &mut self,
        text: &str,
        decision: ApprovalDecision,
    ) -> (Vec<Event>, Vec<String>) {
        self.handle.send(Request::user_message(text));
        let mut seen = Vec::new();
        let mut asked = Vec::new();
        loop {
            let event = tokio::time::timeout(Duration::from_secs(60), self.events.recv())
                .await
                .expect("no event for 60 s")
                .expect("session alive")
                .event;
            if let Event::ApprovalNeeded {
                call_id, command, ..
            } = &event
            {
                asked.push(command.clone().unwrap_or_default());
                self.handle.send(Request::Approval {
                    call_id: call_id.clone(),
                    decision: decision.clone(),
                });
            }
            let done = matches!(
                event,
                Event::TurnCompleted { .. }
                    | Event::TurnFailed { .. }
                    | Event::TurnCancelled { .. }
            );
            seen.push(event);
            if done {
                return (seen, asked);
            }
        }
    }
}

#[tokio::test]
async fn always_for_a_check_grants_what_always_for_the_models_command_grants() {
    let run = |command: &str| Reply::new().tool_call("run_command", json!({ "command": command }));
    let mut session = session(vec![
        Reply::new().tool_call(
            "edit_file",
            json!({"path": "calc.py", "old_text": "a - b", "new_text": "a + b"}),
        ),
        Reply::new().text("Fixed."),
        // The next turn: the same program and module, other arguments.
        run("python3 -B -m unittest -v test_calc"),
        Reply::new().text("The tests pass."),
        // Another program still asks.
        run("python3 -c 'print(1)'"),
        Reply::new().text("Printed."),
    ])
    .await;
    let (_, asked) = session.turn("fix add in calc.py").await;
    // The check asked once; "always" granted its program and module.
    assert_eq!(asked, [UNITTEST]);
    let (events, asked) = session.turn("run the tests verbosely").await;
    assert!(asked.is_empty(), "granted by the check's answer: {asked:?}");
    assert!(
        events.iter().any(|event| matches!(
            event,
            Event::ToolCompleted { name, is_error: false, .. } if name == "run_command"
        )),
        "{events:?}"
    );
    let (_, asked) = session.turn("print one").await;
    assert_eq!(asked, ["python3 -c 'print(1)'"]);
}

#[tokio::test]
async fn a_check_the_user_allowed_once_is_not_asked_again_in_the_session() {
    let edit = |old: &str, new: &str| {
        Reply::new().tool_call(
            "edit_file",
            json!({"path": "calc.py", "old_text": old, "new_text": new}),
        )
    };
    let mut session = session(vec![
        edit("a - b", "a + b"),
        Reply::new().text("Fixed."),
        edit("a + b", "b + a"),
        Reply::new().text("Swapped."),
    ])
    .await;
    let (_, asked) = session
        .turn_answering("fix add in calc.py", ApprovalDecision::Approve)
        .await;
    assert_eq!(asked, [UNITTEST]);
    let (events, asked) = session
        .turn_answering("swap the operands", ApprovalDecision::Approve)
        .await;
    assert!(asked.is_empty(), "asked again: {asked:?}");
    // It ran, unasked.
    let ran = events.iter().any(|event| match event {
        Event::ChecksCompleted { checks, .. } => checks.iter().any(|check| {
            check.command == UNITTEST && check.status == hone_api::CheckStatus::Passed
        }),
        _ => false,
    });
    assert!(ran, "{events:?}");
}
