//! Hooks (`[[hooks]]`) end to end: the real binary, a mock model, hooks as shell commands.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use hone_testkit::{MockServer, Reply};
use serde_json::json;

const ORIGINAL: &str = "keep me\n";

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), ORIGINAL).unwrap();
    common::commit_all(dir.path());
    dir
}

fn user_config(root: &Path, text: &str) {
    let dir = root.join(".home/.config/hone");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.toml"), text).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocking_pre_tool_use_hook_keeps_the_file_and_tells_the_model_why() {
    let repo = project();
    user_config(
        repo.path(),
        "[[hooks]]\nevent = \"PreToolUse\"\nmatcher = \"Write|edit_file\"\n\
         command = \"echo 'notes are frozen: ask the user first' >&2; exit 2\"\n",
    );
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .tool_call(
                "write_file",
                json!({"path": "notes.txt", "content": "overwritten\n"}),
            )
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("I left the notes alone.").openai_chat());
    let output = common::exec_on(
        repo.path(),
        &server.url(),
        &["--approval", "full-auto", "--json", "rewrite the notes"],
    )
    .await;
    // The change was asked for and not made, so the exit code is not 0.
    let events = common::events(&output);
    let blocked = common::of_type(&events, "tool.completed");
    assert_eq!(blocked.len(), 1, "{}", common::stderr(&output));
    assert_eq!(blocked[0]["is_error"], true);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let second = requests[1].json().to_string();
    assert!(
        second.contains("blocked by a PreToolUse hook: notes are frozen: ask the user first"),
        "{second}"
    );
    assert_eq!(
        std::fs::read_to_string(repo.path().join("notes.txt")).unwrap(),
        ORIGINAL
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_post_tool_use_hook_sees_the_call_and_its_result() {
    let repo = project();
    user_config(
        repo.path(),
        "[[hooks]]\nevent = \"PostToolUse\"\nmatcher = \"read_file\"\npaths = \"*.txt\"\n\
         command = \"cat > hook-input.json\"\n",
    );
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .tool_call("read_file", json!({"path": "notes.txt"}))
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("It says keep me.").openai_chat());
    let output = common::exec_on(
        repo.path(),
        &server.url(),
        &[
            "--approval",
            "full-auto",
            "--json",
            "what do the notes say?",
        ],
    )
    .await;
    assert!(output.status.success(), "{}", common::stderr(&output));
    let seen = std::fs::read_to_string(repo.path().join("hook-input.json")).unwrap();
    let seen: serde_json::Value = serde_json::from_str(&seen).unwrap();
    assert_eq!(seen["hook_event_name"], "PostToolUse");
    assert_eq!(seen["tool_name"], "read_file");
    assert_eq!(seen["tool_input"]["path"], "notes.txt");
    assert_eq!(seen["tool_response"]["is_error"], false);
    let content = seen["tool_response"]["content"].as_str().unwrap();
    assert!(content.contains("keep me"), "{content}");
    assert!(seen["session_id"].is_string(), "{seen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_prompt_submit_hook_can_block_the_prompt_before_the_model_sees_it() {
    let repo = project();
    user_config(
        repo.path(),
        "[[hooks]]\nevent = \"UserPromptSubmit\"\n\
         command = \"grep -q password && { echo 'no secrets in prompts' >&2; exit 2; }; exit 0\"\n",
    );
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("never sent").openai_chat());
    let output = common::exec_on(
        repo.path(),
        &server.url(),
        &["--json", "my password is hunter2"],
    )
    .await;
    assert!(!output.status.success());
    assert!(server.requests().is_empty());
    let failed = common::of_type(&common::events(&output), "turn.failed")
        .first()
        .map(|event| event.to_string())
        .unwrap_or_default();
    assert!(failed.contains("no secrets in prompts"), "{failed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_projects_hooks_never_run_and_are_named_in_a_warning() {
    let repo = project();
    std::fs::create_dir_all(repo.path().join(".hone")).unwrap();
    std::fs::write(
        repo.path().join(".hone/config.toml"),
        "[[hooks]]\nevent = \"SessionStart\"\ncommand = \"touch pwned\"\n\n\
         [[hooks]]\nevent = \"PreToolUse\"\ncommand = \"touch pwned\"\n",
    )
    .unwrap();
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .tool_call("read_file", json!({"path": "notes.txt"}))
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("Read.").openai_chat());
    let output = common::exec_on(
        repo.path(),
        &server.url(),
        &["--approval", "full-auto", "--json", "read the notes"],
    )
    .await;
    assert!(output.status.success(), "{}", common::stderr(&output));
    assert!(!repo.path().join("pwned").exists());
    let stderr = common::stderr(&output);
    assert!(stderr.contains("[[hooks]] (2 hook(s)"), "{stderr}");
}
