//! The server in process against a scripted model: two clients on one session receive the
//! same events, the answers the server gives at once, and requests it refuses.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hone_api::rpc::{RpcError, SessionEvent};
use hone_api::{Event, Request};
use hone_config::{CliOverrides, ConfigSources};
use hone_runtime::{RuntimeOptions, Unattended};
use hone_server::{Client, Server};
use hone_testkit::{MockServer, Reply};
use tokio::sync::mpsc::UnboundedReceiver;

fn project(dir: &Path) -> PathBuf {
    let root = dir.join("project");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("notes.txt"), "alpha\n").unwrap();
    root.canonicalize().unwrap()
}

fn server(dir: &Path, model: &MockServer) -> Arc<Server> {
    let root = project(dir);
    let options = RuntimeOptions {
        sources: ConfigSources {
            user_file: None,
            project_dir: Some(root.clone()),
            env: Default::default(),
        },
        root,
        working_dir: None,
        overrides: CliOverrides {
            provider: Some("lmstudio".into()),
            base_url: Some(model.url()),
            approval: Some("auto-edit".into()),
            sandbox: Some(hone_sandbox::SandboxMode::Off),
            ..CliOverrides::default()
        },
        store_path: Some(dir.join("sessions.db")),
    };
    Server::open(options, Arc::new(Unattended)).unwrap()
}

/// Events until (and with) the end of a turn.
async fn turn(events: &mut UnboundedReceiver<SessionEvent>) -> Vec<SessionEvent> {
    let mut seen = Vec::new();
    while let Some(event) = events.recv().await {
        let end = matches!(
            event.frame.event,
            Event::TurnCompleted { .. } | Event::TurnFailed { .. } | Event::TurnCancelled { .. }
        );
        seen.push(event);
        if end {
            return seen;
        }
    }
    panic!("the events ended before the turn: {seen:?}");
}

/// Opens a new session on the server's project for `client`; returns the result.
async fn new_session(client: &Client) -> serde_json::Value {
    client
        .call(
            None,
            Request::NewSession {
                model: None,
                cwd: None,
                role: None,
            },
        )
        .await
        .unwrap()
}

