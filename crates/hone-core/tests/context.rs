//! The context manager in a running session against a mock model: compaction at the
//! threshold (by the model, or by rules when the summary call fails), tracked files and
//! their refresh, manual compaction, and error recovery choices.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use hone_api::{CompactionMethod, ErrorChoice, Event, EventFrame, Request, TurnEnd};
use hone_config::{ApiKey, ProviderConfig, preset};
use hone_core::{ContextConfig, ContextSettings, SessionConfig, SessionHandle};
use hone_policy::{ApprovalMode, CommandPolicy, Permissions};
use hone_testkit::{MockResponse, MockServer, Reply};
use serde_json::json;
use tokio::sync::mpsc::UnboundedReceiver;

/// A line of `big.txt` that must not survive compaction.
const MARKER: &str = "MARKER-LINE-OF-BIG-FILE";

struct Harness {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    server: MockServer,
    handle: SessionHandle,
    events: UnboundedReceiver<EventFrame>,
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut big = String::new();
    for line in 0..380 {
        big.push_str(&format!(
            "line {line}: the quick brown fox {} jumps over the lazy dog\n",
            line * 7
        ));
        if line == 100 {
            big.push_str(MARKER);
            big.push('\n');
        }
    }
    std::fs::write(dir.path().join("big.txt"), big).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "alpha\nbeta\ngamma\n").unwrap();
    dir
}

async fn harness(
    dir: tempfile::TempDir,
    context: ContextConfig,
    interactive: bool,
    replies: Vec<MockResponse>,
) -> Harness {
    let root = dir.path().canonicalize().unwrap();
    let server = MockServer::start().await;
    for reply in replies {
        server.enqueue(reply);
    }
    let mut config = ProviderConfig::from_preset(preset("openai").unwrap());
    config.base_url = server.url();
    config.api_key = Some(ApiKey::new("key-for-tests-123"));
    config.network.max_retries = 0;
    let provider = hone_providers::build_provider(config).unwrap();
    let (handle, events) = hone_core::start_session(SessionConfig {
        root: root.clone(),
        provider,
        model: String::new(),
        permissions: Permissions::new(ApprovalMode::AutoEdit, CommandPolicy::default()),
        max_tool_rounds: 25,
        interactive,
        audit: false,
        secrets: Vec::new(),
        commands: Default::default(),
        extra_tools: Vec::new(),
        tool_sources: Vec::new(),
        repo_map: None,
        prompt_profile: hone_core::PromptProfile::Full,
        memory: None,
        context,
        checks: hone_core::ChecksConfig::disabled(),
        code_mapper: None,
        localizer: None,
        guidance: hone_core::Guidance::default(),
        roles: hone_core::RoleModels::default(),
        hooks: hone_core::Hooks::default(),
    })
    .unwrap();
    Harness {
        _dir: dir,
        root,
        server,
        handle,
        events,
    }
}

fn window(window: u32) -> ContextConfig {
    ContextConfig {
        window: Some(window),
        settings: ContextSettings {
            compact_threshold: 0.5,
            recent_turns: 1,
            ..ContextSettings::default()
        },
        ..ContextConfig::default()
    }
}

impl Harness {
    async fn next(&mut self) -> Event {
        tokio::time::timeout(Duration::from_secs(20), self.events.recv())
            .await
            .expect("no event for 20 s")
            .expect("session alive")
            .event
    }

    /// Events until one matches `done`.
    async fn until(&mut self, done: impl Fn(&Event) -> bool) -> Vec<Event> {
        let mut seen = Vec::new();
        loop {
            let event = self.next().await;
            let stop = done(&event);
            seen.push(event);
            if stop {
                return seen;
            }
        }
    }

    /// Sends `text` and returns the events until the turn ends.
    async fn turn(&mut self, text: &str) -> Vec<Event> {
        self.handle.send(Request::user_message(text));
        self.until(turn_ended).await
    }

    fn request_text(&self, index: usize) -> String {
        self.server.requests()[index].json().to_string()
    }
}

fn turn_ended(event: &Event) -> bool {
    matches!(
        event,
        Event::TurnCompleted { .. } | Event::TurnFailed { .. } | Event::TurnCancelled { .. }
    )
}

fn used(events: &[Event]) -> Vec<u64> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::ContextUsage { used, .. } => Some(*used),
            _ => None,
        })
        .collect()
}

fn read_big() -> MockResponse {
    Reply::new()
        .tool_call("read_file", json!({"path": "big.txt"}))
        .openai_chat()
}

/// Tokens of the first request (system prompt, tools, a short message) for this setup.
async fn fixed_tokens() -> u64 {
    let mut probe = harness(
        project(),
        window(1_000_000),
        false,
        vec![Reply::new().text("hi").openai_chat()],
    )
    .await;
    let events = probe.turn("Read big.txt").await;
    used(&events)[0]
}

