//! `hone exec --json` and `hone ask --json` as a contract: one dialect (hone-api event
//! frames), tool arguments as objects, exit codes as fields, errors before the session as
//! JSON, and a final `result`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::process::Output;

use hone_api::{Event, EventFrame, RunStatus};
use hone_testkit::{MockServer, Reply};
use serde_json::{Value, json};

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "alpha\n").unwrap();
    dir
}

async fn hone(root: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut command = common::command(root);
    command.env("XDG_DATA_HOME", root.join(".home/.local/share"));
    common::run(command, env, args).await
}

/// Every stdout line, parsed as a protocol frame (so any line outside the dialect fails).
fn frames(output: &Output) -> Vec<EventFrame> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|error| panic!("not a frame ({error}): {line}"))
        })
        .collect()
}

fn values(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn kinds(output: &Output) -> Vec<String> {
    values(output)
        .iter()
        .map(|value| value["type"].as_str().unwrap().to_string())
        .collect()
}

fn report(output: &Output) -> String {
    format!(
        "status {:?}\nstdout: {}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

async fn exec(root: &Path, server: &MockServer, prompt: &str) -> Output {
    let url = server.url();
    hone(
        root,
        &[("OPENAI_API_KEY", "test-key-abcdef123456")],
        &[
            "exec",
            "--provider",
            "openai",
            "--base-url",
            &url,
            "--approval",
            "full-auto",
            "--json",
            prompt,
        ],
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_json_ends_with_a_result_and_tags_the_turn_with_the_prompt_id() {
    let dir = project();
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .text("Let me read it.")
            .tool_call("read_file", json!({"path": "notes.txt"}))
            .usage(100, 10)
            .openai_chat(),
    );
    server.enqueue(
        Reply::new()
            .text("It says alpha.")
            .usage(200, 5)
            .openai_chat(),
    );
    let output = exec(dir.path(), &server, "what do the notes say?").await;
    assert!(output.status.success(), "{}", report(&output));
    let frames = frames(&output);
    let last = frames.last().unwrap();
    let Event::Result {
        status,
        exit_code,
        text,
        session_id,
        usage,
        cost,
        error,
        ..
    } = &last.event
    else {
        panic!("the last event is not a result: {}", report(&output));
    };
    assert_eq!(*status, RunStatus::Completed);
    assert_eq!(*exit_code, 0);
    assert_eq!(text, "It says alpha.");
    assert_eq!(usage.input_tokens, 300);
    assert_eq!(usage.output_tokens, 15);
    // The openai preset's default model, gpt-4.1-mini, at $0.40 / $1.60 per million.
    assert!(
        cost.is_some_and(|cost| (cost - 0.000_144).abs() < 1e-12),
        "{cost:?}"
    );
    assert_eq!(*error, None);
    let Event::SessionStarted {
        session_id: started,
        ..
    } = &frames[0].event
    else {
        panic!(
            "the first event is not session.started: {}",
            report(&output)
        );
    };
    assert_eq!(session_id, started);
    assert_eq!(frames[0].request_id, None);
    let turn_started = frames
        .iter()
        .position(|frame| matches!(frame.event, Event::TurnStarted { .. }))
        .unwrap();
    for frame in &frames[turn_started..] {
        assert_eq!(frame.request_id.as_deref(), Some("prompt"), "{frame:?}");
    }
    let value = values(&output).pop().unwrap();
    assert!(value["cost"].is_f64(), "{value}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_json_prints_tool_arguments_as_objects_and_exit_codes_as_fields() {
    let dir = project();
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .tool_call("run_command", json!({"command": "cat missing.txt"}))
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("The file is missing.").openai_chat());
    let output = exec(dir.path(), &server, "show missing.txt").await;
    assert!(output.status.success(), "{}", report(&output));
    let events = values(&output);
    let requested = events
        .iter()
        .find(|event| event["type"] == "tool.requested")
        .unwrap();
    assert_eq!(
        requested["arguments"],
        json!({"command": "cat missing.txt"})
    );
    let completed = events
        .iter()
        .find(|event| event["type"] == "tool.completed")
        .unwrap();
    assert_eq!(completed["name"], "run_command");
    assert_eq!(completed["is_error"], true, "{completed}");
    assert_eq!(completed["exit_code"], 1, "{completed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_json_reports_a_bad_configuration_as_an_error_event_and_a_result() {
    let dir = project();
    let output = hone(
        dir.path(),
        &[],
        &["exec", "--provider", "no-such-provider", "--json", "hi"],
    )
    .await;
    assert_eq!(output.status.code(), Some(2), "{}", report(&output));
    assert_eq!(kinds(&output), ["error", "result"], "{}", report(&output));
    let frames = frames(&output);
    let Event::Error { error } = &frames[0].event else {
        unreachable!()
    };
    assert_eq!(error.category, hone_api::ErrorCategory::Config);
    assert!(
        error.message.contains("no-such-provider"),
        "{}",
        error.message
    );
    let Event::Result {
        status,
        exit_code,
        error: result_error,
        session_id,
        ..
    } = &frames[1].event
    else {
        unreachable!()
    };
    assert_eq!(*status, RunStatus::Failed);
    assert_eq!(*exit_code, 2);
    assert_eq!(result_error.as_ref(), Some(error));
    assert_eq!(*session_id, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_json_reports_a_bad_configuration_as_an_error_event_and_a_result() {
    let dir = project();
    let output = hone(
        dir.path(),
        &[],
        &["ask", "--provider", "no-such-provider", "--json", "hi"],
    )
    .await;
    assert_eq!(output.status.code(), Some(2), "{}", report(&output));
    assert_eq!(kinds(&output), ["error", "result"], "{}", report(&output));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_json_and_exec_json_speak_the_same_dialect() {
    let dir = project();
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("Hi there").usage(3, 2).openai_chat());
    server.enqueue(Reply::new().text("Hi there").usage(3, 2).openai_chat());
    let url = server.url();
    let ask = hone(
        dir.path(),
        &[("OPENAI_API_KEY", "test-key-abcdef123456")],
        &[
            "ask",
            "--provider",
            "openai",
            "--base-url",
            &url,
            "--json",
            "hi",
        ],
    )
    .await;
    assert!(ask.status.success(), "{}", report(&ask));
    let exec = exec(dir.path(), &server, "hi").await;
    assert!(exec.status.success(), "{}", report(&exec));
    for output in [&ask, &exec] {
        let kinds = kinds(output);
        for kind in [
            "turn.started",
            "message.delta",
            "message.completed",
            "turn.completed",
        ] {
            assert!(
                kinds.iter().any(|seen| seen == kind),
                "{kind} missing: {kinds:?}"
            );
        }
        assert_eq!(kinds.last().map(String::as_str), Some("result"));
        let frames = frames(output);
        let deltas: String = frames
            .iter()
            .filter_map(|frame| match &frame.event {
                Event::MessageDelta { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(deltas, "Hi there");
        let Event::Result { text, usage, .. } = &frames.last().unwrap().event else {
            unreachable!()
        };
        assert_eq!(text, "Hi there");
        assert_eq!((usage.input_tokens, usage.output_tokens), (3, 2));
        assert!(
            frames
                .iter()
                .filter(|frame| matches!(frame.event, Event::TurnStarted { .. }))
                .all(|frame| frame.request_id.as_deref() == Some("prompt"))
        );
    }
}
