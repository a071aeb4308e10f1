//! End-to-end tests of saved sessions and undo: the real `hone` binary, a mock model
//! server, resume and fork, `hone sessions …`, `hone undo`, and processes killed with
//! SIGKILL mid-stream and around an edit.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use hone_memory::SessionStore;
use hone_testkit::{MockServer, Reply};
use serde_json::{Value, json};

/// A project directory and a data directory (where sessions.db lives), side by side.
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
    fn command(&self, args: &[&str]) -> Command {
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
        command
    }

    async fn run(&self, args: &[&str]) -> Output {
        let mut command = self.command(args);
        tokio::task::spawn_blocking(move || command.output().expect("hone runs"))
            .await
            .unwrap()
    }

    /// `hone exec` against the mock server, full-auto, with `extra` flags before the prompt.
    async fn exec(&self, server: &MockServer, extra: &[&str], prompt: &str) -> Output {
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

    fn spawn_exec(&self, server: &MockServer, prompt: &str) -> Child {
        self.command(&[
            "exec",
            "--provider",
            "lmstudio",
            "--base-url",
            &server.url(),
            "--approval",
            "full-auto",
            prompt,
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("hone starts")
    }

    fn store(&self) -> SessionStore {
        SessionStore::open(&self.data.join("sessions.db")).unwrap()
    }

    async fn sessions(&self) -> Vec<Value> {
        let output = self.run(&["sessions", "list", "--json"]).await;
        assert!(output.status.success(), "{}", stderr(&output));
        serde_json::from_slice::<Vec<Value>>(&output.stdout).unwrap()
    }

    fn notes(&self) -> String {
        std::fs::read_to_string(self.root.join("notes.txt")).unwrap()
    }
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The id from the `session: ID` line `hone exec` prints last.
fn session_id(output: &Output) -> String {
    stderr(output)
        .lines()
        .find_map(|line| line.strip_prefix("session: "))
        .unwrap_or_else(|| panic!("no session line in: {}", stderr(output)))
        .trim()
        .to_string()
}

/// Waits up to 30 s for `condition`.
async fn wait_for(what: &str, mut condition: impl FnMut() -> bool) {
    let started = Instant::now();
    while !condition() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn kill(mut child: Child) {
    // `Child::kill` sends SIGKILL on Unix: no destructor, no flush, no cleanup runs.
    let _ = child.kill();
    let _ = child.wait();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_sends_the_earlier_messages_and_fork_copies_them() {
    let sandbox = sandbox();
    let server = MockServer::start().await;
    for text in ["answer one", "answer two", "answer three"] {
        server.enqueue(Reply::new().text(text).usage(10, 2).openai_chat());
    }
    let first = sandbox.exec(&server, &[], "first task").await;
    assert!(first.status.success(), "{}", stderr(&first));
    let id = session_id(&first);
    assert_eq!(id.len(), hone_memory::ID_LEN);

    let resumed = sandbox
        .exec(&server, &["--resume", "--max-rounds", "5"], "second task")
        .await;
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    assert_eq!(
        session_id(&resumed),
        id,
        "--resume alone means the last one"
    );
    assert!(
        stderr(&resumed).contains("resuming session"),
        "{}",
        stderr(&resumed)
    );
    let sent = server.requests()[1].json().to_string();
    for needle in ["first task", "answer one", "second task"] {
        assert!(sent.contains(needle), "{needle} missing from {sent}");
    }
    assert!(sent.find("first task") < sent.find("second task"));

    let forked = sandbox
        .exec(&server, &["--fork", &id[..12]], "a different direction")
        .await;
    assert!(forked.status.success(), "{}", stderr(&forked));
    let fork = session_id(&forked);
    assert_ne!(fork, id);
    let sent = server.requests()[2].json().to_string();
    for needle in ["first task", "answer two", "a different direction"] {
        assert!(sent.contains(needle), "{needle} missing from {sent}");
    }

    let store = sandbox.store();
    assert_eq!(
        store.messages(&id).unwrap().len(),
        4,
        "the original is unchanged"
    );
    assert_eq!(store.messages(&fork).unwrap().len(), 6);
    let info = store.find(&id).unwrap();
    assert_eq!(info.title, "first task");
    assert_eq!(info.stats.turns, 2);
    assert_eq!(info.stats.tokens_in, 20);
    assert_eq!(
        store.find(&fork).unwrap().forked_from.as_deref(),
        Some(id.as_str())
    );
    let project = hone_memory::project_key(&sandbox.root);
    assert_eq!(
        store.input_history(&project, 10).unwrap(),
        ["a different direction", "second task", "first task"]
    );

    let listed = sandbox.sessions().await;
    let ids: Vec<&str> = listed.iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [fork.as_str(), id.as_str()], "newest activity first");
    assert_eq!(listed[1]["messages"], 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_listed_shown_exported_and_deleted() {
    let sandbox = sandbox();
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .tool_call("read_file", json!({"path": "notes.txt"}))
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("It has three lines.").openai_chat());
    let url = server.url();
    let output = sandbox
        .run(&[
            "exec",
            "--provider",
            "lmstudio",
            "--base-url",
            &url,
            "--json",
            "what is in notes?",
        ])
        .await;
    assert!(output.status.success(), "{}", stderr(&output));
    let started: Value = serde_json::from_str(stdout(&output).lines().next().unwrap()).unwrap();
    assert_eq!(started["type"], "session.started");
    let id = started["session_id"].as_str().unwrap().to_string();

    let table = sandbox.run(&["sessions", "list"]).await;
    assert!(table.status.success(), "{}", stderr(&table));
    let text = stdout(&table);
    assert!(text.starts_with("ID"), "{text}");
    assert!(
        text.contains(&id) && text.contains("what is in notes?"),
        "{text}"
    );

    let shown = sandbox.run(&["sessions", "show", &id[..10]]).await;
    assert!(shown.status.success(), "{}", stderr(&shown));
    let text = stdout(&shown);
    for needle in [
        "what is in notes?",
        "▸ read_file",
        "It has three lines.",
        "4 messages",
    ] {
        assert!(text.contains(needle), "{needle} missing from {text}");
    }

    let file = sandbox.root.join("out/transcript.md");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let exported = sandbox
        .run(&["sessions", "export", &id, "-o", file.to_str().unwrap()])
        .await;
    assert!(exported.status.success(), "{}", stderr(&exported));
    let markdown = std::fs::read_to_string(&file).unwrap();
    assert!(markdown.starts_with("# what is in notes?"), "{markdown}");
    assert!(markdown.contains("**call** `read_file`"), "{markdown}");
    let json = sandbox
        .run(&["sessions", "export", &id, "--format", "json"])
        .await;
    let json: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["messages"].as_array().unwrap().len(), 4);

    let other_project = sandbox.root.join("elsewhere");
    std::fs::create_dir_all(&other_project).unwrap();
    let elsewhere = sandbox
        .run(&[
            "-C",
            other_project.to_str().unwrap(),
            "sessions",
            "list",
            "--json",
        ])
        .await;
    assert_eq!(stdout(&elsewhere).trim(), "[]");
    let all = sandbox
        .run(&[
            "-C",
            other_project.to_str().unwrap(),
            "sessions",
            "list",
            "--all",
        ])
        .await;
    assert!(stdout(&all).contains(&id), "{}", stdout(&all));

    let deleted = sandbox.run(&["sessions", "delete", &id]).await;
    assert!(deleted.status.success(), "{}", stderr(&deleted));
    assert!(sandbox.sessions().await.is_empty());
    let missing = sandbox.run(&["sessions", "show", &id]).await;
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("no session"),
        "{}",
        stderr(&missing)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resuming_nothing_is_a_clear_usage_error() {
    let sandbox = sandbox();
    let server = MockServer::start().await;
    let output = sandbox.exec(&server, &["--resume", "last"], "go on").await;
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no saved session"),
        "{}",
        stderr(&output)
    );
    let output = sandbox
        .exec(&server, &["--resume", "01JZZZ"], "go on")
        .await;
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no session `01JZZZ`"),
        "{}",
        stderr(&output)
    );
    // The prompt right after a bare --resume is taken as the session.
    let output = sandbox.exec(&server, &["--resume"], "go on please").await;
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("hone exec --resume last \"go on please\""),
        "{}",
        stderr(&output)
    );
    assert_eq!(server.request_count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undo_takes_back_edits_of_an_earlier_process_and_refuses_conflicts() {
    let sandbox = sandbox();
    let server = MockServer::start().await;
    for (old, new) in [("beta", "BETA"), ("gamma", "GAMMA")] {
        server.enqueue(
            Reply::new()
                .tool_call(
                    "edit_file",
                    json!({"path": "notes.txt", "old_text": old, "new_text": new}),
                )
                .openai_chat(),
        );
    }
    server.enqueue(Reply::new().text("Shouted.").openai_chat());
    let output = sandbox.exec(&server, &[], "shout").await;
    // A text file has no check: the edits are applied and reported unverified.
    assert_eq!(output.status.code(), Some(10), "{}", stderr(&output));
    assert_eq!(sandbox.notes(), "alpha\nBETA\nGAMMA\n");

    let listed = sandbox.run(&["undo", "--list"]).await;
    assert!(listed.status.success(), "{}", stderr(&listed));
    let text = stdout(&listed);
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(
        text.lines().all(|line| line.contains("notes.txt")),
        "{text}"
    );

    let undone = sandbox.run(&["undo"]).await;
    assert!(undone.status.success(), "{}", stderr(&undone));
    assert!(
        stdout(&undone).starts_with("undone: "),
        "{}",
        stdout(&undone)
    );
    assert_eq!(sandbox.notes(), "alpha\nBETA\ngamma\n");

    // A change made after the edit: undo refuses and changes nothing.
    std::fs::write(sandbox.root.join("notes.txt"), "alpha\nBETA\ngamma\nmine\n").unwrap();
    let refused = sandbox
        .run(&["-C", sandbox.root.to_str().unwrap(), "undo"])
        .await;
    assert_eq!(refused.status.code(), Some(3), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("notes.txt"),
        "{}",
        stderr(&refused)
    );
    assert!(
        stderr(&refused).contains("nothing was changed"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(sandbox.notes(), "alpha\nBETA\ngamma\nmine\n");

    // Put the file back as hone left it: undo works again, then the stack is empty.
    std::fs::write(sandbox.root.join("notes.txt"), "alpha\nBETA\ngamma\n").unwrap();
    assert!(sandbox.run(&["undo", "5"]).await.status.success());
    assert_eq!(sandbox.notes(), "alpha\nbeta\ngamma\n");
    let empty = sandbox.run(&["undo"]).await;
    assert_eq!(empty.status.code(), Some(1));
    assert!(
        stderr(&empty).contains("nothing to undo"),
        "{}",
        stderr(&empty)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_during_a_streamed_reply_keeps_the_session_resumable() {
    let sandbox = sandbox();
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .text("I am thinking about this for a long while")
            .openai_chat()
            .stall_after(4),
    );
    server.enqueue(Reply::new().text("Back again.").openai_chat());
    let child = sandbox.spawn_exec(&server, "a long question");
    wait_for("the model request", || server.request_count() == 1).await;
    // Let the first chunks arrive, so the reply is mid-stream when the process dies.
    tokio::time::sleep(Duration::from_millis(300)).await;
    kill(child);

    let listed = sandbox.sessions().await;
    assert_eq!(listed.len(), 1);
    assert_eq!(
        listed[0]["messages"], 1,
        "the user message survived: {listed:?}"
    );
    assert_eq!(listed[0]["title"], "a long question");

    let resumed = sandbox
        .exec(&server, &["--resume", "last"], "are you there?")
        .await;
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    assert!(stdout(&resumed).contains("Back again."));
    let sent = server.requests()[1].json();
    let messages = sent["messages"].as_array().unwrap();
    let users: Vec<&str> = messages
        .iter()
        .filter(|message| message["role"] == "user")
        .map(|message| message["content"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(users, ["a long question", "are you there?"], "{sent}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_after_an_edit_keeps_the_edit_undoable() {
    let sandbox = sandbox();
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .tool_call(
                "edit_file",
                json!({"path": "notes.txt", "old_text": "beta", "new_text": "BETA"}),
            )
            .openai_chat(),
    );
    server.enqueue(
        Reply::new()
            .text("Now let me also")
            .openai_chat()
            .stall_after(3),
    );
    let child = sandbox.spawn_exec(&server, "shout beta");
    wait_for("the request after the edit", || server.request_count() == 2).await;
    kill(child);

    assert_eq!(sandbox.notes(), "alpha\nBETA\ngamma\n");
    let listed = sandbox.sessions().await;
    assert_eq!(listed.len(), 1);
    assert_eq!(
        listed[0]["messages"], 3,
        "user, assistant call, tool result: {listed:?}"
    );
    let undone = sandbox.run(&["undo"]).await;
    assert!(undone.status.success(), "{}", stderr(&undone));
    assert_eq!(sandbox.notes(), "alpha\nbeta\ngamma\n");

    // The history is valid for the provider after the kill.
    server.enqueue(Reply::new().text("Resumed.").openai_chat());
    let resumed = sandbox
        .exec(&server, &["--resume", "last"], "continue")
        .await;
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    let sent = server.requests()[2].json();
    let messages = sent["messages"].as_array().unwrap();
    let call = messages
        .iter()
        .position(|message| message.get("tool_calls").is_some())
        .unwrap();
    assert_eq!(messages[call + 1]["role"], "tool", "{sent}");
}

/// A 2 MB file edited in place: killing the process at many moments around the edit leaves
/// the file old or new (never partial), the store readable, and `hone undo` restoring it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kills_at_any_moment_around_an_edit_leave_the_file_whole() {
    let lines: String = (0..60_000).map(|n| format!("line {n:08}\n")).collect();
    let edited = lines.replacen("line 00030000\n", "LINE 00030000\n", 1);
    let script = || {
        vec![
            Reply::new()
                .tool_call(
                    "edit_file",
                    json!({"path": "big.txt", "old_text": "line 00030000", "new_text": "LINE 00030000"}),
                )
                .openai_chat(),
            Reply::new().text("Done.").openai_chat(),
        ]
    };

    // One undisturbed run gives the time scale.
    let sandbox = self::sandbox();
    std::fs::write(sandbox.root.join("big.txt"), &lines).unwrap();
    let server = MockServer::start().await;
    for reply in script() {
        server.enqueue(reply);
    }
    let started = Instant::now();
    let output = sandbox.exec(&server, &[], "shout line 30000").await;
    let full = started.elapsed();
    assert_eq!(
        output.status.code(),
        Some(10),
        "unverified: {}",
        stderr(&output)
    );
    assert!(std::fs::read_to_string(sandbox.root.join("big.txt")).unwrap() == edited);

    for step in 1..=6_u32 {
        let sandbox = self::sandbox();
        let path = sandbox.root.join("big.txt");
        std::fs::write(&path, &lines).unwrap();
        let server = MockServer::start().await;
        for reply in script() {
            server.enqueue(reply);
        }
        let child = sandbox.spawn_exec(&server, "shout line 30000");
        tokio::time::sleep(full * step / 6).await;
        kill(child);

        let content = std::fs::read_to_string(&path).unwrap();
        assert!(
            content == lines || content == edited,
            "step {step}: the file is partial ({} bytes)",
            content.len()
        );
        let listed = sandbox.sessions().await;
        assert!(listed.len() <= 1, "step {step}: {listed:?}");
        let undo = sandbox.run(&["undo"]).await;
        assert!(
            matches!(undo.status.code(), Some(0 | 1)),
            "step {step}: {}",
            stderr(&undo)
        );
        assert!(
            std::fs::read_to_string(&path).unwrap() == lines,
            "step {step}: undo did not restore the file ({})",
            stderr(&undo)
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_and_sighup_stop_the_turn_like_ctrl_c() {
    for signal in ["-TERM", "-HUP"] {
        let sandbox = sandbox();
        let server = MockServer::start().await;
        server.enqueue(
            Reply::new()
                .text("I am thinking about this for a long while")
                .openai_chat()
                .stall_after(2),
        );
        let child = sandbox.spawn_exec(&server, "a long question");
        wait_for("the model request", || server.request_count() == 1).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let sent = std::process::Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let output = tokio::task::spawn_blocking(move || child.wait_with_output())
            .await
            .unwrap()
            .unwrap();
        // The turn was cancelled (not killed): hone's interrupted code, the session saved.
        assert_eq!(
            output.status.code(),
            Some(i32::from(hone_runtime::INTERRUPTED)),
            "{signal}"
        );
        let listed = sandbox.sessions().await;
        assert_eq!(listed.len(), 1, "{signal}: {listed:?}");
        assert_eq!(listed[0]["title"], "a long question");
    }
}
