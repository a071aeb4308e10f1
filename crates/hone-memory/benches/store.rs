//! Session store latency: appending one message (p50/p95 over a growing session) and
//! resuming a 2,000-message session (loading and repairing its history).
//!
//! `cargo bench -p hone-memory --bench store` (the store is a real file in a temp dir, WAL,
//! `synchronous = NORMAL`, as hone uses it).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use hone_memory::{MessageStats, NewSession, SessionStore, resume_history};
use hone_protocol::{ContentBlock, Message, Role, ToolCall, ToolResult, Usage};

const MESSAGES: usize = 2_000;
const RESUMES: usize = 20;

/// A realistic mix: user text, assistant text with a tool call, a 4 KB tool result.
fn message(index: usize) -> (Message, MessageStats) {
    let id = format!("call_{index}");
    match index % 3 {
        0 => (
            Message::user(format!(
                "Step {index}: please look at src/module_{index}.rs and fix the failing test. {}",
                "Some more context about the task. ".repeat(8)
            )),
            MessageStats::default(),
        ),
        1 => (
            Message {
                role: Role::Assistant,
                content: vec![
                    ContentBlock::Text {
                        text: "Let me read the file first. ".repeat(6),
                    },
                    ContentBlock::ToolCall(ToolCall {
                        id,
                        name: "read_file".into(),
                        arguments: format!("{{\"path\":\"src/module_{index}.rs\"}}"),
                    }),
                ],
            },
            MessageStats {
                usage: Some(Usage {
                    input_tokens: 12_000,
                    output_tokens: 80,
                    ..Usage::default()
                }),
                model: Some("gpt-test".into()),
            },
        ),
        _ => (
            Message {
                role: Role::User,
                content: vec![ContentBlock::ToolResult(ToolResult {
                    call_id: format!("call_{}", index - 1),
                    name: "read_file".into(),
                    content: "    let value = compute(input);  // a line of code\n".repeat(80),
                    is_error: false,
                    effect: Default::default(),
                })],
            },
            MessageStats::default(),
        ),
    }
}

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn report(what: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let mean = samples.iter().sum::<Duration>() / u32::try_from(samples.len()).unwrap();
    println!(
        "{what:<40} n={:<5} p50={:>9.3?} p95={:>9.3?} max={:>9.3?} mean={:>9.3?}",
        samples.len(),
        percentile(&samples, 0.50),
        percentile(&samples, 0.95),
        samples[samples.len() - 1],
        mean,
    );
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    let mut store = SessionStore::open(&path).unwrap();
    let session = store
        .create(&NewSession {
            project: "/bench/project".into(),
            provider: "openai".into(),
            model: "gpt-test".into(),
        })
        .unwrap();

    let mut writes = Vec::with_capacity(MESSAGES);
    for index in 0..MESSAGES {
        // The session ends with an answer, so resuming needs no repair.
        let (message, stats) = if index == MESSAGES - 1 {
            (Message::assistant("Done."), MessageStats::default())
        } else {
            message(index)
        };
        let started = Instant::now();
        store.append_message(&session.id, &message, &stats).unwrap();
        writes.push(started.elapsed());
    }
    report("append_message (one transaction)", writes);

    let mut resumes = Vec::with_capacity(RESUMES);
    let mut loaded = 0;
    for _ in 0..RESUMES {
        let started = Instant::now();
        let reopened = SessionStore::open(&path).unwrap();
        let info = reopened.find(&session.id).unwrap();
        let history = resume_history(reopened.messages(&info.id).unwrap());
        resumes.push(started.elapsed());
        loaded = history.len();
    }
    assert_eq!(loaded, MESSAGES);
    report(&format!("resume {MESSAGES} messages (open+load)"), resumes);
    let size = std::fs::metadata(&path).map_or(0, |meta| meta.len())
        + std::fs::metadata(path.with_extension("db-wal")).map_or(0, |meta| meta.len());
    println!(
        "database size with WAL: {:.1} MiB",
        size as f64 / 1_048_576.0
    );
}
