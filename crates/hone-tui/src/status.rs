//! The status bar (top) and the key hints (bottom).

use std::time::Duration;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::format::clock;
use crate::wrap::width_of;

/// What the agent is doing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Activity {
    /// Waiting for the user.
    Ready,
    /// A turn is running: what it does now (`thinking`, `running cargo test`, `retrying in
    /// 4 s after 429`, `compacting…`) since the session clock showed `since`.
    Working { what: String, since: Duration },
    /// The last turn failed.
    Failed,
}

impl Activity {
    /// `what` from the session clock's `now` on.
    pub(crate) fn working(what: impl Into<String>, now: Duration) -> Self {
        Self::Working {
            what: what.into(),
            since: now,
        }
    }
}

/// Everything the status bar shows.
pub(crate) struct Status<'a> {
    pub(crate) project: &'a str,
    pub(crate) branch: Option<&'a str>,
    pub(crate) model: &'a str,
    pub(crate) elapsed: Duration,
    pub(crate) activity: &'a Activity,
    /// The code index's progress while it is built.
    pub(crate) indexing: Option<&'a str>,
    pub(crate) context_percent: Option<u8>,
    pub(crate) auto_apply: bool,
    /// The session's cost in US dollars, when the model has a price.
    pub(crate) cost: Option<f64>,
}

/// Draws the status bar; segments that do not fit are left out, least important first.
pub(crate) fn render(frame: &mut Frame<'_>, area: Rect, status: &Status<'_>) {
    let dim = Style::new().add_modifier(Modifier::DIM);
    // (priority: lower is kept longer, spans)
    let mut segments: Vec<(u8, Vec<Span<'static>>)> = Vec::new();
    segments.push((
        0,
        vec![Span::styled(
            "hone",
            Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
        )],
    ));
    let context = match status.context_percent {
        Some(percent) => {
            let color = match percent {
                0..=69 => Color::Green,
                70..=89 => Color::Yellow,
                _ => Color::Red,
            };
            vec![
                Span::styled("ctx ", dim),
                Span::styled(format!("{percent}%"), Style::new().fg(color)),
            ]
        }
        None => vec![Span::styled("ctx –", dim)],
    };
    segments.push((4, context));
    segments.push((5, vec![Span::raw(status.project.to_string())]));
    if let Some(branch) = status.branch {
        segments.push((
            7,
            vec![Span::styled(
                format!("⎇ {branch}"),
                Style::new().fg(Color::Magenta),
            )],
        ));
    }
    segments.push((6, vec![Span::styled(clock(status.elapsed), dim)]));
    if let Some(cost) = status.cost {
        segments.push((4, vec![Span::raw(hone_api::dollars(cost))]));
    }
    let activity = match status.activity {
        Activity::Ready => Span::styled("✓ ready", Style::new().fg(Color::Green)),
        Activity::Working { what, since } => {
            let seconds = status.elapsed.saturating_sub(*since).as_secs();
            let text = if seconds > 0 {
                format!("⟳ {what} {seconds} s")
            } else {
                format!("⟳ {what}")
            };
            Span::styled(text, Style::new().fg(Color::Yellow))
        }
        Activity::Failed => Span::styled("✗ error", Style::new().fg(Color::Red)),
    };
    segments.push((1, vec![activity]));
    if let Some(indexing) = status.indexing {
        segments.push((
            2,
            vec![Span::styled(
                format!("{indexing} · Esc skips"),
                Style::new().fg(Color::Yellow),
            )],
        ));
    }
    if status.auto_apply {
        segments.push((
            3,
            vec![Span::styled("auto-apply", Style::new().fg(Color::Yellow))],
        ));
    }
    segments.push((2, vec![Span::raw(status.model.to_string())]));

    let width = usize::from(area.width);
    let separator = 3;
    let total = |segments: &[(u8, Vec<Span<'static>>)]| -> usize {
        segments
            .iter()
            .map(|(_, spans)| width_of(spans))
            .sum::<usize>()
            + separator * segments.len().saturating_sub(1)
            + 1
    };
    while total(&segments) > width && segments.len() > 1 {
        let Some(drop) = segments
            .iter()
            .enumerate()
            .max_by_key(|(_, (priority, _))| *priority)
            .map(|(index, _)| index)
        else {
            break;
        };
        segments.remove(drop);
    }
    let mut spans = vec![Span::raw(" ")];
    for (index, (_, segment)) in segments.into_iter().enumerate() {
        if index > 0 {
            spans.push(Span::styled(" │ ", dim));
        }
        spans.extend(segment);
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// Draws the key hints, cut to the width.
pub(crate) fn render_hints(
    frame: &mut Frame<'_>,
    area: Rect,
    hints: &[(&str, &str)],
    note: Option<&str>,
) {
    let key = Style::new().fg(Color::Cyan);
    let dim = Style::new().add_modifier(Modifier::DIM);
    let mut spans = vec![Span::raw(" ")];
    if let Some(note) = note {
        spans.push(Span::styled(
            note.to_string(),
            Style::new().fg(Color::Yellow),
        ));
        frame.render_widget(Paragraph::new(Line::from(spans)), area);
        return;
    }
    let width = usize::from(area.width);
    for (index, (keys, what)) in hints.iter().enumerate() {
        let mut piece = Vec::new();
        if index > 0 {
            piece.push(Span::styled(" · ", dim));
        }
        piece.push(Span::styled((*keys).to_string(), key));
        piece.push(Span::styled(format!(" {what}"), dim));
        if width_of(&spans) + width_of(&piece) > width {
            break;
        }
        spans.extend(piece);
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
