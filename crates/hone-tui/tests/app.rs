//! The app as a state machine: keys and core events in, effects and screens out.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use hone_api::{ApprovalDecision, ConflictChoice, ErrorChoice, Event, Request, TurnEnd};
use hone_protocol::HoneError;
use hone_tui::{Effect, SessionStart};
use ratatui::crossterm::event::{Event as TermEvent, KeyCode, KeyEvent, KeyModifiers};

fn approval_needed(call_id: &str) -> Event {
    Event::ApprovalNeeded {
        call_id: call_id.into(),
        name: "edit_file".into(),
        summary: format!("edit src/math.js ({call_id})"),
        reason: "edits ask".into(),
        diff: Some(DIFF.into()),
        command: None,
        content: Some("x\n".into()),
    }
}

fn sent(effects: &[Effect]) -> Vec<Request> {
    effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::Send(request) => Some(request.clone()),
            _ => None,
        })
        .collect()
}

fn command(app: &mut hone_tui::App, line: &str) -> Vec<Effect> {
    let mut effects = type_text(app, line);
    effects.extend(app.on_terminal_event(key(KeyCode::Enter)));
    effects
}

#[test]
fn enter_sends_the_message_and_remembers_it() {
    let mut app = app();
    let effects = command(&mut app, "explain src/math.js");
    assert_eq!(
        sent(&effects),
        [Request::user_message("explain src/math.js")]
    );
    assert!(effects.contains(&Effect::RememberInput("explain src/math.js".into())));
    assert!(screen(&draw(&mut app, 80, 24)).contains("› explain src/math.js"));
}

#[test]
fn alt_enter_adds_a_line_instead_of_sending() {
    let mut app = app();
    type_text(&mut app, "one");
    let newline = TermEvent::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT));
    assert!(app.on_terminal_event(newline).is_empty());
    let effects = command(&mut app, "two");
    assert_eq!(sent(&effects), [Request::user_message("one\ntwo")]);
}

#[test]
fn approvals_answer_one_at_a_time() {
    let mut app = app();
    feed(&mut app, vec![started(), Event::TurnStarted { turn: 1 }]);
    assert!(feed(&mut app, vec![approval_needed("c1"), approval_needed("c2")]).is_empty());
    assert!(screen(&draw(&mut app, 80, 24)).contains("(c1)"));
    let effects = app.on_terminal_event(key(KeyCode::Char('y')));
    assert_eq!(
        sent(&effects),
        [Request::Approval {
            call_id: "c1".into(),
            decision: ApprovalDecision::Approve
        }]
    );
    assert!(
        screen(&draw(&mut app, 80, 24)).contains("(c2)"),
        "the next one opens"
    );
    app.on_terminal_event(key(KeyCode::Char('n')));
    let mut effects = type_text(&mut app, "use a patch");
    effects.extend(app.on_terminal_event(key(KeyCode::Enter)));
    assert_eq!(
        sent(&effects),
        [Request::Approval {
            call_id: "c2".into(),
            decision: ApprovalDecision::Deny {
                message: Some("use a patch".into())
            }
        }]
    );
    assert!(!screen(&draw(&mut app, 80, 24)).contains("approve edit_file?"));
}

#[test]
fn auto_apply_skips_the_dialog_and_shows_the_diff() {
    let mut app = app();
    feed(&mut app, vec![started(), Event::TurnStarted { turn: 1 }]);
    command(&mut app, "/auto-apply on");
    let effects = feed(&mut app, vec![approval_needed("c1")]);
    assert_eq!(
        sent(&effects),
        [Request::Approval {
            call_id: "c1".into(),
            decision: ApprovalDecision::Approve
        }]
    );
    feed(
        &mut app,
        vec![Event::DiffApplied {
            call_id: "c1".into(),
            paths: vec!["src/math.js".into()],
            diff: DIFF.into(),
        }],
    );
    let shown = screen(&draw(&mut app, 80, 24));
    assert!(!shown.contains("approve edit_file?"), "{shown}");
    assert!(
        shown.contains("return a + b;"),
        "the diff is in the conversation:\n{shown}"
    );
    assert!(
        shown.contains("auto-apply"),
        "the status bar says so:\n{shown}"
    );
}

