//! Agent overhead per tool round, against a zero-latency mock model (target: < 5 ms a round).
//!
//! Run with `cargo bench -p hone-core --bench agent_round`.
//!
//! Each measured iteration is one whole turn of a fresh session in full-auto mode on a
//! 2-worker tokio runtime, driven the way a front end drives it: send the user message,
//! drain events until `turn.completed`. The clock starts after `session.started` (session
//! set-up is not timed) and stops at `turn.completed`. The mock server (kept alive across
//! iterations; its replies are enqueued before each iteration, outside the clock) answers
//! with OpenAI Chat Completions streams (text in 3-character deltas, arguments in 6
//! fragments, usage at the end), streamed chunk by chunk like a real server.
//!
//! - `answer_only`: the model answers at once — 1 model request, 0 tool rounds. This is
//!   the fixed cost of a turn.
//! - `read_rounds_10`: the model calls `read_file` on a small file 10 times, one call per
//!   reply, then answers — 11 model requests, 10 tool rounds.
//!
//! A *tool round* is everything the agent does between two model requests: parse the
//! streamed reply, emit events, look up and validate the call, run `read_file` on the
//! blocking pool, write the audit lines, append the result to the history, and build,
//! serialise, send and stream the next request over loopback HTTP. The per-round overhead
//! is `read_rounds_10 / 10` (what the target measures; it includes a tenth of
//! the fixed cost) and, more precisely, the marginal cost `(read_rounds_10 -
//! answer_only) / 10`; both are printed in a summary after criterion's output. The mock
//! server runs on the same two workers, so its own work (recording and answering each
//! request) is counted too: the figures are an upper bound on hone's overhead.
//!
//! Audit logs are on by default (as in real use, every request, response and tool result
//! is appended to `.hone/logs/*.jsonl`); the `*_no_audit` variants show what logging costs.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use hone_api::{Event, Request, TurnEnd};
use hone_config::{ApiKey, ProviderConfig, preset};
use hone_core::{AUDIT_DIR, SessionConfig};
use hone_policy::{ApprovalMode, CommandPolicy, Permissions};
use hone_providers::Provider;
use hone_testkit::{MockResponse, MockServer, Reply};
use serde_json::json;
use tokio::runtime::Runtime;

/// Tool rounds of the measured turn.
const ROUNDS: usize = 10;

/// Audit logs larger than this are removed between turns (outside the clock).
const MAX_LOG_BYTES: u64 = 16 * 1024 * 1024;

/// A mock model, the provider pointed at it, and the project a session works in.
struct Bench {
    _dir: tempfile::TempDir,
    root: PathBuf,
    server: MockServer,
    provider: Arc<dyn Provider>,
}

impl Bench {
    fn new(runtime: &Runtime) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(
            root.join("notes.txt"),
            "alpha\nbeta\ngamma\ndelta\nepsilon\n",
        )
        .unwrap();
        let server = runtime.block_on(MockServer::start());
        let mut config = ProviderConfig::from_preset(preset("openai").unwrap());
        config.base_url = server.url();
        config.api_key = Some(ApiKey::new("bench-key-0000"));
        let provider = hone_providers::build_provider(config).unwrap();
        Self {
            _dir: dir,
            root,
            server,
            provider,
        }
    }

    /// Runs one turn of `rounds` reads and an answer in a fresh session; returns the
    /// time from sending the user message to `turn.completed`.
    async fn turn(&self, replies: &[MockResponse], audit: bool) -> Duration {
        // The logs are appended to, as in real use, but started afresh now and then so they
        // do not grow by hundreds of megabytes over thousands of turns.
        let logs = self.root.join(AUDIT_DIR);
        for file in ["comms.jsonl", "tools.jsonl"] {
            let path = logs.join(file);
            if std::fs::metadata(&path).is_ok_and(|metadata| metadata.len() > MAX_LOG_BYTES) {
                let _ = std::fs::remove_file(path);
            }
        }
        let before = self.server.request_count();
        for reply in replies {
            self.server.enqueue(reply.clone());
        }
        let (handle, mut events) = hone_core::start_session(SessionConfig {
            root: self.root.clone(),
            provider: Arc::clone(&self.provider),
            model: String::new(),
            permissions: Permissions::new(ApprovalMode::FullAuto, CommandPolicy::default()),
            max_tool_rounds: 25,
            interactive: false,
            audit,
            secrets: vec!["bench-key-0000".into()],
            commands: Default::default(),
            extra_tools: Vec::new(),
            tool_sources: Vec::new(),
            repo_map: None,
            prompt_profile: hone_core::PromptProfile::Full,
            memory: None,
            context: hone_core::ContextConfig::default(),
            checks: hone_core::ChecksConfig::disabled(),
            code_mapper: None,
            localizer: None,
            guidance: hone_core::Guidance::default(),
            roles: hone_core::RoleModels::default(),
            hooks: hone_core::Hooks::default(),
        })
        .unwrap();
        match events.recv().await.map(|frame| frame.event) {
            Some(Event::SessionStarted { .. }) => {}
            other => panic!("expected session.started, got {other:?}"),
        }

        let started = Instant::now();
        handle.send(Request::user_message(
            "Read notes.txt a few times, then answer.",
        ));
        let mut tools = 0;
        let elapsed = loop {
            match events
                .recv()
                .await
                .expect("the session ended mid-turn")
                .event
            {
                Event::ToolCompleted {
                    is_error, output, ..
                } => {
                    assert!(!is_error, "read_file failed: {output}");
                    tools += 1;
                }
                Event::TurnCompleted { end, .. } => {
                    let elapsed = started.elapsed();
                    assert_eq!(end, TurnEnd::Answered);
                    break elapsed;
                }
                event @ (Event::TurnFailed { .. } | Event::TurnCancelled { .. }) => {
                    panic!("the turn did not complete: {event:?}")
                }
                _ => {}
            }
        };
        assert_eq!(tools, replies.len() - 1);
        assert_eq!(self.server.request_count() - before, replies.len());
        handle.send(Request::Shutdown);
        elapsed
    }
}

