//! End-to-end tests of `hone exec`: the real binary, a mock model server, a temporary git repository.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{events, hone, of_type, stderr};
use hone_testkit::{MockResponse, MockServer, Reply};
use serde_json::json;

/// A small JavaScript project in a fresh git repository, with a failing test.
fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("src/math.js"),
        "function add(a, b) {\n  return a - b;\n}\n\nmodule.exports = { add };\n",
    )
    .unwrap();
    std::fs::write(root.join("README.md"), "# math\n\nAdds numbers.\n").unwrap();
    std::fs::write(
        root.join("test.js"),
        "const { add } = require('./src/math');\nif (add(2, 3) !== 5) { console.error('FAIL add'); process.exit(1); }\nconsole.log('all tests pass');\n",
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

const PATCH: &str = "--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,3 @@\n # math\n \n-Adds numbers.\n+Adds two numbers correctly.\n";

/// The scripted conversation: read, edit, patch, test, answer.
fn fix_the_bug_script() -> Vec<Reply> {
    vec![
        Reply::new().text("Let me look.").tool_call("read_file", json!({"path": "src/math.js"})).usage(100, 10),
        Reply::new().tool_call(
            "edit_file",
            json!({"path": "src/math.js", "old_text": "return a - b;", "new_text": "return a + b;"}),
        ),
        Reply::new().tool_call("apply_patch", json!({"patch": PATCH})),
        Reply::new().tool_call("run_tests", json!({})),
        Reply::new().text("Fixed `add`; all tests pass.").usage(300, 12),
    ]
}

async fn fixes_the_bug_end_to_end(preset: &str, key: &str, render: fn(&Reply) -> MockResponse) {
    let repo = repository();
    let server = MockServer::start().await;
    for reply in fix_the_bug_script() {
        server.enqueue(render(&reply));
    }
    let url = server.url();
    let output = hone(
        repo.path(),
        &[(key, "test-key-abcdef123456")],
        &[
            "exec",
            "--provider",
            preset,
            "--base-url",
            &url,
            "--approval",
            "full-auto",
            "--json",
            "fix add",
        ],
    )
    .await;
    assert!(
        output.status.success(),
        "stderr: {}\nstdout: {}",
        stderr(&output),
        String::from_utf8_lossy(&output.stdout)
    );

    let math = std::fs::read_to_string(repo.path().join("src/math.js")).unwrap();
    assert!(math.contains("return a + b;"), "{math}");
    let readme = std::fs::read_to_string(repo.path().join("README.md")).unwrap();
    assert!(readme.contains("Adds two numbers correctly."), "{readme}");

    let events = events(&output);
    assert_eq!(events[0]["type"], "session.started");
    let completed = of_type(&events, "tool.completed");
    let names: Vec<&str> = completed
        .iter()
        .map(|event| event["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["read_file", "edit_file", "apply_patch", "run_tests"]
    );
    for event in &completed {
        assert_eq!(event["is_error"], false, "{event}");
    }
    assert!(
        completed[3]["output"]
            .as_str()
            .unwrap()
            .contains("all tests pass")
    );
    assert_eq!(of_type(&events, "diff.applied").len(), 2);
    // The checks after the edits: the syntax of the changed files, then `npm test`.
    let checks = of_type(&events, "checks.completed");
    assert_eq!(checks.len(), 1);
    assert_eq!(checks[0]["passed"], true);
    let names: Vec<&str> = checks[0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|check| check["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["syntax", "npm test"]);
    let turn = of_type(&events, "turn.completed");
    assert_eq!(turn.len(), 1);
    assert_eq!(turn[0]["end"], "answered");
    // Every action counts: the model's four tool calls and hone's checks after them.
    assert_eq!(turn[0]["stats"]["tool_calls"], 5);
    // Two replies report 400 input tokens. Anthropic's wire reports usage (zero) on every
    // other reply; OpenAI's reports none there, so hone estimates those and says so.
    let usage = &turn[0]["stats"]["usage"];
    if preset == "openai" {
        assert!(usage["input_tokens"].as_u64().unwrap() > 400, "{usage}");
        assert_eq!(usage["estimated"], true, "{usage}");
    } else {
        assert_eq!(usage["input_tokens"], 400, "{usage}");
        assert!(usage.get("estimated").is_none(), "{usage}");
    }

    // The index tools are offered and the repo map is in the system prompt.
    let first = server.requests()[0].json().to_string();
    assert!(
        first.contains("# Repository map") && first.contains("\"get_outline\""),
        "{first}"
    );

    // The model saw the file with line numbers before editing it.
    let second = server.requests()[1].json().to_string();
    assert!(
        second.contains("return a - b;") && second.contains('2'),
        "{second}"
    );

    let logs = repo.path().join(".hone/logs");
    let comms = std::fs::read_to_string(logs.join("comms.jsonl")).unwrap();
    assert_eq!(comms.lines().count(), 10, "5 requests and 5 responses");
    assert!(!comms.contains("test-key-abcdef123456"));
    let tools = std::fs::read_to_string(logs.join("tools.jsonl")).unwrap();
    assert_eq!(tools.lines().count(), 4);
    let scripts: Vec<_> = std::fs::read_dir(logs.join("commands")).unwrap().collect();
    assert_eq!(
        scripts.len(),
        2,
        "the approved test command and the check after the edits are saved as scripts"
    );
    let git_status = std::process::Command::new("git")
        .args(["status", "--porcelain"])
        .current_dir(repo.path())
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&git_status.stdout).contains(".hone"),
        "logs are gitignored"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixes_a_bug_over_the_openai_wire() {
    fixes_the_bug_end_to_end("openai", "OPENAI_API_KEY", Reply::openai_chat).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixes_a_bug_over_the_anthropic_wire() {
    fixes_the_bug_end_to_end("anthropic", "ANTHROPIC_API_KEY", Reply::anthropic).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_calls_get_precise_errors_and_the_model_recovers() {
    let repo = repository();
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .tool_call("read_fil", json!({"path": "src/math.js"}))
            .openai_chat(),
    );
    server.enqueue(
        MockResponse::sse([
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c9\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\": \"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: [DONE]\n\n",
        ]),
    );
    server.enqueue(
        Reply::new()
            .tool_call("read_file", json!({"path": "path/to/src/math.js"}))
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("The file is src/math.js.").openai_chat());
    let url = server.url();
    let output = common::exec_on(repo.path(), &url, &["--json", "look"]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    let second = requests[1].json().to_string();
    assert!(second.contains("Did you mean `read_file`?"), "{second}");
    let third = requests[2].json().to_string();
    assert!(
        third.contains("invalid JSON") && third.contains("read_file {"),
        "{third}"
    );
    let fourth = requests[3].json().to_string();
    assert!(fourth.contains("Did you mean `src/math.js`?"), "{fourth}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn denied_and_unanswerable_commands_are_refused_and_explained() {
    let repo = repository();
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .tool_call("run_command", json!({"command": "rm -rf src"}))
            .openai_chat(),
    );
    server.enqueue(
        Reply::new()
            .tool_call("run_command", json!({"command": "npm install left-pad"}))
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("I could not run commands.").openai_chat());
    let url = server.url();
    let output = common::exec_on(repo.path(), &url, &["--json", "clean up"]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        repo.path().join("src/math.js").exists(),
        "the denied command did not run"
    );
    let events = events(&output);
    let denied = of_type(&events, "tool.denied");
    assert_eq!(denied.len(), 2, "{events:#?}");
    assert!(
        denied[0]["reason"].as_str().unwrap().contains("rm"),
        "{}",
        denied[0]
    );
    assert_eq!(
        of_type(&events, "approval.needed").len(),
        0,
        "without a terminal nothing asks"
    );
    let reason = denied[1]["reason"].as_str().unwrap();
    assert!(reason.contains("without a terminal"), "{reason}");
    let third = server.requests()[2].json().to_string();
    assert!(third.contains("without a terminal"), "{third}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn identical_failing_calls_stop_the_turn() {
    let repo = repository();
    let server = MockServer::start().await;
    let bad_edit =
        json!({"path": "src/math.js", "old_text": "return a * b;", "new_text": "return a + b;"});
    for _ in 0..3 {
        server.enqueue(
            Reply::new()
                .tool_call("edit_file", bad_edit.clone())
                .openai_chat(),
        );
    }
    let url = server.url();
    let output = common::exec_on(repo.path(), &url, &["--approval", "auto-edit", "fix"]).await;
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("failed 3 times"),
        "{}",
        stderr(&output)
    );
    assert_eq!(server.request_count(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_round_limit_asks_for_an_answer_without_tools() {
    let repo = repository();
    let server = MockServer::start().await;
    server.enqueue(Reply::new().tool_call("list_dir", json!({})).openai_chat());
    server.enqueue(
        Reply::new()
            .tool_call("read_file", json!({"path": "README.md"}))
            .openai_chat(),
    );
    server.enqueue(
        Reply::new()
            .text("Out of rounds; here is what I know.")
            .openai_chat(),
    );
    let url = server.url();
    let output = common::exec_on(repo.path(), &url, &["--max-rounds", "2", "explore"]).await;
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("Out of rounds"));
    assert!(
        stderr(&output).contains("max_tool_rounds"),
        "{}",
        stderr(&output)
    );
    let last = server.last_request().json();
    assert!(
        last.get("tools").is_none(),
        "the final request offers no tools: {last}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_approval_mode_is_a_usage_error() {
    let repo = repository();
    let output = hone(
        repo.path(),
        &[],
        &["exec", "--provider", "lmstudio", "--approval", "yolo", "x"],
    )
    .await;
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("full-auto"), "{}", stderr(&output));
}