#[test]
fn commands_still_ask_under_auto_apply() {
    let mut app = app_with("auto-edit");
    let effects = feed(
        &mut app,
        vec![Event::ApprovalNeeded {
            call_id: "c9".into(),
            name: "run_command".into(),
            summary: "run cargo test".into(),
            reason: "commands ask".into(),
            diff: None,
            command: Some("cargo test".into()),
            content: None,
        }],
    );
    assert!(sent(&effects).is_empty());
    assert!(screen(&draw(&mut app, 80, 24)).contains("$ cargo test"));
}

#[test]
fn ctrl_c_interrupts_then_quits() {
    let mut app = app();
    feed(
        &mut app,
        vec![
            started(),
            Event::TurnStarted { turn: 1 },
            approval_needed("c1"),
        ],
    );
    let effects = app.on_terminal_event(ctrl('c'));
    assert_eq!(sent(&effects), [Request::Cancel]);
    assert!(!app.should_quit());
    assert!(
        !screen(&draw(&mut app, 80, 24)).contains("approve edit_file?"),
        "the dialog closes"
    );
    let effects = app.on_terminal_event(ctrl('c'));
    assert!(effects.contains(&Effect::Quit));
    assert!(app.should_quit());
}

#[test]
fn ctrl_c_when_idle_clears_the_input_then_asks_before_quitting() {
    let mut app = app();
    type_text(&mut app, "draft");
    app.on_terminal_event(ctrl('c'));
    assert!(!app.should_quit());
    assert!(!screen(&draw(&mut app, 80, 24)).contains("draft"));
    app.on_terminal_event(ctrl('c'));
    assert!(screen(&draw(&mut app, 80, 24)).contains("press Ctrl+C again"));
    app.on_terminal_event(ctrl('c'));
    assert!(app.should_quit());
}

#[test]
fn ctrl_d_quits_and_ctrl_z_undoes() {
    let mut app = app();
    assert_eq!(
        sent(&app.on_terminal_event(ctrl('z'))),
        [Request::Undo { count: 1 }]
    );
    assert!(app.on_terminal_event(ctrl('d')).contains(&Effect::Quit));
}

#[test]
fn slash_commands_become_requests() {
    let mut app = app();
    feed(&mut app, vec![started()]);
    assert_eq!(
        sent(&command(&mut app, "/undo 2")),
        [Request::Undo { count: 2 }]
    );
    assert_eq!(sent(&command(&mut app, "/undo list")), [Request::ListUndo]);
    assert_eq!(sent(&command(&mut app, "/compact")), [Request::Compact]);
    assert_eq!(
        sent(&command(&mut app, "/add --summary src/**/*.rs")),
        [Request::TrackFiles {
            patterns: vec!["src/**/*.rs".into()],
            summary: true
        }]
    );
    assert_eq!(
        sent(&command(&mut app, "/drop src/**/*.rs")),
        [Request::UntrackFiles {
            patterns: vec!["src/**/*.rs".into()]
        }]
    );
    assert!(command(&mut app, "/clear").contains(&Effect::StartSession(SessionStart::default())));
    assert!(
        command(&mut app, "/model qwen3").contains(&Effect::StartSession(SessionStart {
            resume: Some("s-1".into()),
            model: Some("qwen3".into()),
        }))
    );
    assert!(command(&mut app, "/sessions").contains(&Effect::ListSessions));
    assert!(command(&mut app, "/reindex").contains(&Effect::Reindex));
    assert!(command(&mut app, "/mcp").contains(&Effect::McpStatus));
    // A name no built-in has may be a custom command: the host is asked (and says when
    // there is none).
    assert!(
        command(&mut app, "/review src/a.rs now").contains(&Effect::CustomCommand {
            line: "/review src/a.rs now".into(),
            name: "review".into(),
            arguments: "src/a.rs now".into(),
        })
    );
    assert!(sent(&command(&mut app, "/undo x")).is_empty());
    assert!(screen(&draw(&mut app, 100, 30)).contains("positive number"));
    assert!(command(&mut app, "/quit").contains(&Effect::Quit));
}

