//! Anthropic Messages adapter: what hone sends and how the stream is read.
#![allow(missing_docs)]

mod common;

use common::*;
use hone_protocol::{
    ChatRequest, ContentBlock, ErrorCategory, ImageRef, Message, ResponseCollector, Role,
    StopReason, StreamEvent, Thinking, ToolResult, ToolSpec, Usage,
};
use hone_testkit::{MockResponse, MockServer, Reply, ReplyUsage, sse_event};
use serde_json::json;

fn write_file_tool() -> ToolSpec {
    ToolSpec {
        name: "write_file".into(),
        description: "Write a file".into(),
        parameters: json!({
            "type": "object",
            "properties": { "path": { "type": "string" }, "content": { "type": "string" } },
            "required": ["path", "content"],
        }),
    }
}

fn user_with(content: Vec<ContentBlock>) -> Message {
    Message {
        role: Role::User,
        content,
    }
}

#[tokio::test]
async fn request_carries_key_version_and_cache_marks_on_system_and_last_tool() {
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("ok").anthropic());
    let mut request = request();
    request.tools.push(write_file_tool());
    request.temperature = Some(0.25);
    collect(provider_for("anthropic", &server).as_ref(), request).await;

    let sent = server.last_request();
    assert_eq!(sent.method, "POST");
    assert_eq!(sent.path, "/messages");
    assert_eq!(sent.header("x-api-key"), Some("test-key-123456"));
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(sent.header("authorization"), None);
    let body = sent.json();
    assert_eq!(body["model"], "mock-model");
    assert_eq!(body["max_tokens"], 1024);
    assert_eq!(body["stream"], true);
    assert_eq!(body["temperature"], 0.25);
    assert_eq!(
        body["system"],
        json!([{ "type": "text", "text": "You are hone.", "cache_control": { "type": "ephemeral" } }])
    );
    let tools = body["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 2);
    assert_eq!(tools[0]["name"], "read_file");
    assert_eq!(tools[0]["input_schema"], read_file_tool().parameters);
    assert!(
        tools[0].get("cache_control").is_none(),
        "only the last tool is a breakpoint"
    );
    assert_eq!(tools[1]["cache_control"], json!({ "type": "ephemeral" }));
    assert_eq!(
        body["messages"],
        json!([{ "role": "user", "content": [{
            "type": "text",
            "text": "Read src/main.rs please",
            "cache_control": { "type": "ephemeral" },
        }] }])
    );
}

#[tokio::test]
async fn a_configured_api_version_replaces_the_default_and_max_tokens_has_a_default() {
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("ok").anthropic());
    let mut config = config_for("anthropic", &server);
    config.api_version = Some("2099-01-01".into());
    let provider = hone_providers::build_provider(config).expect("provider");
    collect(provider.as_ref(), ChatRequest::new("mock-model", "hi")).await;
    let sent = server.last_request();
    assert_eq!(sent.header("anthropic-version"), Some("2099-01-01"));
    let body = sent.json();
    assert!(
        body["max_tokens"]
            .as_u64()
            .is_some_and(|limit| limit >= 4096)
    );
    assert!(body.get("system").is_none() && body.get("tools").is_none());
}

#[tokio::test]
async fn thinking_streams_deltas_and_a_signature_and_is_requested_without_temperature() {
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .thinking("First, the file.")
            .text("Done.")
            .anthropic(),
    );
    let mut request = request();
    request.temperature = Some(0.7);
    request.thinking = Some(Thinking::Budget(2048));
    let events = collect(provider_for("anthropic", &server).as_ref(), request).await;

    assert_eq!(thinking_of(&events), "First, the file.");
    assert_eq!(text_of(&events), "Done.");
    assert!(events.contains(&StreamEvent::ThinkingSignature {
        signature: "mock-signature-0".into()
    }));
    let mut collector = ResponseCollector::new();
    events.iter().for_each(|event| collector.push(event));
    assert_eq!(
        collector.message().content[0],
        ContentBlock::Thinking {
            text: "First, the file.".into(),
            signature: Some("mock-signature-0".into()),
        }
    );

    let body = server.last_request().json();
    assert_eq!(
        body["thinking"],
        json!({ "type": "enabled", "budget_tokens": 2048 })
    );
    assert!(
        body.get("temperature").is_none(),
        "thinking forbids temperature"
    );
    assert!(
        body["max_tokens"].as_u64().expect("max_tokens") > 2048,
        "max_tokens must exceed the thinking budget"
    );
}

