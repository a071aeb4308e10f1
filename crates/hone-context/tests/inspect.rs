//! The context inspector: the parts of the next request add up to hone's estimate of the
//! request a turn sends, whatever it holds (tools, pinned files, localised code, results,
//! a summary, trimmed messages, a calibrated estimate).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use hone_api::ContextPartKind;
use hone_context::{CompactionMethod, ContextConfig, ContextManager, ContextSettings, TrackMode};
use hone_protocol::{ContentBlock, Message, Role, ToolCall, ToolResult, ToolSpec};
use serde_json::json;

const MAP: &str = "src/main.rs\n  fn main()\nsrc/lib.rs\n  pub fn run(config: Config)";

fn base() -> String {
    format!("You are hone.\n\n# Repository map\n\n{MAP}\n")
}

fn manager(root: &std::path::Path, window: Option<u32>, threshold: f64) -> ContextManager {
    ContextManager::new(
        ContextConfig {
            window,
            settings: ContextSettings {
                compact_threshold: threshold,
                ..ContextSettings::default()
            },
            ..ContextConfig::default()
        },
        root,
        "local-model",
    )
}

fn tools() -> Vec<ToolSpec> {
    vec![ToolSpec {
        name: "read_file".into(),
        description: "Read a file of the project.".into(),
        parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
    }]
}

/// A turn with localised code, a pinned file's snapshot and a tool round, three times.
fn conversation(manager: &mut ContextManager, root: &std::path::Path) -> Vec<Message> {
    std::fs::write(root.join("notes.md"), "remember the milk\n".repeat(20)).unwrap();
    manager
        .track(&["notes.md".to_string()], TrackMode::Full)
        .unwrap();
    let mut history = Vec::new();
    for turn in 0..3 {
        let text = format!("Turn {turn}: explain module {turn}");
        manager.on_request(&text);
        let mut request = Message::user(text);
        request.content.insert(
            0,
            ContentBlock::Text {
                text: format!(
                    "[hone] Code from the project that this request is about, found by hone \
                     (line numbers are not part of the files):\nsrc/m{turn}.rs\n1 fn m() {{}}\n"
                ),
            },
        );
        manager.attach_pending(&mut request);
        history.push(request);
        let call = ToolCall {
            id: format!("c{turn}"),
            name: "read_file".into(),
            arguments: format!("{{\"path\":\"src/m{turn}.rs\"}}"),
        };
        history.push(Message {
            role: Role::Assistant,
            content: vec![ContentBlock::ToolCall(call)],
        });
        history.push(Message {
            role: Role::User,
            content: vec![ContentBlock::ToolResult(ToolResult {
                call_id: format!("c{turn}"),
                name: "read_file".into(),
                content: "pub fn handler() { let value = compute(42); }\n".repeat(60),
                is_error: false,
                effect: Default::default(),
            })],
        });
        history.push(Message::assistant(format!("Module {turn} is fine.")));
    }
    history
}

fn kinds(inspection: &hone_context::Inspection) -> Vec<ContextPartKind> {
    inspection.parts.iter().map(|part| part.kind).collect()
}

fn sum(inspection: &hone_context::Inspection) -> u64 {
    inspection.parts.iter().map(|part| part.tokens).sum()
}