#[test]
fn the_popup_completes_and_runs_a_typed_command() {
    let mut app = app();
    type_text(&mut app, "/di");
    assert!(screen(&draw(&mut app, 80, 24)).contains("/diff"));
    app.on_terminal_event(key(KeyCode::Enter));
    assert!(screen(&draw(&mut app, 80, 24)).contains("no changes applied in this session"));
    // A command with arguments is completed, not run.
    type_text(&mut app, "/mod");
    let effects = app.on_terminal_event(key(KeyCode::Tab));
    assert!(effects.is_empty());
    assert!(screen(&draw(&mut app, 80, 24)).contains("│/model "));
}

#[test]
fn eval_asks_the_model_about_its_last_answer() {
    let mut app = app();
    command(&mut app, "how does add work?");
    let effects = command(&mut app, "/eval");
    let requests = sent(&effects);
    let [Request::UserMessage { text, .. }] = requests.as_slice() else {
        panic!("one message expected: {effects:?}");
    };
    assert!(text.contains("does not support"), "{text}");
}

#[test]
fn the_core_error_choice_answers_the_core() {
    let mut app = app();
    command(&mut app, "hello");
    feed(
        &mut app,
        vec![
            Event::TurnStarted { turn: 1 },
            Event::TurnError {
                error: hone_core::error_info(HoneError::provider("the server is overloaded")),
                choices: ErrorChoice::ALL.to_vec(),
            },
        ],
    );
    let shown = screen(&draw(&mut app, 80, 24));
    assert!(
        shown.contains("[r] retry") && shown.contains("[s] skip") && shown.contains("[a] abort"),
        "{shown}"
    );
    let effects = app.on_terminal_event(key(KeyCode::Char('a')));
    assert_eq!(
        sent(&effects),
        [Request::ErrorChoice {
            choice: ErrorChoice::Abort
        }]
    );
    feed(
        &mut app,
        vec![Event::TurnFailed {
            error: hone_core::error_info(HoneError::provider("the server is overloaded")),
            stats: stats(10, 0, 0, 0),
        }],
    );
    assert!(
        !screen(&draw(&mut app, 80, 24)).contains("[r] retry"),
        "no second dialog"
    );
}

#[test]
fn without_core_choices_a_failed_turn_can_be_retried() {
    let mut app = app();
    command(&mut app, "hello");
    feed(
        &mut app,
        vec![
            Event::TurnStarted { turn: 1 },
            Event::TurnFailed {
                error: hone_core::error_info(HoneError::network("unreachable")),
                stats: stats(10, 0, 0, 0),
            },
        ],
    );
    let effects = app.on_terminal_event(key(KeyCode::Char('r')));
    assert_eq!(sent(&effects), [Request::user_message("hello")]);
}

#[test]
fn arrows_recall_the_history() {
    let mut app = app();
    app.on_terminal_event(key(KeyCode::Up));
    assert!(screen(&draw(&mut app, 80, 24)).contains("│an earlier question"));
    app.on_terminal_event(key(KeyCode::Down));
    assert!(!screen(&draw(&mut app, 80, 24)).contains("an earlier question"));
}

#[test]
fn tab_asks_for_completions_and_offers_several() {
    let mut app = app();
    type_text(&mut app, "look at src/ma");
    assert_eq!(
        app.on_terminal_event(key(KeyCode::Tab)),
        [Effect::Complete {
            word: "src/ma".into()
        }]
    );
    app.show_completions(
        "src/ma",
        vec![
            ("src/main.rs".into(), String::new()),
            ("src/math.rs".into(), String::new()),
        ],
    );
    let shown = screen(&draw(&mut app, 80, 24));
    assert!(
        shown.contains("completions") && shown.contains("src/math.rs"),
        "{shown}"
    );
    assert!(
        shown.contains("look at src/ma"),
        "the common prefix is kept"
    );
    app.on_terminal_event(key(KeyCode::Down));
    app.on_terminal_event(key(KeyCode::Tab));
    assert!(screen(&draw(&mut app, 80, 24)).contains("look at src/math.rs"));
}

