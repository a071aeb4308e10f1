#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]
//! Speculative decoding from the context with a real model (`HONE_TEST_MODEL`): the answer
//! is token for token the one plain decoding gives — greedy, sampled, and with constrained
//! tool calls — while drafts copied from the prompt are accepted.

mod common;

use std::sync::Arc;

use futures::StreamExt;
use futures::executor::block_on;
use hone_local::{GenerationStats, LocalOptions, LocalProvider, WeightLayout};
use hone_protocol::{ChatRequest, StreamEvent};
use hone_provider_api::Provider;
use tokio_util::sync::CancellationToken;

const FUNCTION: &str = "fn parse_entry(line: &str) -> Option<Entry> {
    let mut parts = line.split(',');
    let name = parts.next()?.trim().to_owned();
    let count = parts.next()?.trim().parse().ok()?;
    let price = parts.next()?.trim().parse().ok()?;
    if name.is_empty() {
        return None;
    }
    Some(Entry { name, count, price })
}
";

/// The test model, decoding plainly or speculatively; speculative drafting takes a drafted
/// row to cost nothing, so that how much is drafted does not depend on measured times.
fn provider(speculative_decoding: bool, temperature: f64) -> Option<Arc<LocalProvider>> {
    provider_with(
        speculative_decoding,
        temperature,
        WeightLayout::Compact,
        Some(0.0),
    )
}

fn provider_with(
    speculative_decoding: bool,
    temperature: f64,
    weight_layout: WeightLayout,
    draft_row_cost: Option<f64>,
) -> Option<Arc<LocalProvider>> {
    let path = common::test_model()?;
    let options = LocalOptions {
        temperature,
        context_size: 4096,
        max_output_tokens: 120,
        speculative_decoding,
        weight_layout,
        draft_row_cost,
        ..LocalOptions::default()
    };
    Some(LocalProvider::load(&path, "test-model", options).unwrap())
}

/// A request whose answer copies most of the prompt: the function with one change.
fn edit_request() -> ChatRequest {
    let mut request = ChatRequest::new(
        "",
        format!(
            "{FUNCTION}\nRewrite this function with `parse_entry` renamed to `read_entry`. \
             Reply with the whole function only, in a rust code block."
        ),
    );
    request.system = Some("You are a careful coding assistant.".into());
    request
}

/// The text (tool calls written out) and the counters of one request.
fn run(provider: &LocalProvider, request: ChatRequest) -> (String, GenerationStats) {
    let events: Vec<StreamEvent> =
        block_on(provider.stream(request, CancellationToken::new()).collect());
    let mut text = String::new();
    for event in events {
        match event {
            StreamEvent::TextDelta { text: piece } => text.push_str(&piece),
            StreamEvent::ToolCallEnd {
                name, arguments, ..
            } => text.push_str(&format!("[call {name} {arguments}]")),
            StreamEvent::Failed { error } => panic!("generation failed: {error}"),
            _ => {}
        }
    }
    (text, provider.last_stats())
}

/// Runs `request` with and without speculation (from a cold cache each time, so both read
/// the same prompt) and checks both answers are the same.
fn same_answer(
    plain: &LocalProvider,
    fast: &LocalProvider,
    request: &ChatRequest,
) -> GenerationStats {
    // A different prompt first, so that neither run reuses the other's answer.
    run(plain, ChatRequest::new("", "Hi"));
    let (expected, plain_stats) = run(plain, request.clone());
    run(fast, ChatRequest::new("", "Hi"));
    let (got, stats) = run(fast, request.clone());
    assert_eq!(got, expected);
    assert_eq!(stats.generated_tokens, plain_stats.generated_tokens);
    assert_eq!(plain_stats.drafted_tokens, 0);
    assert!(sampled_once_per_pass(&plain_stats), "{plain_stats:?}");
    assert!(sampled_once_per_pass(&stats), "{stats:?}");
    stats
}

/// Whether every token was sampled from the prompt's logits, a pass's own, or those of an
/// accepted draft token: one more than passes plus accepted drafts, the last one possibly
/// a stop token (not counted as generated).
fn sampled_once_per_pass(stats: &GenerationStats) -> bool {
    let sampled = stats.decode_passes + stats.accepted_tokens + 1;
    sampled == stats.generated_tokens || sampled == stats.generated_tokens + 1
}

