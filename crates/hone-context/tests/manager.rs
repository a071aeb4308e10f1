//! The context manager end to end without a model: compaction steps, tracked-file refresh
//! stripping, saving and restoring the state.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use hone_context::{
    CompactionMethod, ContextConfig, ContextManager, ContextSettings, TrackMode, pairs_are_valid,
};
use hone_protocol::{ContentBlock, Message, Role, ToolCall, ToolResult};

const BASE: &str = "You are hone.";

fn manager(root: &std::path::Path, window: Option<u32>) -> ContextManager {
    ContextManager::new(
        ContextConfig {
            window,
            settings: ContextSettings {
                recent_turns: 1,
                ..ContextSettings::default()
            },
            ..ContextConfig::default()
        },
        root,
        "local-model",
    )
}

fn read_round(id: &str, path: &str, content: &str) -> [Message; 2] {
    [
        Message {
            role: Role::Assistant,
            content: vec![ContentBlock::ToolCall(ToolCall {
                id: id.into(),
                name: "read_file".into(),
                arguments: format!("{{\"path\":\"{path}\"}}"),
            })],
        },
        Message {
            role: Role::User,
            content: vec![ContentBlock::ToolResult(ToolResult {
                call_id: id.into(),
                name: "read_file".into(),
                content: content.into(),
                is_error: false,
                effect: Default::default(),
            })],
        },
    ]
}

/// Three turns, each reading a large file and answering.
fn long_conversation(manager: &mut ContextManager) -> Vec<Message> {
    let mut history = Vec::new();
    for turn in 0..3 {
        let request = format!("Turn {turn}: explain module {turn}");
        manager.on_request(&request);
        history.push(Message::user(request));
        let round = read_round(
            &format!("c{turn}"),
            &format!("src/m{turn}.rs"),
            &"pub fn handler() { let value = compute(42); }\n".repeat(200),
        );
        manager.on_round(
            &round[0].tool_calls().cloned().collect::<Vec<_>>(),
            &round[1],
        );
        history.extend(round);
        let answer = Message::assistant(format!("Decision: module {turn} stays as it is."));
        manager.on_assistant(&answer);
        history.push(answer);
    }
    history
}

#[test]
fn compaction_summarises_older_turns_and_the_next_request_fits() {
    let dir = tempfile::tempdir().unwrap();
    let mut manager = manager(dir.path(), Some(6_000));
    let history = long_conversation(&mut manager);
    let before = manager.estimate(BASE, &history, &[]);
    assert!(manager.needs_compaction(before), "{before} tokens");
    let task = manager.task().render();
    assert!(task.contains("Original request:\nTurn 0: explain module 0"));

    assert_eq!(manager.drop_stale(&history), 0, "nothing is 5 turns old");
    let plan = manager.plan_summary(&history, false).unwrap();
    assert_eq!(plan.end, 8, "the last turn stays whole");
    let request = plan.request.unwrap();
    assert_eq!(
        request.system.as_deref(),
        Some(hone_context::COMPACTION_PROMPT)
    );
    let asked = request.messages[0].text();
    assert!(asked.contains("User: Turn 0: explain module 0"), "{asked}");
    assert!(!asked.contains("Turn 2"), "{asked}");
    manager.apply_summary(
        plan.end,
        "- The user asked about modules 0 and 1.",
        CompactionMethod::Model,
    );

    let after = manager.estimate(BASE, &history, &[]);
    assert!(after < before / 2, "{after} vs {before}");
    let built = manager.build(BASE, &history, &[]).unwrap();
    assert!(built.tokens <= manager.budget().unwrap());
    assert_eq!(built.trimmed, 0);
    assert!(built.system.contains(task.trim()), "task memory verbatim");
    assert!(
        built
            .system
            .contains("- The user asked about modules 0 and 1.")
    );
    assert!(built.system.contains("compacted by the model"));
    assert_eq!(built.messages.len(), 4);
    assert_eq!(built.messages[0].text(), "Turn 2: explain module 2");
}

