//! Sessions with a store: messages saved as they happen, resumed histories that providers
//! accept, and the persistent undo journal (across restarts, with conflicts).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Duration;

use hone_api::{ErrorChoice, Event, EventFrame, Request};
use hone_config::{ApiKey, ProviderConfig, preset};
use hone_core::{Persistence, SessionConfig, SessionHandle};
use hone_memory::{INTERRUPTED_RESULT, MessageStats, NewSession, SessionStore};
use hone_policy::{ApprovalMode, CommandPolicy, Permissions};
use hone_protocol::{ContentBlock, Message, Role, ToolCall};
use hone_testkit::{MockServer, Reply};
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedReceiver;

struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    db: PathBuf,
}

fn project() -> Project {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir_all(&root).unwrap();
    let root = root.canonicalize().unwrap();
    std::fs::write(root.join("notes.txt"), "alpha\nbeta\ngamma\n").unwrap();
    Project {
        db: dir.path().join("data/sessions.db"),
        root,
        _dir: dir,
    }
}

impl Project {
    fn key(&self) -> String {
        hone_memory::project_key(&self.root)
    }

    fn create(&self) -> String {
        let mut store = SessionStore::open(&self.db).unwrap();
        store
            .create(&NewSession {
                project: self.key(),
                provider: "openai".into(),
                model: "gpt-test".into(),
            })
            .unwrap()
            .id
    }

    fn notes(&self) -> String {
        std::fs::read_to_string(self.root.join("notes.txt")).unwrap()
    }
}

struct Session {
    server: MockServer,
    handle: SessionHandle,
    events: UnboundedReceiver<EventFrame>,
}

async fn start(project: &Project, id: &str, resumed: bool, replies: Vec<Reply>) -> Session {
    start_with(project, id, resumed, replies, false).await
}

async fn start_with(
    project: &Project,
    id: &str,
    resumed: bool,
    replies: Vec<Reply>,
    interactive: bool,
) -> Session {
    let server = MockServer::start().await;
    for reply in replies {
        server.enqueue(reply.openai_chat());
    }
    let mut config = ProviderConfig::from_preset(preset("openai").unwrap());
    config.base_url = server.url();
    config.api_key = Some(ApiKey::new("key-for-tests-123"));
    let (handle, events) = hone_core::start_session(SessionConfig {
        root: project.root.clone(),
        provider: hone_providers::build_provider(config).unwrap(),
        model: "gpt-test".into(),
        permissions: Permissions::new(ApprovalMode::AutoEdit, CommandPolicy::default()),
        max_tool_rounds: 25,
        interactive,
        audit: false,
        secrets: Vec::new(),
        commands: Default::default(),
        extra_tools: Vec::new(),
        tool_sources: Vec::new(),
        repo_map: None,
        prompt_profile: hone_core::PromptProfile::Full,
        memory: Some(Persistence {
            store: SessionStore::open(&project.db).unwrap(),
            session_id: id.to_string(),
            resumed,
            undo_depth: 10,
            history: None,
        }),
        context: hone_core::ContextConfig::default(),
        checks: hone_core::ChecksConfig::disabled(),
        code_mapper: None,
        localizer: None,
        guidance: hone_core::Guidance::default(),
        roles: hone_core::RoleModels::default(),
        hooks: hone_core::Hooks::default(),
    })
    .unwrap();
    Session {
        server,
        handle,
        events,
    }
}

impl Session {
    async fn next(&mut self) -> Event {
        tokio::time::timeout(Duration::from_secs(20), self.events.recv())
            .await
            .expect("no event for 20 s")
            .expect("session alive")
            .event
    }

