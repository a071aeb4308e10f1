//! The status bar's live states (thinking, a running tool, a retry, compaction) and the code
//! index's progress with Esc to skip it.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use hone_api::Event;
use hone_tui::Effect;
use ratatui::crossterm::event::KeyCode;

fn status_bar(app: &mut hone_tui::App) -> String {
    screen(&draw(app, 160, 20))
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn the_status_bar_follows_what_the_turn_does() {
    let mut app = app();
    feed(&mut app, vec![started(), Event::TurnStarted { turn: 1 }]);
    assert!(status_bar(&mut app).contains("⟳ thinking"));
    feed(
        &mut app,
        vec![Event::MessageDelta {
            text: "Let me".into(),
        }],
    );
    assert!(status_bar(&mut app).contains("⟳ writing"));
    feed(
        &mut app,
        vec![Event::ToolRequested {
            call_id: "c1".into(),
            name: "run_command".into(),
            arguments: serde_json::json!({"command": "cargo test"}),
        }],
    );
    let bar = status_bar(&mut app);
    assert!(bar.contains("⟳ running run_command cargo test"), "{bar}");
    feed(
        &mut app,
        vec![Event::ModelRetrying {
            attempt: 1,
            delay_ms: 3_500,
            status: Some(429),
            reason: "rate limited".into(),
        }],
    );
    let bar = status_bar(&mut app);
    assert!(bar.contains("retrying in 4 s after 429 (retry 1)"), "{bar}");
    feed(
        &mut app,
        vec![Event::ContextCompacting {
            before_tokens: 9_000,
            manual: false,
        }],
    );
    assert!(status_bar(&mut app).contains("⟳ compacting…"));
}

#[test]
fn the_state_shows_how_long_it_has_lasted() {
    let mut app = app();
    feed(&mut app, vec![started(), Event::TurnStarted { turn: 1 }]);
    app.set_elapsed(std::time::Duration::from_secs(12));
    let bar = status_bar(&mut app);
    assert!(bar.contains("⟳ thinking 12 s"), "{bar}");
}

#[test]
fn the_index_progress_shows_until_esc_skips_it() {
    let mut app = app();
    feed(&mut app, vec![started()]);
    assert!(app.set_indexing(Some("indexing 40% (400 of 1000 files)".into())));
    assert!(!app.set_indexing(Some("indexing 40% (400 of 1000 files)".into())));
    let bar = status_bar(&mut app);
    assert!(
        bar.contains("indexing 40% (400 of 1000 files) · Esc skips"),
        "{bar}"
    );
    let effects = app.on_terminal_event(key(KeyCode::Esc));
    assert!(effects.contains(&Effect::SkipIndexing), "{effects:?}");
    assert!(!status_bar(&mut app).contains("indexing"));
    // Once it is gone, Esc does what it did before.
    let effects = app.on_terminal_event(key(KeyCode::Esc));
    assert!(!effects.contains(&Effect::SkipIndexing));
}