#[tokio::test]
async fn cached_prompt_tokens_count_toward_input_and_are_reported_apart() {
    let server = MockServer::start().await;
    let usage = ReplyUsage {
        input: 1200,
        output: 40,
        cached: 1000,
        reasoning: 0,
    };
    server.enqueue(Reply::new().text("ok").full_usage(usage).anthropic());
    let events = collect(provider_for("anthropic", &server).as_ref(), request()).await;
    let (_, usage) = completed(&events);
    assert_eq!(
        usage,
        Some(Usage {
            input_tokens: 1200,
            output_tokens: 40,
            cached_input_tokens: 1000,
            reasoning_tokens: 0,
            ..Usage::default()
        })
    );
}

#[tokio::test]
async fn cache_creation_tokens_also_count_as_input() {
    let server = MockServer::start().await;
    server.enqueue(MockResponse::sse([
        sse_event(
            Some("message_start"),
            &json!({"type": "message_start", "message": {
                "id": "msg_1", "type": "message", "role": "assistant", "content": [],
                "usage": { "input_tokens": 5, "cache_creation_input_tokens": 300,
                           "cache_read_input_tokens": 700, "output_tokens": 1 },
            }}),
        ),
        sse_event(
            Some("message_delta"),
            &json!({"type": "message_delta",
            "delta": { "stop_reason": "end_turn" }, "usage": { "output_tokens": 12 }}),
        ),
        sse_event(Some("message_stop"), &json!({"type": "message_stop"})),
    ]));
    let events = collect(provider_for("anthropic", &server).as_ref(), request()).await;
    let usage = completed(&events).1.expect("usage");
    assert_eq!(
        (
            usage.input_tokens,
            usage.cached_input_tokens,
            usage.output_tokens
        ),
        (1005, 700, 12)
    );
}

#[tokio::test]
async fn in_band_error_events_map_to_error_categories() {
    for (kind, category) in [
        ("overloaded_error", ErrorCategory::Provider),
        ("api_error", ErrorCategory::Provider),
        ("rate_limit_error", ErrorCategory::RateLimit),
        ("authentication_error", ErrorCategory::Auth),
        ("invalid_request_error", ErrorCategory::Validation),
    ] {
        let server = MockServer::start().await;
        server.enqueue(MockResponse::sse([
            sse_event(
                Some("message_start"),
                &json!({"type": "message_start", "message": {
                    "id": "msg_1", "type": "message", "role": "assistant", "content": [],
                    "usage": { "input_tokens": 5, "output_tokens": 1 },
                }}),
            ),
            sse_event(
                Some("error"),
                &json!({"type": "error", "error": {
                    "type": kind, "message": "the provider is unhappy",
                }}),
            ),
        ]));
        let events = collect(provider_for("anthropic", &server).as_ref(), request()).await;
        assert_eq!(failure_category(&events), category, "{kind}");
        let StreamEvent::Failed { error } = terminal(&events) else {
            unreachable!()
        };
        assert!(
            error.message.contains("the provider is unhappy"),
            "{error:?}"
        );
        assert_eq!(
            server.request_count(),
            1,
            "a started stream is never retried"
        );
    }
}

#[tokio::test]
async fn refusal_completes_as_content_filter() {
    let server = MockServer::start().await;
    server.enqueue(MockResponse::sse([
        sse_event(
            Some("message_delta"),
            &json!({"type": "message_delta",
            "delta": { "stop_reason": "refusal" }, "usage": { "output_tokens": 0 }}),
        ),
        sse_event(Some("message_stop"), &json!({"type": "message_stop"})),
    ]));
    let events = collect(provider_for("anthropic", &server).as_ref(), request()).await;
    assert_eq!(completed(&events).0, StopReason::ContentFilter);
}

#[tokio::test]
async fn history_round_trip_sends_signed_thinking_tool_use_and_tool_results() {
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .thinking("Need the file.")
            .text("Reading it.")
            .tool_call("read_file", json!({"path": "src/main.rs"}))
            .anthropic(),
    );
    server.enqueue(Reply::new().text("It prints hello.").anthropic());
    let provider = provider_for("anthropic", &server);
    let mut request = request();
    request.thinking = Some(Thinking::Budget(1024));
    let events = collect(provider.as_ref(), request.clone()).await;
    let mut collector = ResponseCollector::new();
    events.iter().for_each(|event| collector.push(event));
    assert_eq!(completed(&events).0, StopReason::ToolUse);

    let mut assistant = collector.message();
    // Thinking from another provider has no signature and must not be sent.
    assistant.content.insert(
        0,
        ContentBlock::Thinking {
            text: "unsigned".into(),
            signature: None,
        },
    );
    let call = assistant.tool_calls().next().expect("a call").clone();
    request.messages.push(assistant);
    request
        .messages
        .push(user_with(vec![ContentBlock::ToolResult(ToolResult {
            call_id: call.id.clone(),
            name: call.name.clone(),
            content: "no such file".into(),
            is_error: true,
            effect: Default::default(),
        })]));
    collect(provider.as_ref(), request).await;

    let body = server.last_request().json();
    let messages = body["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(
        messages[1]["content"],
        json!([
            { "type": "thinking", "thinking": "Need the file.", "signature": "mock-signature-0" },
            { "type": "text", "text": "Reading it." },
            { "type": "tool_use", "id": "call_0", "name": "read_file",
              "input": { "path": "src/main.rs" } },
        ])
    );
    assert_eq!(messages[2]["role"], "user");
    assert_eq!(
        messages[2]["content"],
        json!([{
            "type": "tool_result",
            "tool_use_id": "call_0",
            "content": "no such file",
            "is_error": true,
            "cache_control": { "type": "ephemeral" },
        }])
    );
}