    /// Sends `text` and returns every event up to the turn's end.
    async fn turn(&mut self, text: &str) -> Vec<Event> {
        self.handle.send(Request::user_message(text));
        let mut seen = Vec::new();
        loop {
            let event = self.next().await;
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

    /// Reads events up to the first that `wanted` picks, and returns it.
    async fn until(&mut self, wanted: impl Fn(&Event) -> bool) -> Event {
        loop {
            let event = self.next().await;
            if wanted(&event) {
                return event;
            }
        }
    }

    /// Sends `request` and returns the first event that is not `session.started`.
    async fn ask(&mut self, request: Request) -> Event {
        self.handle.send(request);
        loop {
            let event = self.next().await;
            if !matches!(event, Event::SessionStarted { .. }) {
                return event;
            }
        }
    }
}

fn edit_beta() -> Reply {
    Reply::new()
        .tool_call(
            "edit_file",
            json!({"path": "notes.txt", "old_text": "beta", "new_text": "BETA"}),
        )
        .usage(50, 5)
}

#[tokio::test]
async fn every_message_is_saved_as_the_turn_goes() {
    let project = project();
    let id = project.create();
    let mut session = start(
        &project,
        &id,
        false,
        vec![edit_beta(), Reply::new().text("Done.").usage(80, 3)],
    )
    .await;
    let started = session.next().await;
    assert!(
        matches!(&started, Event::SessionStarted { session_id: Some(saved), .. } if *saved == id),
        "{started:?}"
    );
    session.turn("shout beta").await;
    drop(session);

    let store = SessionStore::open(&project.db).unwrap();
    let stored = store.messages(&id).unwrap();
    let roles: Vec<Role> = stored.iter().map(|stored| stored.message.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::User, Role::Assistant]
    );
    assert_eq!(stored[0].message.text(), "shout beta");
    assert!(matches!(
        stored[2].message.content[0],
        ContentBlock::ToolResult(_)
    ));
    assert_eq!(stored[3].message.text(), "Done.");
    assert_eq!(stored[3].stats.usage.unwrap().input_tokens, 80);
    assert_eq!(stored[1].stats.model.as_deref(), Some("gpt-test"));
    let info = store.find(&id).unwrap();
    assert_eq!(info.title, "shout beta");
    assert_eq!(info.stats.turns, 1);
    assert_eq!(info.stats.tool_calls, 1);
    assert_eq!(info.stats.tokens_in, 130);
    assert_eq!(info.stats.edits_applied, 1);
    assert_eq!(info.stats.edits_rejected, 0);
    let stack = store.undo_stack(&project.key(), 10).unwrap();
    assert_eq!(stack.len(), 1);
    assert_eq!(stack[0].session_id, id);
    assert_eq!(stack[0].state, hone_memory::EditState::Applied);
}

#[tokio::test]
async fn a_resumed_history_is_valid_for_the_provider() {
    let project = project();
    let id = project.create();
    {
        // A process killed mid-round: the assistant's call has no result.
        let mut store = SessionStore::open(&project.db).unwrap();
        let call = Message {
            role: Role::Assistant,
            content: vec![ContentBlock::ToolCall(ToolCall {
                id: "call_7".into(),
                name: "read_file".into(),
                arguments: "{\"path\":\"notes.txt\"}".into(),
            })],
        };
        for message in [Message::user("first task"), call] {
            store
                .append_message(&id, &message, &MessageStats::default())
                .unwrap();
        }
    }
    let mut session = start(&project, &id, true, vec![Reply::new().text("Resumed.")]).await;
    session.turn("second task").await;

    let sent = session.server.requests()[0].json();
    let messages = sent["messages"].as_array().unwrap();
    let texts: Vec<String> = messages.iter().map(Value::to_string).collect();
    let user = |text: &str| {
        messages
            .iter()
            .position(|message| message["role"] == "user" && message["content"] == text)
            .unwrap_or_else(|| panic!("{text} not sent: {texts:#?}"))
    };
    let first = user("first task");
    let call = messages
        .iter()
        .position(|message| message.get("tool_calls").is_some())
        .unwrap_or_else(|| panic!("no tool call sent: {texts:#?}"));
    let result = messages
        .iter()
        .position(|message| message["role"] == "tool" && message["tool_call_id"] == "call_7")
        .unwrap_or_else(|| panic!("no result for call_7: {texts:#?}"));
    let second = user("second task");
    assert!(
        first < call && call + 1 == result && result < second,
        "{texts:#?}"
    );
    assert!(
        texts[result].contains("hone was stopped"),
        "{}",
        texts[result]
    );

    // The repair is not written back; the new messages are appended after the stored ones.
    let store = SessionStore::open(&project.db).unwrap();
    let stored = store.messages(&id).unwrap();
    assert_eq!(stored.len(), 4);
    assert_eq!(stored[2].message.text(), "second task");
    let history = hone_memory::resume_history(stored);
    assert!(
        history[2]
            .content
            .iter()
            .any(|block| matches!(block, ContentBlock::ToolResult(result) if result.content == INTERRUPTED_RESULT))
    );
}

#[tokio::test]
async fn undo_works_across_a_restart() {
    let project = project();
    let first = project.create();
    let mut session = start(
        &project,
        &first,
        false,
        vec![edit_beta(), Reply::new().text("Done.")],
    )
    .await;
    session.turn("shout beta").await;
    session.handle.send(Request::Shutdown);
    drop(session);
    assert_eq!(project.notes(), "alpha\nBETA\ngamma\n");

    // A new process, a new session, the same project: the journal is still there.
    let second = project.create();
    let mut session = start(&project, &second, false, Vec::new()).await;
    let listed = session.ask(Request::ListUndo).await;
    let Event::UndoStack { entries } = listed else {
        panic!("expected the undo stack, got {listed:?}");
    };
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].paths, ["notes.txt"]);
    assert_eq!(entries[0].session_id, first);

    let undone = session.ask(Request::Undo { count: 1 }).await;
    assert!(
        matches!(&undone, Event::UndoCompleted { undone } if undone.len() == 1),
        "{undone:?}"
    );
    assert_eq!(project.notes(), "alpha\nbeta\ngamma\n");
    let empty = session.ask(Request::Undo { count: 1 }).await;
    assert!(
        matches!(&empty, Event::UndoCompleted { undone } if undone.is_empty()),
        "{empty:?}"
    );

    // The model of the second session is told about the undo.
    let store = SessionStore::open(&project.db).unwrap();
    let note = store.messages(&second).unwrap();
    assert_eq!(note.len(), 1);
    assert!(note[0].message.text().contains("undid"), "{note:?}");
    assert_eq!(
        store.find(&second).unwrap().title,
        "",
        "hone's notes are no titles"
    );
}

