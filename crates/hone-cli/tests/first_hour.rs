//! First-hour features through the real binary: `@path` mentions in `hone exec` and `hone ask`
//! prompts
//! and the cost of a run in money (known models) or tokens only (unknown ones).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Output;

use common::hone_with_data_dir as hone;
use hone_testkit::{MockServer, Reply};
use serde_json::Value;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/math.js"),
        "function add(a, b) {\n  return a + b;\n}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join(".env"), "TOKEN=hunter2\n").unwrap();
    dir
}

fn result(output: &Output) -> Value {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|value| value["type"] == "result")
        .unwrap_or_else(|| {
            panic!(
                "no result event: {}",
                String::from_utf8_lossy(&output.stdout)
            )
        })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_attaches_mentioned_files_and_says_what_it_could_not() {
    let dir = project();
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("It adds.").openai_chat());
    let url = server.url();
    let output = hone(
        dir.path(),
        &[],
        &[
            "exec",
            "--provider",
            "lmstudio",
            "--base-url",
            &url,
            "what does @src/math.js do? see @src/ and @.env and @nope.rs, or mail a@b.com",
        ],
    )
    .await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("attached src/math.js (3 lines)"),
        "{stderr}"
    );
    assert!(stderr.contains("attached src/ (1 entry)"), "{stderr}");
    assert!(stderr.contains("@.env: may hold secrets"), "{stderr}");
    assert!(stderr.contains("@nope.rs: no such file"), "{stderr}");
    assert!(
        !stderr.contains("b.com"),
        "an email is no mention: {stderr}"
    );
    let sent = server.requests()[0].json().to_string();
    assert!(sent.contains("    1  function add(a, b) {"), "{sent}");
    assert!(sent.contains("math.js\\n```"), "{sent}");
    assert!(!sent.contains("hunter2"), "{sent}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_attaches_mentioned_files_too() {
    let dir = project();
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("It adds.").openai_chat());
    let url = server.url();
    let output = hone(
        dir.path(),
        &[],
        &[
            "ask",
            "--provider",
            "lmstudio",
            "--base-url",
            &url,
            "what does @src/math.js do? and @.env?",
        ],
    )
    .await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("attached src/math.js (3 lines)"),
        "{stderr}"
    );
    assert!(stderr.contains(".env"), "the refusal is named: {stderr}");
    let sent = server.requests()[0].json().to_string();
    assert!(sent.contains("return a + b;"), "{sent}");
    assert!(!sent.contains("hunter2"), "{sent}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_known_model_costs_money_and_an_unknown_one_only_tokens() {
    let dir = project();
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .text("Done.")
            .usage(1_000_000, 100_000)
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("Done.").usage(1_000, 10).openai_chat());
    let url = server.url();
    let known = hone(
        dir.path(),
        &[("OPENAI_API_KEY", "sk-test")],
        &[
            "exec",
            "--provider",
            "openai",
            "--base-url",
            &url,
            "--model",
            "gpt-4o-mini",
            "hi",
        ],
    )
    .await;
    assert!(
        known.status.success(),
        "{}",
        String::from_utf8_lossy(&known.stderr)
    );
    let stderr = String::from_utf8_lossy(&known.stderr);
    // 1M input tokens at $0.15 and 100k output tokens at $0.60 per million.
    assert!(stderr.contains("· $0.21 ·"), "{stderr}");
    let json = hone(
        dir.path(),
        &[("OPENAI_API_KEY", "sk-test")],
        &[
            "exec",
            "--json",
            "--provider",
            "lmstudio",
            "--base-url",
            &url,
            "--model",
            "my-finetune",
            "hi",
        ],
    )
    .await;
    let result = result(&json);
    assert!(result["cost"].is_null(), "{result}");
    assert_eq!(result["usage"]["input_tokens"], 1_000);
    assert!(result["usage"].get("estimated").is_none(), "{result}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_json_result_carries_the_cost_of_a_known_model() {
    let dir = project();
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .text("Done.")
            .usage(2_000_000, 1_000_000)
            .openai_chat(),
    );
    let url = server.url();
    let output = hone(
        dir.path(),
        &[("OPENAI_API_KEY", "sk-test")],
        &[
            "exec",
            "--json",
            "--provider",
            "openai",
            "--base-url",
            &url,
            "--model",
            "gpt-4.1",
            "hi",
        ],
    )
    .await;
    let result = result(&output);
    // 2M × $2 + 1M × $8.
    let cost = result["cost"].as_f64().unwrap();
    assert!((cost - 12.0).abs() < 1e-9, "{result}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usage_a_server_does_not_report_is_estimated_and_marked() {
    let dir = project();
    let server = MockServer::start().await;
    // No usage in either reply: the server says nothing about tokens.
    server.enqueue(Reply::new().text("It adds two numbers.").openai_chat());
    server.enqueue(Reply::new().text("It adds two numbers.").openai_chat());
    let url = server.url();
    let args = |json: bool| {
        let mut args = vec!["exec", "--provider", "lmstudio", "--base-url", &url];
        if json {
            args.push("--json");
        }
        args.push("what does src/math.js do?");
        args.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let plain_args = args(false);
    let plain_args: Vec<&str> = plain_args.iter().map(String::as_str).collect();
    let plain = hone(dir.path(), &[], &plain_args).await;
    let stderr = String::from_utf8_lossy(&plain.stderr);
    assert!(plain.status.success(), "{stderr}");
    assert!(stderr.contains(" · ~"), "{stderr}");
    assert!(stderr.contains(" out, estimated)"), "{stderr}");
    assert!(!stderr.contains("· 0 tokens"), "{stderr}");

    let json_args = args(true);
    let json_args: Vec<&str> = json_args.iter().map(String::as_str).collect();
    let json = hone(dir.path(), &[], &json_args).await;
    let result = result(&json);
    assert_eq!(result["usage"]["estimated"], true, "{result}");
    assert!(
        result["usage"]["input_tokens"].as_u64().unwrap() > 0,
        "{result}"
    );
    assert!(
        result["usage"]["output_tokens"].as_u64().unwrap() > 0,
        "{result}"
    );
}

/// A project on a read-only mount (a private mount namespace, where an unprivileged user
/// may bind-mount): hone says so at the start, and the edit that cannot be written ends
/// the run with exit code 12, the file untouched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_project_is_named_at_the_start_and_its_failed_edit_exits_12() {
    let dir = project();
    let data = tempfile::tempdir().unwrap();
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .tool_call(
                "edit_file",
                serde_json::json!({"path": "src/math.js", "old_text": "a + b", "new_text": "a - b"}),
            )
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("I could not write it.").openai_chat());
    let url = server.url();
    let root = dir.path().canonicalize().unwrap();
    let mut command = std::process::Command::new("unshare");
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", data.path())
        .env("HONE_DATA_DIR", data.path().join("data"))
        .current_dir(&root)
        .stdin(std::process::Stdio::null())
        .args([
            "-r",
            "-m",
            "sh",
            "-c",
            "mount --bind -o ro \"$0\" \"$0\" && exec \"$@\"",
        ])
        .arg(&root)
        .arg(env!("CARGO_BIN_EXE_hone"));
    let output = common::run(
        command,
        &[],
        &[
            "exec",
            "--provider",
            "lmstudio",
            "--base-url",
            &url,
            "--approval",
            "auto-edit",
            "make add subtract in src/math.js",
        ],
    )
    .await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot be written (Read-only file system"),
        "{stderr}"
    );
    assert_eq!(output.status.code(), Some(12), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(root.join("src/math.js")).unwrap(),
        "function add(a, b) {\n  return a + b;\n}\n"
    );
}
