//! End-to-end tests of rewinding a session: the real `hone` binary, a mock model server,
//! `hone sessions rewind` restoring files and conversation, refusing a file changed since
//! by someone else, and forking from an earlier prompt.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use hone_memory::SessionStore;
use hone_testkit::{MockServer, Reply};
use serde_json::json;

struct Sandbox {
    _dir: tempfile::TempDir,
    root: PathBuf,
    data: PathBuf,
}

fn sandbox() -> Sandbox {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("notes.txt"), "alpha\nbeta\ngamma\n").unwrap();
    Sandbox {
        root: root.canonicalize().unwrap(),
        data: dir.path().join("data"),
        _dir: dir,
    }
}

impl Sandbox {
    async fn run(&self, args: &[&str]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hone"));
        command
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.root.join(".home"))
            .env("XDG_CONFIG_HOME", self.root.join(".home/.config"))
            .env("HONE_DATA_DIR", &self.data)
            .current_dir(&self.root)
            .stdin(Stdio::null())
            .args(args);
        tokio::task::spawn_blocking(move || command.output().expect("hone runs"))
            .await
            .unwrap()
    }

    /// One `hone exec` turn in which the model edits `old` to `new` in notes.txt.
    async fn edit_turn(
        &self,
        server: &MockServer,
        extra: &[&str],
        prompt: &str,
        old: &str,
        new: &str,
    ) -> Output {
        server.enqueue(
            Reply::new()
                .tool_call(
                    "edit_file",
                    json!({"path": "notes.txt", "old_text": old, "new_text": new}),
                )
                .openai_chat(),
        );
        server.enqueue(Reply::new().text("Done.").openai_chat());
        let url = server.url();
        let mut args = vec![
            "exec",
            "--provider",
            "lmstudio",
            "--base-url",
            &url,
            "--approval",
            "full-auto",
        ];
        args.extend_from_slice(extra);
        args.push(prompt);
        self.run(&args).await
    }

    fn store(&self) -> SessionStore {
        SessionStore::open(&self.data.join("sessions.db")).unwrap()
    }

    fn notes(&self) -> String {
        std::fs::read_to_string(self.root.join("notes.txt")).unwrap()
    }

    fn user_texts(&self, id: &str) -> Vec<String> {
        self.store()
            .messages(id)
            .unwrap()
            .into_iter()
            .filter(|stored| stored.message.role == hone_protocol::Role::User)
            .map(|stored| stored.message.text())
            .filter(|text| !text.is_empty())
            .collect()
    }
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn session_id(output: &Output) -> String {
    stderr(output)
        .lines()
        .find_map(|line| line.strip_prefix("session: "))
        .unwrap_or_else(|| panic!("no session line in: {}", stderr(output)))
        .trim()
        .to_string()
}

/// Two turns, each editing notes.txt: (the session id).
async fn two_turns(sandbox: &Sandbox, server: &MockServer) -> String {
    let first = sandbox
        .edit_turn(server, &[], "shout beta", "beta", "BETA")
        .await;
    assert_eq!(first.status.code(), Some(10), "{}", stderr(&first));
    let id = session_id(&first);
    let second = sandbox
        .edit_turn(server, &["--resume", &id], "shout gamma", "gamma", "GAMMA")
        .await;
    assert_eq!(second.status.code(), Some(10), "{}", stderr(&second));
    assert_eq!(sandbox.notes(), "alpha\nBETA\nGAMMA\n");
    id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rewind_restores_files_and_history_and_refuses_a_file_changed_since() {
    let sandbox = sandbox();
    let server = MockServer::start().await;
    let id = two_turns(&sandbox, &server).await;

    let listed = sandbox.run(&["sessions", "rewind", &id]).await;
    assert!(listed.status.success(), "{}", stderr(&listed));
    let text = stdout(&listed);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].contains("shout beta") && lines[0].contains("2 edit(s)"),
        "{text}"
    );
    assert!(
        lines[1].contains("shout gamma") && lines[1].contains("1 edit(s)"),
        "{text}"
    );

    // Someone else changed the file after the session's edit: nothing is changed.
    std::fs::write(sandbox.root.join("notes.txt"), "alpha\nBETA\nGAMMA\nmine\n").unwrap();
    let refused = sandbox.run(&["sessions", "rewind", &id, "2"]).await;
    assert_eq!(refused.status.code(), Some(3), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("notes.txt"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(sandbox.notes(), "alpha\nBETA\nGAMMA\nmine\n");
    assert_eq!(sandbox.user_texts(&id), ["shout beta", "shout gamma"]);

    std::fs::write(sandbox.root.join("notes.txt"), "alpha\nBETA\nGAMMA\n").unwrap();
    let rewound = sandbox.run(&["sessions", "rewind", &id, "2"]).await;
    assert!(rewound.status.success(), "{}", stderr(&rewound));
    assert_eq!(
        stdout(&rewound).trim(),
        "shout gamma",
        "the prompt, to edit and resend"
    );
    assert_eq!(sandbox.notes(), "alpha\nBETA\ngamma\n");
    assert_eq!(sandbox.user_texts(&id), ["shout beta"]);

    // The session goes on from before the prompt: the model no longer sees it.
    server.enqueue(Reply::new().text("Fine.").openai_chat());
    let url = server.url();
    let again = sandbox
        .run(&[
            "exec",
            "--provider",
            "lmstudio",
            "--base-url",
            &url,
            "--resume",
            &id,
            "whisper gamma",
        ])
        .await;
    assert!(again.status.success(), "{}", stderr(&again));
    let sent = server.last_request().json().to_string();
    assert!(
        sent.contains("shout beta") && sent.contains("whisper gamma"),
        "{sent}"
    );
    assert!(!sent.contains("shout gamma"), "{sent}");

    let bad = sandbox.run(&["sessions", "rewind", &id, "9"]).await;
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    assert!(stderr(&bad).contains("choose 1 to 2"), "{}", stderr(&bad));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_from_an_earlier_prompt_keeps_the_original() {
    let sandbox = sandbox();
    let server = MockServer::start().await;
    let id = two_turns(&sandbox, &server).await;

    let forked = sandbox
        .run(&["sessions", "rewind", &id, "1", "--fork", "--keep-files"])
        .await;
    assert!(forked.status.success(), "{}", stderr(&forked));
    assert!(stderr(&forked).contains("forked"), "{}", stderr(&forked));
    assert_eq!(stdout(&forked).trim(), "shout beta");
    assert_eq!(sandbox.notes(), "alpha\nBETA\nGAMMA\n", "--keep-files");
    let store = sandbox.store();
    let sessions = store
        .list(Some(&hone_memory::project_key(&sandbox.root)), 10)
        .unwrap();
    let fork = sessions
        .iter()
        .find(|session| session.forked_from.as_deref() == Some(id.as_str()))
        .expect("a fork of the session");
    assert!(store.messages(&fork.id).unwrap().is_empty());
    assert_eq!(sandbox.user_texts(&id), ["shout beta", "shout gamma"]);
}