#[tokio::test]
async fn an_undo_conflict_is_reported_and_changes_nothing() {
    let project = project();
    let id = project.create();
    let mut session = start(
        &project,
        &id,
        false,
        vec![edit_beta(), Reply::new().text("Done.")],
    )
    .await;
    session.turn("shout beta").await;
    std::fs::write(project.root.join("notes.txt"), "changed by hand\n").unwrap();

    let failed = session.ask(Request::Undo { count: 1 }).await;
    let Event::UndoFailed { message, conflict } = failed else {
        panic!("expected undo.failed, got {failed:?}");
    };
    assert!(conflict);
    assert!(message.contains("notes.txt"), "{message}");
    assert_eq!(project.notes(), "changed by hand\n");
    let listed = session.ask(Request::ListUndo).await;
    assert!(
        matches!(&listed, Event::UndoStack { entries } if entries.len() == 1),
        "{listed:?}"
    );
}

#[tokio::test]
async fn a_missing_session_is_a_clear_error() {
    let project = project();
    let server = MockServer::start().await;
    let mut config = ProviderConfig::from_preset(preset("openai").unwrap());
    config.base_url = server.url();
    config.api_key = Some(ApiKey::new("key-for-tests-123"));
    let error = hone_core::start_session(SessionConfig {
        root: project.root.clone(),
        provider: hone_providers::build_provider(config).unwrap(),
        model: String::new(),
        permissions: Permissions::new(ApprovalMode::Ask, CommandPolicy::default()),
        max_tool_rounds: 25,
        interactive: false,
        audit: false,
        secrets: Vec::new(),
        commands: Default::default(),
        extra_tools: Vec::new(),
        tool_sources: Vec::new(),
        repo_map: None,
        prompt_profile: hone_core::PromptProfile::Full,
        memory: Some(Persistence {
            store: SessionStore::open(&project.db).unwrap(),
            session_id: "01JNOSUCHSESSION0000000000".into(),
            resumed: true,
            undo_depth: 10,
            history: None,
        }),
        context: hone_core::ContextConfig::default(),
        checks: hone_core::ChecksConfig::disabled(),
        code_mapper: None,
        localizer: None,
        guidance: hone_core::Guidance::default(),
        roles: hone_core::RoleModels::default(),
        hooks: hone_core::Hooks::default(),
    })
    .err()
    .unwrap();
    assert!(error.message.contains("no session"), "{}", error.message);
}

#[tokio::test]
async fn a_resumed_session_keeps_its_compacted_context() {
    let project = project();
    let id = project.create();
    {
        let mut session = start(
            &project,
            &id,
            false,
            vec![
                Reply::new().text("ANSWER-ONE").usage(20, 2),
                Reply::new().text("ANSWER-TWO").usage(30, 2),
                Reply::new().text("- SUMMARY-OF-TURN-ONE").usage(40, 5),
            ],
        )
        .await;
        session.turn("first question").await;
        session.turn("second question").await;
        session.handle.send(Request::Compact);
        loop {
            if matches!(session.next().await, Event::ContextCompacted { .. }) {
                break;
            }
        }
        // The state is saved right after the compaction, before the next request is read.
        session.handle.send(Request::Shutdown);
        while tokio::time::timeout(Duration::from_secs(20), session.events.recv())
            .await
            .expect("the session ends")
            .is_some()
        {}
    }
    let mut resumed = start(
        &project,
        &id,
        true,
        vec![Reply::new().text("ANSWER-THREE").usage(20, 2)],
    )
    .await;
    resumed.turn("third question").await;
    let sent = resumed.server.requests()[0].json().to_string();
    assert!(sent.contains("SUMMARY-OF-TURN-ONE"), "{sent}");
    assert!(
        !sent.contains("ANSWER-ONE"),
        "the compacted turn is not sent again: {sent}"
    );
    assert!(
        sent.contains("ANSWER-TWO"),
        "the recent turn is kept: {sent}"
    );
    assert!(sent.contains("third question"), "{sent}");
}

