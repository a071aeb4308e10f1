//! End-to-end tests of plan mode in `hone exec`: a plan made with read-only tools, printed
//! and left alone, carried out step by step with progress, or edited and carried out from
//! a file.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

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
        let mut command = Command::new(env!("CARGO_BIN_EXE_hone"));
        command
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.root.join(".home"))
            .env("XDG_CONFIG_HOME", self.root.join(".home/.config"))
            .env("HONE_DATA_DIR", &self.data)
            .current_dir(&self.root)
            .stdin(Stdio::null())
            .args(&args);
        tokio::task::spawn_blocking(move || command.output().expect("hone runs"))
            .await
            .unwrap()
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

const PLAN: &str = "1. Change beta to BETA in notes.txt\n2. Change gamma to GAMMA in notes.txt";

/// The planning turn: an edit attempt (refused: planning is read-only), then the plan.
fn enqueue_plan(server: &MockServer) {
    server.enqueue(
        Reply::new()
            .tool_call(
                "edit_file",
                json!({"path": "notes.txt", "old_text": "alpha", "new_text": "ALPHA"}),
            )
            .openai_chat(),
    );
    server.enqueue(Reply::new().text(PLAN).openai_chat());
}

fn enqueue_step(server: &MockServer, old: &str, new: &str) {
    server.enqueue(
        Reply::new()
            .tool_call(
                "edit_file",
                json!({"path": "notes.txt", "old_text": old, "new_text": new}),
            )
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("Done.").openai_chat());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_is_made_read_only_and_printed() {
    let sandbox = sandbox();
    let server = MockServer::start().await;
    enqueue_plan(&server);
    let output = sandbox.exec(&server, &["--plan"], "shout the notes").await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("2. Change gamma"),
        "{}",
        stdout(&output)
    );
    assert!(
        stderr(&output).contains("plan: 2 step(s)"),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        sandbox.notes(),
        "alpha\nbeta\ngamma\n",
        "planning changes nothing"
    );
    let first = server.requests()[0].json().to_string();
    assert!(first.contains("Plan mode"), "{first}");
    assert_eq!(server.request_count(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approved_plan_is_carried_out_step_by_step() {
    let sandbox = sandbox();
    let server = MockServer::start().await;
    enqueue_plan(&server);
    enqueue_step(&server, "beta", "BETA");
    enqueue_step(&server, "gamma", "GAMMA");
    let output = sandbox
        .exec(&server, &["--plan", "--approve-plan"], "shout the notes")
        .await;
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(10), "{err}");
    assert_eq!(sandbox.notes(), "alpha\nBETA\nGAMMA\n");
    assert!(err.contains("Step 1/2 →○"), "{err}");
    assert!(err.contains("Step 2/2 ✓→"), "{err}");
    assert!(err.contains("✓✓ done"), "{err}");
    // Each step's request restates the whole plan and what is done, so a compaction of the
    // earlier turns cannot lose it.
    let step_two = server.requests()[4].json().to_string();
    assert!(step_two.contains("1. [done] Change beta"), "{step_two}");
    assert!(step_two.contains("2. [now] Change gamma"), "{step_two}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edited_plan_file_is_carried_out() {
    let sandbox = sandbox();
    let server = MockServer::start().await;
    let plan = sandbox.root.join("plan.md");
    std::fs::write(&plan, "My plan:\n1. Change gamma to GAMMA only\n").unwrap();
    enqueue_step(&server, "gamma", "GAMMA");
    let output = sandbox
        .exec(&server, &["--plan-file", plan.to_str().unwrap()], "shout")
        .await;
    assert_eq!(output.status.code(), Some(10), "{}", stderr(&output));
    assert_eq!(sandbox.notes(), "alpha\nbeta\nGAMMA\n");
    assert_eq!(server.request_count(), 2);

    std::fs::write(&plan, "no steps here\n").unwrap();
    let refused = sandbox
        .exec(&server, &["--plan-file", plan.to_str().unwrap()], "shout")
        .await;
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("numbered"),
        "{}",
        stderr(&refused)
    );
}