#[test]
fn context_usage_and_compaction_are_shown() {
    let mut app = app();
    feed(
        &mut app,
        vec![
            Event::ContextUsage {
                used: 96_000,
                window: Some(128_000),
                percent: Some(75.0),
            },
            Event::ContextCompacted {
                before_tokens: 96_000,
                after_tokens: 20_000,
                method: hone_api::CompactionMethod::Model,
            },
        ],
    );
    let shown = screen(&draw(&mut app, 100, 24));
    assert!(shown.contains("ctx 75%"), "{shown}");
    assert!(
        shown.contains("context compacted: 96,000 → 20,000 tokens"),
        "{shown}"
    );
}

#[test]
fn localised_code_and_the_guided_step_are_shown() {
    let mut app = app();
    feed(
        &mut app,
        vec![
            Event::ContextLocalized {
                items: vec![hone_api::LocalizedItem {
                    path: "src/cart.ts".into(),
                    start_line: 12,
                    end_line: 30,
                    whole_file: false,
                    symbols: vec!["function cartTotal".into()],
                    reasons: vec!["matches \"cart total\"".into()],
                    tokens: 240,
                }],
                tokens: 260,
            },
            Event::TurnStep {
                task: Some(hone_api::TaskKind::Change),
                guided: true,
            },
        ],
    );
    let shown = screen(&draw(&mut app, 120, 24));
    assert!(
        shown.contains("attached src/cart.ts:12-30 (function cartTotal, matches \"cart total\")"),
        "{shown}"
    );
    assert!(shown.contains("guided change"), "{shown}");
}

#[test]
fn pasted_text_keeps_its_lines() {
    let mut app = app();
    app.on_terminal_event(TermEvent::Paste("fn a() {}\r\nfn b() {}".into()));
    let effects = app.on_terminal_event(key(KeyCode::Enter));
    assert_eq!(
        sent(&effects),
        [Request::user_message("fn a() {}\nfn b() {}")]
    );
}

#[test]
fn any_size_renders_without_panicking() {
    let mut app = app();
    command(
        &mut app,
        "a long question that wraps around several times on a tiny screen",
    );
    feed(
        &mut app,
        vec![
            Event::TurnStarted { turn: 1 },
            Event::MessageDelta {
                text: "```rust\nfn main() {}\n```\n".repeat(20),
            },
            approval_needed("c1"),
        ],
    );
    for (width, height) in [(1, 1), (10, 5), (20, 8), (60, 20), (80, 24), (200, 60)] {
        draw(&mut app, width, height);
    }
    app.on_terminal_event(key(KeyCode::Char('y')));
    feed(
        &mut app,
        vec![Event::TurnCompleted {
            end: TurnEnd::Answered,
            stats: stats(1, 1, 1, 1),
        }],
    );
    app.on_terminal_event(key(KeyCode::PageUp));
    for (width, height) in [(3, 3), (40, 10), (80, 24)] {
        draw(&mut app, width, height);
    }
}

#[test]
fn an_edit_conflict_offers_apply_anyway_skip_and_regenerate() {
    let mut app = app();
    command(&mut app, "hello");
    feed(
        &mut app,
        vec![
            Event::TurnStarted { turn: 1 },
            Event::EditConflict {
                call_id: "call_1".into(),
                message: "src/math.js changed since you read it".into(),
                choices: ConflictChoice::ALL.to_vec(),
            },
        ],
    );
    let shown = screen(&draw(&mut app, 80, 24));
    assert!(
        shown.contains("[a] apply anyway")
            && shown.contains("[s] skip")
            && shown.contains("[r] regenerate"),
        "{shown}"
    );
    assert!(shown.contains("src/math.js changed"), "{shown}");
    let effects = app.on_terminal_event(key(KeyCode::Char('a')));
    assert_eq!(
        sent(&effects),
        [Request::ConflictChoice {
            choice: ConflictChoice::ApplyAnyway
        }]
    );
    assert!(
        !screen(&draw(&mut app, 80, 24)).contains("[r] regenerate"),
        "the dialog closed"
    );
}

