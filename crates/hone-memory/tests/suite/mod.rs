//! The session store's behaviour, one function per case taking a fresh store, run against
//! every backend: SQLite here (`tests/store.rs`), Redis in `hone-store-redis`
//! (`tests/sessions.rs`, which includes this file). `session_suite!(OPEN)` makes one test per
//! case, where `OPEN` gives `Option<(guard, SessionStore)>` (`None` skips the case).
#![allow(dead_code)]

use hone_memory::{
    EditState, ExportFormat, MemoryError, MessageStats, NewSession, SessionStats, SessionStore,
};
use hone_protocol::{ContentBlock, ImageRef, Message, Role, ToolCall, ToolResult, Usage};
use hone_tools::edit::AppliedEdit;
use hone_tools::{FileChange, FileState, TextEncoding};

/// One test per case of this suite, each on the store `$open` gives.
macro_rules! session_suite {
    ($open:expr) => {
        session_suite!(@each $open; every_content_block_round_trips, the_title_is_the_first_user_text, appending_to_an_unknown_session_fails_cleanly, ids_are_found_by_unique_prefix, listing_is_per_project_newest_activity_first, stats_add_up, context_state_is_opaque_json, a_fork_copies_messages_and_leaves_the_original, deleting_a_session_removes_its_messages_and_journal, input_history_skips_repeats_and_keeps_a_cap, the_journal_keeps_the_newest_entries_of_each_project, exports_carry_every_message, exports_show_escape_sequences_rather_than_replay_them, a_run_that_failed_before_the_first_answer_is_not_listed, the_latest_conversation_leaves_out_one_shot_runs);
    };
    (@each $open:expr; $($case:ident),* $(,)?) => {
        $(
            #[test]
            fn $case() {
                let Some((_guard, store)) = $open else { return };
                suite::$case(store);
            }
        )*
    };
}

pub fn new_session(project: &str) -> NewSession {
    NewSession {
        project: project.into(),
        provider: "openai".into(),
        model: "gpt-test".into(),
    }
}

/// One message with every kind of content block.
pub fn every_block() -> Vec<Message> {
    vec![
        Message {
            role: Role::User,
            content: vec![
                ContentBlock::Text {
                    text: "look at this screenshot".into(),
                },
                ContentBlock::Image(ImageRef::Base64 {
                    media_type: "image/png".into(),
                    data: "iVBORw0KGgo=".into(),
                }),
                ContentBlock::Image(ImageRef::Url {
                    url: "https://example.com/a.png".into(),
                }),
            ],
        },
        Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::Thinking {
                    text: "the user wants…".into(),
                    signature: Some("sig-123".into()),
                },
                ContentBlock::Thinking {
                    text: "no signature".into(),
                    signature: None,
                },
                ContentBlock::Text {
                    text: "Reading it — ünïcödé ✓".into(),
                },
                ContentBlock::ToolCall(ToolCall {
                    id: "call_0".into(),
                    name: "read_file".into(),
                    arguments: "{\"path\": \"src/a.rs\"".into(),
                }),
            ],
        },
        Message {
            role: Role::User,
            content: vec![ContentBlock::ToolResult(ToolResult {
                call_id: "call_0".into(),
                name: "read_file".into(),
                content: "fn main() {}\n".into(),
                is_error: true,
                effect: Default::default(),
            })],
        },
    ]
}

pub fn edit(path: &str, before: &str, after: &str) -> AppliedEdit {
    AppliedEdit {
        changes: vec![FileChange {
            path: path.into(),
            before: Some(FileState {
                content: before.into(),
                hash: hone_tools::files::hash_bytes(before.as_bytes()),
                encoding: TextEncoding::Utf8,
                mode: None,
            }),
            after: Some(after.into()),
            rename_to: None,
            written: None,
        }],
        summary: format!("edit {path}"),
    }
}

