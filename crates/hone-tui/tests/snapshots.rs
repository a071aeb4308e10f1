//! Screen snapshots of the TUI (ratatui TestBackend + insta; `cargo insta review` to update).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use hone_api::{Event, TurnEnd};
use hone_protocol::HoneError;
use ratatui::crossterm::event::KeyCode;
use ratatui::style::Color;

#[test]
fn empty_session() {
    let mut app = app();
    feed(&mut app, vec![started()]);
    insta::assert_snapshot!(screen(&draw(&mut app, 80, 24)));
}

fn streamed_answer(app: &mut hone_tui::App) {
    feed(app, vec![started()]);
    type_text(app, "How do I add two numbers?");
    app.on_terminal_event(key(KeyCode::Enter));
    let answer = "## Adding\n\nUse `add` from **math.js**:\n\n```js\nfunction add(a, b) {\n  return a + b;\n}\n```\n\n- works for integers\n- and floats\n";
    let mut events = vec![
        Event::TurnStarted { turn: 1 },
        Event::ThinkingDelta {
            text: "The user wants addition.".into(),
        },
        Event::ToolRequested {
            call_id: "c1".into(),
            name: "read_file".into(),
            arguments: r#"{"path":"src/math.js","start_line":1,"end_line":5}"#.into(),
        },
        Event::ToolCompleted {
            call_id: "c1".into(),
            name: "read_file".into(),
            output: "1│ function add(a, b) {".into(),
            is_error: false,
            exit_code: None,
            duration_ms: 4,
        },
    ];
    // The answer arrives in small pieces, as a stream does.
    let chars: Vec<char> = answer.chars().collect();
    for piece in chars.chunks(7) {
        events.push(Event::MessageDelta {
            text: piece.iter().collect(),
        });
    }
    feed(app, events);
}

#[test]
fn streamed_answer_with_a_code_block() {
    let mut app = app();
    streamed_answer(&mut app);
    let streaming = screen(&draw(&mut app, 80, 24));
    assert!(streaming.contains("⟳ writing"), "{streaming}");
    feed(
        &mut app,
        vec![
            Event::MessageCompleted {
                text: String::new(),
            },
            Event::Usage {
                usage: hone_api::Usage {
                    input_tokens: 1_000,
                    output_tokens: 247,
                    ..Default::default()
                },
            },
            Event::TurnCompleted {
                end: TurnEnd::Answered,
                stats: stats(3_210, 1_000, 247, 1),
            },
        ],
    );
    let terminal = draw(&mut app, 80, 24);
    insta::assert_snapshot!(screen(&terminal));
    // The code block is coloured: some cell of `function` has a foreground colour.
    let buffer = terminal.backend().buffer();
    let coloured = (0..buffer.area.height).any(|y| {
        (0..buffer.area.width)
            .any(|x| buffer[(x, y)].symbol() == "f" && buffer[(x, y)].fg != Color::Reset)
    });
    assert!(coloured);
}

#[test]
fn approval_modal_with_a_word_level_diff() {
    let mut app = app();
    feed(&mut app, vec![started(), Event::TurnStarted { turn: 1 }]);
    feed(
        &mut app,
        vec![
            Event::ToolRequested {
                call_id: "c2".into(),
                name: "edit_file".into(),
                arguments: r#"{"path":"src/math.js","old_text":"a - b","new_text":"a + b"}"#.into(),
            },
            Event::ApprovalNeeded {
                call_id: "c2".into(),
                name: "edit_file".into(),
                summary: "edit src/math.js (1 hunk)".into(),
                reason: "edits ask in approval mode `ask`".into(),
                diff: Some(DIFF.into()),
                command: None,
                content: Some("function add(a, b) {\n  return a + b;\n}\n".into()),
            },
        ],
    );
    let terminal = draw(&mut app, 80, 24);
    insta::assert_snapshot!(screen(&terminal));
    // Word level: on the added line only the `+` operator has the strong green background.
    let buffer = terminal.backend().buffer();
    let strong: Vec<(u16, u16)> = (0..buffer.area.height)
        .flat_map(|y| (0..buffer.area.width).map(move |x| (x, y)))
        .filter(|&(x, y)| buffer[(x, y)].bg == Color::Indexed(28))
        .collect();
    assert_eq!(strong.len(), 1, "{strong:?}");
    let (x, y) = strong[0];
    assert_eq!(buffer[(x, y)].symbol(), "+");
    assert_eq!(
        buffer[(x - 1, y)].bg,
        Color::Indexed(22),
        "the rest of the line is plain green"
    );
}

#[test]
fn error_choice_after_a_provider_failure() {
    let mut app = app();
    feed(&mut app, vec![started()]);
    type_text(&mut app, "summarise the project");
    app.on_terminal_event(key(KeyCode::Enter));
    feed(
        &mut app,
        vec![
            Event::TurnStarted { turn: 1 },
            Event::TurnFailed {
                error: hone_core::error_info(HoneError::network(
                    "could not reach the provider at http://localhost:1234 (connection refused)",
                )),
                stats: stats(1_500, 0, 0, 0),
            },
        ],
    );
    insta::assert_snapshot!(screen(&draw(&mut app, 80, 24)));
}

#[test]
fn edit_conflict_choice() {
    let mut app = app();
    feed(&mut app, vec![started()]);
    type_text(&mut app, "rename the helper");
    app.on_terminal_event(key(KeyCode::Enter));
    feed(
        &mut app,
        vec![
            Event::TurnStarted { turn: 1 },
            Event::EditConflict {
                call_id: "call_1".into(),
                message: "src/math.js changed after the edit was planned (edited outside this \
                          conversation or by a command); nothing was written."
                    .into(),
                choices: hone_api::ConflictChoice::ALL.to_vec(),
            },
        ],
    );
    insta::assert_snapshot!(screen(&draw(&mut app, 80, 24)));
}

#[test]
fn slash_command_popup() {
    let mut app = app();
    feed(&mut app, vec![started()]);
    type_text(&mut app, "/");
    insta::assert_snapshot!(screen(&draw(&mut app, 80, 24)));
}

#[test]
fn narrow_terminal() {
    let mut app = app_with("auto-edit");
    streamed_answer(&mut app);
    feed(
        &mut app,
        vec![
            Event::MessageCompleted {
                text: String::new(),
            },
            Event::ToolRequested {
                call_id: "c3".into(),
                name: "edit_file".into(),
                arguments: r#"{"path":"src/math.js"}"#.into(),
            },
            Event::ToolApproved {
                call_id: "c3".into(),
                by: hone_api::ApprovedBy::Policy,
            },
            Event::DiffApplied {
                call_id: "c3".into(),
                paths: vec!["src/math.js".into()],
                diff: DIFF.into(),
            },
            Event::ToolCompleted {
                call_id: "c3".into(),
                name: "edit_file".into(),
                output: "edited src/math.js".into(),
                is_error: false,
                exit_code: None,
                duration_ms: 2,
            },
            Event::TurnCompleted {
                end: TurnEnd::Answered,
                stats: stats(12_400, 5_300, 310, 2),
            },
        ],
    );
    insta::assert_snapshot!(screen(&draw(&mut app, 60, 20)));
}
