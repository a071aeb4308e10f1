//! The OpenAI Responses adapter: what hone sends, and how the typed event stream is read.
#![allow(missing_docs)]

mod common;

use common::*;
use hone_protocol::{
    ContentBlock, ErrorCategory, Message, ResponseCollector, Role, StopReason, StreamEvent,
    Thinking, ToolResult,
};
use hone_testkit::{MockResponse, MockServer, Reply, ReplyUsage, sse_event};
use serde_json::{Value, json};

const PRESET: &str = "openai-responses";

fn sse(events: &[(&str, Value)]) -> MockResponse {
    MockResponse::sse(events.iter().enumerate().map(|(sequence, (kind, data))| {
        let mut data = data.clone();
        data["type"] = json!(kind);
        data["sequence_number"] = json!(sequence);
        sse_event(Some(kind), &data)
    }))
}

fn created() -> (&'static str, Value) {
    (
        "response.created",
        json!({ "response": { "id": "resp_1", "status": "in_progress" } }),
    )
}

fn text_delta(text: &str) -> (&'static str, Value) {
    (
        "response.output_text.delta",
        json!({ "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": text }),
    )
}

#[tokio::test]
async fn sends_instructions_typed_input_items_and_store_false() {
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("ok").openai_responses());
    let events = collect(provider_for(PRESET, &server).as_ref(), history_request()).await;
    completed(&events);

    let sent = server.last_request();
    assert_eq!(sent.method, "POST");
    assert_eq!(sent.path, "/responses");
    assert_eq!(sent.header("authorization"), Some("Bearer test-key-123456"));
    let body = sent.json();
    assert_eq!(body["model"], "mock-model");
    assert_eq!(body["instructions"], "You are hone.");
    assert_eq!(body["stream"], true);
    assert_eq!(body["store"], false);
    assert_eq!(body["max_output_tokens"], 1024);
    assert!(
        body.get("reasoning").is_none(),
        "no reasoning unless asked: {body}"
    );
    assert!(body.get("messages").is_none() && body.get("max_completion_tokens").is_none());
    assert_eq!(
        body["input"],
        json!([
            {
                "type": "message",
                "role": "user",
                "content": [
                    { "type": "input_text", "text": "What is in this screenshot?" },
                    { "type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo" },
                ],
            },
            {
                "type": "message",
                "role": "assistant",
                "content": [{ "type": "output_text", "text": "Let me read it." }],
            },
            {
                "type": "function_call",
                "call_id": "call_7",
                "name": "read_file",
                "arguments": "{\"path\":\"src/main.rs\"}",
            },
            { "type": "function_call_output", "call_id": "call_7", "output": "fn main() {}" },
            {
                "type": "message",
                "role": "user",
                "content": [{ "type": "input_text", "text": "Now explain it." }],
            },
        ])
    );
    assert_eq!(
        body["tools"],
        json!([{
            "type": "function",
            "name": "read_file",
            "description": "Read a file",
            "parameters": read_file_tool().parameters,
            "strict": false,
        }])
    );
}

#[tokio::test]
async fn asks_for_reasoning_summaries_and_streams_them_as_thinking() {
    let server = MockServer::start().await;
    let reply = Reply::new()
        .thinking("The user wants a greeting.")
        .text("Hello!")
        .full_usage(ReplyUsage {
            input: 1200,
            output: 80,
            cached: 1024,
            reasoning: 64,
        });
    server.enqueue(reply.openai_responses());
    let mut request = request();
    request.thinking = Some(Thinking::Medium);
    let events = collect(provider_for(PRESET, &server).as_ref(), request).await;

    assert_eq!(
        server.last_request().json()["reasoning"],
        json!({ "effort": "medium", "summary": "auto" })
    );
    assert_eq!(thinking_of(&events), "The user wants a greeting.");
    assert_eq!(text_of(&events), "Hello!");
    let (stop, usage) = completed(&events);
    assert_eq!(stop, StopReason::EndTurn);
    let usage = usage.expect("usage reported");
    assert_eq!(usage.input_tokens, 1200);
    assert_eq!(usage.output_tokens, 80);
    assert_eq!(usage.cached_input_tokens, 1024);
    assert_eq!(usage.reasoning_tokens, 64);
}

#[tokio::test]
async fn in_band_error_events_map_to_categories() {
    let cases = [
        (
            "error",
            json!({ "code": "rate_limit_exceeded", "message": "Rate limit reached", "param": null }),
            ErrorCategory::RateLimit,
            "Rate limit reached",
        ),
        (
            "error",
            json!({ "error": {
                "type": "invalid_request_error",
                "code": "context_length_exceeded",
                "message": "Your input exceeds the context window",
            } }),
            ErrorCategory::Validation,
            "exceeds the context window",
        ),
        (
            "response.failed",
            json!({ "response": { "status": "failed", "error": {
                "code": "server_error", "message": "The server had an error",
            } } }),
            ErrorCategory::Provider,
            "The server had an error",
        ),
        (
            "response.failed",
            json!({ "response": { "status": "failed", "error": {
                "code": "invalid_prompt", "message": "Invalid prompt",
            } } }),
            ErrorCategory::Validation,
            "Invalid prompt",
        ),
    ];
    for (kind, data, category, said) in cases {
        let server = MockServer::start().await;
        server.enqueue(sse(&[created(), text_delta("partial "), (kind, data)]));
        let events = collect(provider_for(PRESET, &server).as_ref(), request()).await;
        assert_eq!(
            text_of(&events),
            "partial ",
            "text before the error is kept"
        );
        assert_eq!(failure_category(&events), category, "{kind}: {said}");
        let StreamEvent::Failed { error } = terminal(&events) else {
            unreachable!()
        };
        assert!(error.message.contains(said), "{error:?}");
        assert!(error.provider_detail.is_some(), "{error:?}");
        assert_eq!(
            server.request_count(),
            1,
            "a started stream is never retried"
        );
    }
}

