//! The Ollama native adapter: what hone sends to `/api/chat`, and how NDJSON is read.
#![allow(missing_docs)]

mod common;

use common::*;
use hone_protocol::{
    ChatRequest, ContentBlock, ErrorCategory, ImageRef, Message, ResponseCollector, Role,
    StopReason, StreamEvent, Thinking, ToolCall, ToolResult,
};
use hone_providers::{Provider, build_provider};
use hone_testkit::{MockResponse, MockServer, Reply};
use serde_json::json;

const PRESET: &str = "ollama";

/// The local Ollama provider as users get it: no key.
fn keyless_provider(server: &MockServer) -> std::sync::Arc<dyn Provider> {
    let mut config = config_for(PRESET, server);
    config.api_key = None;
    match build_provider(config) {
        Ok(provider) => provider,
        Err(error) => panic!("Ollama needs no key, yet: {error:?}"),
    }
}

/// The shared history conversation, with a temperature set.
fn history_request() -> ChatRequest {
    let mut request = common::history_request();
    request.temperature = Some(0.5);
    request
}

fn failure(events: &[StreamEvent]) -> &hone_protocol::HoneError {
    match terminal(events) {
        StreamEvent::Failed { error } => error,
        other => panic!("expected a failure, got {other:#?}"),
    }
}

#[tokio::test]
async fn sends_messages_tools_and_options_without_a_key() {
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("ok").ollama());
    let events = collect(keyless_provider(&server).as_ref(), history_request()).await;
    completed(&events);

    let sent = server.last_request();
    assert_eq!(sent.method, "POST");
    assert_eq!(sent.path, "/api/chat");
    assert_eq!(sent.header("authorization"), None);
    let body = sent.json();
    assert_eq!(body["model"], "mock-model");
    assert_eq!(body["stream"], true);
    assert!(
        body.get("think").is_none(),
        "no thinking unless asked: {body}"
    );
    assert_eq!(body["options"]["num_ctx"], 8192);
    assert_eq!(body["options"]["num_predict"], 1024);
    assert_eq!(body["options"]["temperature"], 0.5);
    assert_eq!(
        body["messages"],
        json!([
            { "role": "system", "content": "You are hone." },
            {
                "role": "user",
                "content": "What is in this screenshot?",
                "images": ["iVBORw0KGgo"],
            },
            {
                "role": "assistant",
                "content": "Let me read it.",
                "tool_calls": [{
                    "function": { "name": "read_file", "arguments": { "path": "src/main.rs" } },
                }],
            },
            { "role": "tool", "content": "fn main() {}", "tool_name": "read_file" },
            { "role": "user", "content": "Now explain it." },
        ])
    );
    assert_eq!(
        body["tools"],
        json!([{
            "type": "function",
            "function": {
                "name": "read_file",
                "description": "Read a file",
                "parameters": read_file_tool().parameters,
            },
        }])
    );
}

#[tokio::test]
async fn num_ctx_grows_with_a_long_prompt_and_respects_the_context_window() {
    let server = MockServer::start().await;
    for _ in 0..3 {
        server.enqueue(Reply::new().text("ok").ollama());
    }
    let mut long = request();
    long.messages = vec![Message::user("x".repeat(160_000))];

    let events = collect(keyless_provider(&server).as_ref(), long.clone()).await;
    completed(&events);
    assert_eq!(server.last_request().json()["options"]["num_ctx"], 24_576);

    let mut config = config_for(PRESET, &server);
    config.context_window = Some(16_384);
    let capped = build_provider(config).expect("provider");
    completed(&collect(capped.as_ref(), long.clone()).await);
    assert_eq!(server.last_request().json()["options"]["num_ctx"], 16_384);

    long.model = "llama3:8b".into();
    completed(&collect(keyless_provider(&server).as_ref(), long).await);
    assert_eq!(
        server.last_request().json()["options"]["num_ctx"],
        8_192,
        "the known window of llama3 caps num_ctx"
    );
}

#[tokio::test]
async fn asks_for_thinking_and_streams_it_with_usage() {
    let server = MockServer::start().await;
    let reply = Reply::new()
        .thinking("Greeting expected.")
        .text("Hello!")
        .usage(321, 45);
    server.enqueue(reply.ollama());
    let mut request = request();
    request.thinking = Some(Thinking::Budget(2048));
    let events = collect(keyless_provider(&server).as_ref(), request).await;

    assert_eq!(server.last_request().json()["think"], true);
    assert_eq!(thinking_of(&events), "Greeting expected.");
    assert_eq!(text_of(&events), "Hello!");
    let (stop, usage) = completed(&events);
    assert_eq!(stop, StopReason::EndTurn);
    let usage = usage.expect("usage reported");
    assert_eq!((usage.input_tokens, usage.output_tokens), (321, 45));
}

#[tokio::test]
async fn a_missing_model_error_line_is_a_config_error_with_a_pull_hint() {
    let server = MockServer::start().await;
    server.enqueue(MockResponse::ndjson([json!({
        "error": "model \"qwen3:8b\" not found, try pulling it first"
    })]));
    let events = collect(keyless_provider(&server).as_ref(), request()).await;
    let error = failure(&events);
    assert_eq!(error.category, ErrorCategory::Config);
    assert!(error.message.contains("ollama pull qwen3:8b"), "{error:?}");
    assert!(
        error
            .provider_detail
            .as_deref()
            .unwrap_or("")
            .contains("try pulling it first"),
        "{error:?}"
    );
}

