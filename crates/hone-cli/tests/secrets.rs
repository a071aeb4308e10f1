//! Secrets end to end: a file that may hold secrets is asked for on a terminal and refused
//! without one; a key a server echoes in an error body, and values shaped like secrets in a
//! conversation, reach neither stderr, `--json`, the audit logs, the session store nor its
//! exports.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::pty::Terminal;
use common::{events, hone, of_type, stderr};
use hone_testkit::{MockResponse, MockServer, Reply};
use serde_json::json;

const ENV: &str = "PORT=8080\nSTRIPE_SECRET=k9Lp2QwX7zR4tY8uV3\n";
const TOKEN: &str = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789";

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".env"), ENV).unwrap();
    std::fs::write(dir.path().join("README.md"), "# demo\n").unwrap();
    common::commit_all(dir.path());
    dir
}

fn read_env_replies(server: &MockServer) {
    server.enqueue(
        Reply::new()
            .tool_call("read_file", json!({"path": ".env"}))
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("Done.").openai_chat());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_terminal_a_secret_file_is_refused_even_in_full_auto() {
    let repo = project();
    let server = MockServer::start().await;
    read_env_replies(&server);
    let output = common::exec_on(
        repo.path(),
        &server.url(),
        &["--approval", "full-auto", "--json", "read the env"],
    )
    .await;
    let events = events(&output);
    let completed = of_type(&events, "tool.completed");
    assert_eq!(completed[0]["is_error"], true, "{completed:?}");
    assert!(
        completed[0]["output"]
            .as_str()
            .unwrap()
            .contains("without a terminal"),
        "{completed:?}"
    );
    let sent: String = server
        .requests()
        .iter()
        .map(|request| request.json().to_string())
        .collect();
    assert!(!sent.contains("PORT=8080"), "the content never left");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_terminal_a_secret_file_is_asked_for_and_its_keys_stay_redacted() {
    let repo = project();
    let server = MockServer::start().await;
    read_env_replies(&server);
    let root = repo.path().to_path_buf();
    let url = server.url();
    let (code, output) = tokio::task::spawn_blocking(move || {
        let args = [
            "exec",
            "--provider",
            "lmstudio",
            "--base-url",
            &url,
            "--approval",
            "full-auto",
            "read the env",
        ];
        let mut terminal = Terminal::start(&root, &args);
        terminal.wait_for("[y] approve");
        terminal.answer("y");
        terminal.finish()
    })
    .await
    .unwrap();
    assert!(output.contains("hone wants to: read .env"), "{output:?}");
    assert!(output.contains("may hold secrets"), "{output:?}");
    assert!(matches!(code, 0 | 10), "{output:?}");
    let sent = server.requests()[1].json().to_string();
    assert!(sent.contains("PORT=8080"), "approved: {sent}");
    assert!(sent.contains("STRIPE_SECRET=[REDACTED]"), "{sent}");
    assert!(!sent.contains("k9Lp2QwX7zR4tY8uV3"), "{sent}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_echoed_by_a_401_reaches_neither_stderr_nor_json() {
    let repo = project();
    let key = "sk-live-echoed-0123456789abcdef";
    for json_output in [false, true] {
        let server = MockServer::start().await;
        server.enqueue(MockResponse::json(
            401,
            &json!({"error": {"message": format!("Incorrect API key provided: {key}")}}),
        ));
        let url = server.url();
        let mut args = vec!["exec"];
        if json_output {
            args.push("--json");
        }
        args.push("hi");
        let output = hone(
            repo.path(),
            &[
                ("HONE_PROVIDER", "openai"),
                ("HONE_BASE_URL", &url),
                ("OPENAI_API_KEY", key),
            ],
            &args,
        )
        .await;
        assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
        let stdout = String::from_utf8_lossy(&output.stdout);
        for text in [stdout.as_ref(), &stderr(&output)] {
            assert!(!text.contains(key), "{text}");
        }
        assert!(
            stderr(&output).contains("Incorrect API key provided: [REDACTED]"),
            "{}",
            stderr(&output)
        );
        if json_output {
            let events = events(&output);
            let result = of_type(&events, "result");
            let detail = result[0]["error"]["provider_detail"].as_str().unwrap();
            assert!(detail.contains("[REDACTED]"), "{detail}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_shaped_like_secrets_are_not_kept_in_logs_the_store_or_exports() {
    let repo = project();
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .text(&format!("Your token {TOKEN} works."))
            .openai_chat(),
    );
    let output = hone(
        repo.path(),
        &[(
            "HONE_DATA_DIR",
            &repo.path().join(".home/data").display().to_string(),
        )],
        &[
            "exec",
            "--provider",
            "lmstudio",
            "--base-url",
            &server.url(),
            "--json",
            &format!("is GH_TOKEN={TOKEN} valid?"),
        ],
    )
    .await;
    assert!(output.status.success(), "{}", stderr(&output));
    let events = events(&output);
    let id = events[0]["session_id"].as_str().unwrap().to_string();
    let data = repo.path().join(".home/data").display().to_string();
    let env = [("HONE_DATA_DIR", data.as_str())];
    let mut kept = Vec::new();
    for args in [
        vec!["sessions", "show", id.as_str()],
        vec!["sessions", "export", id.as_str()],
        vec!["sessions", "export", id.as_str(), "--format", "json"],
    ] {
        let shown = hone(repo.path(), &env, &args).await;
        assert!(shown.status.success(), "{}", stderr(&shown));
        kept.push(String::from_utf8_lossy(&shown.stdout).into_owned());
    }
    kept.push(std::fs::read_to_string(repo.path().join(".hone/logs/comms.jsonl")).unwrap());
    for text in &kept {
        assert!(!text.contains(TOKEN), "{text}");
        assert!(text.contains("[REDACTED]"), "{text}");
    }
}
