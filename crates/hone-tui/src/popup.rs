//! The completion popup above the input box (slash commands, paths, symbols).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph};

use crate::commands;

/// Rows of items shown at once.
const VISIBLE: usize = 8;

/// What the popup completes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PopupKind {
    /// Slash commands (opens by itself while typing `/…`).
    Commands,
    /// Paths and symbols (opened by Tab).
    Words,
}

/// One choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PopupItem {
    /// What is shown and inserted.
    pub(crate) label: String,
    /// A short description.
    pub(crate) detail: String,
}

/// The popup's state.
#[derive(Debug, Clone)]
pub(crate) struct Popup {
    pub(crate) kind: PopupKind,
    pub(crate) items: Vec<PopupItem>,
    pub(crate) selected: usize,
}

impl Popup {
    /// The slash commands matching `prefix`, or `None` when there are none.
    pub(crate) fn commands(prefix: &str) -> Option<Self> {
        let items: Vec<PopupItem> = commands::matching(prefix)
            .into_iter()
            .map(|command| PopupItem {
                label: command.name.to_string(),
                detail: if command.args.is_empty() {
                    command.help.to_string()
                } else {
                    format!("{} — {}", command.args, command.help)
                },
            })
            .collect();
        (!items.is_empty()).then_some(Self {
            kind: PopupKind::Commands,
            items,
            selected: 0,
        })
    }

    /// Word completions.
    pub(crate) fn words(items: Vec<PopupItem>) -> Self {
        Self {
            kind: PopupKind::Words,
            items,
            selected: 0,
        }
    }

    /// Moves the selection, wrapping around.
    pub(crate) fn select(&mut self, down: bool) {
        let count = self.items.len().max(1);
        self.selected = if down {
            (self.selected + 1) % count
        } else {
            (self.selected + count - 1) % count
        };
    }

    /// The selected item.
    pub(crate) fn current(&self) -> Option<&PopupItem> {
        self.items.get(self.selected)
    }

    /// Draws the popup just above `anchor` (the input box), inside `bounds`.
    pub(crate) fn render(&self, frame: &mut Frame<'_>, anchor: Rect, bounds: Rect) {
        let rows = self.items.len().min(VISIBLE);
        let height = u16::try_from(rows + 2)
            .unwrap_or(10)
            .min(anchor.y.saturating_sub(bounds.y));
        if height < 3 {
            return;
        }
        let width = anchor.width.min(100);
        let area = Rect::new(anchor.x, anchor.y - height, width, height);
        let first = self.selected.saturating_sub(rows.saturating_sub(1));
        let label_width = self
            .items
            .iter()
            .map(|item| item.label.chars().count())
            .max()
            .unwrap_or(0)
            .min(usize::from(width / 2));
        let lines: Vec<Line<'_>> = self
            .items
            .iter()
            .enumerate()
            .skip(first)
            .take(rows)
            .map(|(index, item)| {
                let selected = index == self.selected;
                let style = if selected {
                    Style::new().fg(Color::Black).bg(Color::Cyan)
                } else {
                    Style::new()
                };
                Line::from(vec![
                    Span::styled(
                        format!(" {:<label_width$} ", item.label),
                        style.add_modifier(Modifier::BOLD),
                    ),
                    Span::styled(
                        format!(" {}", item.detail),
                        if selected {
                            style
                        } else {
                            style.add_modifier(Modifier::DIM)
                        },
                    ),
                ])
            })
            .collect();
        let title = match self.kind {
            PopupKind::Commands => " commands · Tab/Enter choose · Esc close ",
            PopupKind::Words => " completions · Tab/Enter choose · Esc close ",
        };
        frame.render_widget(Clear, area);
        frame.render_widget(
            Paragraph::new(lines).block(
                Block::new()
                    .borders(Borders::ALL)
                    .border_type(BorderType::Rounded)
                    .border_style(Style::new().fg(Color::DarkGray))
                    .title(title),
            ),
            area,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_wraps_around() {
        let mut popup = Popup::commands("/d").unwrap();
        assert_eq!(popup.current().unwrap().label, "/diff");
        popup.select(true);
        assert_eq!(popup.current().unwrap().label, "/drop");
        popup.select(true);
        assert_eq!(popup.current().unwrap().label, "/diff");
        popup.select(false);
        assert_eq!(popup.current().unwrap().label, "/drop");
        assert!(Popup::commands("/nothing").is_none());
    }
}
