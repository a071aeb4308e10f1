//! A tool call's reported duration counts its execution, not the time the user took to
//! approve it.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use hone_api::{ApprovalDecision, Event, Request};
use hone_config::{ApiKey, ProviderConfig, preset};
use hone_core::SessionConfig;
use hone_policy::{ApprovalMode, CommandPolicy, Permissions};
use hone_testkit::{MockServer, Reply};
use serde_json::json;

/// How long the scripted user takes to answer the approval.
const THINKING_TIME: Duration = Duration::from_millis(1_500);

#[tokio::test]
async fn an_approved_edit_reports_its_run_time_without_the_approval_wait() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("notes.txt"), "alpha\nbeta\n").unwrap();
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .tool_call(
                "edit_file",
                json!({"path": "notes.txt", "old_text": "beta", "new_text": "BETA"}),
            )
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("Done.").openai_chat());
    let mut config = ProviderConfig::from_preset(preset("openai").unwrap());
    config.base_url = server.url();
    config.api_key = Some(ApiKey::new("key-for-tests-123"));
    let (handle, mut events) = hone_core::start_session(SessionConfig {
        root: root.clone(),
        provider: hone_providers::build_provider(config).unwrap(),
        model: String::new(),
        permissions: Permissions::new(ApprovalMode::Ask, CommandPolicy::default()),
        max_tool_rounds: 5,
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

    handle.send(Request::user_message("shout beta"));
    let mut reported = None;
    loop {
        let event = tokio::time::timeout(Duration::from_secs(20), events.recv())
            .await
            .expect("no event for 20 s")
            .expect("session alive")
            .event;
        match event {
            Event::ApprovalNeeded { call_id, .. } => {
                // The user reads the diff for a while before approving.
                tokio::time::sleep(THINKING_TIME).await;
                handle.send(Request::Approval {
                    call_id,
                    decision: ApprovalDecision::Approve,
                });
            }
            Event::ToolCompleted {
                duration_ms,
                is_error,
                ..
            } => {
                assert!(!is_error);
                reported = Some(duration_ms);
            }
            Event::TurnCompleted { stats, .. } => {
                // The turn itself did last through the wait.
                assert!(stats.duration_ms >= THINKING_TIME.as_millis() as u64);
                break;
            }
            Event::TurnFailed { error, .. } => panic!("the turn failed: {error:?}"),
            _ => {}
        }
    }
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "alpha\nBETA\n"
    );
    let reported = reported.expect("the edit completed");
    // Writing one small file takes a few milliseconds; the approval took 1.5 s. Half of
    // the wait is a generous margin for a loaded machine, and still fails if the wait
    // were counted.
    assert!(
        u128::from(reported) < THINKING_TIME.as_millis() / 2,
        "the edit reported {reported} ms, the approval wait was {THINKING_TIME:?}"
    );
}
