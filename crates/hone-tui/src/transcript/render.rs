//! Rendering one conversation entry to wrapped, styled lines.

use hone_api::display;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::{DiffOutcome, Entry, NoticeKind, ToolEntry, ToolState};
use crate::diff_view;
use crate::format::one_line;
use crate::markdown::{self, CodeCache};
use crate::wrap::{self, Mode};

/// Tool output lines shown when tool results are expanded.
const OUTPUT_PREVIEW_LINES: usize = 12;
/// Diff lines shown in the conversation before "… more".
const DIFF_PREVIEW_LINES: usize = 40;

fn dim() -> Style {
    Style::new().add_modifier(Modifier::DIM)
}

pub(super) fn render_entry(
    entry: &Entry,
    width: usize,
    show_output: bool,
    show_thinking: bool,
    code: &mut CodeCache,
) -> Vec<Line<'static>> {
    match &shown(entry) {
        Entry::User(text) => {
            let style = Style::new().add_modifier(Modifier::BOLD);
            let first = [Span::styled(
                "› ",
                Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
            )];
            let rest = [Span::raw("  ")];
            let mut out = Vec::new();
            for (index, line) in text.lines().enumerate() {
                let prefix: &[Span<'static>] = if index == 0 { &first } else { &rest };
                out.extend(wrap::wrap(
                    vec![Span::styled(line.to_string(), style)],
                    width,
                    prefix,
                    &rest,
                    Mode::Words,
                ));
            }
            out
        }
        Entry::Assistant { text, .. } => markdown::render(text, width.saturating_sub(2), code)
            .into_iter()
            .map(|line| {
                let mut spans = vec![Span::raw("  ")];
                spans.extend(line.spans);
                Line::from(spans).style(line.style)
            })
            .collect(),
        Entry::Thinking { text, streaming } => thinking(text, *streaming, show_thinking, width),
        Entry::Tool(tool) => tool_lines(tool, show_output, width),
        Entry::Diff {
            diff,
            outcome,
            expanded,
        } => diff_lines(diff, *outcome, *expanded, width),
        Entry::Stats(text) => vec![Line::styled(format!("  {text}"), dim())],
        Entry::Notice(kind, text) => {
            let style = match kind {
                NoticeKind::Info => dim(),
                NoticeKind::Warning => Style::new().fg(Color::Yellow),
            };
            wrap::wrap(
                vec![Span::styled(text.clone(), style)],
                width,
                &[Span::styled("  • ", style)],
                &[Span::raw("    ")],
                Mode::Words,
            )
        }
        Entry::Error(text) => {
            let style = Style::new().fg(Color::Red);
            let mut out = Vec::new();
            for (index, line) in text.lines().enumerate() {
                let first = if index == 0 { "  ✗ " } else { "    " };
                out.extend(wrap::wrap(
                    vec![Span::styled(line.to_string(), style)],
                    width,
                    &[Span::styled(first, style)],
                    &[Span::raw("    ")],
                    Mode::Words,
                ));
            }
            out
        }
    }
}

/// `entry` with what did not come from hone (the user's and the model's words, tool lines
/// and output, reasons, errors) made safe for the terminal (`hone_api::display`): ratatui
/// drops control characters from its cells, but the conversation is also printed to the
/// scrollback at the end, and an escape should be seen rather than silently lost.
fn shown(entry: &Entry) -> Entry {
    let text = |text: &str| display::text(text).into_owned();
    match entry {
        Entry::User(words) => Entry::User(text(words)),
        Entry::Assistant {
            text: words,
            streaming,
        } => Entry::Assistant {
            text: text(words),
            streaming: *streaming,
        },
        Entry::Thinking {
            text: words,
            streaming,
        } => Entry::Thinking {
            text: text(words),
            streaming: *streaming,
        },
        Entry::Tool(tool) => Entry::Tool(ToolEntry {
            call_id: tool.call_id.clone(),
            line: display::line(&tool.line).into_owned(),
            state: match &tool.state {
                ToolState::Denied(reason) => ToolState::Denied(display::flat(reason)),
                other => other.clone(),
            },
            output: text(&tool.output),
        }),
        Entry::Notice(kind, words) => Entry::Notice(*kind, display::flat(words)),
        Entry::Error(words) => Entry::Error(text(words)),
        Entry::Diff { .. } | Entry::Stats(_) => entry.clone(),
    }
}

