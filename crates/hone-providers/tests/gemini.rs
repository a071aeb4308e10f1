//! Gemini adapter: what hone sends and how the stream is read.
#![allow(missing_docs)]

mod common;

use common::*;
use hone_protocol::{
    ChatRequest, ContentBlock, ErrorCategory, ImageRef, Message, ResponseCollector, Role,
    StopReason, StreamEvent, Thinking, ToolResult, ToolSpec, Usage,
};
use hone_testkit::{MockResponse, MockServer, Reply, ReplyUsage};
use serde_json::{Value, json};

fn gemini_sse(chunks: &[Value]) -> MockResponse {
    MockResponse::sse(chunks.iter().map(|chunk| format!("data: {chunk}\r\n\r\n")))
}

#[tokio::test]
async fn request_goes_to_stream_generate_content_with_the_key_header() {
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("ok").gemini());
    let mut request = request();
    request.temperature = Some(0.5);
    collect(provider_for("gemini", &server).as_ref(), request).await;

    let sent = server.last_request();
    assert_eq!(sent.method, "POST");
    assert_eq!(sent.path, "/models/mock-model:streamGenerateContent");
    assert_eq!(sent.query.as_deref(), Some("alt=sse"));
    assert_eq!(sent.header("x-goog-api-key"), Some("test-key-123456"));
    assert_eq!(sent.header("authorization"), None);
    let body = sent.json();
    assert_eq!(
        body["systemInstruction"],
        json!({ "parts": [{ "text": "You are hone." }] })
    );
    assert_eq!(
        body["contents"],
        json!([{ "role": "user", "parts": [{ "text": "Read src/main.rs please" }] }])
    );
    assert_eq!(
        body["tools"],
        json!([{ "functionDeclarations": [{
            "name": "read_file",
            "description": "Read a file",
            "parameters": read_file_tool().parameters,
        }] }])
    );
    assert_eq!(
        body["generationConfig"],
        json!({ "maxOutputTokens": 1024, "temperature": 0.5 })
    );
    assert!(body.get("model").is_none(), "the model is in the path");
}

#[tokio::test]
async fn a_model_named_with_its_prefix_is_not_prefixed_twice() {
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("ok").gemini());
    let request = ChatRequest::new("models/gemini-2.5-pro", "hi");
    collect(provider_for("gemini", &server).as_ref(), request).await;
    let sent = server.last_request();
    assert_eq!(sent.path, "/models/gemini-2.5-pro:streamGenerateContent");
    assert!(sent.json().get("generationConfig").is_none());
}

#[tokio::test]
async fn tool_schemas_are_cut_down_to_what_gemini_accepts() {
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("ok").gemini());
    let mut request = ChatRequest::new("mock-model", "edit");
    request.tools = vec![
        ToolSpec {
            name: "edit".into(),
            description: "Edit a file".into(),
            parameters: json!({
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "additionalProperties": false,
                "$defs": { "Range": { "type": "object", "properties": {
                    "start": { "type": "integer", "minimum": 1, "default": 1 },
                } } },
                "properties": {
                    "path": { "type": "string", "format": "uri-reference", "examples": ["a.rs"] },
                    "range": { "$ref": "#/$defs/Range" },
                    "mode": { "type": "string", "enum": ["replace", "insert"], "default": "replace" },
                },
                "required": ["path"],
            }),
        },
        ToolSpec {
            name: "list_dir".into(),
            description: "List the working directory".into(),
            parameters: json!({ "type": "object", "properties": {} }),
        },
    ];
    collect(provider_for("gemini", &server).as_ref(), request).await;

    let declarations = server.last_request().json()["tools"][0]["functionDeclarations"].clone();
    assert_eq!(
        declarations[0]["parameters"],
        json!({
            "type": "object",
            "properties": {
                "path": { "type": "string" },
                "range": { "type": "object", "properties": {
                    "start": { "type": "integer", "minimum": 1 },
                } },
                "mode": { "type": "string", "enum": ["replace", "insert"] },
            },
            "required": ["path"],
        })
    );
    assert!(
        declarations[1].get("parameters").is_none(),
        "an object schema without properties is left out: {declarations}"
    );
}

