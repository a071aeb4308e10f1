//! End-to-end tests of `hone exec`'s exit codes for turns that did not do the job: a change
//! asked for and not made (11), a change denied (12), checks still failing after the
//! change (13); each with its `result` status.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{events, of_type, stderr};
use hone_testkit::{MockServer, Reply};
use serde_json::{Value, json};

/// A JavaScript project whose `add` subtracts, with a test `npm test` runs.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/math.js"), MATH).unwrap();
    std::fs::write(
        root.join("test.js"),
        "const { add } = require('./src/math');\n\
         if (add(2, 3) !== 5) { console.error('FAIL add(2, 3) gave ' + add(2, 3)); process.exit(1); }\n\
         console.log('all tests pass');\n",
    )
    .unwrap();
    std::fs::write(
        root.join("package.json"),
        "{\"name\":\"math\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"node test.js\"}}\n",
    )
    .unwrap();
    common::commit_all(root);
    dir
}

const MATH: &str = "function add(a, b) {\n  return a - b;\n}\n\nmodule.exports = { add };\n";

fn edit(old: &str, new: &str) -> Reply {
    Reply::new().tool_call(
        "edit_file",
        json!({"path": "src/math.js", "old_text": old, "new_text": new}),
    )
}

/// Runs `hone exec --json ARGS` against a server answering `replies`; returns the exit
/// code, the events and stderr.
async fn run(repo: &tempfile::TempDir, replies: Vec<Reply>, args: &[&str]) -> (i32, Vec<Value>) {
    let server = MockServer::start().await;
    for reply in replies {
        server.enqueue(reply.openai_chat());
    }
    let url = server.url();
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let output = common::exec_on(repo.path(), &url, &all).await;
    let code = output.status.code().unwrap_or(-1);
    eprintln!("{}", stderr(&output));
    (code, events(&output))
}

fn ending(events: &[Value]) -> (String, String) {
    let turn = of_type(events, "turn.completed");
    let result = of_type(events, "result");
    assert_eq!(turn.len(), 1, "{events:#?}");
    assert_eq!(result.len(), 1, "{events:#?}");
    (
        turn[0]["end"].as_str().unwrap().to_string(),
        result[0]["status"].as_str().unwrap().to_string(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_asked_for_and_not_made_exits_11() {
    let repo = project();
    let (code, events) = run(
        &repo,
        vec![Reply::new().text("The add function looks right to me.")],
        &[
            "--approval",
            "auto-edit",
            "Fix the add function in src/math.js",
        ],
    )
    .await;
    assert_eq!(code, 11, "{events:#?}");
    assert_eq!(
        ending(&events),
        ("no_change".to_string(), "no_change".to_string())
    );
    assert_eq!(of_type(&events, "result")[0]["exit_code"], 11);
    // A question answered without a change is a success.
    let (code, events) = run(
        &repo,
        vec![Reply::new().text("It subtracts.")],
        &[
            "--approval",
            "auto-edit",
            "What does add in src/math.js do?",
        ],
    )
    .await;
    assert_eq!(code, 0, "{events:#?}");
    assert_eq!(
        ending(&events),
        ("answered".to_string(), "completed".to_string())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_denied_without_a_terminal_exits_12() {
    let repo = project();
    let (code, events) = run(
        &repo,
        vec![
            edit("return a - b;", "return a + b;"),
            Reply::new().text("I could not apply the fix."),
        ],
        &["--approval", "ask", "Fix the add function in src/math.js"],
    )
    .await;
    assert_eq!(code, 12, "{events:#?}");
    assert_eq!(
        ending(&events),
        ("not_applied".to_string(), "not_applied".to_string())
    );
    assert_eq!(of_type(&events, "tool.denied").len(), 1, "{events:#?}");
    let math = std::fs::read_to_string(repo.path().join("src/math.js")).unwrap();
    assert_eq!(math, MATH);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checks_still_failing_after_the_change_exit_13() {
    let repo = project();
    let (code, events) = run(
        &repo,
        vec![
            edit("return a - b;", "return a * b;"),
            Reply::new().text("Fixed."),
            // The repair round is answered without a change: the failure stands.
            Reply::new().text("It is fixed, I am sure."),
        ],
        &[
            "--approval",
            "full-auto",
            "Fix the add function in src/math.js",
        ],
    )
    .await;
    assert_eq!(code, 13, "{events:#?}");
    assert_eq!(
        ending(&events),
        ("checks_failed".to_string(), "checks_failed".to_string())
    );
    let checks = of_type(&events, "checks.completed");
    assert_eq!(checks.last().unwrap()["passed"], false, "{events:#?}");
    // The change stays in place for the user to see (and undo).
    let math = std::fs::read_to_string(repo.path().join("src/math.js")).unwrap();
    assert!(math.contains("return a * b;"), "{math}");
}