#[tokio::test]
async fn consecutive_messages_of_one_role_are_merged_with_tool_results_first() {
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("ok").anthropic());
    let mut request = ChatRequest::new("mock-model", "first");
    request.messages.push(Message::user("second"));
    request.messages.push(Message::assistant("one"));
    request.messages.push(Message::assistant("   "));
    request.messages.push(Message::assistant("two"));
    request.messages.push(user_with(vec![
        ContentBlock::Text {
            text: "note".into(),
        },
        ContentBlock::ToolResult(ToolResult {
            call_id: "t1".into(),
            name: "read_file".into(),
            content: "data".into(),
            is_error: false,
            effect: Default::default(),
        }),
    ]));
    collect(provider_for("anthropic", &server).as_ref(), request).await;

    let messages = server.last_request().json()["messages"].clone();
    let roles: Vec<_> = messages
        .as_array()
        .expect("messages")
        .iter()
        .map(|message| message["role"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user"]);
    assert_eq!(messages[0]["content"][1]["text"], "second");
    assert_eq!(
        messages[1]["content"].as_array().map(Vec::len),
        Some(2),
        "blank text dropped"
    );
    assert_eq!(messages[2]["content"][0]["type"], "tool_result");
    assert_eq!(messages[2]["content"][1]["text"], "note");
}

#[tokio::test]
async fn images_are_sent_as_base64_and_url_sources() {
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("a cat").anthropic());
    let request = ChatRequest {
        model: "mock-model".into(),
        messages: vec![user_with(vec![
            ContentBlock::Image(ImageRef::Base64 {
                media_type: "image/png".into(),
                data: "iVBORw0KGgo=".into(),
            }),
            ContentBlock::Image(ImageRef::Url {
                url: "https://example.com/cat.jpg".into(),
            }),
            ContentBlock::Text {
                text: "What is this?".into(),
            },
        ])],
        ..ChatRequest::default()
    };
    collect(provider_for("anthropic", &server).as_ref(), request).await;
    let content = server.last_request().json()["messages"][0]["content"].clone();
    assert_eq!(
        content[0],
        json!({ "type": "image", "source": {
            "type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo=" } })
    );
    assert_eq!(
        content[1],
        json!({ "type": "image", "source": { "type": "url", "url": "https://example.com/cat.jpg" } })
    );
}

#[tokio::test]
async fn listing_models_reads_ids_and_display_names_with_the_version_header() {
    let server = MockServer::start().await;
    server.route(
        "/models",
        MockResponse::json(
            200,
            &json!({
                "data": [
                    { "type": "model", "id": "claude-sonnet-4-5", "display_name": "Claude Sonnet 4.5",
                      "created_at": "2025-09-29T00:00:00Z" },
                    { "type": "model", "id": "claude-haiku-4-5", "display_name": "Claude Haiku 4.5",
                      "created_at": "2025-10-01T00:00:00Z" },
                ],
                "has_more": false,
                "first_id": "claude-sonnet-4-5",
                "last_id": "claude-haiku-4-5",
            }),
        ),
    );
    let models = provider_for("anthropic", &server)
        .list_models()
        .await
        .expect("models");
    assert_eq!(models.len(), 2);
    assert_eq!(models[0].id, "claude-sonnet-4-5");
    assert_eq!(models[1].display_name.as_deref(), Some("Claude Haiku 4.5"));
    let sent = server.last_request();
    assert_eq!(sent.method, "GET");
    assert_eq!(sent.path, "/models");
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(sent.header("x-api-key"), Some("test-key-123456"));
}

#[tokio::test]
async fn error_bodies_keep_what_anthropic_said() {
    let server = MockServer::start().await;
    server.enqueue(MockResponse::json(
        400,
        &json!({"type": "error", "error": {"type": "invalid_request_error",
                "message": "max_tokens: must be greater than thinking.budget_tokens"}}),
    ));
    let events = collect(provider_for("anthropic", &server).as_ref(), request()).await;
    assert_eq!(failure_category(&events), ErrorCategory::Validation);
    let StreamEvent::Failed { error } = terminal(&events) else {
        unreachable!()
    };
    assert!(
        error
            .message
            .contains("must be greater than thinking.budget_tokens"),
        "{error:?}"
    );
}
