//! Approvals on screen: the dialog sized to what it shows with the model's words above
//! it, the diff kept in the conversation afterwards (applied or rejected, collapsible),
//! and the conversation as printed to the scrollback on exit.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use hone_api::{ApprovalDecision, ApprovedBy, Event, Request, TurnEnd};
use hone_tui::{App, Effect};
use ratatui::crossterm::event::KeyCode;

const MODEL_TEXT: &str = "I changed the operator; now I will run the tests to check it.";

/// A turn in which the model says something and then asks for `approval`.
fn asking(approval: Event) -> App {
    let mut app = app();
    feed(&mut app, vec![started()]);
    type_text(&mut app, "fix add");
    app.on_terminal_event(key(KeyCode::Enter));
    let (call_id, name, arguments) = match &approval {
        Event::ApprovalNeeded {
            call_id,
            name,
            command: Some(command),
            ..
        } => (
            call_id.clone(),
            name.clone(),
            serde_json::json!({ "command": command }),
        ),
        Event::ApprovalNeeded { call_id, name, .. } => (
            call_id.clone(),
            name.clone(),
            serde_json::json!({ "path": "src/math.js" }),
        ),
        other => panic!("not an approval: {other:?}"),
    };
    feed(
        &mut app,
        vec![
            Event::TurnStarted { turn: 1 },
            Event::MessageDelta {
                text: MODEL_TEXT.into(),
            },
            Event::MessageCompleted {
                text: MODEL_TEXT.into(),
            },
            Event::ToolRequested {
                call_id,
                name,
                arguments,
            },
            approval,
        ],
    );
    app
}

fn command_approval() -> Event {
    Event::ApprovalNeeded {
        call_id: "c1".into(),
        name: "run_command".into(),
        summary: "cargo test -q".into(),
        reason: "commands ask in approval mode `ask`".into(),
        diff: None,
        command: Some("cargo test -q".into()),
        content: None,
    }
}

fn edit_approval(diff: &str) -> Event {
    let path = if diff.contains("src/long.js") {
        "src/long.js"
    } else {
        "src/math.js"
    };
    Event::ApprovalNeeded {
        call_id: "c2".into(),
        name: "edit_file".into(),
        summary: format!("edit {path} (1 hunk)"),
        reason: "edits ask in approval mode `ask`".into(),
        diff: Some(diff.into()),
        command: None,
        content: None,
    }
}

/// A diff that changes `lines` lines of `src/long.js`.
fn long_diff(lines: usize) -> String {
    let mut diff = format!("--- a/src/long.js\n+++ b/src/long.js\n@@ -1,{lines} +1,{lines} @@\n");
    for index in 0..lines {
        diff.push_str(&format!("-const v{index} = {index};\n"));
    }
    for index in 0..lines {
        diff.push_str(&format!("+const v{index} = {};\n", index * 2));
    }
    diff
}

/// The row of the dialog's top border.
fn dialog_top(screen: &str) -> usize {
    screen
        .lines()
        .position(|line| line.starts_with("╭ approve"))
        .expect("a dialog on screen")
}

/// Rows of the dialog, borders included.
fn dialog_rows(screen: &str) -> usize {
    let top = dialog_top(screen);
    screen
        .lines()
        .skip(top)
        .take_while(|line| !line.starts_with(' '))
        .count()
}

fn answer(app: &mut App, keys: &[KeyCode]) -> ApprovalDecision {
    let effects: Vec<Effect> = keys
        .iter()
        .flat_map(|code| app.on_terminal_event(key(*code)))
        .collect();
    effects
        .into_iter()
        .find_map(|effect| match effect {
            Effect::Send(Request::Approval { decision, .. }) => Some(decision),
            _ => None,
        })
        .expect("an answer was sent")
}

fn finish_turn(app: &mut App) {
    feed(
        app,
        vec![Event::TurnCompleted {
            end: TurnEnd::Answered,
            stats: stats(2_000, 900, 40, 1),
        }],
    );
}

fn applied(app: &mut App, diff: &str) {
    feed(
        app,
        vec![
            Event::ToolApproved {
                call_id: "c2".into(),
                by: ApprovedBy::User,
            },
            Event::DiffApplied {
                call_id: "c2".into(),
                paths: vec!["src/math.js".into()],
                diff: diff.into(),
            },
            Event::ToolCompleted {
                call_id: "c2".into(),
                name: "edit_file".into(),
                output: "edited src/math.js".into(),
                is_error: false,
                exit_code: None,
                duration_ms: 3,
            },
        ],
    );
    finish_turn(app);
}

