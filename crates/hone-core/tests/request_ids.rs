//! Request ids: the events of a turn carry the id of the user message that started it, the
//! answers to other requests carry theirs, and tool events carry structured fields.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use hone_api::{ApprovalDecision, Event, EventFrame, Request, RequestFrame};
use hone_config::{ApiKey, ProviderConfig, preset};
use hone_core::{SessionConfig, SessionHandle};
use hone_policy::{ApprovalMode, CommandPolicy, Permissions};
use hone_testkit::{MockServer, Reply};
use serde_json::json;
use tokio::sync::mpsc::UnboundedReceiver;

async fn start(
    replies: Vec<Reply>,
) -> (
    tempfile::TempDir,
    MockServer,
    SessionHandle,
    UnboundedReceiver<EventFrame>,
) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
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
        permissions: Permissions::new(ApprovalMode::Ask, CommandPolicy::default()),
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
        checks: hone_core::ChecksConfig::disabled(),
        code_mapper: None,
        localizer: None,
        guidance: hone_core::Guidance::default(),
        roles: hone_core::RoleModels::default(),
        hooks: hone_core::Hooks::default(),
    })
    .unwrap();
    (dir, server, handle, events)
}

async fn next(events: &mut UnboundedReceiver<EventFrame>) -> EventFrame {
    tokio::time::timeout(Duration::from_secs(20), events.recv())
        .await
        .expect("no event for 20 s")
        .expect("session alive")
}

/// Frames until the turn ends, approving every call with `approval-N` ids.
async fn turn(
    handle: &SessionHandle,
    events: &mut UnboundedReceiver<EventFrame>,
) -> Vec<EventFrame> {
    let mut seen = Vec::new();
    loop {
        let frame = next(events).await;
        if let Event::ApprovalNeeded { call_id, .. } = &frame.event {
            handle.submit(RequestFrame::new(
                format!("approval-{call_id}"),
                Request::Approval {
                    call_id: call_id.clone(),
                    decision: ApprovalDecision::Approve,
                },
            ));
        }
        let done = matches!(
            frame.event,
            Event::TurnCompleted { .. } | Event::TurnFailed { .. } | Event::TurnCancelled { .. }
        );
        seen.push(frame);
        if done {
            return seen;
        }
    }
}

#[tokio::test]
async fn every_event_of_a_turn_carries_the_user_message_id() {
    let (_dir, _server, handle, mut events) = start(vec![
        Reply::new().tool_call("run_command", json!({"command": "exit 3"})),
        Reply::new().text("It failed with 3."),
    ])
    .await;
    let started = next(&mut events).await;
    assert!(matches!(started.event, Event::SessionStarted { .. }));
    assert_eq!(started.request_id, None);
    assert!(handle.submit(RequestFrame::new("u1", Request::user_message("run it"))));
    let frames = turn(&handle, &mut events).await;
    assert!(frames.len() > 4, "{frames:?}");
    for frame in &frames {
        assert_eq!(frame.request_id.as_deref(), Some("u1"), "{frame:?}");
    }
    let arguments = frames
        .iter()
        .find_map(|frame| match &frame.event {
            Event::ToolRequested { arguments, .. } => Some(arguments.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(arguments, json!({"command": "exit 3"}));
    let exit_code = frames
        .iter()
        .find_map(|frame| match &frame.event {
            Event::ToolCompleted {
                exit_code,
                is_error,
                ..
            } => Some((*exit_code, *is_error)),
            _ => None,
        })
        .unwrap();
    assert_eq!(exit_code, (Some(3), true));
}

#[tokio::test]
async fn other_answers_carry_their_request_id() {
    let (_dir, _server, handle, mut events) = start(Vec::new()).await;
    next(&mut events).await;
    let id = handle.send(Request::ListUndo).unwrap();
    assert!(id.starts_with('h'));
    let answer = next(&mut events).await;
    assert!(
        matches!(answer.event, Event::UndoStack { .. }),
        "{answer:?}"
    );
    assert_eq!(answer.request_id, Some(id.clone()));
    let second = handle.send(Request::ListUndo).unwrap();
    assert_ne!(second, id);
    assert_eq!(next(&mut events).await.request_id, Some(second));
}

#[tokio::test]
async fn session_requests_are_refused_by_a_session_with_their_id() {
    let (_dir, _server, handle, mut events) = start(Vec::new()).await;
    next(&mut events).await;
    handle.submit(RequestFrame::new(
        "s1",
        Request::ListSessions { limit: None },
    ));
    let answer = next(&mut events).await;
    assert_eq!(answer.request_id.as_deref(), Some("s1"));
    let Event::Error { error } = answer.event else {
        panic!("expected an error, got {answer:?}");
    };
    assert!(
        error.message.contains("goes to the server"),
        "{}",
        error.message
    );
}