#[tokio::test]
async fn thought_parts_stream_as_thinking_and_thoughts_are_requested() {
    let server = MockServer::start().await;
    let usage = ReplyUsage {
        input: 300,
        output: 90,
        cached: 200,
        reasoning: 60,
    };
    server.enqueue(
        Reply::new()
            .thinking("Consider the file.")
            .text("Here it is.")
            .full_usage(usage)
            .gemini(),
    );
    let mut request = request();
    request.thinking = Some(Thinking::Budget(4096));
    let events = collect(provider_for("gemini", &server).as_ref(), request).await;

    assert_eq!(thinking_of(&events), "Consider the file.");
    assert_eq!(text_of(&events), "Here it is.");
    let (stop, usage) = completed(&events);
    assert_eq!(stop, StopReason::EndTurn);
    assert_eq!(
        usage,
        Some(Usage {
            input_tokens: 300,
            output_tokens: 90,
            cached_input_tokens: 200,
            reasoning_tokens: 60,
            ..Usage::default()
        })
    );
    let config = server.last_request().json()["generationConfig"].clone();
    assert_eq!(
        config["thinkingConfig"],
        json!({ "thinkingBudget": 4096, "includeThoughts": true })
    );
    assert_eq!(
        config["maxOutputTokens"],
        4096 + 1024,
        "thoughts count against the output limit"
    );
}

#[tokio::test]
async fn safety_finish_reason_completes_as_content_filter() {
    let server = MockServer::start().await;
    server.enqueue(gemini_sse(&[
        json!({ "candidates": [{ "content": { "parts": [{ "text": "Sure, here" }], "role": "model" },
                                 "index": 0 }] }),
        json!({ "candidates": [{ "content": { "parts": [], "role": "model" }, "index": 0,
                                 "finishReason": "SAFETY",
                                 "safetyRatings": [{ "category": "HARM_CATEGORY_DANGEROUS_CONTENT",
                                                     "probability": "HIGH", "blocked": true }] }],
                "usageMetadata": { "promptTokenCount": 8, "candidatesTokenCount": 2,
                                   "totalTokenCount": 10 } }),
    ]));
    let events = collect(provider_for("gemini", &server).as_ref(), request()).await;
    assert_eq!(text_of(&events), "Sure, here");
    assert_eq!(completed(&events).0, StopReason::ContentFilter);
}

#[tokio::test]
async fn a_blocked_prompt_completes_as_content_filter() {
    let server = MockServer::start().await;
    server.enqueue(gemini_sse(&[json!({
        "promptFeedback": { "blockReason": "SAFETY" },
        "usageMetadata": { "promptTokenCount": 8, "totalTokenCount": 8 },
    })]));
    let events = collect(provider_for("gemini", &server).as_ref(), request()).await;
    assert_eq!(completed(&events).0, StopReason::ContentFilter);
}

#[tokio::test]
async fn in_band_errors_fail_the_stream_with_their_category() {
    for (status, code, category) in [
        ("RESOURCE_EXHAUSTED", 429, ErrorCategory::RateLimit),
        ("INTERNAL", 500, ErrorCategory::Provider),
        ("INVALID_ARGUMENT", 400, ErrorCategory::Validation),
    ] {
        let server = MockServer::start().await;
        server.enqueue(gemini_sse(&[
            json!({ "candidates": [{ "content": { "parts": [{ "text": "Hi" }], "role": "model" } }] }),
            json!({ "error": { "code": code, "message": "something broke", "status": status } }),
        ]));
        let events = collect(provider_for("gemini", &server).as_ref(), request()).await;
        assert_eq!(failure_category(&events), category, "{status}");
        let StreamEvent::Failed { error } = terminal(&events) else {
            unreachable!()
        };
        assert!(error.message.contains("something broke"), "{error:?}");
    }
}

#[tokio::test]
async fn a_stream_closed_without_finish_reason_ended_early() {
    let server = MockServer::start().await;
    server.enqueue(gemini_sse(&[json!({
        "candidates": [{ "content": { "parts": [{ "text": "Hal" }], "role": "model" } }],
    })]));
    let events = collect(provider_for("gemini", &server).as_ref(), request()).await;
    assert_eq!(failure_category(&events), ErrorCategory::Network);
}