#[tokio::test]
async fn incomplete_responses_report_why_they_stopped() {
    let server = MockServer::start().await;
    server.enqueue(sse(&[
        created(),
        text_delta("I can't"),
        (
            "response.incomplete",
            json!({ "response": {
                "status": "incomplete",
                "incomplete_details": { "reason": "content_filter" },
                "usage": { "input_tokens": 5, "output_tokens": 2 },
            } }),
        ),
    ]));
    let events = collect(provider_for(PRESET, &server).as_ref(), request()).await;
    let (stop, usage) = completed(&events);
    assert_eq!(stop, StopReason::ContentFilter);
    assert_eq!(usage.map(|usage| usage.output_tokens), Some(2));
}

#[tokio::test]
async fn a_stream_closed_before_response_completed_is_a_network_error() {
    let server = MockServer::start().await;
    server.enqueue(sse(&[created(), text_delta("half an ans")]));
    let events = collect(provider_for(PRESET, &server).as_ref(), request()).await;
    assert_eq!(text_of(&events), "half an ans");
    assert_eq!(failure_category(&events), ErrorCategory::Network);
}

#[tokio::test]
async fn events_are_recognised_by_their_sse_name_when_data_has_no_type() {
    let server = MockServer::start().await;
    server.enqueue(MockResponse::sse([
        sse_event(
            Some("response.output_text.delta"),
            &json!({ "delta": "hi" }),
        ),
        sse_event(
            Some("response.completed"),
            &json!({ "response": { "status": "completed" } }),
        ),
    ]));
    let events = collect(provider_for(PRESET, &server).as_ref(), request()).await;
    assert_eq!(text_of(&events), "hi");
    assert_eq!(completed(&events).0, StopReason::EndTurn);
}

#[tokio::test]
async fn lists_models_from_the_models_endpoint() {
    let server = MockServer::start().await;
    server.route(
        "/models",
        MockResponse::json(
            200,
            &json!({ "object": "list", "data": [
                { "id": "gpt-4.1-mini", "object": "model", "owned_by": "system" },
                { "id": "o4-mini", "object": "model", "owned_by": "system" },
            ] }),
        ),
    );
    let models = provider_for(PRESET, &server)
        .list_models()
        .await
        .expect("models listed");
    let ids: Vec<_> = models.iter().map(|model| model.id.as_str()).collect();
    assert_eq!(ids, ["gpt-4.1-mini", "o4-mini"]);
    let sent = server.last_request();
    assert_eq!(
        (sent.method.as_str(), sent.path.as_str()),
        ("GET", "/models")
    );
    assert_eq!(sent.header("authorization"), Some("Bearer test-key-123456"));
}

#[tokio::test]
async fn a_streamed_tool_call_round_trips_into_the_next_request() {
    let server = MockServer::start().await;
    let first = Reply::new()
        .thinking("I should read the file.")
        .text("Let me look.")
        .tool_call("read_file", json!({ "path": "src/lib.rs" }))
        .usage(40, 12);
    server.enqueue(first.openai_responses());
    server.enqueue(Reply::new().text("It is a library.").openai_responses());
    let provider = provider_for(PRESET, &server);

    let mut request = request();
    let events = collect(provider.as_ref(), request.clone()).await;
    assert_eq!(completed(&events).0, StopReason::ToolUse);
    let mut collector = ResponseCollector::new();
    for event in &events {
        collector.push(event);
    }
    let assistant = collector.message();
    let call = assistant.tool_calls().next().expect("a tool call").clone();
    assert_eq!(call.id, "call_0");
    assert_eq!(call.arguments, r#"{"path":"src/lib.rs"}"#);
    request.messages.push(assistant);
    request.messages.push(Message {
        role: Role::User,
        content: vec![ContentBlock::ToolResult(ToolResult {
            call_id: call.id.clone(),
            name: call.name.clone(),
            content: "pub fn lib() {}".into(),
            is_error: false,
            effect: Default::default(),
        })],
    });
    let events = collect(provider.as_ref(), request).await;
    assert_eq!(text_of(&events), "It is a library.");

    let input = server.last_request().json()["input"].clone();
    assert_eq!(
        input,
        json!([
            {
                "type": "message",
                "role": "user",
                "content": [{ "type": "input_text", "text": "Read src/main.rs please" }],
            },
            {
                "type": "message",
                "role": "assistant",
                "content": [{ "type": "output_text", "text": "Let me look." }],
            },
            {
                "type": "function_call",
                "call_id": "call_0",
                "name": "read_file",
                "arguments": "{\"path\":\"src/lib.rs\"}",
            },
            { "type": "function_call_output", "call_id": "call_0", "output": "pub fn lib() {}" },
        ]),
        "reasoning is not sent back"
    );
}
