//! The runtime against a mock model server and a temporary store: sessions created,
//! resumed, listed and deleted through one path, a store that cannot be opened, and the
//! provider probe.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hone_api::{Event, Request};
use hone_config::{CliOverrides, ConfigSources};
use hone_runtime::{
    Opening, Runtime, RuntimeError, RuntimeOptions, SessionChoice, SessionRequest, StartedSession,
    Unattended,
};
use hone_testkit::{MockResponse, MockServer, Reply};
use serde_json::json;

fn sources(root: &Path) -> ConfigSources {
    ConfigSources {
        user_file: None,
        project_dir: Some(root.to_path_buf()),
        env: Default::default(),
    }
}

/// A project directory beside the data directory.
fn project(dir: &Path) -> PathBuf {
    let root = dir.join("project");
    std::fs::create_dir_all(&root).unwrap();
    root.canonicalize().unwrap()
}

fn runtime(root: &Path, store: PathBuf, server: &MockServer) -> Runtime {
    let options = RuntimeOptions {
        root: root.to_path_buf(),
        working_dir: None,
        sources: sources(root),
        overrides: CliOverrides {
            provider: Some("lmstudio".into()),
            base_url: Some(server.url()),
            approval: Some("auto-edit".into()),
            sandbox: Some(hone_sandbox::SandboxMode::Off),
            ..CliOverrides::default()
        },
        store_path: Some(store),
    };
    Runtime::open(options, Arc::new(Unattended)).unwrap()
}

fn request(choice: SessionChoice) -> SessionRequest {
    SessionRequest {
        choice,
        model: None,
        interactive: false,
        conversation: false,
        focus: String::new(),
        show_history: true,
        mcp_servers: false,
        role: None,
    }
}

/// Sends `text`, waits for the turn to end, shuts the session down.
async fn turn(mut session: StartedSession, text: &str) {
    session.handle.send(Request::user_message(text));
    while let Some(event) = session.events.recv().await {
        match event.event {
            Event::TurnCompleted { .. } => break,
            Event::TurnFailed { error, .. } => panic!("turn failed: {error:?}"),
            _ => {}
        }
    }
    session.handle.send(Request::Shutdown);
    while session.events.recv().await.is_some() {}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_created_resumed_with_another_model_listed_and_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path());
    std::fs::write(root.join("lib.rs"), "pub fn shout() {}\n").unwrap();
    let server = MockServer::start().await;
    for text in ["one", "two"] {
        server.enqueue(Reply::new().text(text).openai_chat());
    }
    let runtime = runtime(&root, dir.path().join("data/sessions.db"), &server);

    let first = runtime
        .start_session(request(SessionChoice::LatestOrNew))
        .await
        .unwrap();
    let saved = first.saved.clone().unwrap();
    assert_eq!(saved.opening, Opening::Created);
    assert!(first.history.is_empty());
    assert_eq!(first.summary.index, "1 file indexed");
    assert_eq!(first.summary.approval, "auto-edit");
    assert!(first.warnings.is_empty(), "{:?}", first.warnings);
    turn(first, "hello").await;
    // The index tools and the repo map went to the model.
    let sent = server.requests()[0].json().to_string();
    assert!(sent.contains("shout"), "{sent}");

    let mut again = request(SessionChoice::Resume(saved.info.id.clone()));
    again.model = Some("other-model".into());
    let resumed = runtime.start_session(again).await.unwrap();
    assert_eq!(resumed.saved.as_ref().unwrap().opening, Opening::Resumed);
    assert_eq!(resumed.summary.model, "other-model");
    assert_eq!(resumed.history.len(), 2, "{:?}", resumed.history);
    turn(resumed, "again").await;
    let sent = server.requests()[1].json();
    assert_eq!(sent["model"], "other-model");
    assert!(sent.to_string().contains("hello"), "{sent}");

    let sessions = runtime.sessions();
    let listed = sessions.list(10).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(
        listed[0].model, "other-model",
        "the model switch was recorded"
    );
    assert_eq!(listed[0].messages, 4);
    sessions.remember_input("first").unwrap();
    sessions.remember_input("second").unwrap();
    assert_eq!(sessions.input_history(10).unwrap(), ["first", "second"]);
    sessions.delete(&saved.info.id).unwrap();
    assert!(sessions.list(10).unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_copies_the_conversation_into_a_new_session() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("one").openai_chat());
    let runtime = runtime(&root, dir.path().join("data/sessions.db"), &server);
    let first = runtime
        .start_session(request(SessionChoice::New))
        .await
        .unwrap();
    let id = first.saved.clone().unwrap().info.id;
    turn(first, "hello").await;

    let fork = runtime
        .start_session(request(SessionChoice::Fork("last".into())))
        .await
        .unwrap();
    let saved = fork.saved.clone().unwrap();
    assert_eq!(saved.opening, Opening::Forked);
    assert_ne!(saved.info.id, id);
    assert_eq!(saved.info.forked_from.as_deref(), Some(id.as_str()));
    assert_eq!(fork.history.len(), 2);
    assert_eq!(runtime.sessions().list(10).unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_store_new_sessions_run_unsaved_and_resuming_fails() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    // A file where the store's directory should be.
    std::fs::write(root.join("blocked"), "").unwrap();
    let server = MockServer::start().await;
    let runtime = runtime(&root, root.join("blocked/sessions.db"), &server);
    let reason = runtime.sessions().unavailable().expect("no store");

    let started = runtime
        .start_session(request(SessionChoice::LatestOrNew))
        .await
        .unwrap();
    assert!(started.saved.is_none());
    assert_eq!(started.unsaved.as_deref(), Some(reason.as_str()));
    let error = runtime
        .start_session(request(SessionChoice::Resume("last".into())))
        .await
        .err()
        .expect("nothing to resume");
    assert!(matches!(error, RuntimeError::Hone(_)), "{error:?}");
    assert!(runtime.sessions().list(5).is_err());
    assert!(runtime.sessions().remember_input("x").is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_approval_mode_fails_before_any_session_is_saved() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let server = MockServer::start().await;
    let options = RuntimeOptions {
        root: root.clone(),
        working_dir: None,
        sources: sources(&root),
        overrides: CliOverrides {
            provider: Some("lmstudio".into()),
            base_url: Some(server.url()),
            approval: Some("sometimes".into()),
            ..CliOverrides::default()
        },
        store_path: Some(dir.path().join("data/sessions.db")),
    };
    assert!(Runtime::open(options, Arc::new(Unattended)).is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_probe_counts_models_and_names_an_unreachable_server() {
    let dir = tempfile::tempdir().unwrap();
    let server = MockServer::start().await;
    server.route(
        "/models",
        MockResponse::json(
            200,
            &json!({"object": "list", "data": [{"id": "a"}, {"id": "b"}]}),
        ),
    );
    let sources = sources(dir.path());
    let overrides = CliOverrides {
        provider: Some("lmstudio".into()),
        base_url: Some(server.url()),
        ..CliOverrides::default()
    };
    let config = hone_config::load(&sources, &overrides).unwrap();
    let (url, counted) =
        hone_runtime::provider::probe(&config, "lmstudio", Duration::from_secs(5)).await;
    assert_eq!(counted, Ok(2), "{url}");
    let (_, missing) =
        hone_runtime::provider::probe(&config, "no-such-server", Duration::from_secs(1)).await;
    assert!(missing.is_err());
}