#[tokio::test]
async fn history_round_trip_sends_calls_signatures_and_responses_by_name() {
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .thinking("Look at both.")
            .tool_call("read_file", json!({"path": "a.rs"}))
            .tool_call("read_file", json!({"path": "b.rs"}))
            .gemini(),
    );
    server.enqueue(Reply::new().text("Both fine.").gemini());
    let provider = provider_for("gemini", &server);
    let mut request = request();
    let events = collect(provider.as_ref(), request.clone()).await;
    let mut collector = ResponseCollector::new();
    events.iter().for_each(|event| collector.push(event));
    assert_eq!(completed(&events).0, StopReason::ToolUse);

    let assistant = collector.message();
    let calls: Vec<_> = assistant.tool_calls().cloned().collect();
    assert_eq!(
        calls
            .iter()
            .map(|call| call.id.as_str())
            .collect::<Vec<_>>(),
        ["call_0", "call_1"]
    );
    request.messages.push(assistant);
    request.messages.push(Message {
        role: Role::User,
        content: vec![ContentBlock::ToolResult(ToolResult {
            call_id: calls[0].id.clone(),
            name: calls[0].name.clone(),
            content: "fn a() {}".into(),
            is_error: false,
            effect: Default::default(),
        })],
    });
    // A second user message right after is merged into the same content.
    request.messages.push(Message {
        role: Role::User,
        content: vec![ContentBlock::ToolResult(ToolResult {
            call_id: calls[1].id.clone(),
            name: String::new(),
            content: "permission denied".into(),
            is_error: true,
            effect: Default::default(),
        })],
    });
    collect(provider.as_ref(), request).await;

    let contents = server.last_request().json()["contents"].clone();
    assert_eq!(contents.as_array().map(Vec::len), Some(3), "{contents}");
    assert_eq!(
        contents[1],
        json!({ "role": "model", "parts": [
            { "functionCall": { "name": "read_file", "args": { "path": "a.rs" } },
              "thoughtSignature": "mock-thought-signature" },
            { "functionCall": { "name": "read_file", "args": { "path": "b.rs" } } },
        ] }),
        "thought text is not sent back, its signature is"
    );
    assert_eq!(
        contents[2],
        json!({ "role": "user", "parts": [
            { "functionResponse": { "name": "read_file", "response": { "content": "fn a() {}" } } },
            { "functionResponse": { "name": "read_file",
                                    "response": { "error": "permission denied" } } },
        ] })
    );
}

#[tokio::test]
async fn images_are_sent_inline_or_by_uri() {
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("a cat").gemini());
    let request = ChatRequest {
        model: "mock-model".into(),
        messages: vec![Message {
            role: Role::User,
            content: vec![
                ContentBlock::Image(ImageRef::Base64 {
                    media_type: "image/png".into(),
                    data: "iVBORw0KGgo=".into(),
                }),
                ContentBlock::Image(ImageRef::Url {
                    url: "gs://bucket/cat.webp".into(),
                }),
                ContentBlock::Text {
                    text: "What is this?".into(),
                },
            ],
        }],
        ..ChatRequest::default()
    };
    collect(provider_for("gemini", &server).as_ref(), request).await;
    let parts = server.last_request().json()["contents"][0]["parts"].clone();
    assert_eq!(
        parts,
        json!([
            { "inlineData": { "mimeType": "image/png", "data": "iVBORw0KGgo=" } },
            { "fileData": { "fileUri": "gs://bucket/cat.webp", "mimeType": "image/webp" } },
            { "text": "What is this?" },
        ])
    );
}

#[tokio::test]
async fn listing_models_keeps_chat_models_with_their_context_windows() {
    let server = MockServer::start().await;
    server.route(
        "/models",
        MockResponse::json(
            200,
            &json!({ "models": [
                { "name": "models/gemini-2.5-flash", "version": "001",
                  "displayName": "Gemini 2.5 Flash", "inputTokenLimit": 1_048_576,
                  "outputTokenLimit": 65_536,
                  "supportedGenerationMethods": ["generateContent", "countTokens"] },
                { "name": "models/text-embedding-004", "displayName": "Text Embedding 004",
                  "inputTokenLimit": 2048, "supportedGenerationMethods": ["embedContent"] },
            ] }),
        ),
    );
    let models = provider_for("gemini", &server)
        .list_models()
        .await
        .expect("models");
    assert_eq!(models.len(), 1);
    assert_eq!(models[0].id, "gemini-2.5-flash");
    assert_eq!(models[0].display_name.as_deref(), Some("Gemini 2.5 Flash"));
    assert_eq!(models[0].context_window, Some(1_048_576));
    let sent = server.last_request();
    assert_eq!(
        (sent.method.as_str(), sent.path.as_str()),
        ("GET", "/models")
    );
    assert_eq!(sent.header("x-goog-api-key"), Some("test-key-123456"));
}