#[test]
fn checks_after_edits_get_a_line_in_the_transcript() {
    let mut app = app();
    command(&mut app, "fix add");
    let result = |status| hone_api::CheckResult {
        name: "pytest".into(),
        command: "python -m pytest".into(),
        status,
        duration_ms: 1_200,
        detail: String::new(),
    };
    feed(
        &mut app,
        vec![
            Event::TurnStarted { turn: 1 },
            Event::ChecksStarted {
                files: vec!["calc.py".into()],
            },
            Event::ChecksCompleted {
                passed: false,
                checks: vec![result(hone_api::CheckStatus::Failed)],
                failures: vec!["pytest: AssertionError: 5 != -1".into()],
                repair_round: Some(1),
                max_repair_rounds: 3,
            },
            Event::ChecksCompleted {
                passed: true,
                checks: vec![result(hone_api::CheckStatus::Passed)],
                failures: Vec::new(),
                repair_round: None,
                max_repair_rounds: 3,
            },
        ],
    );
    let shown = screen(&draw(&mut app, 120, 30));
    assert!(
        shown.contains("checks failed: pytest: AssertionError: 5 != -1; asking the model"),
        "{shown}"
    );
    assert!(shown.contains("checks passed (pytest)"), "{shown}");
    feed(
        &mut app,
        vec![Event::TurnCompleted {
            end: TurnEnd::ChecksFailed,
            stats: stats(1, 1, 1, 1),
        }],
    );
    let shown = screen(&draw(&mut app, 120, 30));
    assert!(
        shown.contains("the checks after the edits still fail"),
        "{shown}"
    );
}

#[test]
fn server_prompts_are_slash_commands() {
    let mut app = app();
    feed(&mut app, vec![started()]);
    assert!(
        command(&mut app, "/everything:args-prompt city=Lisbon").contains(&Effect::McpPrompt {
            server: "everything".into(),
            prompt: "args-prompt".into(),
            arguments: "city=Lisbon".into(),
        })
    );
    // Built-in commands are not prompts.
    assert!(
        !command(&mut app, "/compact")
            .iter()
            .any(|effect| matches!(effect, Effect::McpPrompt { .. }))
    );
    let request = app.send_prompt_text("Tell me about Lisbon".into());
    assert_eq!(request, Request::user_message("Tell me about Lisbon"));
}

#[test]
fn slash_image_attaches_a_picture_to_the_next_message_only() {
    let mut app = app();
    assert!(sent(&command(&mut app, "/image ~/shot.png")).is_empty());
    assert!(
        screen(&draw(&mut app, 100, 24)).contains("image ~/shot.png goes with your next message")
    );
    command(&mut app, "/image '/tmp/two.png'");
    command(&mut app, "/image clear");
    assert!(app.take_images().is_empty());
    command(&mut app, "/image /tmp/three.png");
    let effects = command(&mut app, "what is wrong here?");
    assert_eq!(
        sent(&effects),
        [Request::user_message("what is wrong here?")]
    );
    // The runner reads the attached paths when it sends the message; then they are gone.
    assert_eq!(app.take_images(), ["/tmp/three.png"]);
    assert!(app.take_images().is_empty());
    command(&mut app, "/image");
    assert!(screen(&draw(&mut app, 100, 24)).contains("/image needs the path of a picture"));
}

#[test]
fn slash_think_asks_the_session_and_shows_its_answer() {
    let mut app = app();
    let effects = command(&mut app, "/think HIGH");
    assert_eq!(
        sent(&effects),
        [Request::SetThinking {
            level: "high".into()
        }]
    );
    feed(
        &mut app,
        vec![Event::ThinkingLevel {
            level: "high".into(),
        }],
    );
    assert!(screen(&draw(&mut app, 100, 24)).contains("reasoning: high for this session"));
    assert!(sent(&command(&mut app, "/think")).is_empty());
    assert!(screen(&draw(&mut app, 100, 24)).contains("/think needs a level"));
}

#[test]
fn slash_status_lists_the_roles() {
    let mut app = app();
    command(&mut app, "/status");
    let shown = screen(&draw(&mut app, 120, 40));
    assert!(shown.contains("roles"), "{shown}");
    assert!(shown.contains("coder = qwen2.5-coder-7b"), "{shown}");
}