/// Makes every message write of the store at `db` fail (a real SQLite error, as a full
/// disk or a lost server gives), or succeed again.
fn break_message_writes(db: &std::path::Path, broken: bool) {
    let connection = rusqlite::Connection::open(db).unwrap();
    let sql = if broken {
        "CREATE TRIGGER no_messages BEFORE INSERT ON messages \
         BEGIN SELECT RAISE(ABORT, 'the disk is gone'); END;"
    } else {
        "DROP TRIGGER no_messages;"
    };
    connection.execute_batch(sql).unwrap();
}

/// An interactive session whose store fails every message write from now on.
async fn failing_store() -> (Project, String, Session) {
    let project = project();
    let id = project.create();
    let session = start_with(
        &project,
        &id,
        false,
        vec![Reply::new().text("ANSWER").usage(10, 2)],
        true,
    )
    .await;
    break_message_writes(&project.db, true);
    (project, id, session)
}

fn stored_texts(project: &Project, id: &str) -> Vec<String> {
    let store = SessionStore::open(&project.db).unwrap();
    store
        .messages(id)
        .unwrap()
        .into_iter()
        .map(|stored| stored.message.text())
        .collect()
}

#[tokio::test]
async fn a_store_that_fails_is_retried_by_the_users_choice_and_nothing_is_lost() {
    let (project, id, mut session) = failing_store().await;
    session.handle.send(Request::user_message("QUESTION"));
    let asked = loop {
        match session.next().await {
            Event::TurnError { error, choices } => break (error, choices),
            Event::TurnFailed { .. } | Event::TurnCompleted { .. } => panic!("not asked"),
            _ => {}
        }
    };
    assert!(
        asked.0.message.contains("the disk is gone"),
        "{:?}",
        asked.0
    );
    assert_eq!(asked.1, ErrorChoice::ALL.to_vec());
    // No model request before the user chose.
    assert_eq!(session.server.request_count(), 0);
    // Retrying while the store still fails asks again.
    session.handle.send(Request::ErrorChoice {
        choice: ErrorChoice::Retry,
    });
    session
        .until(|event| matches!(event, Event::TurnError { .. }))
        .await;
    break_message_writes(&project.db, false);
    session.handle.send(Request::ErrorChoice {
        choice: ErrorChoice::Retry,
    });
    session
        .until(|event| matches!(event, Event::TurnCompleted { .. }))
        .await;
    assert_eq!(session.server.request_count(), 1);
    drop(session);
    assert_eq!(stored_texts(&project, &id), ["QUESTION", "ANSWER"]);
}

#[tokio::test]
async fn a_store_failure_skipped_goes_on_and_abort_ends_the_turn() {
    let (project, id, mut session) = failing_store().await;
    session.handle.send(Request::user_message("LOST QUESTION"));
    session
        .until(|event| matches!(event, Event::TurnError { .. }))
        .await;
    break_message_writes(&project.db, false);
    session.handle.send(Request::ErrorChoice {
        choice: ErrorChoice::Skip,
    });
    session
        .until(|event| matches!(event, Event::TurnCompleted { .. }))
        .await;
    assert_eq!(stored_texts(&project, &id), ["ANSWER"]);
    // Abort: the turn fails with the store's error, and the model is not asked.
    break_message_writes(&project.db, true);
    session.handle.send(Request::user_message("SECOND"));
    session
        .until(|event| matches!(event, Event::TurnError { .. }))
        .await;
    session.handle.send(Request::ErrorChoice {
        choice: ErrorChoice::Abort,
    });
    let failed = loop {
        if let Event::TurnFailed { error, .. } = session.next().await {
            break error;
        }
    };
    assert!(
        failed.message.contains("could not save the session"),
        "{failed:?}"
    );
    assert_eq!(session.server.request_count(), 1);
}

#[tokio::test]
async fn a_headless_turn_fails_when_the_store_fails() {
    let project = project();
    let id = project.create();
    let mut session = start(&project, &id, false, vec![Reply::new().text("ANSWER")]).await;
    break_message_writes(&project.db, true);
    let events = session.turn("QUESTION").await;
    let Some(Event::TurnFailed { error, .. }) = events.last() else {
        panic!("{events:?}");
    };
    assert!(error.message.contains("the disk is gone"), "{error:?}");
    assert!(
        events.iter().any(|event| matches!(event, Event::Error { error } if error.message.contains("could not save"))),
        "{events:?}"
    );
    assert_eq!(session.server.request_count(), 0);
}