#[test]
fn greedy_answers_are_identical_and_drafts_are_accepted() {
    let (Some(plain), Some(fast)) = (provider(false, 0.0), provider(true, 0.0)) else {
        return;
    };
    let stats = same_answer(&plain, &fast, &edit_request());
    assert!(stats.drafted_tokens > 0, "{stats:?}");
    assert!(stats.accepted_tokens > 0, "{stats:?}");
    assert!(stats.accepted_tokens <= stats.drafted_tokens, "{stats:?}");
    assert!(
        stats.decode_passes < stats.generated_tokens / 2,
        "{stats:?}"
    );
}

#[test]
fn drafting_by_measured_costs_gives_identical_answers() {
    let plain = provider(false, 0.0);
    let measured = provider_with(true, 0.0, WeightLayout::Compact, None);
    let (Some(plain), Some(measured)) = (plain, measured) else {
        return;
    };
    // Twice: the second answer starts with the costs the first one measured.
    for _ in 0..2 {
        let stats = same_answer(&plain, &measured, &edit_request());
        assert!(stats.accepted_tokens <= stats.drafted_tokens, "{stats:?}");
    }
}

#[test]
fn repacked_weights_verify_drafts_exactly() {
    let plain = provider_with(false, 0.0, WeightLayout::Repacked, None);
    let fast = provider_with(true, 0.0, WeightLayout::Repacked, Some(0.0));
    let (Some(plain), Some(fast)) = (plain, fast) else {
        return;
    };
    let stats = same_answer(&plain, &fast, &edit_request());
    if cfg!(target_arch = "x86_64") {
        assert!(stats.accepted_tokens > 0, "{stats:?}");
    }
}

#[test]
fn sampled_answers_are_identical_with_the_same_seed() {
    let (Some(plain), Some(fast)) = (provider(false, 0.8), provider(true, 0.8)) else {
        return;
    };
    same_answer(&plain, &fast, &edit_request());
}

#[test]
fn answers_that_reach_the_token_limit_are_identical() {
    let (Some(plain), Some(fast)) = (provider(false, 0.0), provider(true, 0.0)) else {
        return;
    };
    for limit in [1, 2, 7, 31] {
        let mut request = edit_request();
        request.max_tokens = Some(limit);
        let stats = same_answer(&plain, &fast, &request);
        assert_eq!(stats.generated_tokens, limit as usize);
    }
}

#[test]
fn constrained_tool_calls_are_identical() {
    let (Some(plain), Some(fast)) = (provider(false, 0.0), provider(true, 0.0)) else {
        return;
    };
    let mut request = ChatRequest::new(
        "",
        "Read the file src/parse_entry.rs, then the file src/parse_entry_test.rs.",
    );
    request.system = Some("You are a coding agent. Use the tools to act.".into());
    request.tools = hone_tools::builtin_tools()
        .iter()
        .map(|tool| tool.spec())
        .collect();
    same_answer(&plain, &fast, &request);
}

#[test]
fn a_follow_up_after_a_speculative_answer_reuses_the_cache() {
    let Some(fast) = provider(true, 0.0) else {
        return;
    };
    let request = edit_request();
    let (answer, _) = run(&fast, request.clone());
    let mut next = request.clone();
    next.messages
        .push(hone_protocol::Message::assistant(answer));
    next.messages
        .push(hone_protocol::Message::user("Now rename it back."));
    let (_, stats) = run(&fast, next.clone());
    // The whole first request is reused (drafts rejected at its end were dropped from the cache).
    assert!(stats.reused_tokens > stats.prompt_tokens / 2, "{stats:?}");
    let plain = provider(false, 0.0).unwrap();
    run(&plain, ChatRequest::new("", "Hi"));
    let (expected, _) = run(&plain, next.clone());
    run(&fast, ChatRequest::new("", "Hi"));
    let (got, _) = run(&fast, next);
    assert_eq!(got, expected);
}

#[test]
fn the_usage_report_counts_drafted_and_accepted_tokens() {
    let Some(fast) = provider(true, 0.0) else {
        return;
    };
    let events: Vec<StreamEvent> = block_on(
        fast.stream(edit_request(), CancellationToken::new())
            .collect(),
    );
    let stats = fast.last_stats();
    let usage = events
        .iter()
        .find_map(|event| match event {
            StreamEvent::Completed { usage, .. } => *usage,
            _ => None,
        })
        .expect("a completed answer with usage");
    assert!(usage.drafted_tokens > 0, "{usage:?}");
    assert_eq!(usage.drafted_tokens, stats.drafted_tokens as u64);
    assert_eq!(usage.accepted_tokens, stats.accepted_tokens as u64);
    assert!(usage.accepted_tokens <= usage.drafted_tokens);
}