/// Two turns in a window sized so that the second turn passes the threshold: the first
/// turn read `big.txt` (about 8k tokens) and the window is the fixed part plus 10k tokens.
async fn compaction_scenario(summary: MockResponse) -> (Harness, Vec<Event>, u32) {
    let fixed = u32::try_from(fixed_tokens().await).unwrap();
    let size = 2 * (fixed + 5_000);
    let mut h = harness(
        project(),
        window(size),
        false,
        vec![
            read_big(),
            Reply::new()
                .text("Read it.\nDecision: keep big.txt unchanged.")
                .openai_chat(),
            summary,
            Reply::new().text("Next, we test.").openai_chat(),
        ],
    )
    .await;
    let first = h.turn("Read big.txt").await;
    assert!(
        !first
            .iter()
            .any(|event| matches!(event, Event::ContextCompacted { .. })),
        "one turn alone is never summarised: {first:?}"
    );
    assert!(h.request_text(1).contains(MARKER));
    let second = h.turn("What next?").await;
    (h, second, size)
}

#[tokio::test]
async fn compaction_triggers_at_the_threshold_and_keeps_the_task_memory() {
    let (h, events, size) =
        compaction_scenario(Reply::new().text("SUMMARY-OF-TURN-ONE").openai_chat()).await;
    let compacted: Vec<_> = events
        .iter()
        .filter_map(|event| match event {
            Event::ContextCompacted {
                before_tokens,
                after_tokens,
                method,
            } => Some((*before_tokens, *after_tokens, *method)),
            _ => None,
        })
        .collect();
    assert_eq!(compacted.len(), 1, "{events:?}");
    let (before, after, method) = compacted[0];
    assert_eq!(method, CompactionMethod::Model);
    assert!(
        before >= u64::from(size) / 2,
        "{before} passed the threshold"
    );
    assert!(after < before / 2, "{after} vs {before}");

    let summary_request = h.request_text(2);
    assert!(
        summary_request.contains("You compact the conversation of a coding agent"),
        "{summary_request}"
    );
    assert!(summary_request.contains("User: Read big.txt"));
    assert!(!summary_request.contains("\"tools\""));
    let next = h.request_text(3);
    assert!(next.contains("SUMMARY-OF-TURN-ONE"), "{next}");
    assert!(!next.contains(MARKER), "the file content is gone");
    for kept in [
        "# Task memory",
        "Original request:\\nRead big.txt",
        "Current request (turn 2):\\nWhat next?",
        "- Decision: keep big.txt unchanged.",
    ] {
        assert!(next.contains(kept), "{kept} missing from {next}");
    }
    let usage = used(&events);
    assert!(
        usage.iter().all(|tokens| *tokens <= u64::from(size)),
        "{usage:?} ≤ {size}"
    );
    assert!(matches!(
        events.last(),
        Some(Event::TurnCompleted {
            end: TurnEnd::Answered,
            ..
        })
    ));
}

#[tokio::test]
async fn a_failed_summary_call_falls_back_to_rules() {
    let failure = MockResponse::json(400, &json!({"error": {"message": "summary refused"}}));
    let (h, events, _) = compaction_scenario(failure).await;
    assert!(
        events.iter().any(|event| matches!(
            event,
            Event::ContextCompacted {
                method: CompactionMethod::Rules,
                ..
            }
        )),
        "{events:?}"
    );
    let next = h.request_text(3);
    assert!(
        next.contains("Summary of older turns (written by rules)"),
        "{next}"
    );
    assert!(next.contains("- Read big.txt"), "{next}");
    assert!(next.contains("compacted by rules"));
    assert!(!next.contains(MARKER));
    assert!(matches!(
        events.last(),
        Some(Event::TurnCompleted {
            end: TurnEnd::Answered,
            ..
        })
    ));
}