#[test]
fn the_parts_add_up_to_the_request_a_turn_sends() {
    let dir = tempfile::tempdir().unwrap();
    let mut manager = manager(dir.path(), Some(100_000), 0.0);
    let history = conversation(&mut manager, dir.path());
    let (built, inspection) = manager
        .inspect(&base(), Some(MAP), &history, &tools())
        .unwrap();
    assert_eq!(inspection.raw_tokens, built.raw_tokens);
    assert_eq!(inspection.tokens, built.tokens);
    assert_eq!(sum(&inspection), built.tokens as u64);
    assert_eq!(
        kinds(&inspection),
        [
            ContextPartKind::System,
            ContextPartKind::RepoMap,
            ContextPartKind::Tools,
            ContextPartKind::Tracked,
            ContextPartKind::Localized,
            ContextPartKind::History,
            ContextPartKind::ToolResults,
        ]
    );
    let pinned = &inspection.parts[3];
    assert_eq!(pinned.path.as_deref(), Some("notes.md"));
    assert!(pinned.tokens > 20, "{pinned:?}");
    assert_eq!(inspection.parts[6].label, "3 tool results");
    assert_eq!(inspection.parts[5].label, "12 messages");
    // The same request as a turn builds it.
    assert_eq!(built, manager.build(&base(), &history, &tools()).unwrap());
}

#[test]
fn a_calibrated_estimate_is_shared_out_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let mut manager = manager(dir.path(), Some(100_000), 0.0);
    let history = conversation(&mut manager, dir.path());
    let built = manager.build(&base(), &history, &tools()).unwrap();
    // The provider counted a third more than hone estimated.
    manager.observe_usage(
        &built,
        Some(hone_protocol::Usage {
            input_tokens: (built.raw_tokens as u64 * 4).div_ceil(3),
            ..Default::default()
        }),
    );
    let (built, inspection) = manager
        .inspect(&base(), Some(MAP), &history, &tools())
        .unwrap();
    assert!(built.tokens > built.raw_tokens, "calibrated upwards");
    assert_eq!(sum(&inspection), built.tokens as u64);
    assert_eq!(inspection.tokens, built.tokens);
}

#[test]
fn a_summary_and_trimmed_messages_are_parts_too() {
    let dir = tempfile::tempdir().unwrap();
    let mut manager = manager(dir.path(), Some(100_000), 0.0);
    let history = conversation(&mut manager, dir.path());
    manager.apply_summary(4, "- Module 0 was explained.", CompactionMethod::Model);
    let (built, inspection) = manager.inspect(&base(), None, &history, &tools()).unwrap();
    assert_eq!(sum(&inspection), built.tokens as u64);
    assert!(kinds(&inspection).contains(&ContextPartKind::Summary));
    assert!(kinds(&inspection).contains(&ContextPartKind::Task));
    assert!(!kinds(&inspection).contains(&ContextPartKind::RepoMap));

    // A window too small for everything: older messages trimmed, the task memory added.
    let mut small = self::manager(dir.path(), Some(1_500), 0.0);
    let history = conversation(&mut small, dir.path());
    let (built, inspection) = small
        .inspect(&base(), Some(MAP), &history, &tools())
        .unwrap();
    assert!(built.trimmed > 0);
    assert_eq!(inspection.trimmed, built.trimmed);
    assert_eq!(sum(&inspection), built.tokens as u64);
    assert!(kinds(&inspection).contains(&ContextPartKind::Task));
}

#[test]
fn without_a_known_window_the_request_is_still_counted() {
    let dir = tempfile::tempdir().unwrap();
    let mut manager = manager(dir.path(), None, 0.0);
    let history = conversation(&mut manager, dir.path());
    let (_, inspection) = manager
        .inspect(&base(), Some(MAP), &history, &tools())
        .unwrap();
    let estimate = manager.estimate(&base(), &history, &tools());
    assert_eq!(inspection.tokens, estimate);
    assert_eq!(sum(&inspection), estimate as u64);
}

#[test]
fn files_pinned_since_the_last_message_are_pending() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.md"), "a\n").unwrap();
    let mut manager = manager(dir.path(), Some(100_000), 0.0);
    manager
        .track(&["a.md".to_string()], TrackMode::Full)
        .unwrap();
    let history = vec![Message::user("hi")];
    let (_, inspection) = manager.inspect(&base(), None, &history, &[]).unwrap();
    assert_eq!(inspection.pending, ["a.md"]);
    assert!(!kinds(&inspection).contains(&ContextPartKind::Tracked));
}
