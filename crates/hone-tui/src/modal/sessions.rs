//! The `/sessions` dialog: saved sessions of the project; Enter loads, d deletes.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph};

use super::{ModalAction, centered};
use crate::format::one_line;
use crate::host::SavedSession;

/// The dialog.
pub(crate) struct SessionsModal {
    sessions: Vec<SavedSession>,
    current: Option<String>,
    selected: usize,
    confirm_delete: bool,
}

impl SessionsModal {
    /// Lists `sessions`; `current` is the running one (it cannot be deleted).
    pub(crate) fn new(sessions: Vec<SavedSession>, current: Option<String>) -> Self {
        Self {
            sessions,
            current,
            selected: 0,
            confirm_delete: false,
        }
    }

    pub(crate) fn key(&mut self, key: KeyEvent) -> ModalAction {
        let Some(session) = self.sessions.get(self.selected) else {
            return ModalAction::Close;
        };
        let id = session.id.clone();
        if self.confirm_delete {
            self.confirm_delete = false;
            return if matches!(key.code, KeyCode::Char('y' | 'Y')) {
                ModalAction::DeleteSession(id)
            } else {
                ModalAction::Stay
            };
        }
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') => ModalAction::Close,
            KeyCode::Up | KeyCode::Char('k') => {
                self.selected = self.selected.saturating_sub(1);
                ModalAction::Stay
            }
            KeyCode::Down | KeyCode::Char('j') => {
                self.selected = (self.selected + 1).min(self.sessions.len().saturating_sub(1));
                ModalAction::Stay
            }
            KeyCode::Enter if self.current.as_deref() == Some(id.as_str()) => ModalAction::Close,
            KeyCode::Enter => ModalAction::LoadSession(id),
            KeyCode::Char('d' | 'D') if self.current.as_deref() != Some(id.as_str()) => {
                self.confirm_delete = true;
                ModalAction::Stay
            }
            _ => ModalAction::Stay,
        }
    }

    pub(crate) fn render(&mut self, frame: &mut Frame<'_>, area: Rect) {
        let width = area.width.min(110);
        let inner = usize::from(width.saturating_sub(2));
        let visible = usize::from(area.height.saturating_sub(4)).max(1);
        let first = self.selected.saturating_sub(visible.saturating_sub(1));
        let mut lines: Vec<Line<'static>> = Vec::new();
        for (index, session) in self.sessions.iter().enumerate().skip(first).take(visible) {
            let selected = index == self.selected;
            let style = if selected {
                Style::new().fg(Color::Black).bg(Color::Cyan)
            } else {
                Style::new()
            };
            let mark = if self.current.as_deref() == Some(session.id.as_str()) {
                "●"
            } else {
                " "
            };
            let meta = format!(
                " {:>9} · {:>4} msgs · {} ",
                session.active, session.messages, session.model
            );
            let title_width = inner.saturating_sub(meta.chars().count() + 3).max(8);
            let title = if session.title.is_empty() {
                "untitled"
            } else {
                session.title.as_str()
            };
            lines.push(Line::from(vec![
                Span::styled(
                    format!("{mark} "),
                    style.fg(if selected { Color::Black } else { Color::Green }),
                ),
                Span::styled(
                    format!("{:<title_width$}", one_line(title, title_width)),
                    style.add_modifier(Modifier::BOLD),
                ),
                Span::styled(
                    meta,
                    if selected {
                        style
                    } else {
                        style.add_modifier(Modifier::DIM)
                    },
                ),
            ]));
        }
        let hint = if self.confirm_delete {
            Line::styled(
                "delete this session for good? y deletes, any other key keeps it",
                Style::new().fg(Color::Yellow),
            )
        } else {
            Line::styled(
                "↑↓ choose · Enter load · d delete · Esc close   (● is the running session)",
                Style::new().add_modifier(Modifier::DIM),
            )
        };
        lines.push(hint);
        let height = u16::try_from(lines.len() + 2).unwrap_or(u16::MAX);
        let area = centered(area, width, height);
        frame.render_widget(Clear, area);
        frame.render_widget(
            Paragraph::new(lines).block(
                Block::new()
                    .borders(Borders::ALL)
                    .border_type(BorderType::Rounded)
                    .border_style(Style::new().fg(Color::Cyan))
                    .title(Span::styled(
                        " saved sessions ",
                        Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
                    )),
            ),
            area,
        );
    }
}

#[cfg(test)]
mod tests {
    use ratatui::crossterm::event::KeyModifiers;

    use super::*;

    fn saved(id: &str) -> SavedSession {
        SavedSession {
            id: id.into(),
            title: format!("task {id}"),
            model: "m".into(),
            messages: 3,
            active: "1h ago".into(),
        }
    }

    fn press(modal: &mut SessionsModal, code: KeyCode) -> ModalAction {
        modal.key(KeyEvent::new(code, KeyModifiers::NONE))
    }

    #[test]
    fn enter_loads_and_d_deletes_after_confirmation() {
        let mut modal = SessionsModal::new(vec![saved("a"), saved("b")], Some("a".into()));
        assert_eq!(
            press(&mut modal, KeyCode::Enter),
            ModalAction::Close,
            "a is running"
        );
        assert_eq!(press(&mut modal, KeyCode::Char('d')), ModalAction::Stay);
        assert_eq!(
            press(&mut modal, KeyCode::Char('y')),
            ModalAction::Stay,
            "the running one is kept"
        );
        press(&mut modal, KeyCode::Down);
        assert_eq!(
            press(&mut modal, KeyCode::Enter),
            ModalAction::LoadSession("b".into())
        );
        assert_eq!(press(&mut modal, KeyCode::Char('d')), ModalAction::Stay);
        assert_eq!(
            press(&mut modal, KeyCode::Char('y')),
            ModalAction::DeleteSession("b".into())
        );
        press(&mut modal, KeyCode::Char('d'));
        assert_eq!(press(&mut modal, KeyCode::Char('n')), ModalAction::Stay);
    }
}