pub fn every_content_block_round_trips(mut store: SessionStore) {
    let session = store.create(&new_session("/p")).unwrap();
    let usage = Usage {
        input_tokens: 120,
        output_tokens: 7,
        cached_input_tokens: 100,
        reasoning_tokens: 3,
        ..Usage::default()
    };
    for message in every_block() {
        let stats = MessageStats {
            usage: (message.role == Role::Assistant).then_some(usage),
            model: (message.role == Role::Assistant).then(|| "gpt-test".to_string()),
        };
        store.append_message(&session.id, &message, &stats).unwrap();
    }
    let stored = store.messages(&session.id).unwrap();
    let messages: Vec<Message> = stored.iter().map(|stored| stored.message.clone()).collect();
    assert_eq!(messages, every_block());
    assert_eq!(
        stored.iter().map(|stored| stored.seq).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    assert_eq!(stored[1].stats.usage, Some(usage));
    assert_eq!(stored[0].stats, MessageStats::default());
    let info = store.get(&session.id).unwrap().unwrap();
    assert_eq!(info.title, "look at this screenshot");
    assert_eq!(info.messages, 3);
}

pub fn the_title_is_the_first_user_text(mut store: SessionStore) {
    let session = store.create(&new_session("/p")).unwrap();
    let results = every_block().pop().unwrap();
    store
        .append_message(&session.id, &results, &MessageStats::default())
        .unwrap();
    assert_eq!(store.find(&session.id).unwrap().title, "");
    for text in ["  first task  ", "second"] {
        store
            .append_message(&session.id, &Message::user(text), &MessageStats::default())
            .unwrap();
    }
    assert_eq!(store.find(&session.id).unwrap().title, "first task");
}

pub fn appending_to_an_unknown_session_fails_cleanly(mut store: SessionStore) {
    let error = store
        .append_message("NOPE", &Message::user("x"), &MessageStats::default())
        .unwrap_err();
    assert!(matches!(error, MemoryError::NotFound { .. }), "{error}");
}

pub fn ids_are_found_by_unique_prefix(mut store: SessionStore) {
    let one = store.create(&new_session("/p")).unwrap();
    let two = store.create(&new_session("/p")).unwrap();
    assert_ne!(one.id, two.id);
    assert_eq!(store.find(&one.id.to_lowercase()).unwrap().id, one.id);
    let common = one
        .id
        .chars()
        .zip(two.id.chars())
        .take_while(|(a, b)| a == b)
        .count();
    let ambiguous = &one.id[..common];
    if !ambiguous.is_empty() {
        let error = store.find(ambiguous).unwrap_err();
        assert!(matches!(error, MemoryError::Ambiguous { .. }), "{error}");
    }
    assert_eq!(store.find(&two.id[..=common]).unwrap().id, two.id);
    assert!(matches!(
        store.find("ZZZZ").unwrap_err(),
        MemoryError::NotFound { .. }
    ));
    assert!(matches!(
        store.find("").unwrap_err(),
        MemoryError::NotFound { .. }
    ));
}

pub fn listing_is_per_project_newest_activity_first(mut store: SessionStore) {
    let older = store.create(&new_session("/a")).unwrap();
    let other = store.create(&new_session("/b")).unwrap();
    let newer = store.create(&new_session("/a")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(5));
    store
        .append_message(&older.id, &Message::user("again"), &MessageStats::default())
        .unwrap();
    store
        .append_message(
            &older.id,
            &Message::assistant("yes"),
            &MessageStats::default(),
        )
        .unwrap();
    let ids = |sessions: Vec<hone_memory::SessionInfo>| -> Vec<String> {
        sessions.into_iter().map(|session| session.id).collect()
    };
    assert_eq!(
        ids(store.list(Some("/a"), 10).unwrap()),
        [older.id.clone(), newer.id.clone()]
    );
    assert_eq!(store.list(None, 10).unwrap().len(), 3);
    assert_eq!(store.list(None, 1).unwrap().len(), 1);
    assert_eq!(
        store.latest_for_project("/a").unwrap().unwrap().id,
        older.id
    );
    assert_eq!(
        store.latest_for_project("/b").unwrap().unwrap().id,
        other.id
    );
    assert!(store.latest_for_project("/c").unwrap().is_none());
}

pub fn stats_add_up(mut store: SessionStore) {
    let session = store.create(&new_session("/p")).unwrap();
    let turn = SessionStats {
        tokens_in: 100,
        tokens_out: 10,
        cached_tokens: 50,
        duration_ms: 1500,
        turns: 1,
        tool_calls: 3,
        edits_applied: 2,
        edits_rejected: 1,
    };
    store.add_stats(&session.id, &turn).unwrap();
    store.add_stats(&session.id, &turn).unwrap();
    let stats = store.find(&session.id).unwrap().stats;
    assert_eq!(stats.tokens_in, 200);
    assert_eq!(stats.turns, 2);
    assert_eq!(stats.edits_applied, 4);
    assert_eq!(stats.edits_rejected, 2);
    store.set_model(&session.id, "anthropic", "claude").unwrap();
    let info = store.find(&session.id).unwrap();
    assert_eq!(
        (info.provider.as_str(), info.model.as_str()),
        ("anthropic", "claude")
    );
}

pub fn context_state_is_opaque_json(mut store: SessionStore) {
    let session = store.create(&new_session("/p")).unwrap();
    assert_eq!(store.context_state(&session.id).unwrap(), None);
    let state = serde_json::json!({"task": "fix add", "summary": ["one", "two"]});
    store.set_context_state(&session.id, &state).unwrap();
    assert_eq!(store.context_state(&session.id).unwrap(), Some(state));
    assert!(
        store
            .set_context_state("NOPE", &serde_json::json!(1))
            .is_err()
    );
}

pub fn a_fork_copies_messages_and_leaves_the_original(mut store: SessionStore) {
    let session = store.create(&new_session("/p")).unwrap();
    for message in every_block() {
        store
            .append_message(&session.id, &message, &MessageStats::default())
            .unwrap();
    }
    store
        .set_context_state(&session.id, &serde_json::json!({"step": 2}))
        .unwrap();
    let fork = store.fork(&session.id[..10]).unwrap();
    assert_ne!(fork.id, session.id);
    assert_eq!(fork.forked_from.as_deref(), Some(session.id.as_str()));
    assert_eq!(fork.messages, 3);
    assert_eq!(fork.title, "look at this screenshot");
    assert_eq!(
        store.context_state(&fork.id).unwrap(),
        Some(serde_json::json!({"step": 2}))
    );
    store
        .append_message(
            &fork.id,
            &Message::user("only in the fork"),
            &MessageStats::default(),
        )
        .unwrap();
    assert_eq!(store.messages(&fork.id).unwrap().len(), 4);
    assert_eq!(store.messages(&session.id).unwrap().len(), 3);
    assert!(store.fork("NOPE").is_err());
}

pub fn deleting_a_session_removes_its_messages_and_journal(mut store: SessionStore) {
    let doomed = store.create(&new_session("/p")).unwrap();
    let kept = store.create(&new_session("/p")).unwrap();
    for id in [&doomed.id, &kept.id] {
        store
            .append_message(id, &Message::user("hi"), &MessageStats::default())
            .unwrap();
        store
            .record_edit("/p", id, &edit("a.txt", "1", "2"), 10)
            .unwrap();
    }
    assert!(store.delete(&doomed.id).unwrap());
    assert!(!store.delete(&doomed.id).unwrap());
    assert!(store.get(&doomed.id).unwrap().is_none());
    assert!(store.messages(&doomed.id).unwrap().is_empty());
    let stack = store.undo_stack("/p", 10).unwrap();
    assert_eq!(stack.len(), 1);
    assert_eq!(stack[0].session_id, kept.id);
    assert_eq!(store.messages(&kept.id).unwrap().len(), 1);
}

pub fn input_history_skips_repeats_and_keeps_a_cap(mut store: SessionStore) {
    for text in ["one", "two", "two", "  ", "one", "three"] {
        store.push_input("/p", text, 3).unwrap();
    }
    store.push_input("/other", "elsewhere", 3).unwrap();
    assert_eq!(
        store.input_history("/p", 10).unwrap(),
        ["three", "one", "two"]
    );
    assert_eq!(store.input_history("/p", 1).unwrap(), ["three"]);
    assert_eq!(store.input_history("/other", 10).unwrap(), ["elsewhere"]);
    assert!(!store.push_input("/p", "three", 3).unwrap());
}

pub fn the_journal_keeps_the_newest_entries_of_each_project(mut store: SessionStore) {
    let session = store.create(&new_session("/p")).unwrap();
    for index in 0..5 {
        store
            .record_edit("/p", &session.id, &edit(&format!("f{index}"), "a", "b"), 3)
            .unwrap();
    }
    store
        .record_edit("/q", &session.id, &edit("other", "a", "b"), 3)
        .unwrap();
    let stack = store.undo_stack("/p", 10).unwrap();
    let summaries: Vec<&str> = stack
        .iter()
        .map(|entry| entry.edit.summary.as_str())
        .collect();
    assert_eq!(summaries, ["edit f4", "edit f3", "edit f2"]);
    assert_eq!(store.undo_stack("/p", 2).unwrap().len(), 2);
    assert_eq!(stack[0].edit, edit("f4", "a", "b"));

    // Undone entries leave the stack; pending ones are listed until settled.
    store.mark_undone(&[stack[0].seq]).unwrap();
    let pending = store
        .record_pending("/p", &session.id, &edit("f5", "a", "b"))
        .unwrap();
    let stack = store.undo_stack("/p", 10).unwrap();
    assert_eq!(stack[0].state, EditState::Pending);
    assert_eq!(stack.len(), 3);
    store.mark_applied(pending, 3).unwrap();
    assert_eq!(
        store.undo_stack("/p", 10).unwrap()[0].state,
        EditState::Applied
    );
    let discarded = store
        .record_pending("/p", &session.id, &edit("f6", "a", "b"))
        .unwrap();
    store.discard_edit(discarded).unwrap();
    let summaries: Vec<String> = store
        .undo_stack("/p", 10)
        .unwrap()
        .iter()
        .map(|entry| entry.edit.summary.clone())
        .collect();
    assert_eq!(summaries, ["edit f5", "edit f3", "edit f2"]);
}

pub fn exports_carry_every_message(mut store: SessionStore) {
    let session = store.create(&new_session("/p")).unwrap();
    for message in every_block() {
        store
            .append_message(&session.id, &message, &MessageStats::default())
            .unwrap();
    }
    let markdown = store.export(&session.id, ExportFormat::Markdown).unwrap();
    for needle in [
        "# look at this screenshot",
        "## User",
        "## Assistant",
        "## Tool results",
        "> the user wants…",
        "**call** `read_file`",
        "**result** of `read_file` (`call_0`) — error",
        "fn main() {}",
        "[image: image/png",
        "![image](https://example.com/a.png)",
        &session.id,
    ] {
        assert!(
            markdown.contains(needle),
            "missing {needle:?} in\n{markdown}"
        );
    }
    let json: serde_json::Value =
        serde_json::from_str(&store.export(&session.id, ExportFormat::Json).unwrap()).unwrap();
    assert_eq!(json["session"]["id"], session.id.as_str());
    let messages: Vec<Message> = json["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|stored| serde_json::from_value(stored["message"].clone()).unwrap())
        .collect();
    assert_eq!(messages, every_block());
}

pub fn exports_show_escape_sequences_rather_than_replay_them(mut store: SessionStore) {
    let session = store.create(&new_session("/p")).unwrap();
    let attack = "\x1b]52;c;cm0gLXJmIH4=\x07done\r\x1b[2K\u{9b}2J\u{202e}";
    for message in [Message::user("hi"), Message::assistant(attack)] {
        store
            .append_message(&session.id, &message, &MessageStats::default())
            .unwrap();
    }
    let markdown = store.export(&session.id, ExportFormat::Markdown).unwrap();
    assert!(
        !markdown.contains(['\x1b', '\x07', '\r', '\u{9b}', '\u{202e}']),
        "{markdown:?}"
    );
    assert!(
        markdown.contains(r"\x1b]52;c;cm0gLXJmIH4=\x07done\r\x1b[2K\u{9b}2J\u{202e}"),
        "{markdown}"
    );
    let json = store.export(&session.id, ExportFormat::Json).unwrap();
    assert!(
        !json.contains(['\x1b', '\x07', '\r', '\u{9b}', '\u{202e}']),
        "{json:?}"
    );
    let parsed: serde_json::Value = serde_json::from_str(&json).unwrap();
    let stored: Message = serde_json::from_value(parsed["messages"][1]["message"].clone()).unwrap();
    assert_eq!(
        stored.text(),
        attack,
        "the JSON export keeps the exact text"
    );
}

pub fn a_run_that_failed_before_the_first_answer_is_not_listed(mut store: SessionStore) {
    let answered = store.create(&new_session("/a")).unwrap();
    for message in [Message::user("q"), Message::assistant("a")] {
        store
            .append_message(&answered.id, &message, &MessageStats::default())
            .unwrap();
    }
    let failed = store.create(&new_session("/a")).unwrap();
    let user = |text: &str| Message::user(text);
    store
        .append_message(
            &failed.id,
            &user("never answered"),
            &MessageStats::default(),
        )
        .unwrap();
    assert_eq!(
        store.list(Some("/a"), 10).unwrap().len(),
        2,
        "not marked yet"
    );
    assert!(!store.mark_failed_if_unanswered(&answered.id).unwrap());
    assert!(store.mark_failed_if_unanswered(&failed.id).unwrap());
    let listed: Vec<String> = store
        .list(Some("/a"), 10)
        .unwrap()
        .into_iter()
        .map(|session| session.id)
        .collect();
    assert_eq!(listed, std::slice::from_ref(&answered.id));
    assert_eq!(
        store.latest_for_project("/a").unwrap().unwrap().id,
        answered.id
    );
    assert_eq!(
        store.find(&failed.id).unwrap().messages,
        1,
        "still findable"
    );
    store
        .append_message(
            &failed.id,
            &Message::assistant("late"),
            &MessageStats::default(),
        )
        .unwrap();
    assert_eq!(store.list(Some("/a"), 10).unwrap().len(), 2, "answered now");
}

pub fn the_latest_conversation_leaves_out_one_shot_runs(mut store: SessionStore) {
    assert_eq!(store.latest_conversation("/p").unwrap(), None);
    let talked = store.create(&new_session("/p")).unwrap();
    assert!(store.mark_conversation(&talked.id).unwrap());
    store.create(&new_session("/p")).unwrap();
    let other = store.create(&new_session("/q")).unwrap();
    assert!(store.mark_conversation(&other.id).unwrap());
    assert_eq!(store.list(Some("/p"), 10).unwrap().len(), 2);
    assert_eq!(
        store.latest_conversation("/p").unwrap().map(|s| s.id),
        Some(talked.id)
    );
    assert!(!store.mark_conversation("01NOSUCHSESSION").unwrap());
}