#[tokio::test]
async fn tracked_files_are_sent_and_only_their_newest_snapshot_stays() {
    let mut h = harness(
        project(),
        ContextConfig::default(),
        false,
        vec![
            Reply::new()
                .tool_call(
                    "edit_file",
                    json!({"path": "notes.txt", "old_text": "beta", "new_text": "BETA"}),
                )
                .openai_chat(),
            Reply::new().text("Done.").openai_chat(),
            Reply::new().text("Seen.").openai_chat(),
        ],
    )
    .await;
    h.handle.send(Request::TrackFiles {
        patterns: vec!["*.txt".into(), "nothing/*.rs".into()],
        summary: false,
    });
    let tracked = h
        .until(|event| matches!(event, Event::FilesTracked { .. }))
        .await;
    let Some(Event::FilesTracked {
        files, unmatched, ..
    }) = tracked.last()
    else {
        panic!("files.tracked expected")
    };
    let paths: Vec<&str> = files.iter().map(|file| file.path.as_str()).collect();
    assert_eq!(paths, ["big.txt", "notes.txt"]);
    assert_eq!(unmatched, &["nothing/*.rs"]);
    h.handle.send(Request::UntrackFiles {
        patterns: vec!["big.txt".into()],
    });
    h.until(|event| matches!(event, Event::FilesTracked { .. }))
        .await;

    h.turn("Shout beta").await;
    let old = "<tracked_file path=\\\"notes.txt\\\" mode=\\\"full\\\" lines=\\\"3\\\">\\nalpha\\nbeta\\ngamma";
    let new = "<tracked_file path=\\\"notes.txt\\\" mode=\\\"full\\\" lines=\\\"3\\\">\\nalpha\\nBETA\\ngamma";
    let first = h.request_text(0);
    assert!(first.contains(old), "{first}");
    assert!(
        !first.contains(MARKER),
        "big.txt was untracked before the turn"
    );
    let second = h.request_text(1);
    assert!(second.contains(new), "{second}");
    assert!(
        !second.contains(old),
        "the older snapshot is stripped: {second}"
    );
    assert_eq!(
        second
            .matches("tracked_file path=\\\"notes.txt\\\"")
            .count(),
        1
    );
    assert_eq!(
        std::fs::read_to_string(h.root.join("notes.txt")).unwrap(),
        "alpha\nBETA\ngamma\n"
    );

    // A change made between turns (by the user) is picked up with the next message.
    std::fs::write(h.root.join("notes.txt"), "changed by the user\n").unwrap();
    h.turn("Look again").await;
    let third = h.request_text(2);
    assert!(
        third.contains("lines=\\\"1\\\">\\nchanged by the user"),
        "{third}"
    );
    assert!(!third.contains(new), "{third}");
}

#[tokio::test]
async fn manual_compaction_needs_an_earlier_turn() {
    let mut h = harness(
        project(),
        window(1_000_000),
        false,
        vec![
            Reply::new().text("One.").openai_chat(),
            Reply::new().text("Two.").openai_chat(),
            Reply::new().text("- asked twice").openai_chat(),
        ],
    )
    .await;
    h.turn("first").await;
    h.handle.send(Request::Compact);
    let refused = h.until(|event| matches!(event, Event::Error { .. })).await;
    let Some(Event::Error { error }) = refused.last() else {
        panic!("an error")
    };
    assert!(error.message.contains("nothing to compact"), "{error:?}");
    h.turn("second").await;
    h.handle.send(Request::Compact);
    let done = h
        .until(|event| matches!(event, Event::ContextCompacted { .. }))
        .await;
    assert!(matches!(
        done.last(),
        Some(Event::ContextCompacted {
            method: CompactionMethod::Model,
            ..
        })
    ));
    assert_eq!(h.server.request_count(), 3);
    assert!(h.request_text(2).contains("User: first"));
}

async fn failing_turn(choice: Option<ErrorChoice>, interactive: bool) -> (Harness, Vec<Event>) {
    let mut h = harness(
        project(),
        ContextConfig::default(),
        interactive,
        vec![
            MockResponse::json(400, &json!({"error": {"message": "bad request"}})),
            Reply::new().text("Recovered.").openai_chat(),
        ],
    )
    .await;
    h.handle.send(Request::user_message("hello"));
    let events = h
        .until(|event| turn_ended(event) || matches!(event, Event::TurnError { .. }))
        .await;
    if let Some(choice) = choice {
        let Some(Event::TurnError { error, choices }) = events.last() else {
            panic!("turn.error expected: {events:?}")
        };
        assert_eq!(choices, &ErrorChoice::ALL);
        assert!(error.message.contains("rejected") || error.provider_detail.is_some());
        h.handle.send(Request::ErrorChoice { choice });
        let rest = h.until(turn_ended).await;
        return (h, rest);
    }
    (h, events)
}

#[tokio::test]
async fn retry_sends_the_request_again() {
    let (h, events) = failing_turn(Some(ErrorChoice::Retry), true).await;
    assert!(matches!(
        events.last(),
        Some(Event::TurnCompleted {
            end: TurnEnd::Answered,
            ..
        })
    ));
    let requests = h.server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0].json(),
        requests[1].json(),
        "the same request again"
    );
}

#[tokio::test]
async fn skip_ends_the_turn_and_abort_fails_it() {
    let (h, events) = failing_turn(Some(ErrorChoice::Skip), true).await;
    assert!(matches!(
        events.last(),
        Some(Event::TurnCompleted {
            end: TurnEnd::Skipped,
            ..
        })
    ));
    assert_eq!(h.server.request_count(), 1);
    let (h, events) = failing_turn(Some(ErrorChoice::Abort), true).await;
    assert!(matches!(events.last(), Some(Event::TurnFailed { .. })));
    assert_eq!(h.server.request_count(), 1);
}

#[tokio::test]
async fn without_a_front_end_to_ask_the_turn_fails_at_once() {
    let (h, events) = failing_turn(None, false).await;
    assert!(
        !events
            .iter()
            .any(|event| matches!(event, Event::TurnError { .. }))
    );
    assert!(matches!(events.last(), Some(Event::TurnFailed { .. })));
    assert_eq!(h.server.request_count(), 1);
}