#[test]
fn a_one_line_command_gets_a_small_dialog_below_the_models_words() {
    let mut app = asking(command_approval());
    let screen = screen(&draw(&mut app, 80, 24));
    insta::assert_snapshot!(screen);
    assert_eq!(dialog_rows(&screen), 6, "{screen}");
    let top = dialog_top(&screen);
    let text_row = screen
        .lines()
        .position(|line| line.contains("I changed the operator"))
        .expect("the model's text is visible");
    assert!(text_row < top);
}

#[test]
fn a_long_diff_is_capped_and_scrolls_with_the_models_words_still_visible() {
    let mut app = asking(edit_approval(&long_diff(60)));
    let screen = screen(&draw(&mut app, 80, 24));
    insta::assert_snapshot!(screen);
    assert!(screen.contains("I changed the operator"), "{screen}");
    assert!(dialog_rows(&screen) <= 15, "{screen}");
    assert!(screen.contains("↑↓ scroll (0/"), "{screen}");
    app.on_terminal_event(key(KeyCode::PageDown));
    let scrolled = screen_of(&mut app);
    assert!(scrolled.contains("↑↓ scroll (10/"), "{scrolled}");
}

fn screen_of(app: &mut App) -> String {
    screen(&draw(app, 80, 24))
}

#[test]
fn an_approved_diff_stays_in_the_conversation_and_collapses() {
    let mut app = asking(edit_approval(DIFF));
    assert_eq!(
        answer(&mut app, &[KeyCode::Char('y')]),
        ApprovalDecision::Approve
    );
    applied(&mut app, DIFF);
    let expanded = screen_of(&mut app);
    insta::assert_snapshot!("approved_diff_expanded", expanded);
    assert!(expanded.contains("✎ src/math.js +1 −1"), "{expanded}");
    assert!(expanded.contains("+   return a + b;"), "{expanded}");

    app.on_terminal_event(ctrl('g'));
    let collapsed = screen_of(&mut app);
    insta::assert_snapshot!("approved_diff_collapsed", collapsed);
    assert!(collapsed.contains("✎ src/math.js +1 −1  (Ctrl+G shows the diff)"));
    assert!(!collapsed.contains("return a + b"), "{collapsed}");

    app.on_terminal_event(ctrl('g'));
    assert!(screen_of(&mut app).contains("+   return a + b;"));
}

#[test]
fn a_large_approved_diff_starts_collapsed() {
    let diff = long_diff(30);
    let mut app = asking(edit_approval(&diff));
    answer(&mut app, &[KeyCode::Char('y')]);
    applied(&mut app, &diff);
    let screen = screen_of(&mut app);
    assert!(
        screen.contains("✎ src/long.js +30 −30  (Ctrl+G shows the diff)"),
        "{screen}"
    );
    assert!(!screen.contains("const v0"), "{screen}");
}

#[test]
fn a_rejected_diff_shows_as_rejected() {
    let mut app = asking(edit_approval(DIFF));
    assert_eq!(
        answer(&mut app, &[KeyCode::Char('n'), KeyCode::Enter]),
        ApprovalDecision::Deny { message: None }
    );
    feed(
        &mut app,
        vec![
            Event::ToolDenied {
                call_id: "c2".into(),
                reason: "the user denied this call".into(),
            },
            Event::ToolCompleted {
                call_id: "c2".into(),
                name: "edit_file".into(),
                output: "not run: the user denied this call".into(),
                is_error: true,
                exit_code: None,
                duration_ms: 0,
            },
        ],
    );
    finish_turn(&mut app);
    let screen = screen_of(&mut app);
    insta::assert_snapshot!(screen);
    assert!(
        screen.contains("✗ rejected src/math.js +1 −1  (Ctrl+G shows the diff)"),
        "{screen}"
    );
    app.on_terminal_event(ctrl('g'));
    assert!(screen_of(&mut app).contains("+   return a + b;"));
}

#[test]
fn the_whole_conversation_is_there_for_the_scrollback() {
    let mut app = asking(edit_approval(DIFF));
    answer(&mut app, &[KeyCode::Char('y')]);
    applied(&mut app, DIFF);
    for index in 0..40 {
        app.notice(format!("notice {index}"));
    }
    let lines: Vec<String> = app
        .transcript_lines(50)
        .iter()
        .map(ToString::to_string)
        .collect();
    // From the first message on, not just the screenful at the bottom.
    assert_eq!(lines[0], "› fix add");
    assert!(
        lines
            .iter()
            .any(|line| line.contains("I changed the operator"))
    );
    assert!(
        lines
            .iter()
            .any(|line| line.contains("✎ src/math.js +1 −1"))
    );
    assert_eq!(lines.last().unwrap(), "  • notice 39");
    // Wrapped to the width asked for.
    assert!(
        lines.iter().all(|line| line.chars().count() <= 50),
        "{lines:#?}"
    );

    let mut empty = app_with("ask");
    assert!(empty.transcript_lines(50).is_empty());
}
