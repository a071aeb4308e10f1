//! The session protocol against a mock model: approvals, denials, edits, grants, cancel, undo.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use hone_api::{ApprovalDecision, ConflictChoice, Event, EventFrame, Request, TurnEnd};
use hone_config::{ApiKey, ProviderConfig, preset};
use hone_core::{SessionConfig, SessionHandle};
use hone_policy::{ApprovalMode, CommandPolicy, Permissions};
use hone_testkit::{MockServer, Reply};
use serde_json::json;
use tokio::sync::mpsc::UnboundedReceiver;

struct Harness {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    server: MockServer,
    handle: SessionHandle,
    events: UnboundedReceiver<EventFrame>,
    /// How edit conflicts are answered.
    conflict_choice: ConflictChoice,
}

async fn harness(mode: ApprovalMode, replies: Vec<Reply>) -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("notes.txt"), "alpha\nbeta\ngamma\n").unwrap();
    let server = MockServer::start().await;
    for reply in replies {
        server.enqueue(reply.openai_chat());
    }
    let mut config = ProviderConfig::from_preset(preset("openai").unwrap());
    config.base_url = server.url();
    config.api_key = Some(ApiKey::new("key-for-tests-123"));
    let provider = hone_providers::build_provider(config).unwrap();
    let (handle, events) = hone_core::start_session(SessionConfig {
        root: root.clone(),
        provider,
        model: String::new(),
        permissions: Permissions::new(mode, CommandPolicy::default()),
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
    Harness {
        _dir: dir,
        root,
        server,
        handle,
        events,
        conflict_choice: ConflictChoice::Regenerate,
    }
}

impl Harness {
    /// Sends `text` and answers approvals with `answer` until the turn ends; returns all events.
    async fn turn(
        &mut self,
        text: &str,
        mut answer: impl FnMut(&Event) -> Option<ApprovalDecision>,
    ) -> Vec<Event> {
        self.handle.send(Request::user_message(text));
        let mut seen = Vec::new();
        loop {
            let event = tokio::time::timeout(Duration::from_secs(20), self.events.recv())
                .await
                .expect("no event for 20 s")
                .expect("session alive")
                .event;
            if let Event::ApprovalNeeded { call_id, .. } = &event
                && let Some(decision) = answer(&event)
            {
                self.handle.send(Request::Approval {
                    call_id: call_id.clone(),
                    decision,
                });
            }
            if let Event::EditConflict { .. } = &event {
                self.handle.send(Request::ConflictChoice {
                    choice: self.conflict_choice,
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
                return seen;
            }
        }
    }
}

fn count(events: &[Event], predicate: impl Fn(&Event) -> bool) -> usize {
    events.iter().filter(|event| predicate(event)).count()
}

fn outputs(events: &[Event]) -> Vec<(String, bool)> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::ToolCompleted {
                output, is_error, ..
            } => Some((output.clone(), *is_error)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn an_approved_edit_is_applied_and_undo_takes_it_back() {
    let mut h = harness(
        ApprovalMode::Ask,
        vec![
            Reply::new().tool_call(
                "edit_file",
                json!({"path": "notes.txt", "old_text": "beta", "new_text": "BETA"}),
            ),
            Reply::new().text("Done."),
        ],
    )
    .await;
    let events = h
        .turn("shout beta", |event| {
            let Event::ApprovalNeeded { diff, content, .. } = event else {
                return None;
            };
            assert!(diff.as_deref().unwrap().contains("+BETA"));
            assert_eq!(content.as_deref(), Some("alpha\nBETA\ngamma\n"));
            Some(ApprovalDecision::Approve)
        })
        .await;
    assert_eq!(
        count(&events, |e| matches!(e, Event::DiffApplied { .. })),
        1
    );
    assert!(matches!(
        events.last(),
        Some(Event::TurnCompleted {
            end: TurnEnd::Answered,
            ..
        })
    ));
    assert_eq!(
        std::fs::read_to_string(h.root.join("notes.txt")).unwrap(),
        "alpha\nBETA\ngamma\n"
    );

    h.handle.send(Request::Undo { count: 1 });
    let undone = h.events.recv().await.unwrap().event;
    assert!(
        matches!(undone, Event::UndoCompleted { ref undone } if undone.len() == 1),
        "{undone:?}"
    );
    assert_eq!(
        std::fs::read_to_string(h.root.join("notes.txt")).unwrap(),
        "alpha\nbeta\ngamma\n"
    );
}

#[tokio::test]
async fn a_command_repeated_in_the_same_reply_runs_once() {
    let command = json!({"command": "echo hi >> log.txt"});
    let mut h = harness(
        ApprovalMode::FullAuto,
        vec![
            Reply::new()
                .tool_call("run_command", command.clone())
                .tool_call("run_command", command),
            Reply::new().text("Done."),
        ],
    )
    .await;
    let events = h.turn("log hi", |_| None).await;
    let outputs = outputs(&events);
    assert_eq!(outputs.len(), 2, "{outputs:?}");
    assert!(!outputs[1].1, "{outputs:?}");
    assert!(outputs[1].0.contains("same call as call_0"), "{outputs:?}");
    assert_eq!(
        std::fs::read_to_string(h.root.join("log.txt")).unwrap(),
        "hi\n",
        "the command ran once"
    );
    assert!(matches!(
        events.last(),
        Some(Event::TurnCompleted {
            end: TurnEnd::Answered,
            ..
        })
    ));
    let sent = h.server.requests()[1].json().to_string();
    assert!(
        sent.contains("Do not repeat a call that already ran"),
        "{sent}"
    );
}

#[tokio::test]
async fn a_change_repeated_in_a_later_round_is_not_run_again() {
    let edit = json!({"path": "notes.txt", "old_text": "beta", "new_text": "BETA"});
    let mut h = harness(
        ApprovalMode::AutoEdit,
        vec![
            Reply::new().tool_call("edit_file", edit.clone()),
            Reply::new().tool_call("edit_file", edit),
            Reply::new().text("Done."),
        ],
    )
    .await;
    let events = h.turn("shout beta", |_| None).await;
    assert_eq!(
        count(&events, |e| matches!(e, Event::DiffApplied { .. })),
        1
    );
    let outputs = outputs(&events);
    assert!(outputs[1].1, "{outputs:?}");
    assert!(
        outputs[1].0.contains("already applied by call_0"),
        "{outputs:?}"
    );
    assert!(matches!(
        events.last(),
        Some(Event::TurnCompleted {
            end: TurnEnd::Answered,
            ..
        })
    ));
    let last = h.server.requests()[2].json();
    assert!(
        last.to_string()
            .contains("That change is already in the file"),
        "{last}"
    );
}

#[tokio::test]
async fn a_model_that_keeps_re_sending_an_applied_change_is_stopped() {
    let edit = json!({"path": "notes.txt", "old_text": "beta", "new_text": "BETA"});
    let mut h = harness(
        ApprovalMode::AutoEdit,
        vec![
            Reply::new().tool_call("edit_file", edit.clone()),
            Reply::new().tool_call("edit_file", edit.clone()),
            Reply::new().tool_call("edit_file", edit),
            Reply::new().text("never asked"),
        ],
    )
    .await;
    let events = h.turn("shout beta", |_| None).await;
    assert_eq!(h.server.request_count(), 3);
    assert!(matches!(
        events.last(),
        Some(Event::TurnCompleted {
            end: TurnEnd::RepeatedFailure,
            ..
        })
    ));
    assert_eq!(
        std::fs::read_to_string(h.root.join("notes.txt")).unwrap(),
        "alpha\nBETA\ngamma\n"
    );
}

#[tokio::test]
async fn an_unknown_tool_name_with_edit_arguments_runs_the_edit() {
    let mut h = harness(
        ApprovalMode::AutoEdit,
        vec![
            Reply::new().tool_call(
                "notes",
                json!({"path": "notes.txt", "old_text": "beta", "new_text": "BETA"}),
            ),
            Reply::new().text("Done."),
        ],
    )
    .await;
    let events = h.turn("shout beta", |_| None).await;
    let outputs = outputs(&events);
    assert!(!outputs[0].1, "{outputs:?}");
    assert!(
        outputs[0]
            .0
            .starts_with("(`notes` is not a tool; these arguments fit `edit_file`"),
        "{outputs:?}"
    );
    assert_eq!(
        std::fs::read_to_string(h.root.join("notes.txt")).unwrap(),
        "alpha\nBETA\ngamma\n"
    );
}

#[tokio::test]
async fn a_denial_message_reaches_the_model_and_nothing_changes() {
    let mut h = harness(
        ApprovalMode::Ask,
        vec![
            Reply::new().tool_call("write_file", json!({"path": "new.txt", "content": "x"})),
            Reply::new().text("Understood."),
        ],
    )
    .await;
    let events = h
        .turn("make a file", |_| {
            Some(ApprovalDecision::Deny {
                message: Some("put it in docs/ instead".into()),
            })
        })
        .await;
    assert_eq!(count(&events, |e| matches!(e, Event::ToolDenied { .. })), 1);
    assert!(!h.root.join("new.txt").exists());
    let sent = h.server.last_request().json().to_string();
    assert!(sent.contains("put it in docs/ instead"), "{sent}");
}

#[tokio::test]
async fn edit_first_runs_the_edited_content_and_commands() {
    let mut h = harness(
        ApprovalMode::Ask,
        vec![
            Reply::new()
                .tool_call("write_file", json!({"path": "new.txt", "content": "draft"}))
                .tool_call("run_command", json!({"command": "touch created-by-model"})),
            Reply::new().text("ok"),
        ],
    )
    .await;
    let events = h
        .turn("go", |event| match event {
            Event::ApprovalNeeded {
                command: Some(_), ..
            } => Some(ApprovalDecision::Edit {
                replacement: "echo edited-by-user".into(),
            }),
            Event::ApprovalNeeded { .. } => Some(ApprovalDecision::Edit {
                replacement: "final\n".into(),
            }),
            _ => None,
        })
        .await;
    assert_eq!(
        std::fs::read_to_string(h.root.join("new.txt")).unwrap(),
        "final\n"
    );
    assert!(!h.root.join("created-by-model").exists());
    let outputs = outputs(&events);
    assert!(outputs[1].0.contains("edited-by-user"), "{outputs:?}");
}

#[tokio::test]
async fn an_edited_command_is_checked_against_the_deny_list_again() {
    let mut h = harness(
        ApprovalMode::Ask,
        vec![
            Reply::new().tool_call("run_command", json!({"command": "touch x"})),
            Reply::new().text("ok"),
        ],
    )
    .await;
    let events = h
        .turn("go", |_| {
            Some(ApprovalDecision::Edit {
                replacement: "sudo rm -rf /".into(),
            })
        })
        .await;
    assert_eq!(count(&events, |e| matches!(e, Event::ToolDenied { .. })), 1);
}

#[tokio::test]
async fn always_for_this_session_stops_asking_for_that_command_prefix() {
    let mut h = harness(
        ApprovalMode::Ask,
        vec![
            Reply::new().tool_call("run_command", json!({"command": "touch one"})),
            Reply::new().tool_call("run_command", json!({"command": "touch two"})),
            Reply::new().text("ok"),
        ],
    )
    .await;
    let events = h
        .turn("go", |_| Some(ApprovalDecision::AlwaysForSession))
        .await;
    assert_eq!(
        count(&events, |e| matches!(e, Event::ApprovalNeeded { .. })),
        1
    );
    assert!(h.root.join("one").exists() && h.root.join("two").exists());
}

#[tokio::test]
async fn read_only_mode_refuses_writes_without_asking() {
    let mut h = harness(
        ApprovalMode::ReadOnly,
        vec![
            Reply::new().tool_call("delete_file", json!({"path": "notes.txt"})),
            Reply::new().text("ok"),
        ],
    )
    .await;
    let events = h
        .turn("delete", |_| panic!("read-only mode must not ask"))
        .await;
    assert_eq!(count(&events, |e| matches!(e, Event::ToolDenied { .. })), 1);
    assert!(h.root.join("notes.txt").exists());
}

#[tokio::test]
async fn parallel_reads_report_results_in_call_order() {
    let mut h = harness(
        ApprovalMode::Ask,
        vec![
            Reply::new()
                .tool_call("read_file", json!({"path": "notes.txt"}))
                .tool_call("list_dir", json!({}))
                .tool_call("read_file", json!({"path": "missing.txt"})),
            Reply::new().text("ok"),
        ],
    )
    .await;
    let events = h.turn("look", |_| None).await;
    let outputs = outputs(&events);
    assert_eq!(outputs.len(), 3);
    assert!(outputs[0].0.contains("beta") && !outputs[0].1);
    assert!(outputs[1].0.contains("notes.txt"));
    assert!(outputs[2].1, "a missing file is an error result");
}

/// Reads notes.txt, lets someone else change it, then edits line 2: a stale read.
async fn stale_edit(choice: ConflictChoice) -> (Harness, Vec<Event>) {
    let mut h = harness(
        ApprovalMode::AutoEdit,
        vec![
            Reply::new().tool_call("read_file", json!({"path": "notes.txt"})),
            Reply::new().text("read it"),
            Reply::new().tool_call(
                "edit_lines",
                json!({"path": "notes.txt", "start_line": 2, "end_line": 2, "content": "B"}),
            ),
            Reply::new().text("ok"),
        ],
    )
    .await;
    h.conflict_choice = choice;
    h.turn("read", |_| None).await;
    std::fs::write(h.root.join("notes.txt"), "someone else\nchanged\nthis\n").unwrap();
    let events = h.turn("edit", |_| None).await;
    (h, events)
}

#[tokio::test]
async fn an_external_change_after_reading_is_a_conflict() {
    let (h, events) = stale_edit(ConflictChoice::Regenerate).await;
    assert_eq!(
        count(
            &events,
            |e| matches!(e, Event::EditConflict { message, .. } if message.contains("notes.txt changed since you read it"))
        ),
        1
    );
    let outputs = outputs(&events);
    assert!(outputs[0].1, "{outputs:?}");
    assert!(
        outputs[0]
            .0
            .contains("read the file again and redo the change"),
        "{outputs:?}"
    );
    assert_eq!(
        std::fs::read_to_string(h.root.join("notes.txt")).unwrap(),
        "someone else\nchanged\nthis\n"
    );
}

#[tokio::test]
async fn a_stale_edit_can_be_applied_anyway_or_skipped() {
    let (h, events) = stale_edit(ConflictChoice::ApplyAnyway).await;
    assert!(!outputs(&events)[0].1, "{:?}", outputs(&events));
    assert_eq!(
        std::fs::read_to_string(h.root.join("notes.txt")).unwrap(),
        "someone else\nB\nthis\n"
    );

    let (h, events) = stale_edit(ConflictChoice::Skip).await;
    let outputs = outputs(&events);
    assert!(
        outputs[0].0.contains("chose to skip this change"),
        "{outputs:?}"
    );
    assert_eq!(
        std::fs::read_to_string(h.root.join("notes.txt")).unwrap(),
        "someone else\nchanged\nthis\n"
    );
}

#[tokio::test]
async fn a_change_on_disk_while_approving_can_be_overwritten() {
    let mut h = harness(
        ApprovalMode::Ask,
        vec![
            Reply::new().tool_call(
                "write_file",
                json!({"path": "new.txt", "content": "mine\n"}),
            ),
            Reply::new().text("ok"),
        ],
    )
    .await;
    h.conflict_choice = ConflictChoice::ApplyAnyway;
    let root = h.root.clone();
    let events = h
        .turn("write new.txt", |event| {
            let Event::ApprovalNeeded { .. } = event else {
                return None;
            };
            std::fs::write(root.join("new.txt"), "theirs\n").unwrap();
            Some(ApprovalDecision::Approve)
        })
        .await;
    assert_eq!(
        count(&events, |e| matches!(e, Event::EditConflict { .. })),
        1,
        "{events:?}"
    );
    assert_eq!(
        count(&events, |e| matches!(e, Event::DiffApplied { .. })),
        1
    );
    assert_eq!(
        std::fs::read_to_string(h.root.join("new.txt")).unwrap(),
        "mine\n"
    );
    h.handle.send(Request::Undo { count: 1 });
    assert!(matches!(
        h.events.recv().await.unwrap().event,
        Event::UndoCompleted { .. }
    ));
    assert_eq!(
        std::fs::read_to_string(h.root.join("new.txt")).unwrap(),
        "theirs\n",
        "undo restores what was on disk when the change was written"
    );
}

#[tokio::test]
async fn cancelling_while_an_approval_is_pending_ends_the_turn() {
    let mut h = harness(
        ApprovalMode::Ask,
        vec![Reply::new().tool_call("write_file", json!({"path": "n.txt", "content": "x"}))],
    )
    .await;
    let handle = h.handle.clone();
    let events = h
        .turn("go", move |_| {
            handle.send(Request::Cancel);
            None
        })
        .await;
    assert!(
        matches!(events.last(), Some(Event::TurnCancelled { .. })),
        "{events:?}"
    );
    assert!(!h.root.join("n.txt").exists());
}

#[tokio::test]
async fn set_thinking_changes_the_next_requests_and_a_bad_level_is_refused() {
    let mut h = harness(
        ApprovalMode::Ask,
        vec![Reply::new().text("one"), Reply::new().text("two")],
    )
    .await;
    h.turn("first", |_| None).await;
    assert!(
        h.server
            .last_request()
            .json()
            .get("reasoning_effort")
            .is_none()
    );
    h.handle.send(Request::SetThinking {
        level: "nonsense".into(),
    });
    h.handle.send(Request::SetThinking {
        level: "high".into(),
    });
    let mut answers = Vec::new();
    while answers.len() < 2 {
        let event = tokio::time::timeout(Duration::from_secs(20), h.events.recv())
            .await
            .unwrap()
            .unwrap()
            .event;
        match event {
            Event::Error { error } => answers.push(error.message),
            Event::ThinkingLevel { level } => answers.push(format!("level {level}")),
            _ => {}
        }
    }
    assert!(
        answers[0].contains("`nonsense` is not a reasoning level"),
        "{answers:?}"
    );
    assert_eq!(answers[1], "level high");
    h.turn("second", |_| None).await;
    assert_eq!(h.server.last_request().json()["reasoning_effort"], "high");
}
