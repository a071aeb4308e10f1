//! Prompt-level tool calling through a real adapter: schemas go into the system prompt,
//! calls are parsed from the streamed text.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use hone_config::ToolMode;
use hone_protocol::{ContentBlock, Message, Role, StopReason, ToolCall, ToolResult};
use hone_providers::build_provider;
use hone_testkit::{MockServer, Reply};

fn prompt_mode_provider(server: &MockServer) -> std::sync::Arc<dyn hone_providers::Provider> {
    let mut config = config_for("llamacpp", server);
    config.tool_mode = ToolMode::Prompt;
    build_provider(config).expect("provider")
}

#[tokio::test]
async fn tools_are_described_in_the_system_prompt_not_sent_natively() {
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("Sure.").openai_chat());
    let events = collect(prompt_mode_provider(&server).as_ref(), request()).await;
    completed(&events);
    let body = server.last_request().json();
    assert!(body.get("tools").is_none(), "{body}");
    let system = body["messages"][0]["content"]
        .as_str()
        .expect("system prompt");
    assert!(system.starts_with("You are hone."), "{system}");
    assert!(
        system.contains("read_file") && system.contains("<tool_call>"),
        "{system}"
    );
}

#[tokio::test]
async fn a_fenced_json_call_from_a_small_model_becomes_a_tool_call() {
    let server = MockServer::start().await;
    let text = "I will read it.\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/main.rs\"}}\n```\n";
    server.enqueue(Reply::new().text(text).text_pieces(2).openai_chat());
    let events = collect(prompt_mode_provider(&server).as_ref(), request()).await;
    let calls = ended_calls(&events);
    assert_eq!(calls.len(), 1, "{events:#?}");
    assert_eq!(calls[0].1, "read_file");
    let arguments: serde_json::Value = serde_json::from_str(&calls[0].2).unwrap();
    assert_eq!(arguments, serde_json::json!({"path": "src/main.rs"}));
    assert_eq!(text_of(&events).trim(), "I will read it.");
    assert_eq!(completed(&events).0, StopReason::ToolUse);
}

#[tokio::test]
async fn tagged_calls_and_plain_code_blocks_are_told_apart() {
    let server = MockServer::start().await;
    let text = "Example:\n```rust\nfn main() {}\n```\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.rs\"}}\n</tool_call>";
    server.enqueue(Reply::new().text(text).text_pieces(3).openai_chat());
    let events = collect(prompt_mode_provider(&server).as_ref(), request()).await;
    assert_eq!(ended_calls(&events).len(), 1);
    assert!(text_of(&events).contains("```rust\nfn main() {}\n```"));
}

#[tokio::test]
async fn history_with_tool_calls_is_sent_as_text() {
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("Done.").openai_chat());
    let mut chat = request();
    chat.messages.push(Message {
        role: Role::Assistant,
        content: vec![ContentBlock::ToolCall(ToolCall {
            id: "call_0".into(),
            name: "read_file".into(),
            arguments: "{\"path\":\"a.rs\"}".into(),
        })],
    });
    chat.messages.push(Message {
        role: Role::User,
        content: vec![ContentBlock::ToolResult(ToolResult {
            call_id: "call_0".into(),
            name: "read_file".into(),
            content: "fn a() {}".into(),
            is_error: false,
            effect: Default::default(),
        })],
    });
    let events = collect(prompt_mode_provider(&server).as_ref(), chat).await;
    completed(&events);
    let body = server.last_request().json();
    let messages = body["messages"].as_array().unwrap();
    assert!(
        messages.iter().all(|message| message["role"] != "tool"),
        "{body}"
    );
    let sent = body.to_string();
    assert!(
        sent.contains("<tool_call>") && sent.contains("<tool_response>"),
        "{sent}"
    );
}
