//! End-to-end tests: the real `hone` binary against mock provider servers.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Output;

use hone_testkit::{MockResponse, MockServer, Reply};
use serde_json::{Value, json};

/// Runs `hone` with a clean environment (no real keys, no real config), in `project`.
async fn hone(project: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_hone"));
    command
        .env_clear()
        .env("HOME", project)
        .env("XDG_CONFIG_HOME", project.join(".config"))
        .current_dir(project)
        .args(args);
    for (name, value) in env {
        command.env(name, value);
    }
    tokio::task::spawn_blocking(move || command.output().expect("hone runs"))
        .await
        .expect("join")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// How a scripted reply is rendered for one wire format.
type Render = fn(&Reply) -> MockResponse;

/// `(preset, key variable, how the reply is rendered)` for every wire format.
fn wires() -> Vec<(&'static str, Option<&'static str>, Render)> {
    vec![
        ("openai", Some("OPENAI_API_KEY"), Reply::openai_chat),
        (
            "openai-responses",
            Some("OPENAI_API_KEY"),
            Reply::openai_responses,
        ),
        ("anthropic", Some("ANTHROPIC_API_KEY"), Reply::anthropic),
        ("gemini", Some("GEMINI_API_KEY"), Reply::gemini),
        ("ollama", None, Reply::ollama),
        ("lmstudio", None, Reply::openai_chat),
        ("llamacpp", None, Reply::openai_chat),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_prints_the_streamed_answer_for_every_wire_format() {
    for (preset, key_variable, render) in wires() {
        let project = tempfile::tempdir().unwrap();
        let server = MockServer::start().await;
        server.enqueue(render(
            &Reply::new()
                .text("Hello from the mock, friend.")
                .usage(9, 6),
        ));
        let url = server.url();
        let mut env = vec![("HONE_PROVIDER", preset), ("HONE_BASE_URL", url.as_str())];
        if let Some(variable) = key_variable {
            env.push((variable, "secret-test-key-42"));
        }
        let output = hone(project.path(), &env, &["ask", "Say", "hello"]).await;
        assert!(output.status.success(), "{preset}: {}", stderr(&output));
        assert_eq!(
            stdout(&output),
            "Hello from the mock, friend.\n",
            "{preset}"
        );
        let sent = server.last_request().json().to_string();
        assert!(
            sent.contains("Say hello"),
            "{preset} sent the prompt: {sent}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_json_prints_one_parseable_event_per_line() {
    let project = tempfile::tempdir().unwrap();
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("Hi there").usage(3, 2).openai_chat());
    let url = server.url();
    let output = hone(
        project.path(),
        &[
            ("OPENAI_API_KEY", "k-123456789"),
            ("HONE_PROVIDER", "openai"),
            ("HONE_BASE_URL", &url),
        ],
        &["ask", "--json", "hi"],
    )
    .await;
    assert!(output.status.success(), "{}", stderr(&output));
    let events: Vec<Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect();
    assert!(events.len() >= 3);
    let text: String = events
        .iter()
        .filter(|event| event["type"] == "message.delta")
        .map(|event| event["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, "Hi there");
    let last = events.last().unwrap();
    assert_eq!(last["type"], "result");
    assert_eq!(last["status"], "completed");
    assert_eq!(last["usage"]["input_tokens"], 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_reads_the_prompt_from_stdin() {
    let project = tempfile::tempdir().unwrap();
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("ok").ollama());
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_hone"));
    child
        .env_clear()
        .env("HOME", project.path())
        .env("OLLAMA_HOST", server.url())
        .env("HONE_PROVIDER", "ollama")
        .args(["ask"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let output = tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut child = child.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"prompt from a pipe")
            .unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        server
            .last_request()
            .json()
            .to_string()
            .contains("prompt from a pipe")
    );
}

/// Asserts a failed run: exit code, exactly one stderr line containing `needle`.
fn assert_one_line_error(output: &Output, code: i32, needle: &str) {
    assert_eq!(
        output.status.code(),
        Some(code),
        "stderr: {}",
        stderr(output)
    );
    let text = stderr(output);
    assert_eq!(text.lines().count(), 1, "one line expected: {text}");
    assert!(text.starts_with("error: "), "{text}");
    assert!(text.contains(needle), "{needle:?} missing from: {text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_provider_is_one_clear_line() {
    let project = tempfile::tempdir().unwrap();
    let output = hone(
        project.path(),
        &[],
        &["ask", "--provider", "anthropik", "hi"],
    )
    .await;
    assert_one_line_error(&output, 2, "Did you mean `anthropic`");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_key_names_the_variable_to_set() {
    let project = tempfile::tempdir().unwrap();
    let output = hone(project.path(), &[], &["ask", "--provider", "gemini", "hi"]).await;
    assert_one_line_error(&output, 2, "GEMINI_API_KEY");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreachable_server_names_the_url() {
    let project = tempfile::tempdir().unwrap();
    let output = hone(
        project.path(),
        &[
            ("HONE_PROVIDER", "llamacpp"),
            ("HONE_BASE_URL", "http://127.0.0.1:9/v1"),
        ],
        &["ask", "hi"],
    )
    .await;
    assert_one_line_error(&output, 5, "http://127.0.0.1:9/v1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rejected_key_exits_with_the_auth_code() {
    let project = tempfile::tempdir().unwrap();
    let server = MockServer::start().await;
    server.enqueue(MockResponse::json(
        401,
        &json!({"error": {"message": "Incorrect API key provided"}}),
    ));
    let url = server.url();
    let output = hone(
        project.path(),
        &[
            ("HONE_PROVIDER", "openai"),
            ("HONE_BASE_URL", &url),
            ("OPENAI_API_KEY", "sk-wrong-key-0000"),
        ],
        &["ask", "hi"],
    )
    .await;
    assert_one_line_error(&output, 4, "check OPENAI_API_KEY");
    assert!(stderr(&output).contains("Incorrect API key provided"));
    assert!(
        !stderr(&output).contains("sk-wrong-key-0000"),
        "the key is never printed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_model_points_to_hone_models() {
    let project = tempfile::tempdir().unwrap();
    let server = MockServer::start().await;
    server.enqueue(MockResponse::json(
        404,
        &json!({"error": "model \"nope\" not found"}),
    ));
    let url = server.url();
    let output = hone(
        project.path(),
        &[("HONE_PROVIDER", "lmstudio"), ("HONE_BASE_URL", &url)],
        &["ask", "--model", "nope", "hi"],
    )
    .await;
    assert_one_line_error(&output, 2, "hone models");
    assert!(stderr(&output).contains("`nope`"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn models_lists_what_the_server_offers() {
    let project = tempfile::tempdir().unwrap();
    let server = MockServer::start().await;
    server.route(
        "/models",
        MockResponse::json(
            200,
            &json!({"object": "list", "data": [
                {"id": "gpt-4o-mini", "object": "model"},
                {"id": "my-local-model", "object": "model"},
            ]}),
        ),
    );
    let url = server.url();
    let output = hone(
        project.path(),
        &[("OPENAI_API_KEY", "k-123456789")],
        &["models", "--provider", "openai", "--base-url", &url],
    )
    .await;
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("gpt-4o-mini") && text.contains("128000"),
        "{text}"
    );
    assert!(text.contains("my-local-model"), "{text}");
    assert_eq!(server.last_request().path, "/models");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_show_masks_keys_and_names_sources() {
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(project.path().join(".hone")).unwrap();
    std::fs::write(
        project.path().join(".hone/config.toml"),
        "provider = \"anthropic\"\nmodel = \"claude-opus-4-1\"\n",
    )
    .unwrap();
    let output = hone(
        project.path(),
        &[("ANTHROPIC_API_KEY", "sk-ant-very-secret-value")],
        &["config", "show"],
    )
    .await;
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(!text.contains("very-secret"), "{text}");
    assert!(text.contains("claude-opus-4-1"), "{text}");
    assert!(text.contains("project file"), "{text}");
    assert!(text.contains("ANTHROPIC_API_KEY"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_config_file_names_the_file_and_line() {
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(project.path().join(".hone")).unwrap();
    std::fs::write(
        project.path().join(".hone/config.toml"),
        "provider = \"openai\"\nmodle = 3\n",
    )
    .unwrap();
    let output = hone(project.path(), &[], &["config", "show"]).await;
    assert_eq!(output.status.code(), Some(2));
    let text = stderr(&output);
    assert!(
        text.contains("config.toml") && text.contains("modle"),
        "{text}"
    );
}