#[test]
fn the_rule_summary_is_used_when_the_summary_request_would_not_fit() {
    let dir = tempfile::tempdir().unwrap();
    let mut manager = manager(dir.path(), Some(700));
    let history = long_conversation(&mut manager);
    let plan = manager.plan_summary(&history, false).unwrap();
    assert!(
        plan.request.is_none(),
        "the summary request itself overflows"
    );
    let summary = manager.rule_summary(&history, plan.end);
    assert!(
        summary.contains("Requests:\n- Turn 0: explain module 0\n- Turn 1"),
        "{summary}"
    );
    assert!(
        summary.contains("Decision: module 1 stays as it is."),
        "{summary}"
    );
    manager.apply_summary(plan.end, &summary, CompactionMethod::Rules);
    let built = manager.build(BASE, &history, &[]).unwrap();
    assert!(built.tokens <= manager.budget().unwrap());
    assert!(built.system.contains("compacted by rules"));
    assert!(pairs_are_valid(&built.messages));
}

#[test]
fn stale_file_contents_are_stubbed_after_five_quiet_turns() {
    let dir = tempfile::tempdir().unwrap();
    let mut manager = manager(dir.path(), Some(100_000));
    let mut history = vec![Message::user("read the config")];
    history.extend(read_round(
        "r",
        "config.toml",
        &"key = \"value\"\n".repeat(100),
    ));
    for turn in 0..5 {
        history.push(Message::user(format!("question {turn}")));
        history.push(Message::assistant("answer"));
    }
    assert_eq!(manager.drop_stale(&history), 1);
    let built = manager.build(BASE, &history, &[]).unwrap();
    let ContentBlock::ToolResult(result) = &built.messages[2].content[0] else {
        panic!("a result")
    };
    assert!(
        result.content.starts_with("[hone] Removed to save context"),
        "{}",
        result.content
    );
    assert!(result.content.contains("`config.toml`"));
}

#[test]
fn files_that_may_hold_secrets_are_never_tracked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".env"), "API_KEY=1\n").unwrap();
    std::fs::write(dir.path().join("notes.md"), "notes\n").unwrap();
    let mut manager = manager(dir.path(), Some(50_000));
    let report = manager
        .track(&[".env".to_string(), "*.md".to_string()], TrackMode::Full)
        .unwrap();
    assert_eq!(report.added, ["notes.md"]);
    assert!(
        report.skipped[0].contains("`.env` may hold secrets"),
        "{report:?}"
    );
}

#[test]
fn only_the_newest_snapshot_of_a_tracked_file_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.md"), "version one\n").unwrap();
    let mut manager = manager(dir.path(), Some(50_000));
    let report = manager
        .track(&["*.md".to_string()], TrackMode::Full)
        .unwrap();
    assert_eq!(report.added, ["notes.md"]);
    assert_eq!(report.files[0].mode, TrackMode::Full);

    let mut request = Message::user("update the notes");
    let attached = manager.attach_pending(&mut request);
    assert_eq!(attached.paths, ["notes.md"]);
    assert_eq!(
        request.text(),
        "<tracked_file path=\"notes.md\" mode=\"full\" lines=\"1\">\nversion one\n</tracked_file>update the notes"
    );
    let mut history = vec![request];
    let [call, mut results] = read_round("w", "notes.md", "applied: write notes.md");
    std::fs::write(dir.path().join("notes.md"), "version two\n").unwrap();
    let refreshed = manager.refresh_changed(&mut results);
    assert_eq!(refreshed.paths, ["notes.md"]);
    history.push(call);
    history.push(results);
    let mut unchanged = Message::user("[hone] nothing");
    assert!(manager.refresh_changed(&mut unchanged).paths.is_empty());

    let built = manager.build(BASE, &history, &[]).unwrap();
    let sent: String = built.messages.iter().map(Message::text).collect();
    assert!(!sent.contains("version one"), "{sent}");
    assert_eq!(sent.matches("<tracked_file path=\"notes.md\"").count(), 1);
    assert!(sent.contains("version two"));
    assert!(sent.contains("update the notes"));

    let report = manager.untrack(&["notes.md".to_string()]);
    assert_eq!(report.removed, ["notes.md"]);
    assert!(report.files.is_empty());
    let built = manager.build(BASE, &history, &[]).unwrap();
    let sent: String = built.messages.iter().map(Message::text).collect();
    assert!(!sent.contains("version two"), "{sent}");
    assert!(sent.contains("is no longer tracked"));
}

