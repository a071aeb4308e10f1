//! `hone exec` and the terminal UI open saved sessions through one path
//! (`hone_runtime::Runtime::start_session`): a session started by the real binary is resumed
//! in-process the way the TUI host resumes it (`last`, with its conversation shown), and the
//! binary then resumes what the runtime added.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;

use hone_api::{Event, Request};
use hone_config::{CliOverrides, ConfigSources};
use hone_memory::SessionStore;
use hone_protocol::{ContentBlock, Message, Role};
use hone_runtime::{
    Opening, Runtime, RuntimeError, RuntimeOptions, SessionChoice, SessionRequest, Unattended,
};
use hone_testkit::{MockServer, Reply};

struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    data: PathBuf,
}

fn project() -> Project {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("notes.txt"), "alpha\n").unwrap();
    Project {
        root: root.canonicalize().unwrap(),
        data: dir.path().join("data"),
        _dir: dir,
    }
}

impl Project {
    async fn exec(&self, server: &MockServer, extra: &[&str], prompt: &str) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hone"));
        command
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.root.join(".home"))
            .env("XDG_CONFIG_HOME", self.root.join(".home/.config"))
            .env("HONE_DATA_DIR", &self.data)
            .current_dir(&self.root)
            .stdin(Stdio::null())
            .args(["exec", "--provider", "lmstudio", "--base-url"])
            .arg(server.url())
            .args(["--approval", "full-auto", "--sandbox", "off"])
            .args(extra)
            .arg(prompt);
        tokio::task::spawn_blocking(move || command.output().unwrap())
            .await
            .unwrap()
    }

    fn store_path(&self) -> PathBuf {
        self.data.join("sessions.db")
    }

    /// The runtime the TUI host wraps, for this project and the mock server.
    fn runtime(&self, root: &Path, server: &MockServer) -> Runtime {
        let options = RuntimeOptions {
            root: root.to_path_buf(),
            working_dir: None,
            sources: ConfigSources {
                user_file: None,
                project_dir: Some(root.to_path_buf()),
                env: Default::default(),
            },
            overrides: CliOverrides {
                provider: Some("lmstudio".into()),
                base_url: Some(server.url()),
                approval: Some("full-auto".into()),
                sandbox: Some(hone_sandbox::SandboxMode::Off),
                ..CliOverrides::default()
            },
            store_path: Some(self.store_path()),
        };
        Runtime::open(options, Arc::new(Unattended)).unwrap()
    }
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn texts(messages: &[Message], role: Role) -> Vec<String> {
    messages
        .iter()
        .filter(|message| message.role == role)
        .flat_map(|message| &message.content)
        .filter_map(|block| match block {
            ContentBlock::Text { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// What the TUI host asks for when `hone` starts (`--resume` default: the latest).
fn tui_resume() -> SessionRequest {
    SessionRequest {
        choice: SessionChoice::LatestOrNew,
        model: None,
        interactive: true,
        conversation: true,
        focus: String::new(),
        show_history: true,
        mcp_servers: false,
        role: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_and_the_tui_resume_the_same_session_through_the_runtime() {
    let project = project();
    let server = MockServer::start().await;
    for text in ["answer one", "answer two", "answer three"] {
        server.enqueue(Reply::new().text(text).usage(10, 2).openai_chat());
    }
    let first = project.exec(&server, &[], "first task").await;
    assert!(first.status.success(), "{}", stderr(&first));
    let id = SessionStore::open(&project.store_path())
        .unwrap()
        .latest_for_project(&hone_memory::project_key(&project.root))
        .unwrap()
        .expect("exec saved its session")
        .id;

    // The TUI's path: the latest session, its conversation read and repaired once.
    let runtime = project.runtime(&project.root, &server);
    let mut started = runtime.start_session(tui_resume()).await.unwrap();
    let saved = started.saved.as_ref().expect("saved");
    assert_eq!(
        (saved.info.id.as_str(), saved.opening),
        (id.as_str(), Opening::Resumed)
    );
    assert_eq!(texts(&started.history, Role::User), ["first task"]);
    assert_eq!(texts(&started.history, Role::Assistant), ["answer one"]);
    assert_eq!(started.summary.provider, "lmstudio");
    assert_eq!(started.summary.approval, "full-auto");
    started.handle.send(Request::user_message("second task"));
    while let Some(event) = started.events.recv().await {
        match event.event {
            Event::TurnCompleted { .. } => break,
            Event::TurnFailed { error, .. } => panic!("turn failed: {error:?}"),
            _ => {}
        }
    }
    started.handle.send(Request::Shutdown);
    while started.events.recv().await.is_some() {}
    let sent = server.requests()[1].json().to_string();
    for needle in ["first task", "answer one", "second task"] {
        assert!(sent.contains(needle), "{needle} missing from {sent}");
    }

    // And back through the binary: exec resumes what the runtime added.
    let third = project
        .exec(&server, &["--resume", &id], "third task")
        .await;
    assert!(third.status.success(), "{}", stderr(&third));
    assert!(
        stderr(&third).contains(&format!("resuming session {id}")),
        "{}",
        stderr(&third)
    );
    let sent = server.requests()[2].json().to_string();
    for needle in [
        "first task",
        "answer one",
        "second task",
        "answer two",
        "third task",
    ] {
        assert!(sent.contains(needle), "{needle} missing from {sent}");
    }
    let store = SessionStore::open(&project.store_path()).unwrap();
    assert_eq!(store.messages(&id).unwrap().len(), 6);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_of_another_project_is_refused_and_last_without_one_is_named() {
    let project = project();
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("answer one").openai_chat());
    let first = project.exec(&server, &[], "first task").await;
    assert!(first.status.success(), "{}", stderr(&first));
    let id = SessionStore::open(&project.store_path())
        .unwrap()
        .latest_for_project(&hone_memory::project_key(&project.root))
        .unwrap()
        .unwrap()
        .id;

    let elsewhere = project.root.join("sub");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let runtime = project.runtime(&elsewhere, &server);
    let resume = |choice| SessionRequest {
        choice,
        ..tui_resume()
    };
    match runtime
        .start_session(resume(SessionChoice::Resume(id.clone())))
        .await
    {
        Err(RuntimeError::OtherProject { id: refused, .. }) => assert_eq!(refused, id),
        other => panic!("expected OtherProject, got {:?}", other.err()),
    }
    match runtime
        .start_session(resume(SessionChoice::Resume("last".into())))
        .await
    {
        Err(RuntimeError::NoSessionToResume { .. }) => {}
        other => panic!("expected NoSessionToResume, got {:?}", other.err()),
    }
    // The TUI's default starts a new session when there is none to continue.
    let started = runtime.start_session(tui_resume()).await.unwrap();
    let saved = started.saved.as_ref().unwrap();
    assert_eq!(saved.opening, Opening::Created);
    assert!(started.history.is_empty());
    assert_eq!(server.requests().len(), 1, "no model request was made");
}
