//! Behaviour every adapter must share, run against each wire format's mock stream.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::*;
use futures::StreamExt;
use hone_config::WireApi;
use hone_protocol::{ErrorCategory, StopReason, StreamEvent};
use hone_providers::build_provider;
use hone_testkit::{MockResponse, MockServer, Reply};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// Whether the wire streams tool-call arguments in fragments (Gemini and Ollama send whole calls).
fn fragments_arguments(wire: WireApi) -> bool {
    matches!(
        wire,
        WireApi::OpenAiChat | WireApi::OpenAiResponses | WireApi::Anthropic
    )
}

fn malformed_chunk(wire: WireApi) -> MockResponse {
    match wire {
        WireApi::Ollama => MockResponse::status(200)
            .header("content-type", "application/x-ndjson")
            .chunks([
                "{\"message\":{\"content\":\"hi\"},\"done\":false}\n",
                "{\"message\": {oops\n",
            ]),
        _ => MockResponse::sse(["data: {\"oops\": [1, 2\n\n"]),
    }
}

async fn streams_text_split_mid_word(wire: WireApi, preset: &str) {
    let server = MockServer::start().await;
    let reply = Reply::new()
        .text("Hello, wonderful world of streaming")
        .usage(21, 9);
    server.enqueue(render(wire, &reply));
    let events = collect(provider_for(preset, &server).as_ref(), request()).await;
    assert_eq!(text_of(&events), "Hello, wonderful world of streaming");
    assert!(
        text_delta_count(&events) >= 5,
        "text should arrive in pieces: {events:#?}"
    );
    let (stop, usage) = completed(&events);
    assert_eq!(stop, StopReason::EndTurn);
    let usage = usage.expect("usage reported");
    assert_eq!((usage.input_tokens, usage.output_tokens), (21, 9));
}

async fn reassembles_fragmented_and_parallel_tool_calls(wire: WireApi, preset: &str) {
    let server = MockServer::start().await;
    let first = json!({"path": "src/main.rs", "start_line": 10, "end_line": 42});
    let second = json!({"path": "docs/guide.md", "note": "ünïcode ✓ \"quoted\""});
    let reply = Reply::new()
        .text("Let me look.")
        .tool_call("read_file", first.clone())
        .tool_call("read_file", second.clone())
        .argument_fragments(7)
        .usage(50, 20);
    server.enqueue(render(wire, &reply));
    let events = collect(provider_for(preset, &server).as_ref(), request()).await;
    let calls = ended_calls(&events);
    assert_eq!(calls.len(), 2, "{events:#?}");
    assert_ne!(
        calls[0].0, calls[1].0,
        "parallel calls need distinct indexes"
    );
    assert_eq!(calls[0].1, "read_file");
    let parsed: Vec<serde_json::Value> = calls
        .iter()
        .map(|(_, _, arguments)| serde_json::from_str(arguments).expect("arguments are JSON"))
        .collect();
    assert_eq!(parsed, [first, second]);
    if fragments_arguments(wire) {
        assert!(argument_deltas(&events, calls[0].0) >= 5, "{events:#?}");
    }
    assert_eq!(text_of(&events), "Let me look.");
    assert_eq!(completed(&events).0, StopReason::ToolUse);
}

async fn survives_chunks_cut_mid_line_and_mid_character(wire: WireApi, preset: &str) {
    let server = MockServer::start().await;
    let text = "Grüße — ünïcode ✓ across chunk boundaries, 日本語 too";
    let reply = Reply::new()
        .text(text)
        .tool_call("read_file", json!({"path": "ä.rs"}));
    server.enqueue(render(wire, &reply).rechunk(5));
    let events = collect(provider_for(preset, &server).as_ref(), request()).await;
    assert_eq!(text_of(&events), text);
    assert_eq!(ended_calls(&events).len(), 1);
    completed(&events);
}

async fn reports_max_tokens(wire: WireApi, preset: &str) {
    let server = MockServer::start().await;
    server.enqueue(render(wire, &Reply::new().text("cut sh").max_tokens()));
    let events = collect(provider_for(preset, &server).as_ref(), request()).await;
    assert_eq!(completed(&events).0, StopReason::MaxTokens);
}

async fn retries_rate_limits_honouring_retry_after(wire: WireApi, preset: &str) {
    let server = MockServer::start().await;
    server.enqueue(
        MockResponse::json(429, &json!({"error": {"message": "slow down"}}))
            .header("retry-after", "1"),
    );
    server.enqueue(render(wire, &Reply::new().text("ok")));
    let started = Instant::now();
    let events = collect(provider_for(preset, &server).as_ref(), request()).await;
    assert_eq!(text_of(&events), "ok");
    completed(&events);
    assert_eq!(server.request_count(), 2);
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "Retry-After: 1 must be honoured"
    );
}