fn thinking(text: &str, streaming: bool, expanded: bool, width: usize) -> Vec<Line<'static>> {
    let style = dim().add_modifier(Modifier::ITALIC);
    let words = text.split_whitespace().count();
    if !expanded {
        let label = if streaming {
            let tail: String = {
                let flat = one_line(text, usize::MAX);
                let count = flat.chars().count();
                flat.chars()
                    .skip(count.saturating_sub(width.saturating_sub(30)))
                    .collect()
            };
            format!("✻ thinking… {tail}")
        } else {
            format!("✻ thought for {words} words (Ctrl+T shows)")
        };
        let label = one_line(&label, width.saturating_sub(2).max(1));
        return vec![Line::styled(format!("  {label}"), style)];
    }
    let mut out = vec![Line::styled("  ✻ thinking (Ctrl+T hides)", style)];
    for line in text.lines() {
        out.extend(wrap::wrap(
            vec![Span::styled(line.to_string(), style)],
            width,
            &[Span::styled("  ┊ ", style)],
            &[Span::styled("  ┊ ", style)],
            Mode::Words,
        ));
    }
    out
}

fn tool_lines(tool: &ToolEntry, show_output: bool, width: usize) -> Vec<Line<'static>> {
    let (mark, mark_style, suffix) = match &tool.state {
        ToolState::Running => ("▸", Style::new().fg(Color::Blue), " …".to_string()),
        ToolState::Waiting => (
            "▸",
            Style::new().fg(Color::Yellow),
            " — waiting for approval".to_string(),
        ),
        ToolState::Denied(reason) => (
            "✗",
            Style::new().fg(Color::Red),
            format!(" — denied: {}", one_line(reason, 80)),
        ),
        ToolState::Done {
            is_error: false,
            duration_ms,
        } => (
            "✓",
            Style::new().fg(Color::Green),
            duration_ms
                .map(|ms| format!(" {}", crate::format::seconds(ms)))
                .unwrap_or_default(),
        ),
        ToolState::Done { is_error: true, .. } => (
            "✗",
            Style::new().fg(Color::Red),
            format!(
                " — {}",
                one_line(tool.output.lines().next().unwrap_or("failed"), 80)
            ),
        ),
    };
    let spans = vec![Span::raw(tool.line.clone()), Span::styled(suffix, dim())];
    let first = [
        Span::raw("  "),
        Span::styled(format!("{mark} "), mark_style),
    ];
    let mut out = wrap::wrap(spans, width, &first, &[Span::raw("    ")], Mode::Words);
    if show_output && !tool.output.is_empty() {
        let bar = [Span::styled("    │ ", dim())];
        let lines: Vec<&str> = tool.output.lines().collect();
        for line in lines.iter().take(OUTPUT_PREVIEW_LINES) {
            out.extend(wrap::wrap(
                vec![Span::styled(line.replace('\t', "    "), dim())],
                width,
                &bar,
                &bar,
                Mode::Chars,
            ));
        }
        if lines.len() > OUTPUT_PREVIEW_LINES {
            out.push(Line::styled(
                format!("    … {} more lines", lines.len() - OUTPUT_PREVIEW_LINES),
                dim(),
            ));
        }
    }
    out
}

fn diff_lines(
    diff: &str,
    outcome: DiffOutcome,
    expanded: bool,
    width: usize,
) -> Vec<Line<'static>> {
    let stats = diff_view::stats(diff);
    let (mark, label, mark_style) = match outcome {
        DiffOutcome::Applied => ("✎ ", String::new(), Style::new().fg(Color::Green)),
        DiffOutcome::Rejected => ("✗ ", "rejected ".to_string(), Style::new().fg(Color::Red)),
    };
    let hint = if expanded {
        ""
    } else {
        "  (Ctrl+G shows the diff)"
    };
    let header = Line::from(vec![
        Span::raw("  "),
        Span::styled(mark, mark_style),
        Span::styled(label, mark_style),
        Span::raw(stats.summary()),
        Span::styled(hint, dim()),
    ]);
    let mut out = vec![header];
    if expanded {
        let lines = diff_view::render(diff, width.saturating_sub(4));
        let more = lines.len().saturating_sub(DIFF_PREVIEW_LINES);
        for line in lines.into_iter().take(DIFF_PREVIEW_LINES) {
            let mut style = line.style;
            if outcome == DiffOutcome::Rejected {
                // Not written: shown faded so it does not read as the file's content.
                style = style.add_modifier(Modifier::DIM);
            }
            let mut spans = vec![Span::raw("    ")];
            spans.extend(line.spans);
            out.push(Line::from(spans).style(style));
        }
        if more > 0 {
            out.push(Line::styled(
                format!("    … {more} more lines (/diff shows every change)"),
                dim(),
            ));
        }
    }
    out
}