/// The scripted replies of a turn with `rounds` tool rounds, each sent as one network
/// chunk (see the module documentation).
fn script(rounds: usize) -> Vec<MockResponse> {
    let mut replies: Vec<Reply> = (0..rounds)
        .map(|_| {
            Reply::new()
                .tool_call("read_file", json!({"path": "notes.txt"}))
                .usage(1_200, 20)
        })
        .collect();
    replies.push(
        Reply::new()
            .text("notes.txt lists five Greek letters, alpha to epsilon.")
            .usage(1_400, 15),
    );
    replies.iter().map(|reply| reply.openai_chat()).collect()
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// (name, rounds, audit) of every variant.
const VARIANTS: [(&str, usize, bool); 4] = [
    ("answer_only", 0, true),
    ("read_rounds_10", ROUNDS, true),
    ("answer_only_no_audit", 0, false),
    ("read_rounds_10_no_audit", ROUNDS, false),
];

fn agent_round(c: &mut Criterion) {
    let runtime = runtime();
    let mut group = c.benchmark_group("agent_turn");
    group
        .sample_size(30)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(12));
    for (name, rounds, audit) in VARIANTS {
        // One mock server per variant: it records every request, so memory stays bounded.
        let bench = Bench::new(&runtime);
        let replies = script(rounds);
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                runtime.block_on(async {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        total += bench.turn(&replies, audit).await;
                    }
                    total
                })
            });
        });
    }
    group.finish();
    summary(&runtime);
}

/// Median turn times of a short extra run, and the per-round figures derived from them.
fn summary(runtime: &Runtime) {
    const TURNS: usize = 40;
    let median = |rounds: usize, audit: bool| -> Duration {
        let bench = Bench::new(runtime);
        let replies = script(rounds);
        let mut times: Vec<Duration> = runtime.block_on(async {
            let mut times = Vec::with_capacity(TURNS);
            for _ in 0..TURNS {
                times.push(bench.turn(&replies, audit).await);
            }
            times
        });
        times.sort();
        times[TURNS / 2]
    };
    let ms = |duration: Duration| duration.as_secs_f64() * 1_000.0;
    println!("\nsummary (median of {TURNS} turns each, fresh session per turn):");
    for audit in [true, false] {
        let fixed = median(0, audit);
        let turn = median(ROUNDS, audit);
        let per_round = ms(turn) / ROUNDS as f64;
        let marginal = (ms(turn) - ms(fixed)) / ROUNDS as f64;
        println!(
            "  audit {:<3}: answer-only turn {:.2} ms; {ROUNDS}-round turn {:.2} ms; \
             per round {per_round:.2} ms (turn/rounds), marginal {marginal:.2} ms \
             ((turn - answer-only)/rounds); target < 5 ms",
            if audit { "on" } else { "off" },
            ms(fixed),
            ms(turn),
        );
    }
}

criterion_group!(benches, agent_round);
criterion_main!(benches);