fn kinds(events: &[SessionEvent]) -> Vec<String> {
    events
        .iter()
        .map(|event| {
            serde_json::to_value(&event.frame.event).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_clients_on_one_session_receive_the_same_events() {
    let dir = tempfile::tempdir().unwrap();
    let model = MockServer::start().await;
    model.enqueue(
        Reply::new()
            .tool_call("read_file", serde_json::json!({"path": "notes.txt"}))
            .openai_chat(),
    );
    model.enqueue(Reply::new().text("It says alpha.").openai_chat());
    let server = server(dir.path(), &model);

    let (editor, mut editor_events) = Client::connect(&server);
    let opened = new_session(&editor).await;
    assert_eq!(opened["type"], "session.started");
    let session = opened["session"].as_str().unwrap().to_string();
    assert_eq!(opened["session_id"], session.as_str());

    let (terminal, mut terminal_events) = Client::connect(&server);
    let joined = terminal
        .call(
            None,
            Request::ResumeSession {
                session_id: session[..8].to_string(),
                model: None,
                cwd: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(joined["session"], session.as_str());

    let id = editor.new_id();
    let accepted = editor
        .call_as(
            id.clone(),
            None,
            Request::user_message("what do the notes say?"),
        )
        .await
        .unwrap();
    assert!(accepted.is_null());
    let seen_by_editor = turn(&mut editor_events).await;
    let seen_by_terminal = turn(&mut terminal_events).await;
    assert_eq!(kinds(&seen_by_editor), kinds(&seen_by_terminal));
    assert!(kinds(&seen_by_editor).contains(&"tool.completed".to_string()));
    assert!(matches!(
        &seen_by_terminal.last().unwrap().frame.event,
        Event::TurnCompleted { .. }
    ));
    // The request id is the editor's: it goes to the editor only.
    assert!(
        seen_by_editor
            .iter()
            .all(|event| event.frame.request_id.as_deref() == Some(&id.to_string()[..]))
    );
    assert!(
        seen_by_terminal
            .iter()
            .all(|event| event.frame.request_id.is_none())
    );
    assert!(
        seen_by_terminal
            .iter()
            .all(|event| event.session.as_deref() == Some(session.as_str()))
    );

    // The conversation is the session's, whoever asks.
    let history = terminal.call(None, Request::History).await.unwrap();
    let entries = history["entries"].as_array().unwrap();
    assert_eq!(entries[0]["kind"], "user");
    assert_eq!(entries.last().unwrap()["text"], "It says alpha.");

    // The session runs on while one client is attached, and ends when the last leaves.
    editor.call(None, Request::Shutdown).await.unwrap();
    let settings = terminal.call(None, Request::Settings).await.unwrap();
    assert_eq!(settings["settings"]["approval"], "auto-edit");
    terminal.disconnect();
    server.idle().await;
    let (late, _events) = Client::connect(&server);
    let refused = late
        .call(Some(&session), Request::Settings)
        .await
        .unwrap_err();
    assert_eq!(refused.code, RpcError::UNKNOWN_SESSION);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_about_the_project_come_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let model = MockServer::start().await;
    let server = server(dir.path(), &model);
    let (client, _events) = Client::connect(&server);

    let expanded = client
        .call(
            None,
            Request::ExpandMentions {
                text: "look at @notes.txt".into(),
            },
        )
        .await
        .unwrap();
    assert_eq!(expanded["type"], "mentions.expanded");
    assert!(expanded["text"].as_str().unwrap().contains("alpha"));

    client
        .call(
            None,
            Request::RememberInput {
                text: "first".into(),
            },
        )
        .await
        .unwrap();
    let history = client
        .call(None, Request::InputHistory { limit: None })
        .await
        .unwrap();
    assert_eq!(history["entries"], serde_json::json!(["first"]));

    let listed = client
        .call(None, Request::ListSessions { limit: None })
        .await
        .unwrap();
    assert_eq!(listed["sessions"], serde_json::json!([]));
    let drafted = client.call(None, Request::DraftInstructions).await.unwrap();
    assert_eq!(drafted["path"], "AGENTS.md");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_without_a_session_or_for_a_missing_one_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let model = MockServer::start().await;
    let server = server(dir.path(), &model);
    let (client, _events) = Client::connect(&server);
    let error = client
        .call(None, Request::user_message("hi"))
        .await
        .unwrap_err();
    assert_eq!(error.code, RpcError::UNKNOWN_SESSION);
    let missing = client
        .call(
            None,
            Request::ResumeSession {
                session_id: "nosuch".into(),
                model: None,
                cwd: None,
            },
        )
        .await
        .unwrap_err();
    assert_eq!(missing.code, RpcError::REQUEST_FAILED);
    assert!(missing.message.contains("nosuch"), "{}", missing.message);
    assert_eq!(missing.data.unwrap()["category"], "config");
    let relative = client
        .call(
            None,
            Request::NewSession {
                model: None,
                cwd: Some("relative/dir".into()),
                role: None,
            },
        )
        .await
        .unwrap_err();
    assert_eq!(relative.code, RpcError::INVALID_PARAMS);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resuming_a_session_whose_last_client_just_left_opens_it_again() {
    let dir = tempfile::tempdir().unwrap();
    let model = MockServer::start().await;
    model.enqueue(Reply::new().text("first").openai_chat());
    model.enqueue(Reply::new().text("second").openai_chat());
    let server = server(dir.path(), &model);
    let (page, mut page_events) = Client::connect(&server);
    let opened = new_session(&page).await;
    let session = opened["session"].as_str().unwrap().to_string();
    page.call(None, Request::user_message("hello"))
        .await
        .unwrap();
    turn(&mut page_events).await;
    // The page reloads: its old connection leaves (the session starts shutting down) and
    // the new one resumes at once.
    page.disconnect();
    let (reloaded, mut reloaded_events) = Client::connect(&server);
    let resumed = reloaded
        .call(
            None,
            Request::ResumeSession {
                session_id: session.clone(),
                model: None,
                cwd: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(resumed["session"], session.as_str());
    reloaded
        .call(None, Request::user_message("again"))
        .await
        .unwrap();
    let seen = turn(&mut reloaded_events).await;
    assert!(
        matches!(
            seen.last().unwrap().frame.event,
            Event::TurnCompleted { .. }
        ),
        "{seen:?}"
    );
    let history = reloaded.call(None, Request::History).await.unwrap();
    let texts: Vec<&str> = history["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|entry| entry["text"].as_str())
        .collect();
    assert_eq!(texts, ["hello", "first", "again", "second"]);
}
