//! Code blocks of a final answer as edits, through a real session against a mock model.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use hone_api::{ApprovalDecision, Event, EventFrame, Request, TurnEnd};
use hone_config::{ApiKey, ProviderConfig, preset};
use hone_core::{SessionConfig, SessionHandle};
use hone_policy::{ApprovalMode, CommandPolicy, Permissions};
use hone_testkit::{MockServer, Reply};
use hone_tools::edit::natural::{CodeMapper, Definition, DefinitionKind};
use tokio::sync::mpsc::UnboundedReceiver;

/// Definitions of a toy language (`.ts` files here): `function NAME(` starts one at
/// column 0 (after `export `), the next line that is `}` ends it; an unbalanced brace is a syntax error.
#[derive(Debug)]
struct ToyMapper;

impl CodeMapper for ToyMapper {
    fn definitions(&self, path: &str, source: &str) -> Option<Vec<Definition>> {
        if !path.ends_with(".ts") {
            return None;
        }
        let mut definitions = Vec::new();
        let mut offset = 0;
        let mut open: Option<(String, usize, usize)> = None;
        for line in source.split_inclusive('\n') {
            let exported = line.strip_prefix("export ");
            if let Some(rest) = exported.unwrap_or(line).strip_prefix("function ") {
                let name = rest.split('(').next().unwrap_or_default().to_string();
                let inner = offset + if exported.is_some() { 7 } else { 0 };
                open = Some((name, offset, inner));
            }
            if line.trim_end() == "}"
                && let Some((name, start, inner)) = open.take()
            {
                let end = offset + line.trim_end().len();
                definitions.push(Definition {
                    name,
                    kind: DefinitionKind::Function,
                    outer: start..end,
                    inner: inner..end,
                    members: Vec::new(),
                    insert_at: None,
                });
            }
            offset += line.len();
        }
        Some(definitions)
    }

    fn syntax_errors(&self, path: &str, source: &str) -> Option<usize> {
        path.ends_with(".ts").then(|| {
            source
                .matches('{')
                .count()
                .abs_diff(source.matches('}').count())
        })
    }
}

const MATH: &str = "export function add(a: number, b: number): number {\n  return a - b;\n}\n";
const FIXED: &str = "export function add(a: number, b: number): number {\n  return a + b;\n}\n";
const FIX_REPLY: &str = "Here is the corrected function:\n\n```ts\nfunction add(a: number, b: number): number {\n  return a + b;\n}\n```\n";
const REQUEST: &str = "The add function in src/math.ts subtracts instead of adding. Fix it.";

struct Harness {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    server: MockServer,
    handle: SessionHandle,
    events: UnboundedReceiver<EventFrame>,
}