async fn gives_up_after_max_retries(_wire: WireApi, preset: &str) {
    let server = MockServer::start().await;
    for _ in 0..3 {
        server.enqueue(MockResponse::json(
            503,
            &json!({"error": {"message": "overloaded"}}),
        ));
    }
    let events = collect(provider_for(preset, &server).as_ref(), request()).await;
    assert_eq!(failure_category(&events), ErrorCategory::Provider);
    assert_eq!(
        server.request_count(),
        3,
        "one attempt plus max_retries = 2"
    );

    let server = MockServer::start().await;
    for _ in 0..3 {
        server.enqueue(MockResponse::status(429));
    }
    let events = collect(provider_for(preset, &server).as_ref(), request()).await;
    assert_eq!(failure_category(&events), ErrorCategory::RateLimit);
}

async fn maps_client_errors_without_retrying(wire: WireApi, preset: &str) {
    for (status, category) in [
        (401, ErrorCategory::Auth),
        (403, ErrorCategory::Auth),
        (404, ErrorCategory::Config),
        (400, ErrorCategory::Validation),
    ] {
        let server = MockServer::start().await;
        server.enqueue(MockResponse::json(
            status,
            &json!({"error": {"message": "provider says no"}}),
        ));
        server.enqueue(render(wire, &Reply::new().text("must not be reached")));
        let events = collect(provider_for(preset, &server).as_ref(), request()).await;
        assert_eq!(failure_category(&events), category, "status {status}");
        assert_eq!(
            server.request_count(),
            1,
            "status {status} must not be retried"
        );
        let StreamEvent::Failed { error } = terminal(&events) else {
            unreachable!()
        };
        assert!(
            error
                .provider_detail
                .as_deref()
                .unwrap_or("")
                .contains("provider says no"),
            "detail keeps what the provider said: {error:?}"
        );
    }
}

async fn a_key_echoed_in_an_error_body_is_redacted(_wire: WireApi, preset: &str) {
    for status in [401, 400] {
        let server = MockServer::start().await;
        server.enqueue(MockResponse::json(
            status,
            &json!({"error": {"message": "Incorrect API key provided: test-key-123456 \
                (or was it sk-proj-AbCdEfGhIjKlMnOpQrStUvWx?)"}}),
        ));
        let provider = provider_for(preset, &server);
        let events = collect(provider.as_ref(), request()).await;
        let StreamEvent::Failed { error } = terminal(&events) else {
            unreachable!()
        };
        let shown = serde_json::to_string(&error).unwrap();
        assert!(!shown.contains("test-key-123456"), "{shown}");
        assert!(!shown.contains("sk-proj-AbCd"), "{shown}");
        assert!(
            shown.contains("Incorrect API key provided: [REDACTED]"),
            "{shown}"
        );
        let server_again = MockServer::start().await;
        server_again.enqueue(MockResponse::json(
            status,
            &json!({"error": {"message": "bad key test-key-123456"}}),
        ));
        let listed = provider_for(preset, &server_again).list_models().await;
        let shown = serde_json::to_string(&listed.unwrap_err()).unwrap();
        assert!(!shown.contains("test-key-123456"), "{shown}");
    }
}

async fn stalled_stream_is_a_network_error(wire: WireApi, preset: &str) {
    let server = MockServer::start().await;
    server.enqueue(render(wire, &Reply::new().text("Hello there, general")).stall_after(3));
    let events = collect(provider_for(preset, &server).as_ref(), request()).await;
    assert_eq!(failure_category(&events), ErrorCategory::Network);
    let StreamEvent::Failed { error } = terminal(&events) else {
        unreachable!()
    };
    assert!(error.message.contains("stalled"), "{error:?}");
}

async fn dropped_stream_is_a_network_error(wire: WireApi, preset: &str) {
    let server = MockServer::start().await;
    server.enqueue(render(wire, &Reply::new().text("Hello there, general")).disconnect_after(3));
    let events = collect(provider_for(preset, &server).as_ref(), request()).await;
    assert_eq!(
        failure_category(&events),
        ErrorCategory::Network,
        "{events:#?}"
    );
    assert_eq!(
        server.request_count(),
        1,
        "a started stream is never retried"
    );
}

async fn malformed_json_is_a_provider_error(wire: WireApi, preset: &str) {
    let server = MockServer::start().await;
    server.enqueue(malformed_chunk(wire));
    let events = collect(provider_for(preset, &server).as_ref(), request()).await;
    assert_eq!(
        failure_category(&events),
        ErrorCategory::Provider,
        "{events:#?}"
    );
}

