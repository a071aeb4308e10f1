//! OpenAI Chat Completions specifics: the request hone sends and wire details.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use hone_config::{ApiKey, preset};
use hone_protocol::{ContentBlock, ImageRef, Message, Role, ToolCall, ToolResult, Usage};
use hone_providers::build_provider;
use hone_testkit::{MockResponse, MockServer, Reply, ReplyUsage};
use serde_json::json;

#[tokio::test]
async fn sends_model_messages_tools_and_bearer_auth() {
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("ok").openai_chat());
    let mut config = config_for("openai", &server);
    config
        .headers
        .insert("OpenAI-Organization".into(), "org-7".into());
    let provider = build_provider(config).unwrap();
    completed(&collect(provider.as_ref(), request()).await);

    let sent = server.last_request();
    assert_eq!(sent.method, "POST");
    assert_eq!(sent.path, "/chat/completions");
    assert_eq!(sent.header("authorization"), Some("Bearer test-key-123456"));
    assert_eq!(sent.header("openai-organization"), Some("org-7"));
    let body = sent.json();
    assert_eq!(body["model"], "mock-model");
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"]["include_usage"], true);
    assert_eq!(
        body["max_completion_tokens"], 1024,
        "OpenAI wants max_completion_tokens"
    );
    assert_eq!(
        body["messages"][0],
        json!({"role": "system", "content": "You are hone."})
    );
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": "Read src/main.rs please"})
    );
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(body["tools"][0]["function"]["name"], "read_file");
    assert_eq!(
        body["tools"][0]["function"]["parameters"]["required"][0],
        "path"
    );
}

#[tokio::test]
async fn compatible_servers_get_max_tokens_and_mistral_gets_no_stream_options() {
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("ok").openai_chat());
    server.enqueue(Reply::new().text("ok").openai_chat());
    let local = build_provider(config_for("lmstudio", &server)).unwrap();
    completed(&collect(local.as_ref(), request()).await);
    let body = server.last_request().json();
    assert_eq!(body["max_tokens"], 1024);
    assert!(body.get("max_completion_tokens").is_none());

    let mistral = build_provider(config_for("mistral", &server)).unwrap();
    completed(&collect(mistral.as_ref(), request()).await);
    assert!(server.last_request().json().get("stream_options").is_none());
}

#[tokio::test]
async fn local_servers_need_no_key() {
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("ok").openai_chat());
    let mut config = config_for("llamacpp", &server);
    config.api_key = None;
    let provider = build_provider(config).unwrap();
    completed(&collect(provider.as_ref(), request()).await);
    assert_eq!(server.last_request().header("authorization"), None);
}

#[tokio::test]
async fn azure_uses_the_api_key_header_and_api_version() {
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("ok").openai_chat());
    let mut config = hone_config::ProviderConfig::from_preset(preset("azure").unwrap());
    config.base_url = format!("{}/openai/deployments/gpt4", server.url());
    config.api_key = Some(ApiKey::new("azure-key-0000"));
    config.api_version = Some("2024-10-21".into());
    config.network = fast_network();
    let provider = build_provider(config).unwrap();
    completed(&collect(provider.as_ref(), request()).await);
    let sent = server.last_request();
    assert_eq!(sent.path, "/openai/deployments/gpt4/chat/completions");
    assert_eq!(sent.query.as_deref(), Some("api-version=2024-10-21"));
    assert_eq!(sent.header("api-key"), Some("azure-key-0000"));
    assert_eq!(sent.header("authorization"), None);
}

#[tokio::test]
async fn history_maps_tool_calls_results_and_images() {
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("ok").openai_chat());
    let mut chat = request();
    chat.messages.push(Message {
        role: Role::Assistant,
        content: vec![
            ContentBlock::Thinking {
                text: "plan".into(),
                signature: None,
            },
            ContentBlock::Text {
                text: "Reading.".into(),
            },
            ContentBlock::ToolCall(ToolCall {
                id: "call_9".into(),
                name: "read_file".into(),
                arguments: "{\"path\":\"a.rs\"}".into(),
            }),
        ],
    });
    chat.messages.push(Message {
        role: Role::User,
        content: vec![
            ContentBlock::ToolResult(ToolResult {
                call_id: "call_9".into(),
                name: "read_file".into(),
                content: "fn a() {}".into(),
                is_error: false,
                effect: Default::default(),
            }),
            ContentBlock::Text {
                text: "And this screenshot:".into(),
            },
            ContentBlock::Image(ImageRef::Base64 {
                media_type: "image/png".into(),
                data: "iVBOR".into(),
            }),
        ],
    });
    completed(&collect(provider_for("openai", &server).as_ref(), chat).await);
    let body = server.last_request().json();
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages[2]["role"], "assistant");
    assert_eq!(messages[2]["content"], "Reading.");
    assert_eq!(messages[2]["tool_calls"][0]["id"], "call_9");
    assert_eq!(
        messages[2]["tool_calls"][0]["function"]["arguments"],
        "{\"path\":\"a.rs\"}"
    );
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "call_9", "content": "fn a() {}"})
    );
    assert_eq!(
        messages[4]["content"][1]["image_url"]["url"],
        "data:image/png;base64,iVBOR"
    );
}

#[tokio::test]
async fn reports_cached_and_reasoning_tokens() {
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .thinking("Let me think about this")
            .text("Answer")
            .full_usage(ReplyUsage {
                input: 100,
                output: 40,
                cached: 64,
                reasoning: 25,
            })
            .openai_chat(),
    );
    let events = collect(provider_for("deepseek", &server).as_ref(), request()).await;
    assert_eq!(thinking_of(&events), "Let me think about this");
    let usage = completed(&events).1.unwrap();
    assert_eq!(
        usage,
        Usage {
            input_tokens: 100,
            output_tokens: 40,
            cached_input_tokens: 64,
            reasoning_tokens: 25,
            ..Usage::default()
        }
    );
}

#[tokio::test]
async fn an_in_band_error_chunk_fails_the_request() {
    let server = MockServer::start().await;
    server.enqueue(MockResponse::sse([
        "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n",
        "data: {\"error\":{\"message\":\"upstream model crashed\"}}\n\n",
    ]));
    let events = collect(provider_for("openrouter", &server).as_ref(), request()).await;
    assert_eq!(
        failure_category(&events),
        hone_protocol::ErrorCategory::Provider
    );
    assert_eq!(text_of(&events), "Hel");
}

#[tokio::test]
async fn lists_models_with_context_lengths_when_given() {
    let server = MockServer::start().await;
    server.route(
        "/models",
        MockResponse::json(200, &json!({"data": [
            {"id": "qwen/qwen-2.5-coder-32b-instruct", "name": "Qwen2.5 Coder 32B", "context_length": 32768},
            {"id": "plain-model"},
        ]})),
    );
    let models = provider_for("openrouter", &server)
        .list_models()
        .await
        .unwrap();
    assert_eq!(models.len(), 2);
    assert_eq!(models[0].context_window, Some(32768));
    assert_eq!(models[0].display_name.as_deref(), Some("Qwen2.5 Coder 32B"));
    assert_eq!(models[1].context_window, None);
    assert_eq!(server.last_request().method, "GET");
}

#[tokio::test]
async fn missing_key_is_a_config_error_naming_the_variable() {
    let server = MockServer::start().await;
    let mut config = config_for("groq", &server);
    config.api_key = None;
    let error = build_provider(config).err().expect("must fail");
    assert_eq!(error.category, hone_protocol::ErrorCategory::Config);
    assert!(error.message.contains("GROQ_API_KEY"), "{error}");
}
