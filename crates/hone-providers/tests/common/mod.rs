//! Shared helpers for provider integration tests.
#![allow(dead_code, missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use hone_config::{ApiKey, NetworkConfig, ProviderConfig, WireApi, preset};
use hone_protocol::{
    ChatRequest, ContentBlock, ImageRef, Message, Role, StopReason, StreamEvent, ToolCall,
    ToolResult, ToolSpec, Usage,
};
use hone_providers::{Provider, build_provider};
use hone_testkit::{MockResponse, MockServer, Reply};
use tokio_util::sync::CancellationToken;

/// Every wire API, with the preset used to test it.
pub const ALL_WIRES: [(WireApi, &str); 5] = [
    (WireApi::OpenAiChat, "openai"),
    (WireApi::OpenAiResponses, "openai-responses"),
    (WireApi::Anthropic, "anthropic"),
    (WireApi::Gemini, "gemini"),
    (WireApi::Ollama, "ollama"),
];

/// Fast retries and a short idle timeout so fault tests finish quickly.
pub fn fast_network() -> NetworkConfig {
    NetworkConfig {
        max_retries: 2,
        retry_base_delay: Duration::from_millis(10),
        retry_max_delay: Duration::from_secs(2),
        idle_timeout: Duration::from_millis(400),
        connect_timeout: Duration::from_secs(2),
        header_timeout: Duration::from_secs(2),
    }
}

/// Settings for `preset_name` pointed at the mock server, with a test key.
pub fn config_for(preset_name: &str, server: &MockServer) -> ProviderConfig {
    let mut config = ProviderConfig::from_preset(preset(preset_name).expect("known preset"));
    config.base_url = server.url();
    config.api_key = Some(ApiKey::new("test-key-123456"));
    config.model = "mock-model".into();
    config.network = fast_network();
    config
}

pub fn provider_for(preset_name: &str, server: &MockServer) -> Arc<dyn Provider> {
    build_provider(config_for(preset_name, server)).expect("provider builds")
}

/// Renders `reply` in the format `wire` speaks.
pub fn render(wire: WireApi, reply: &Reply) -> MockResponse {
    match wire {
        WireApi::OpenAiChat => reply.openai_chat(),
        WireApi::OpenAiResponses => reply.openai_responses(),
        WireApi::Anthropic => reply.anthropic(),
        WireApi::Gemini => reply.gemini(),
        WireApi::Ollama => reply.ollama(),
        WireApi::Local => unreachable!("the embedded model has no wire format"),
    }
}

pub fn read_file_tool() -> ToolSpec {
    ToolSpec {
        name: "read_file".into(),
        description: "Read a file".into(),
        parameters: serde_json::json!({
            "type": "object",
            "properties": { "path": { "type": "string" } },
            "required": ["path"],
        }),
    }
}

pub fn request() -> ChatRequest {
    let mut request = ChatRequest::new("mock-model", "Read src/main.rs please");
    request.system = Some("You are hone.".into());
    request.tools = vec![read_file_tool()];
    request.max_tokens = Some(1024);
    request
}

pub async fn collect(provider: &dyn Provider, request: ChatRequest) -> Vec<StreamEvent> {
    provider
        .stream(request, CancellationToken::new())
        .collect()
        .await
}

pub fn text_of(events: &[StreamEvent]) -> String {
    events
        .iter()
        .filter_map(|event| match event {
            StreamEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

pub fn thinking_of(events: &[StreamEvent]) -> String {
    events
        .iter()
        .filter_map(|event| match event {
            StreamEvent::ThinkingDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

pub fn text_delta_count(events: &[StreamEvent]) -> usize {
    events
        .iter()
        .filter(|event| matches!(event, StreamEvent::TextDelta { .. }))
        .count()
}

/// `(index, name, arguments)` of every completed tool call.
pub fn ended_calls(events: &[StreamEvent]) -> Vec<(usize, String, String)> {
    events
        .iter()
        .filter_map(|event| match event {
            StreamEvent::ToolCallEnd {
                index,
                name,
                arguments,
                ..
            } => Some((*index, name.clone(), arguments.clone())),
            _ => None,
        })
        .collect()
}

pub fn argument_deltas(events: &[StreamEvent], call: usize) -> usize {
    events
        .iter()
        .filter(|event| matches!(event, StreamEvent::ToolCallDelta { index, .. } if *index == call))
        .count()
}

/// Asserts the stream ended with exactly one terminal event, last, and returns it.
pub fn terminal(events: &[StreamEvent]) -> &StreamEvent {
    let terminals = events.iter().filter(|event| event.is_terminal()).count();
    assert_eq!(
        terminals, 1,
        "exactly one terminal event expected: {events:#?}"
    );
    let last = events.last().expect("events");
    assert!(
        last.is_terminal(),
        "terminal event must be last: {events:#?}"
    );
    last
}

pub fn completed(events: &[StreamEvent]) -> (StopReason, Option<Usage>) {
    match terminal(events) {
        StreamEvent::Completed { stop_reason, usage } => (stop_reason.clone(), *usage),
        other => panic!("expected completion, got {other:#?}"),
    }
}

pub fn failure_category(events: &[StreamEvent]) -> hone_protocol::ErrorCategory {
    match terminal(events) {
        StreamEvent::Failed { error } => error.category,
        other => panic!("expected failure, got {other:#?}"),
    }
}

/// A conversation with an image, reasoning, a tool call (`call_7`), its result and a follow-up.
pub fn history_request() -> ChatRequest {
    let mut request = request();
    request.messages = vec![
        Message {
            role: Role::User,
            content: vec![
                ContentBlock::Text {
                    text: "What is in this screenshot?".into(),
                },
                ContentBlock::Image(ImageRef::Base64 {
                    media_type: "image/png".into(),
                    data: "iVBORw0KGgo".into(),
                }),
            ],
        },
        Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::Thinking {
                    text: "the user wants the file".into(),
                    signature: None,
                },
                ContentBlock::Text {
                    text: "Let me read it.".into(),
                },
                ContentBlock::ToolCall(ToolCall {
                    id: "call_7".into(),
                    name: "read_file".into(),
                    arguments: r#"{"path":"src/main.rs"}"#.into(),
                }),
            ],
        },
        Message {
            role: Role::User,
            content: vec![
                ContentBlock::ToolResult(ToolResult {
                    call_id: "call_7".into(),
                    name: "read_file".into(),
                    content: "fn main() {}".into(),
                    is_error: false,
                    effect: Default::default(),
                }),
                ContentBlock::Text {
                    text: "Now explain it.".into(),
                },
            ],
        },
    ];
    request
}
