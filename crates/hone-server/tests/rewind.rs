//! `session.rewind_points` and `session.rewind` against a scripted model: the files and the
//! conversation go back to before a prompt, whose text comes back; a prompt that does not
//! exist is refused.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hone_api::rpc::SessionEvent;
use hone_api::{Event, Request};
use hone_config::{CliOverrides, ConfigSources};
use hone_runtime::{RuntimeOptions, Unattended};
use hone_server::{Client, Server};
use hone_testkit::{MockServer, Reply};
use serde_json::json;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rewind_restores_the_files_and_the_conversation_and_returns_the_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let model = MockServer::start().await;
    let server = server(dir.path(), &model);
    let root = dir.path().join("project");
    let (client, mut events) = Client::connect(&server);
    new_session(&client).await;

    model.enqueue(
        Reply::new()
            .tool_call(
                "edit_file",
                json!({"path": "notes.txt", "old_text": "alpha", "new_text": "ALPHA"}),
            )
            .openai_chat(),
    );
    model.enqueue(Reply::new().text("Shouted.").openai_chat());
    client
        .call(None, Request::user_message("shout"))
        .await
        .unwrap();
    turn(&mut events).await;
    model.enqueue(Reply::new().text("Fine.").openai_chat());
    client
        .call(None, Request::user_message("and now?"))
        .await
        .unwrap();
    turn(&mut events).await;
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "ALPHA\n"
    );

    let points = client.call(None, Request::RewindPoints).await.unwrap();
    assert_eq!(points["type"], "session.rewind_points");
    assert_eq!(points["points"][0]["text"], "shout");
    assert_eq!(points["points"][0]["edits_since"], 1);
    assert_eq!(points["points"][1]["text"], "and now?");
    assert_eq!(points["points"][1]["edits_since"], 0);

    let refused = client
        .call(
            None,
            Request::Rewind {
                prompt: 7,
                fork: false,
                keep_files: false,
            },
        )
        .await
        .unwrap_err();
    assert!(refused.message.contains("choose 1 to 2"), "{refused:?}");

    let rewound = client
        .call(
            None,
            Request::Rewind {
                prompt: 1,
                fork: false,
                keep_files: false,
            },
        )
        .await
        .unwrap();
    assert_eq!(rewound["type"], "session.rewound");
    assert_eq!(rewound["text"], "shout");
    assert_eq!(rewound["undone"].as_array().unwrap().len(), 1);
    assert!(rewound.get("forked_from").is_none());
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "alpha\n"
    );

    let history = client.call(None, Request::History).await.unwrap();
    assert_eq!(history["entries"], json!([]), "the conversation went back");

    // The session goes on without the prompt: the model does not see it again.
    model.enqueue(Reply::new().text("Hello again.").openai_chat());
    client
        .call(None, Request::user_message("whisper"))
        .await
        .unwrap();
    let seen = turn(&mut events).await;
    assert!(matches!(
        seen.last().unwrap().frame.event,
        Event::TurnCompleted { .. }
    ));
    let sent = model.last_request().json().to_string();
    assert!(
        sent.contains("whisper") && !sent.contains("shout"),
        "{sent}"
    );
}