async fn harness(
    mode: ApprovalMode,
    interactive: bool,
    files: &[(&str, &str)],
    replies: Vec<Reply>,
) -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for (path, content) in files {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, content).unwrap();
    }
    let server = MockServer::start().await;
    for reply in replies {
        server.enqueue(reply.openai_chat());
    }
    let mut config = ProviderConfig::from_preset(preset("openai").unwrap());
    config.base_url = server.url();
    config.api_key = Some(ApiKey::new("key-for-tests-123"));
    let provider = hone_providers::build_provider(config).unwrap();
    let (handle, events) = hone_core::start_session(SessionConfig {
        root: root.clone(),
        provider,
        model: String::new(),
        permissions: Permissions::new(mode, CommandPolicy::default()),
        max_tool_rounds: 25,
        interactive,
        audit: false,
        secrets: Vec::new(),
        extra_tools: Vec::new(),
        tool_sources: Vec::new(),
        repo_map: None,
        prompt_profile: hone_core::PromptProfile::Full,
        memory: None,
        context: hone_core::ContextConfig::default(),
        code_mapper: Some(Arc::new(ToyMapper)),
        checks: hone_core::ChecksConfig::disabled(),
        commands: Default::default(),
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

impl Harness {
    async fn turn(&mut self, text: &str, answer: Option<ApprovalDecision>) -> Vec<Event> {
        self.handle.send(Request::user_message(text));
        let mut seen = Vec::new();
        loop {
            let event = tokio::time::timeout(Duration::from_secs(20), self.events.recv())
                .await
                .expect("no event for 20 s")
                .expect("session alive")
                .event;
            if let (Event::ApprovalNeeded { call_id, .. }, Some(decision)) = (&event, &answer) {
                self.handle.send(Request::Approval {
                    call_id: call_id.clone(),
                    decision: decision.clone(),
                });
            }
            let done = matches!(
                event,
                Event::TurnCompleted { .. }
                    | Event::TurnFailed { .. }
                    | Event::TurnCancelled { .. }
            );
            seen.push(event);
            if done {
                return seen;
            }
        }
    }

    fn file(&self, path: &str) -> String {
        std::fs::read_to_string(self.root.join(path)).unwrap()
    }

    /// The text of the newest user message of request `index`.
    fn last_user_text(&self, index: usize) -> String {
        let body = self.server.requests()[index].json();
        let messages = body["messages"].as_array().unwrap();
        let last = messages.last().unwrap();
        assert_eq!(last["role"], "user");
        last["content"].as_str().unwrap_or_default().to_string()
    }
}

fn count(events: &[Event], predicate: impl Fn(&Event) -> bool) -> usize {
    events.iter().filter(|event| predicate(event)).count()
}

fn answered(events: &[Event]) -> bool {
    ended(events, TurnEnd::Answered)
}

fn ended(events: &[Event], end: TurnEnd) -> bool {
    matches!(
        events.last(),
        Some(Event::TurnCompleted { end: last, .. }) if *last == end
    )
}

#[tokio::test]
async fn a_fenced_fix_is_applied_under_auto_edit_and_the_model_is_told() {
    let mut h = harness(
        ApprovalMode::AutoEdit,
        false,
        &[("src/math.ts", MATH)],
        vec![
            Reply::new().text(FIX_REPLY),
            Reply::new().text("Fixed: add now adds."),
        ],
    )
    .await;
    let events = h.turn(REQUEST, None).await;
    assert!(answered(&events));
    assert_eq!(h.file("src/math.ts"), FIXED);
    assert_eq!(
        count(&events, |e| matches!(e, Event::DiffProposed { .. })),
        1
    );
    assert_eq!(
        count(&events, |e| matches!(e, Event::DiffApplied { .. })),
        1
    );
    assert_eq!(h.server.request_count(), 2);
    // The code block applied as an edit is an action of the turn, like a tool call.
    let Some(Event::TurnCompleted { stats, .. }) = events.last() else {
        panic!("{events:?}");
    };
    assert_eq!(stats.tool_calls, 1, "{stats:?}");
    assert_eq!(stats.model_requests, 2, "{stats:?}");
    let note = h.last_user_text(1);
    assert!(note.contains("applied as an edit"), "{note}");
    assert!(
        note.contains("replaced function `add` in src/math.ts"),
        "{note}"
    );

    h.handle.send(Request::Undo { count: 1 });
    let undone = h.events.recv().await.unwrap().event;
    assert!(matches!(undone, Event::UndoCompleted { .. }), "{undone:?}");
    assert_eq!(h.file("src/math.ts"), MATH);
}

#[tokio::test]
async fn without_approval_the_change_is_shown_and_not_applied() {
    let mut h = harness(
        ApprovalMode::Ask,
        false,
        &[("src/math.ts", MATH)],
        vec![
            Reply::new().text(FIX_REPLY),
            Reply::new().text("I could not apply it."),
        ],
    )
    .await;
    let events = h.turn(REQUEST, None).await;
    // The change was proposed and refused: the turn did not do the job.
    assert!(ended(&events, TurnEnd::NotApplied), "{events:?}");
    assert_eq!(h.file("src/math.ts"), MATH);
    let diff = events.iter().find_map(|event| match event {
        Event::DiffProposed { diff, .. } => Some(diff.clone()),
        _ => None,
    });
    assert!(diff.unwrap().contains("+  return a + b;"));
    assert_eq!(count(&events, |e| matches!(e, Event::ToolDenied { .. })), 1);
    assert!(h.last_user_text(1).contains("not applied"));
}

#[tokio::test]
async fn a_user_who_denies_the_change_keeps_the_file() {
    let mut h = harness(
        ApprovalMode::Ask,
        true,
        &[("src/math.ts", MATH)],
        vec![
            Reply::new().text(FIX_REPLY),
            Reply::new().text("Left as it is."),
        ],
    )
    .await;
    let events = h
        .turn(REQUEST, Some(ApprovalDecision::Deny { message: None }))
        .await;
    assert!(ended(&events, TurnEnd::NotApplied), "{events:?}");
    assert_eq!(
        count(&events, |e| matches!(e, Event::ApprovalNeeded { .. })),
        1
    );
    assert_eq!(h.file("src/math.ts"), MATH);
}

#[tokio::test]
async fn an_ambiguous_block_asks_the_model_which_file() {
    let files = [("src/a.ts", MATH), ("src/b.ts", MATH)];
    let labelled = format!(
        "src/b.ts\n{}",
        FIX_REPLY.trim_start_matches("Here is the corrected function:\n\n")
    );
    let mut h = harness(
        ApprovalMode::AutoEdit,
        false,
        &files,
        vec![
            Reply::new().text(FIX_REPLY),
            Reply::new().text(&labelled),
            Reply::new().text("Done."),
        ],
    )
    .await;
    let events = h.turn("The add function subtracts. Fix it.", None).await;
    assert!(answered(&events));
    let question = h.last_user_text(1);
    assert!(question.contains("src/a.ts and src/b.ts"), "{question}");
    assert!(question.contains("Which file"), "{question}");
    assert_eq!(h.file("src/a.ts"), MATH);
    assert_eq!(h.file("src/b.ts"), FIXED);
}

#[tokio::test]
async fn elided_code_is_refused_once_and_every_file_stays_byte_identical() {
    let elided = "```ts\nfunction add(a: number, b: number): number {\n  // ... existing code ...\n  return a + b;\n}\n```";
    let mut h = harness(
        ApprovalMode::AutoEdit,
        false,
        &[("src/math.ts", MATH)],
        vec![
            Reply::new().text(elided),
            Reply::new().text(elided),
            Reply::new().text(elided),
        ],
    )
    .await;
    let events = h.turn(REQUEST, None).await;
    // A change was asked for and none was made.
    assert!(ended(&events, TurnEnd::NoChange), "{events:?}");
    assert_eq!(h.file("src/math.ts"), MATH);
    assert_eq!(
        count(&events, |e| matches!(e, Event::DiffProposed { .. })),
        0
    );
    let note = h.last_user_text(1);
    assert!(note.contains("existing code"), "{note}");
    // One refusal and one repair round, then the answer stands.
    assert_eq!(h.server.request_count(), 3);
}

#[tokio::test]
async fn a_question_answered_with_example_code_changes_nothing() {
    let example = "`add` returns the difference, for example:\n\n```ts\nfunction add(a: number, b: number): number {\n  return a + b;\n}\n```";
    let mut h = harness(
        ApprovalMode::AutoEdit,
        false,
        &[("src/math.ts", MATH)],
        vec![
            Reply::new().text(example),
            Reply::new().text("```ts\nconst total = add(1, 2);\n```"),
        ],
    )
    .await;
    let events = h.turn("What does add do?", None).await;
    assert!(answered(&events));
    assert_eq!(h.server.request_count(), 1);
    let events = h.turn("Show me how to call it", None).await;
    assert!(answered(&events));
    assert_eq!(h.server.request_count(), 2);
    assert_eq!(h.file("src/math.ts"), MATH);
}

#[tokio::test]
async fn a_search_replace_block_works_without_a_mapper_for_the_language() {
    let reply = "notes.txt\n<<<<<<< SEARCH\nbeta\n=======\nBETA\n>>>>>>> REPLACE\n";
    let mut h = harness(
        ApprovalMode::AutoEdit,
        false,
        &[("notes.txt", "alpha\nbeta\n")],
        vec![Reply::new().text(reply), Reply::new().text("Done.")],
    )
    .await;
    let events = h.turn("Make beta upper case", None).await;
    assert!(answered(&events));
    assert_eq!(h.file("notes.txt"), "alpha\nBETA\n");
}

#[tokio::test]
async fn code_in_the_answer_after_a_tool_edit_is_taken_as_a_description() {
    let mut h = harness(
        ApprovalMode::AutoEdit,
        false,
        &[("src/math.ts", MATH)],
        vec![
            Reply::new().tool_call(
                "edit_file",
                serde_json::json!({"path": "src/math.ts", "old_text": "a - b", "new_text": "b + a"}),
            ),
            Reply::new().text(FIX_REPLY),
        ],
    )
    .await;
    let events = h.turn(REQUEST, None).await;
    assert!(answered(&events));
    assert_eq!(h.file("src/math.ts"), MATH.replace("a - b", "b + a"));
    assert_eq!(h.server.request_count(), 2);
}

#[tokio::test]
async fn code_copied_unchanged_gets_a_second_try_then_fails_the_turn() {
    let copied = format!("```ts src/math.ts\n{MATH}```");
    let mut h = harness(
        ApprovalMode::AutoEdit,
        false,
        &[("src/math.ts", MATH)],
        vec![
            Reply::new().text(&copied),
            Reply::new().text(&copied),
            Reply::new().text(&copied),
        ],
    )
    .await;
    let events = h.turn(REQUEST, None).await;
    assert!(
        matches!(
            events.last(),
            Some(Event::TurnCompleted {
                end: TurnEnd::RepeatedFailure,
                ..
            })
        ),
        "{:?}",
        events.last()
    );
    assert_eq!(h.file("src/math.ts"), MATH);
    let note = h.last_user_text(1);
    assert!(note.contains("identical"), "{note}");
    // The request is repeated to the model with the note.
    assert!(
        note.contains(&format!("The request was: {REQUEST}")),
        "{note}"
    );
    // The agent loop keeps the provider's sampling on a retry.
    assert!(h.server.requests()[1].json().get("temperature").is_none());
    assert_eq!(h.server.request_count(), 3);
}

#[tokio::test]
async fn a_second_try_that_changes_the_code_is_applied() {
    let copied = format!("```ts src/math.ts\n{MATH}```");
    let mut h = harness(
        ApprovalMode::AutoEdit,
        false,
        &[("src/math.ts", MATH)],
        vec![
            Reply::new().text(&copied),
            Reply::new().text(FIX_REPLY),
            Reply::new().text("Fixed: add now adds."),
        ],
    )
    .await;
    let events = h.turn(REQUEST, None).await;
    assert!(answered(&events));
    assert_eq!(h.file("src/math.ts"), FIXED);
}
