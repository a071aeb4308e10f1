//! Cost of building one request from a long history (the work added to every model request).
//!
//! Run with `cargo bench -p hone-context --bench build`.
//!
//! The history has 200 turns of 10 messages (2,000 messages, about 1.2 MB of text): a
//! request, four rounds of one `read_file` call with a 1–2 KB result, and an answer.
//!
//! - `build_2000_*_cached`: a request in a running session, message counts cached (the
//!   steady state: only the new messages are tokenized), window large enough to send
//!   everything (tokens counted, nothing trimmed).
//! - `build_2000_*_trimmed`: the same in a 32k window, so most of the history is trimmed.
//! - `build_2000_o200k_cold`: the first request after a restart (every message tokenized).
//! - `rule_summary_2000`: the rule-based summary of the whole history.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use hone_context::{ContextConfig, ContextManager};
use hone_protocol::{ContentBlock, Message, Role, ToolCall, ToolResult, ToolSpec};

fn history() -> Vec<Message> {
    let mut messages = Vec::new();
    for turn in 0..200 {
        messages.push(Message::user(format!(
            "Turn {turn}: please look at module {turn} and fix the failing test in it."
        )));
        for round in 0..4 {
            let id = format!("call_{turn}_{round}");
            messages.push(Message {
                role: Role::Assistant,
                content: vec![ContentBlock::ToolCall(ToolCall {
                    id: id.clone(),
                    name: "read_file".into(),
                    arguments: format!("{{\"path\":\"src/module_{turn}/file_{round}.rs\"}}"),
                })],
            });
            let content: String = (0..30 + turn % 20)
                .map(|line| {
                    format!(
                        "{line:>4}  pub fn item_{line}(value: u32) -> u32 {{ value * {line} }}\n"
                    )
                })
                .collect();
            messages.push(Message {
                role: Role::User,
                content: vec![ContentBlock::ToolResult(ToolResult {
                    call_id: id,
                    name: "read_file".into(),
                    content,
                    is_error: false,
                    effect: Default::default(),
                })],
            });
        }
        messages.push(Message::assistant(format!(
            "Fixed module {turn}: the off-by-one in item_3 is gone and the tests pass."
        )));
    }
    messages
}

fn tools() -> Vec<ToolSpec> {
    (0..20)
        .map(|index| ToolSpec {
            name: format!("tool_{index}"),
            description: "Reads, writes or runs something in the project; see the parameters.".into(),
            parameters: serde_json::json!({"type": "object", "properties": {"path": {"type": "string", "description": "A path relative to the project root."}}, "required": ["path"]}),
        })
        .collect()
}

fn manager(model: &str, window: u32) -> ContextManager {
    let root = std::env::temp_dir();
    ContextManager::new(
        ContextConfig {
            window: Some(window),
            ..ContextConfig::default()
        },
        &root,
        model,
    )
}

const BASE: &str = "You are hone, a coding agent. Follow the rules of the project.";

fn bench(c: &mut Criterion) {
    let history = history();
    let tools = tools();
    for (name, model) in [("o200k", "gpt-4.1"), ("estimate", "qwen2.5-coder:7b")] {
        let mut warm = manager(model, 1_000_000);
        warm.replay(&history);
        warm.build(BASE, &history, &tools).unwrap();
        c.bench_function(&format!("build_2000_{name}_cached"), |b| {
            b.iter(|| warm.build(BASE, &history, &tools).unwrap());
        });
        let mut small = manager(model, 32_768);
        small.replay(&history);
        small.build(BASE, &history, &tools).unwrap();
        c.bench_function(&format!("build_2000_{name}_trimmed"), |b| {
            b.iter(|| small.build(BASE, &history, &tools).unwrap());
        });
    }
    c.bench_function("build_2000_o200k_cold", |b| {
        b.iter_batched(
            || {
                let mut fresh = manager("gpt-4.1", 1_000_000);
                fresh.replay(&history);
                fresh
            },
            |mut fresh| fresh.build(BASE, &history, &tools).unwrap(),
            BatchSize::LargeInput,
        );
    });
    let summarising = manager("gpt-4.1", 1_000_000);
    c.bench_function("rule_summary_2000", |b| {
        b.iter(|| summarising.rule_summary(&history, history.len()));
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
