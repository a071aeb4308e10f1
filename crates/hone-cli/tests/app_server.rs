//! `hone app-server`: the real binary on stdio against a scripted model: a session and a
//! turn as JSON-RPC, lines that are not calls answered with JSON-RPC errors, and a clean
//! exit when stdin closes.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdout, Stdio};

use hone_testkit::{MockServer, Reply};
use serde_json::{Value, json};

/// Reads messages until the response with `id`; returns it and the events before it.
fn until_response(lines: &mut impl Iterator<Item = Value>, id: &Value) -> (Value, Vec<Value>) {
    let mut events = Vec::new();
    for message in lines.by_ref() {
        if message.get("id") == Some(id) {
            return (message, events);
        }
        events.push(message);
    }
    panic!("no response {id}; saw {events:?}");
}

fn messages(stdout: ChildStdout) -> impl Iterator<Item = Value> {
    BufReader::new(stdout).lines().map(|line| {
        let line = line.unwrap();
        serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON-RPC: {line}"))
    })
}

#[tokio::test]
async fn a_session_and_a_turn_over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join(".home")).unwrap();
    std::fs::write(root.join("notes.txt"), "alpha\n").unwrap();
    let model = MockServer::start().await;
    model.enqueue(
        Reply::new()
            .tool_call("read_file", json!({"path": "notes.txt"}))
            .openai_chat(),
    );
    model.enqueue(Reply::new().text("The notes say alpha.").openai_chat());
    let url = model.url();
    let root_for_child = root.clone();
    let seen = tokio::task::spawn_blocking(move || {
        let mut child = common::command(&root_for_child)
            .env("HONE_DATA_DIR", root_for_child.join(".home/data"))
            .env("OPENAI_API_KEY", "test-key-abcdef123456")
            .args(["--provider", "openai", "--base-url", &url, "app-server"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut lines = messages(child.stdout.take().unwrap());
        let mut send = |line: &str| {
            stdin.write_all(line.as_bytes()).unwrap();
            stdin.write_all(b"\n").unwrap();
            stdin.flush().unwrap();
        };
        let mut seen = serde_json::Map::new();
        send("{not json");
        seen.insert("garbage".into(), lines.next().unwrap());
        send(r#"{"jsonrpc":"2.0","id":"u","method":"no.such.method"}"#);
        seen.insert("unknown".into(), until_response(&mut lines, &json!("u")).0);
        send(r#"{"jsonrpc":"2.0","id":"p","method":"user.message","params":{"txt":"hi"}}"#);
        seen.insert("params".into(), until_response(&mut lines, &json!("p")).0);
        send(r#"{"jsonrpc":"2.0","id":"n","method":"user.message","params":{"text":"hi"}}"#);
        seen.insert("no_session".into(), until_response(&mut lines, &json!("n")).0);
        send(r#"{"jsonrpc":"2.0","id":1,"method":"session.new","params":{}}"#);
        seen.insert("opened".into(), until_response(&mut lines, &json!(1)).0);
        send(r#"{"jsonrpc":"2.0","id":2,"method":"user.message","params":{"text":"what do the notes say?"}}"#);
        seen.insert("accepted".into(), until_response(&mut lines, &json!(2)).0);
        let mut events = Vec::new();
        for message in lines.by_ref() {
            let end = message["params"]["type"] == "turn.completed";
            events.push(message);
            if end {
                break;
            }
        }
        seen.insert("events".into(), Value::Array(events));
        drop(stdin);
        let rest: Vec<Value> = lines.collect();
        seen.insert("after_close".into(), Value::Array(rest));
        let status = child.wait().unwrap();
        seen.insert("exit".into(), json!(status.code()));
        Value::Object(seen)
    })
    .await
    .unwrap();

    assert_eq!(seen["garbage"]["error"]["code"], -32700, "{seen}");
    assert_eq!(seen["garbage"]["id"], Value::Null);
    assert_eq!(seen["unknown"]["error"]["code"], -32601);
    assert_eq!(seen["params"]["error"]["code"], -32602);
    assert_eq!(seen["no_session"]["error"]["code"], -32001);
    let opened = &seen["opened"]["result"];
    assert_eq!(opened["type"], "session.started", "{seen}");
    assert_eq!(opened["root"], root.display().to_string());
    let session = opened["session"].as_str().unwrap();
    assert_eq!(seen["accepted"]["result"], Value::Null);
    let events = seen["events"].as_array().unwrap();
    assert!(events.iter().all(|event| event["method"] == "event"));
    assert!(
        events
            .iter()
            .all(|event| event["params"]["session"] == session
                && event["params"]["request_id"] == "2"),
        "{events:?}"
    );
    let kinds: Vec<&str> = events
        .iter()
        .map(|event| event["params"]["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"turn.started"), "{kinds:?}");
    assert!(kinds.contains(&"tool.completed"), "{kinds:?}");
    assert_eq!(seen["after_close"], json!([]));
    assert_eq!(seen["exit"], 0);

    // The session was stored before the process exited.
    let listed = common::hone(
        &root,
        &[("HONE_DATA_DIR", root.join(".home/data").to_str().unwrap())],
        &["sessions", "list", "--json"],
    )
    .await;
    assert!(
        String::from_utf8_lossy(&listed.stdout).contains(session),
        "{}",
        common::stderr(&listed)
    );
}