async fn unreachable_server_names_the_url(_wire: WireApi, preset: &str) {
    let server = MockServer::start().await;
    let mut config = config_for(preset, &server);
    config.base_url = "http://127.0.0.1:9".into();
    let provider = build_provider(config).expect("provider");
    let events = collect(provider.as_ref(), request()).await;
    assert_eq!(failure_category(&events), ErrorCategory::Network);
    let StreamEvent::Failed { error } = terminal(&events) else {
        unreachable!()
    };
    assert!(error.message.contains("http://127.0.0.1:9"), "{error:?}");
}

async fn cancellation_mid_stream_ends_promptly(wire: WireApi, preset: &str) {
    let server = MockServer::start().await;
    let reply = Reply::new().text("a long answer that keeps coming and coming and coming");
    server.enqueue(render(wire, &reply).chunk_delay(Duration::from_millis(60)));
    let provider = provider_for(preset, &server);
    let cancel = CancellationToken::new();
    let mut stream = provider.stream(request(), cancel.clone());
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        let is_text = matches!(event, StreamEvent::TextDelta { .. });
        events.push(event);
        if is_text {
            break;
        }
    }
    let cancelled_at = Instant::now();
    cancel.cancel();
    while let Some(event) = stream.next().await {
        events.push(event);
    }
    assert!(cancelled_at.elapsed() < Duration::from_millis(200));
    assert_eq!(terminal(&events), &StreamEvent::Cancelled);
}

async fn cancellation_during_backoff_ends_promptly(wire: WireApi, preset: &str) {
    let server = MockServer::start().await;
    server.enqueue(MockResponse::status(429).header("retry-after", "30"));
    server.enqueue(render(wire, &Reply::new().text("late")));
    let provider = provider_for(preset, &server);
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let events: Vec<_> = provider.stream(request(), cancel).collect().await;
    assert_eq!(terminal(&events), &StreamEvent::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(2));
}

macro_rules! conformance {
    ($module:ident, $wire:expr, $preset:literal) => {
        mod $module {
            use super::*;

            #[tokio::test]
            async fn streams_text_split_mid_word() {
                super::streams_text_split_mid_word($wire, $preset).await;
            }
            #[tokio::test]
            async fn reassembles_fragmented_and_parallel_tool_calls() {
                super::reassembles_fragmented_and_parallel_tool_calls($wire, $preset).await;
            }
            #[tokio::test]
            async fn survives_chunks_cut_mid_line_and_mid_character() {
                super::survives_chunks_cut_mid_line_and_mid_character($wire, $preset).await;
            }
            #[tokio::test]
            async fn reports_max_tokens() {
                super::reports_max_tokens($wire, $preset).await;
            }
            #[tokio::test]
            async fn retries_rate_limits_honouring_retry_after() {
                super::retries_rate_limits_honouring_retry_after($wire, $preset).await;
            }
            #[tokio::test]
            async fn gives_up_after_max_retries() {
                super::gives_up_after_max_retries($wire, $preset).await;
            }
            #[tokio::test]
            async fn maps_client_errors_without_retrying() {
                super::maps_client_errors_without_retrying($wire, $preset).await;
            }
            #[tokio::test]
            async fn a_key_echoed_in_an_error_body_is_redacted() {
                super::a_key_echoed_in_an_error_body_is_redacted($wire, $preset).await;
            }
            #[tokio::test]
            async fn stalled_stream_is_a_network_error() {
                super::stalled_stream_is_a_network_error($wire, $preset).await;
            }
            #[tokio::test]
            async fn dropped_stream_is_a_network_error() {
                super::dropped_stream_is_a_network_error($wire, $preset).await;
            }
            #[tokio::test]
            async fn malformed_json_is_a_provider_error() {
                super::malformed_json_is_a_provider_error($wire, $preset).await;
            }
            #[tokio::test]
            async fn unreachable_server_names_the_url() {
                super::unreachable_server_names_the_url($wire, $preset).await;
            }
            #[tokio::test]
            async fn cancellation_mid_stream_ends_promptly() {
                super::cancellation_mid_stream_ends_promptly($wire, $preset).await;
            }
            #[tokio::test]
            async fn cancellation_during_backoff_ends_promptly() {
                super::cancellation_during_backoff_ends_promptly($wire, $preset).await;
            }
        }
    };
}

conformance!(openai_chat, WireApi::OpenAiChat, "openai");
conformance!(
    openai_responses,
    WireApi::OpenAiResponses,
    "openai-responses"
);
conformance!(anthropic, WireApi::Anthropic, "anthropic");
conformance!(gemini, WireApi::Gemini, "gemini");
conformance!(ollama, WireApi::Ollama, "ollama");