#[tokio::test]
async fn other_error_lines_are_provider_errors_carrying_the_text() {
    let server = MockServer::start().await;
    server.enqueue(MockResponse::ndjson([
        json!({ "model": "mock-model", "message": { "role": "assistant", "content": "Par" }, "done": false }),
        json!({ "error": "an error was encountered while running the model: GPU out of memory" }),
    ]));
    let events = collect(keyless_provider(&server).as_ref(), request()).await;
    assert_eq!(text_of(&events), "Par");
    let error = failure(&events);
    assert_eq!(error.category, ErrorCategory::Provider);
    assert!(error.message.contains("GPU out of memory"), "{error:?}");
}

#[tokio::test]
async fn a_stream_without_a_done_line_is_a_network_error() {
    let server = MockServer::start().await;
    server.enqueue(MockResponse::ndjson([json!({
        "model": "mock-model",
        "message": { "role": "assistant", "content": "half" },
        "done": false,
    })]));
    let events = collect(keyless_provider(&server).as_ref(), request()).await;
    assert_eq!(text_of(&events), "half");
    assert_eq!(failure_category(&events), ErrorCategory::Network);
}

#[tokio::test]
async fn remote_image_urls_are_refused_before_sending() {
    let server = MockServer::start().await;
    let mut request = request();
    request.messages = vec![Message {
        role: Role::User,
        content: vec![ContentBlock::Image(ImageRef::Url {
            url: "https://example.com/cat.png".into(),
        })],
    }];
    let events = collect(keyless_provider(&server).as_ref(), request).await;
    assert_eq!(failure_category(&events), ErrorCategory::Validation);
    assert_eq!(server.request_count(), 0);
}

#[tokio::test]
async fn lists_models_from_api_tags_with_their_sizes() {
    let server = MockServer::start().await;
    server.route(
        "/api/tags",
        MockResponse::json(
            200,
            &json!({ "models": [
                {
                    "name": "qwen2.5-coder:7b",
                    "model": "qwen2.5-coder:7b",
                    "modified_at": "2025-05-01T10:00:00.000000+02:00",
                    "size": 4_683_087_332_u64,
                    "digest": "2b0496514337",
                    "details": {
                        "format": "gguf",
                        "family": "qwen2",
                        "parameter_size": "7.6B",
                        "quantization_level": "Q4_K_M",
                    },
                },
                { "name": "my-finetune:latest", "model": "my-finetune:latest", "details": {} },
            ] }),
        ),
    );
    let models = keyless_provider(&server)
        .list_models()
        .await
        .expect("models listed");
    let listed: Vec<_> = models
        .iter()
        .map(|model| (model.id.as_str(), model.display_name.as_deref()))
        .collect();
    assert_eq!(
        listed,
        [
            ("qwen2.5-coder:7b", Some("qwen2.5-coder:7b (7.6B)")),
            ("my-finetune:latest", None),
        ]
    );
    let sent = server.last_request();
    assert_eq!(
        (sent.method.as_str(), sent.path.as_str()),
        ("GET", "/api/tags")
    );
}

#[tokio::test]
async fn a_streamed_tool_call_round_trips_into_the_next_request() {
    let server = MockServer::start().await;
    let first = Reply::new()
        .text("Let me look.")
        .tool_call("read_file", json!({ "path": "src/lib.rs" }))
        .tool_call("read_file", json!({ "path": "Cargo.toml" }));
    server.enqueue(first.ollama());
    server.enqueue(Reply::new().text("It is a library.").ollama());
    let provider = keyless_provider(&server);

    let mut request = request();
    let events = collect(provider.as_ref(), request.clone()).await;
    assert_eq!(completed(&events).0, StopReason::ToolUse);
    let mut collector = ResponseCollector::new();
    for event in &events {
        collector.push(event);
    }
    let assistant = collector.message();
    let calls: Vec<ToolCall> = assistant.tool_calls().cloned().collect();
    let ids: Vec<_> = calls.iter().map(|call| call.id.as_str()).collect();
    assert_eq!(ids, ["call_0", "call_1"]);
    request.messages.push(assistant);
    request.messages.push(Message {
        role: Role::User,
        content: calls
            .iter()
            .map(|call| {
                ContentBlock::ToolResult(ToolResult {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    content: format!("contents of {}", call.arguments),
                    is_error: false,
                    effect: Default::default(),
                })
            })
            .collect(),
    });
    let events = collect(provider.as_ref(), request).await;
    assert_eq!(text_of(&events), "It is a library.");

    let messages = server.last_request().json()["messages"].clone();
    assert_eq!(
        messages[2],
        json!({
            "role": "assistant",
            "content": "Let me look.",
            "tool_calls": [
                { "function": { "name": "read_file", "arguments": { "path": "src/lib.rs" } } },
                { "function": { "name": "read_file", "arguments": { "path": "Cargo.toml" } } },
            ],
        })
    );
    assert_eq!(messages[3]["role"], "tool");
    assert_eq!(messages[3]["tool_name"], "read_file");
    assert_eq!(
        messages[3]["content"],
        r#"contents of {"path":"src/lib.rs"}"#
    );
    assert_eq!(
        messages[4]["content"],
        r#"contents of {"path":"Cargo.toml"}"#
    );
    assert_eq!(messages.as_array().map(Vec::len), Some(5));
}
