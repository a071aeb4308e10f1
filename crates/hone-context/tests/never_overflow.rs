//! The hard guarantee, checked over random histories: a built request never exceeds the
//! window, keeps the task memory and the latest request, and pairs every tool call with its
//! result.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use hone_context::{
    ContextConfig, ContextError, ContextManager, ContextSettings, TokenCounter, Tokenizer,
    is_request, pairs_are_valid,
};
use hone_protocol::{ContentBlock, Message, Role, ToolCall, ToolResult, ToolSpec};
use proptest::prelude::*;

/// One generated round: the calls' result sizes.
#[derive(Debug, Clone)]
struct Round {
    results: Vec<usize>,
    with_text: bool,
}

/// One generated turn.
#[derive(Debug, Clone)]
struct Turn {
    request: usize,
    rounds: Vec<Round>,
    answer: Option<usize>,
}

fn text(seed: usize, length: usize) -> String {
    let words = [
        "alpha ",
        "beta_gamma ",
        "fn x() {} ",
        "δέλτα ",
        "1234 ",
        "\n",
        "{\"k\": 1} ",
    ];
    let mut out = String::with_capacity(length + 16);
    let mut index = seed;
    while out.len() < length {
        out.push_str(words[index % words.len()]);
        index = index.wrapping_mul(31).wrapping_add(7);
    }
    out
}

fn history(turns: &[Turn]) -> Vec<Message> {
    let mut messages = Vec::new();
    let mut call = 0usize;
    for (number, turn) in turns.iter().enumerate() {
        messages.push(Message::user(format!(
            "request {number}: {}",
            text(number, turn.request)
        )));
        for round in &turn.rounds {
            let mut calls = Vec::new();
            let mut results = Vec::new();
            for size in &round.results {
                call += 1;
                let id = format!("call_{call}");
                calls.push(ContentBlock::ToolCall(ToolCall {
                    id: id.clone(),
                    name: "read_file".into(),
                    arguments: format!("{{\"path\":\"src/f{call}.rs\"}}"),
                }));
                results.push(ContentBlock::ToolResult(ToolResult {
                    call_id: id,
                    name: "read_file".into(),
                    content: text(call, *size),
                    is_error: false,
                    effect: Default::default(),
                }));
            }
            let mut assistant = Vec::new();
            if round.with_text {
                assistant.push(ContentBlock::Text {
                    text: "Let me look.".into(),
                });
            }
            assistant.extend(calls);
            messages.push(Message {
                role: Role::Assistant,
                content: assistant,
            });
            messages.push(Message {
                role: Role::User,
                content: results,
            });
        }
        if let Some(size) = turn.answer {
            messages.push(Message::assistant(text(number + 100, size)));
        }
    }
    messages
}

fn turn() -> impl Strategy<Value = Turn> {
    let round = (prop::collection::vec(0usize..12_000, 1..4), any::<bool>())
        .prop_map(|(results, with_text)| Round { results, with_text });
    (
        0usize..3_000,
        prop::collection::vec(round, 0..4),
        prop::option::of(0usize..4_000),
    )
        .prop_map(|(request, rounds, answer)| Turn {
            request,
            rounds,
            answer,
        })
}

fn tools() -> Vec<ToolSpec> {
    ["read_file", "edit_file", "run_command"]
        .iter()
        .map(|name| ToolSpec {
            name: (*name).into(),
            description: format!("The {name} tool: does what its name says."),
            parameters: serde_json::json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        })
        .collect()
}

const BASE: &str = "You are hone, a coding agent. Follow the rules.";

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn requests_never_exceed_the_window(
        turns in prop::collection::vec(turn(), 1..8),
        window in 600u32..40_000,
        compact in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let history = history(&turns);
        let mut manager = ContextManager::new(
            ContextConfig {
                window: Some(window),
                settings: ContextSettings { recent_turns: 2, ..ContextSettings::default() },
                ..ContextConfig::default()
            },
            dir.path(),
            "local-model",
        );
        manager.replay(&history);
        let mut summarised = false;
        if compact {
            manager.drop_stale(&history);
            if let Some(plan) = manager.plan_summary(&history, false) {
                summarised = true;
                let summary = manager.rule_summary(&history, plan.end);
                manager.apply_summary(plan.end, &summary, hone_context::CompactionMethod::Rules);
            }
        }
        let tools = tools();
        let budget = manager.budget().unwrap();
        let task = manager.task().render();
        let request = history.iter().rev().find(|message| is_request(message)).unwrap().text();
        match manager.build(BASE, &history, &tools) {
            Ok(built) => {
                prop_assert!(built.tokens <= budget, "{} > {budget}", built.tokens);
                let mut counter = TokenCounter::new(Tokenizer::Estimate);
                let recount = counter.request_raw(&built.system, &built.messages, &tools);
                prop_assert!(recount <= budget, "recount {recount} > {budget}");
                prop_assert!(pairs_are_valid(&built.messages));
                if summarised || built.trimmed > 0 {
                    prop_assert!(built.system.contains(task.trim()), "task memory kept verbatim");
                } else {
                    prop_assert!(!built.system.contains("# Task memory"), "nothing lost, no task memory");
                }
                let sent: String = built.messages.iter().map(Message::text).collect();
                prop_assert!(sent.contains(&request), "the latest request is kept whole");
                prop_assert_eq!(built.messages[0].role, Role::User);
            }
            Err(ContextError::WindowTooSmall { needed, .. }) => {
                let mut counter = TokenCounter::new(Tokenizer::Estimate);
                let floor = counter.request_raw(
                    &format!("{BASE}\n\n{task}"),
                    &[Message::user(request)],
                    &tools,
                );
                prop_assert!(
                    floor + 2_000 > budget,
                    "refused although the essentials ({floor} tokens) fit {budget} ({needed} needed)"
                );
            }
            Err(other) => prop_assert!(false, "unexpected error {other}"),
        }
    }
}