#[tokio::test]
async fn error_bodies_wrapped_in_an_array_keep_what_gemini_said() {
    let server = MockServer::start().await;
    server.enqueue(MockResponse::json(
        400,
        &json!([{ "error": { "code": 400, "message": "API key not valid. Please pass a valid API key.",
                             "status": "INVALID_ARGUMENT" } }]),
    ));
    let events = collect(provider_for("gemini", &server).as_ref(), request()).await;
    assert_eq!(failure_category(&events), ErrorCategory::Validation);
    let StreamEvent::Failed { error } = terminal(&events) else {
        unreachable!()
    };
    assert!(error.message.contains("API key not valid"), "{error:?}");
}

/// A request asking for a five-minute cache, with a system prompt long enough to cache.
fn cached_request(system: &str) -> ChatRequest {
    let mut request = request();
    request.system = Some(system.repeat(3_000));
    request.cache = Some(hone_protocol::PromptCache::FiveMinutes);
    request
}

#[tokio::test]
async fn a_long_stable_start_is_cached_once_and_named_by_later_requests() {
    let server = MockServer::start().await;
    server.route(
        "/cachedContents",
        MockResponse::json(200, &json!({ "name": "cachedContents/abc123" })),
    );
    server.enqueue(Reply::new().text("one").gemini());
    server.enqueue(Reply::new().text("two").gemini());
    server.enqueue(Reply::new().text("three").gemini());
    let provider = provider_for("gemini", &server);
    collect(provider.as_ref(), cached_request("Rules. ")).await;
    collect(provider.as_ref(), cached_request("Rules. ")).await;
    let requests = server.requests();
    let created: Vec<_> = requests
        .iter()
        .filter(|sent| sent.path == "/cachedContents")
        .collect();
    assert_eq!(created.len(), 1, "the cache is made once");
    let cache = created[0].json();
    assert_eq!(cache["model"], "models/mock-model");
    assert_eq!(cache["ttl"], "300s");
    assert!(
        cache["systemInstruction"]["parts"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Rules. Rules.")
    );
    assert_eq!(
        cache["tools"][0]["functionDeclarations"][0]["name"],
        "read_file"
    );
    let generated: Vec<Value> = requests
        .iter()
        .filter(|sent| sent.path.ends_with(":streamGenerateContent"))
        .map(|sent| sent.json())
        .collect();
    assert_eq!(generated.len(), 2);
    for body in &generated {
        assert_eq!(body["cachedContent"], "cachedContents/abc123");
        assert!(body.get("systemInstruction").is_none(), "{body}");
        assert!(body.get("tools").is_none(), "{body}");
        assert!(body["contents"].is_array());
    }
    // Another system prompt is another start: a new cache, the old one deleted.
    collect(provider.as_ref(), cached_request("Other rules. ")).await;
    let made = server
        .requests()
        .iter()
        .filter(|sent| sent.path == "/cachedContents" && sent.method == "POST")
        .count();
    assert_eq!(made, 2);
}

#[tokio::test]
async fn a_start_the_api_will_not_cache_goes_inline_and_is_not_offered_again() {
    let server = MockServer::start().await;
    server.route(
        "/cachedContents",
        MockResponse::json(
            400,
            &json!({ "error": { "code": 400, "message": "Cached content is too small." } }),
        ),
    );
    server.enqueue(Reply::new().text("one").gemini());
    server.enqueue(Reply::new().text("two").gemini());
    let provider = provider_for("gemini", &server);
    for _ in 0..2 {
        let events = collect(provider.as_ref(), cached_request("Rules. ")).await;
        assert!(
            matches!(events.last(), Some(StreamEvent::Completed { .. })),
            "{events:?}"
        );
    }
    let requests = server.requests();
    assert_eq!(
        requests
            .iter()
            .filter(|sent| sent.path == "/cachedContents")
            .count(),
        1
    );
    let last = server.last_request().json();
    assert!(last.get("cachedContent").is_none());
    assert!(last["systemInstruction"]["parts"][0]["text"].is_string());
}

#[tokio::test]
async fn short_starts_and_requests_without_caching_never_make_a_cache() {
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("one").gemini());
    server.enqueue(Reply::new().text("two").gemini());
    let provider = provider_for("gemini", &server);
    let mut short = request();
    short.cache = Some(hone_protocol::PromptCache::OneHour);
    collect(provider.as_ref(), short).await;
    let mut uncached = cached_request("Rules. ");
    uncached.cache = None;
    collect(provider.as_ref(), uncached).await;
    assert!(
        server
            .requests()
            .iter()
            .all(|sent| sent.path != "/cachedContents")
    );
}
