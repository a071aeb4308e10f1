//! A scrollable, read-only panel: help, status, the session's diffs.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph};

use super::{ModalAction, centered, scrolled};

/// Builds the panel's lines for a width.
pub(crate) type LinesFn = Box<dyn Fn(usize) -> Vec<Line<'static>> + Send>;

/// The panel.
pub(crate) struct InfoModal {
    title: String,
    content: LinesFn,
    scroll: usize,
    max_scroll: usize,
}

impl InfoModal {
    /// A panel titled `title` whose lines `content` renders for a given width.
    pub(crate) fn new(title: impl Into<String>, content: LinesFn) -> Self {
        Self {
            title: title.into(),
            content,
            scroll: 0,
            max_scroll: 0,
        }
    }

    pub(crate) fn key(&mut self, key: KeyEvent) -> ModalAction {
        match key.code {
            KeyCode::Esc | KeyCode::Enter | KeyCode::Char('q') => return ModalAction::Close,
            KeyCode::Up | KeyCode::Char('k') => self.scroll(false, 1),
            KeyCode::Down | KeyCode::Char('j') => self.scroll(true, 1),
            KeyCode::PageUp => self.scroll(false, 10),
            KeyCode::PageDown | KeyCode::Char(' ') => self.scroll(true, 10),
            KeyCode::Home => self.scroll = 0,
            KeyCode::End => self.scroll = self.max_scroll,
            _ => {}
        }
        ModalAction::Stay
    }

    pub(crate) fn scroll(&mut self, down: bool, lines: usize) {
        self.scroll = scrolled(self.scroll, down, lines, self.max_scroll);
    }

    pub(crate) fn render(&mut self, frame: &mut Frame<'_>, area: Rect) {
        let width = area.width.min(110);
        let lines = (self.content)(usize::from(width.saturating_sub(2)).max(1));
        let height = u16::try_from(lines.len() + 3)
            .unwrap_or(u16::MAX)
            .min(area.height);
        let area = centered(area, width, height);
        let visible = usize::from(height.saturating_sub(3));
        self.max_scroll = lines.len().saturating_sub(visible);
        self.scroll = self.scroll.min(self.max_scroll);
        let mut shown: Vec<Line<'static>> =
            lines.into_iter().skip(self.scroll).take(visible).collect();
        let hint = if self.max_scroll > 0 {
            format!(
                "↑↓ PgUp/PgDn scroll ({}/{}) · Esc close",
                self.scroll, self.max_scroll
            )
        } else {
            "Esc close".to_string()
        };
        shown.push(Line::styled(hint, Style::new().add_modifier(Modifier::DIM)));
        frame.render_widget(Clear, area);
        frame.render_widget(
            Paragraph::new(shown).block(
                Block::new()
                    .borders(Borders::ALL)
                    .border_type(BorderType::Rounded)
                    .border_style(Style::new().fg(Color::Cyan))
                    .title(Span::styled(
                        format!(" {} ", self.title),
                        Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
                    )),
            ),
            area,
        );
    }
}
