//! End-to-end tests of verified attempts: when a check reproduced the request, an attempt
//! whose checks still fail is rolled back (the files exactly as they were) and a fresh one
//! is made; the first that passes is kept, and each attempt is reported.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{events, of_type, stderr};
use hone_testkit::{MockServer, Reply};
use serde_json::{Value, json};

const CALC: &str = "def add(a, b):\n    return a - b\n";
const NOTES: &str = "# Notes\n\nadd adds.\n";

/// A Python project whose `add` subtracts, with no repair rounds (an attempt ends at its
/// first failing check) and `attempts` attempts.
fn project(attempts: u32) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("calc.py"), CALC).unwrap();
    std::fs::write(root.join("NOTES.md"), NOTES).unwrap();
    std::fs::create_dir_all(root.join(".hone")).unwrap();
    std::fs::write(
        root.join(".hone/config.toml"),
        format!("[checks]\nmax_repair_rounds = 0\nattempts = {attempts}\n"),
    )
    .unwrap();
    common::commit_all(root);
    dir
}

fn edit(path: &str, old: &str, new: &str) -> Reply {
    Reply::new().tool_call(
        "edit_file",
        json!({"path": path, "old_text": old, "new_text": new}),
    )
}

/// A first attempt that changes two files and creates a third, all wrong.
fn wrong_attempt() -> Vec<Reply> {
    vec![
        edit("calc.py", "return a - b", "return a * b"),
        edit("NOTES.md", "add adds.", "add multiplies."),
        Reply::new().tool_call(
            "write_file",
            json!({"path": "helper.py", "content": "def twice(x):\n    return 2 * x\n"}),
        ),
        Reply::new().text("Fixed."),
    ]
}

async fn exec(repo: &tempfile::TempDir, replies: Vec<Reply>) -> (i32, Vec<Value>, MockServer) {
    let server = MockServer::start().await;
    for reply in replies {
        server.enqueue(reply.openai_chat());
    }
    let url = server.url();
    let output = common::exec_on(
        repo.path(),
        &url,
        &[
            "--approval",
            "full-auto",
            "--json",
            "add(2, 3) should return 5 but it returns -1. Fix it.",
        ],
    )
    .await;
    eprintln!("{}", stderr(&output));
    (output.status.code().unwrap_or(-1), events(&output), server)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_attempt_is_rolled_back_and_only_the_passing_change_is_kept() {
    let repo = project(3);
    let mut replies = wrong_attempt();
    replies.extend([
        edit("calc.py", "return a - b", "return a + b"),
        Reply::new().text("Fixed: add adds."),
    ]);
    let (code, events, server) = exec(&repo, replies).await;
    assert_eq!(code, 0, "{events:#?}");
    let attempts = of_type(&events, "attempt.completed");
    assert_eq!(attempts.len(), 2, "{events:#?}");
    assert_eq!(attempts[0]["attempt"], 1);
    assert_eq!(attempts[0]["attempts"], 3);
    assert_eq!(attempts[0]["passed"], false);
    let rolled_back: Vec<&str> = attempts[0]["rolled_back"]
        .as_array()
        .unwrap()
        .iter()
        .map(|path| path.as_str().unwrap())
        .collect();
    assert_eq!(rolled_back, ["calc.py", "NOTES.md", "helper.py"]);
    assert!(
        attempts[0]["failures"][0]
            .as_str()
            .unwrap()
            .contains("request check"),
        "{attempts:#?}"
    );
    assert_eq!(attempts[1]["attempt"], 2);
    assert_eq!(attempts[1]["passed"], true);
    assert!(attempts[1].get("rolled_back").is_none(), "{attempts:#?}");
    // Only the passing change is in place; what the first attempt wrote is gone.
    let root = repo.path();
    assert_eq!(
        std::fs::read_to_string(root.join("calc.py")).unwrap(),
        "def add(a, b):\n    return a + b\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("NOTES.md")).unwrap(),
        NOTES
    );
    assert!(!root.join("helper.py").exists());
    // The fresh attempt was told what failed, and sampled wider.
    let fresh = server.requests()[4].json();
    let text = fresh.to_string();
    assert!(text.contains("rolled it back"), "{text}");
    assert!(text.contains("returned 6, expected 5"), "{text}");
    assert!(fresh["temperature"].as_f64().is_some(), "{fresh}");
    let turn = of_type(&events, "turn.completed");
    assert_eq!(turn[0]["end"], "answered");
    assert_eq!(turn[0]["stats"]["attempts"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_no_attempt_passes_the_last_change_stays_and_the_run_says_so() {
    let repo = project(2);
    let mut replies = wrong_attempt();
    replies.extend([
        edit("calc.py", "return a - b", "return b - a"),
        Reply::new().text("Fixed again."),
    ]);
    let (code, events, _server) = exec(&repo, replies).await;
    assert_eq!(code, 13, "{events:#?}");
    let attempts = of_type(&events, "attempt.completed");
    assert_eq!(attempts.len(), 2, "{events:#?}");
    assert_eq!(attempts[1]["passed"], false);
    assert!(attempts[1].get("rolled_back").is_none(), "{attempts:#?}");
    let root = repo.path();
    // The first attempt is rolled back; the last one's change stays for the user.
    assert_eq!(
        std::fs::read_to_string(root.join("calc.py")).unwrap(),
        "def add(a, b):\n    return b - a\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("NOTES.md")).unwrap(),
        NOTES
    );
    assert!(!root.join("helper.py").exists());
    // And it can be undone: the files are as before the request.
    let undo = common::hone(root, &[], &["undo"]).await;
    assert_eq!(undo.status.code(), Some(0), "{}", stderr(&undo));
    assert_eq!(std::fs::read_to_string(root.join("calc.py")).unwrap(), CALC);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_attempt_means_no_fresh_attempt() {
    let repo = project(1);
    let (code, events, server) = exec(&repo, wrong_attempt()).await;
    assert_eq!(code, 13, "{events:#?}");
    assert_eq!(of_type(&events, "attempt.completed").len(), 1);
    assert_eq!(server.request_count(), 4);
    assert_eq!(
        std::fs::read_to_string(repo.path().join("calc.py")).unwrap(),
        "def add(a, b):\n    return a * b\n"
    );
}
