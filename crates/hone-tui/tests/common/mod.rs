//! Helpers shared by the TUI tests: an app with fixed facts, keys, and drawing.
#![allow(dead_code)]

use std::path::PathBuf;

use hone_api::Usage;
use hone_api::{Event, TurnStats};
use hone_tui::{App, AppOptions, Effect, SessionInfo};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{Event as TermEvent, KeyCode, KeyEvent, KeyModifiers};

/// An app for project `demo` on `gpt-4o` (128k context window), approval `ask`.
pub fn app() -> App {
    app_with("ask")
}

/// [`app`] with another approval mode.
pub fn app_with(approval: &str) -> App {
    App::new(AppOptions {
        root: PathBuf::from("/nonexistent/demo"),
        project: "demo".into(),
        branch: Some("main".into()),
        session: SessionInfo {
            provider: "openai".into(),
            model: "gpt-4o".into(),
            approval: approval.into(),
            context_window: Some(128_000),
            index: "12 files indexed".into(),
            sandbox: "workspace-write, network off".into(),
            price: None,
            roles: vec!["coder = qwen2.5-coder-7b".into()],
        },
        history: vec!["an earlier question".into()],
        external_editor: false,
        bell_after: None,
    })
}

/// Draws `app` on a `width`×`height` test terminal.
pub fn draw(app: &mut App, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| app.render(frame)).unwrap();
    terminal
}

/// The screen as text, one line per row.
pub fn screen(terminal: &Terminal<TestBackend>) -> String {
    let buffer = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..buffer.area.height {
        for x in 0..buffer.area.width {
            out.push_str(buffer[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

pub fn key(code: KeyCode) -> TermEvent {
    TermEvent::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

pub fn ctrl(c: char) -> TermEvent {
    TermEvent::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

/// Types `text` key by key; returns every effect.
pub fn type_text(app: &mut App, text: &str) -> Vec<Effect> {
    text.chars()
        .flat_map(|c| app.on_terminal_event(key(KeyCode::Char(c))))
        .collect()
}

/// Feeds core events; returns every effect.
pub fn feed(app: &mut App, events: Vec<Event>) -> Vec<Effect> {
    events
        .into_iter()
        .flat_map(|event| app.on_core_event(event))
        .collect()
}

pub fn started() -> Event {
    Event::SessionStarted {
        provider: "openai".into(),
        model: "gpt-4o".into(),
        approval: "ask".into(),
        root: "/nonexistent/demo".into(),
        session_id: Some("s-1".into()),
        forked_from: None,
    }
}

pub fn stats(duration_ms: u64, input: u64, output: u64, tool_calls: u32) -> TurnStats {
    TurnStats {
        model_requests: 2,
        tool_calls,
        usage: Usage {
            input_tokens: input,
            output_tokens: output,
            ..Usage::default()
        },
        duration_ms,
        attempts: 0,
    }
}

/// A one-line change in `src/math.js`: `a - b` becomes `a + b`.
pub const DIFF: &str = "--- a/src/math.js\n+++ b/src/math.js\n@@ -1,3 +1,3 @@\n function add(a, b) {\n-  return a - b;\n+  return a + b;\n }\n";
