//! Housekeeping of the real `hone` binary: looking creates nothing, a failed run leaves no
//! listed session, and the audit log holds JSON only and stays under `[logs] max_mb`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use common::{hone_with_data_dir as hone, stderr};
use hone_testkit::{MockResponse, MockServer, Reply};
use serde_json::{Value, json};

/// Every path under `root`, relative, sorted.
fn tree(root: &Path) -> Vec<String> {
    let mut paths = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            paths.push(path.strip_prefix(root).unwrap().display().to_string());
            if path.is_dir() {
                stack.push(path);
            }
        }
    }
    paths.sort();
    paths
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_commands_create_nothing() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("main.py"), "print(1)\n").unwrap();
    let before = tree(root.path());
    for args in [
        &["sessions", "list"][..],
        &["sessions", "list", "--all", "--json"],
        &["undo", "--list"],
        &["index", "status"],
        &["index", "status", "--json"],
        &["config", "show"],
        &["config", "example"],
        &["model", "list"],
        &["doctor"],
        &["--help"],
    ] {
        let output = hone(root.path(), &[("HONE_PROVIDER", "lmstudio")], args).await;
        // Nothing is usable here (no key, no server, no model): doctor says so with code 2.
        let expected = if args == ["doctor"] { Some(2) } else { Some(0) };
        assert_eq!(
            output.status.code(),
            expected,
            "{args:?}: {}",
            stderr(&output)
        );
        assert_eq!(tree(root.path()), before, "{args:?} created files");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_failed_before_any_answer_leaves_no_listed_session() {
    let root = tempfile::tempdir().unwrap();
    let server = MockServer::start().await;
    let url = server.url();
    let env = [
        ("HONE_PROVIDER", "lmstudio"),
        ("HONE_BASE_URL", url.as_str()),
    ];
    server.enqueue(MockResponse::json(
        400,
        &json!({"error": {"message": "model not loaded"}}),
    ));
    let failed = hone(root.path(), &env, &["exec", "hello"]).await;
    assert_eq!(failed.status.code(), Some(8), "{}", stderr(&failed));
    // No session id is printed for a session that is not listed.
    assert!(
        !stderr(&failed).contains("session: "),
        "{}",
        stderr(&failed)
    );
    let listed = hone(root.path(), &env, &["sessions", "list", "--json"]).await;
    let sessions: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(sessions, json!([]), "{}", stderr(&listed));
    let resume = hone(root.path(), &env, &["exec", "--resume", "last", "again"]).await;
    assert_eq!(resume.status.code(), Some(2), "{}", stderr(&resume));

    server.enqueue(Reply::new().text("hi").openai_chat());
    let answered = hone(root.path(), &env, &["exec", "hello"]).await;
    assert!(answered.status.success(), "{}", stderr(&answered));
    assert!(
        stderr(&answered).contains("session: "),
        "{}",
        stderr(&answered)
    );
    let listed = hone(root.path(), &env, &["sessions", "list", "--json"]).await;
    let sessions: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(sessions.as_array().unwrap().len(), 1, "{sessions}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_log_is_json_without_repeats_and_is_capped() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(
        root.path().join("notes.txt"),
        "a line of notes\n".repeat(8_000),
    )
    .unwrap();
    std::fs::create_dir_all(root.path().join(".hone")).unwrap();
    std::fs::write(
        root.path().join(".hone/config.toml"),
        "[logs]\nmax_mb = 1\n",
    )
    .unwrap();
    // A log from earlier runs, just over half the cap: the next line rotates it.
    let logs = root.path().join(".hone/logs");
    std::fs::create_dir_all(&logs).unwrap();
    let old_line = format!("{}\n", json!({"old": "y".repeat(1_000)}));
    std::fs::write(logs.join("tools.jsonl"), old_line.repeat(530)).unwrap();
    let server = MockServer::start().await;
    let url = server.url();
    let env = [
        ("HONE_PROVIDER", "lmstudio"),
        ("HONE_BASE_URL", url.as_str()),
    ];
    for _ in 0..2 {
        server.enqueue(
            Reply::new()
                .tool_call("read_file", json!({"path": "notes.txt"}))
                .openai_chat(),
        );
    }
    server.enqueue(Reply::new().text("done").openai_chat());
    let output = hone(
        root.path(),
        &env,
        &["exec", "read notes.txt again and again"],
    )
    .await;
    assert!(output.status.success(), "{}", stderr(&output));
    let comms = std::fs::read_to_string(logs.join("comms.jsonl")).unwrap();
    assert!(!comms.contains("Completed("), "no Debug text: {comms}");
    let lines: Vec<Value> = comms
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let requests: Vec<&Value> = lines
        .iter()
        .filter(|line| line["direction"] == "request")
        .collect();
    let second = &requests[1]["payload"];
    assert!(second["messages_from"].as_u64().unwrap() > 0, "{second}");
    assert!(
        second.get("system").is_none(),
        "an unchanged system prompt is not repeated"
    );
    let size = |name: &str| std::fs::metadata(logs.join(name)).map_or(0, |meta| meta.len());
    let rotated = std::fs::read_to_string(logs.join("tools.1.jsonl")).unwrap();
    assert!(
        rotated.starts_with(&old_line),
        "the old log became tools.1.jsonl"
    );
    let current = std::fs::read_to_string(logs.join("tools.jsonl")).unwrap();
    assert!(!current.contains("\"old\""), "tools.jsonl started afresh");
    assert!(
        size("tools.jsonl") + size("tools.1.jsonl") <= 1024 * 1024,
        "tools.jsonl stays under the cap"
    );
}
