//! Streaming benchmarks: decoder throughput on long replies and per-request overhead.
//!
//! Run with `cargo bench -p hone-providers --bench streaming`.
#![allow(missing_docs, clippy::unwrap_used)]

use std::time::Duration;

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures::StreamExt;
use hone_config::{ApiKey, ProviderConfig, WireApi, preset};
use hone_protocol::{ChatRequest, StreamEvent};
use hone_testkit::{MockServer, Reply};
use tokio_util::sync::CancellationToken;

/// A long answer: about 40,000 text pieces (160 KB of text) and a large tool call.
fn long_reply() -> Reply {
    let paragraph =
        "The quick brown fox jumps over the lazy dog; fn main() { println!(\"hi\"); }\n";
    let arguments = serde_json::json!({ "path": "src/lib.rs", "content": paragraph.repeat(200) });
    Reply::new()
        .text(&paragraph.repeat(2_000))
        .tool_call("write_file", arguments)
        .text_pieces(4)
        .argument_fragments(2_000)
        .usage(1_000, 40_000)
}

/// The body cut into 1 KiB network chunks.
fn network_chunks(body: &Bytes) -> Vec<Result<Bytes, std::io::Error>> {
    body.chunks(1024)
        .map(|chunk| Ok(Bytes::copy_from_slice(chunk)))
        .collect()
}

fn decode_throughput(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let reply = long_reply();
    let mut group = c.benchmark_group("decode_long_reply");
    for (name, api, body) in [
        (
            "openai_chat",
            WireApi::OpenAiChat,
            reply.openai_chat().body(),
        ),
        (
            "openai_responses",
            WireApi::OpenAiResponses,
            reply.openai_responses().body(),
        ),
        ("anthropic", WireApi::Anthropic, reply.anthropic().body()),
        ("gemini", WireApi::Gemini, reply.gemini().body()),
        ("ollama", WireApi::Ollama, reply.ollama().body()),
    ] {
        group.throughput(Throughput::Bytes(body.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                let chunks = network_chunks(&body);
                let events =
                    runtime.block_on(hone_providers::replay(api, futures::stream::iter(chunks)));
                assert!(matches!(events.last(), Some(StreamEvent::Completed { .. })));
                events.len()
            });
        });
    }
    group.finish();
}

fn request_overhead(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (server, provider) = runtime.block_on(async {
        let server = MockServer::start().await;
        server.route(
            "/chat/completions",
            Reply::new().text("ok").usage(5, 1).openai_chat(),
        );
        let mut config = ProviderConfig::from_preset(preset("openai").unwrap());
        config.base_url = server.url();
        config.api_key = Some(ApiKey::new("bench-key-0000"));
        (server, hone_providers::build_provider(config).unwrap())
    });
    let mut group = c.benchmark_group("request_overhead");
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("openai_chat_short_reply_local_mock", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let events: Vec<_> = provider
                    .stream(ChatRequest::new("", "hi"), CancellationToken::new())
                    .collect()
                    .await;
                assert!(matches!(events.last(), Some(StreamEvent::Completed { .. })));
            });
        });
    });
    group.finish();
    drop(server);
}

criterion_group!(benches, decode_throughput, request_overhead);
criterion_main!(benches);