#[test]
fn the_state_survives_a_snapshot_and_restore() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.rs"), "fn a() {}\n").unwrap();
    let mut first = manager(dir.path(), Some(6_000));
    let history = long_conversation(&mut first);
    first
        .track(&["a.rs".to_string()], TrackMode::Outline)
        .unwrap();
    let plan = first.plan_summary(&history, false).unwrap();
    first.apply_summary(plan.end, "summary", CompactionMethod::Model);
    let saved = first.snapshot();

    let mut second = manager(dir.path(), Some(6_000));
    second.restore(saved.clone()).unwrap();
    assert_eq!(second.snapshot(), saved);
    assert_eq!(second.task(), first.task());
    assert_eq!(second.boundary(), 8);
    assert_eq!(second.tracked()[0].mode, TrackMode::Outline);
    assert_eq!(
        second.build(BASE, &history, &[]).unwrap(),
        first.build(BASE, &history, &[]).unwrap()
    );
    assert!(second.restore(serde_json::json!({"version": 99})).is_err());
    assert_eq!(second.boundary(), 8, "a bad state leaves the current one");

    let mut replayed = manager(dir.path(), Some(6_000));
    replayed.replay(&history);
    assert_eq!(replayed.task(), first.task());
}

#[test]
fn a_tracked_file_keeps_its_snapshot_when_its_turn_is_compacted() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.rs"), "fn a() {}\n").unwrap();
    let mut manager = manager(dir.path(), Some(50_000));
    manager
        .track(&["a.rs".to_string()], TrackMode::Full)
        .unwrap();
    let mut first = Message::user("first question");
    manager.attach_pending(&mut first);
    let history = vec![
        first,
        Message::assistant("first answer"),
        Message::user("second question"),
        Message::assistant("second answer"),
    ];
    let plan = manager.plan_summary(&history, true).unwrap();
    assert_eq!(plan.end, 2);
    manager.apply_summary(plan.end, "- asked a question", CompactionMethod::Model);
    let built = manager.build(BASE, &history, &[]).unwrap();
    assert_eq!(built.messages.len(), 2);
    assert_eq!(
        built.messages[0].text(),
        "<tracked_file path=\"a.rs\" mode=\"full\" lines=\"1\">\nfn a() {}\n</tracked_file>second question"
    );
    assert!(!built.messages[0].text().contains("first question"));
}

#[test]
fn the_system_prompt_stays_the_same_while_nothing_is_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let mut manager = manager(dir.path(), Some(200_000));
    let mut history = Vec::new();
    let mut systems = Vec::new();
    for turn in 0..3 {
        let request = format!("Turn {turn}: explain module {turn}");
        manager.on_request(&request);
        history.push(Message::user(request));
        systems.push(manager.build(BASE, &history, &[]).unwrap().system);
        let round = read_round(&format!("c{turn}"), "src/lib.rs", "pub fn f() {}\n");
        manager.on_round(
            &round[0].tool_calls().cloned().collect::<Vec<_>>(),
            &round[1],
        );
        history.extend(round);
        systems.push(manager.build(BASE, &history, &[]).unwrap().system);
        let answer = Message::assistant(format!("Decision: module {turn} is fine."));
        manager.on_assistant(&answer);
        history.push(answer);
    }
    assert!(
        systems.iter().all(|system| system == &systems[0]),
        "{systems:#?}"
    );
    assert!(!systems[0].contains("# Task memory"), "{}", systems[0]);
}

#[test]
fn the_task_memory_appears_when_messages_are_trimmed() {
    let dir = tempfile::tempdir().unwrap();
    let mut manager = ContextManager::new(
        ContextConfig {
            window: Some(3_000),
            settings: ContextSettings {
                compact_threshold: 0.0,
                ..ContextSettings::default()
            },
            ..ContextConfig::default()
        },
        dir.path(),
        "local-model",
    );
    let history = long_conversation(&mut manager);
    let built = manager.build(BASE, &history, &[]).unwrap();
    assert!(
        built.trimmed > 0,
        "the conversation is larger than the window"
    );
    assert!(
        built
            .system
            .contains("Original request:\nTurn 0: explain module 0"),
        "{}",
        built.system
    );
    assert!(built.tokens <= manager.budget().unwrap());
}
