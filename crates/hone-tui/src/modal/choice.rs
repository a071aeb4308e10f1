//! A choice after an error: retry / skip / abort, or apply anyway / skip / regenerate after
//! an edit conflict.

use hone_api::{ConflictChoice, ErrorChoice};
use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph};

use super::{ModalAction, centered};
use crate::wrap::{self, Mode};

/// What choosing an option does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ChoiceAction {
    /// Answer the core's `turn.error` with this choice.
    Answer(ErrorChoice),
    /// Answer the core's `edit.conflict` with this choice.
    Conflict(ConflictChoice),
    /// Send this user message again (a new turn).
    Resend(String),
    /// Leave it; nothing more happens.
    Dismiss,
}

/// One option: its key, its label and what it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Choice {
    pub(crate) key: char,
    pub(crate) label: String,
    pub(crate) action: ChoiceAction,
}

/// The dialog.
pub(crate) struct ChoiceModal {
    title: String,
    message: String,
    choices: Vec<Choice>,
    selected: usize,
}

impl ChoiceModal {
    /// A dialog titled `title` explaining `message`, offering `choices` (the first is
    /// selected; Esc picks the last).
    pub(crate) fn new(title: String, message: String, choices: Vec<Choice>) -> Self {
        Self {
            title,
            message,
            choices,
            selected: 0,
        }
    }

    pub(crate) fn key(&mut self, key: KeyEvent) -> ModalAction {
        let count = self.choices.len().max(1);
        match key.code {
            KeyCode::Left | KeyCode::BackTab => self.selected = (self.selected + count - 1) % count,
            KeyCode::Right | KeyCode::Tab => self.selected = (self.selected + 1) % count,
            KeyCode::Enter => return self.pick(self.selected),
            KeyCode::Esc => return self.pick(count - 1),
            KeyCode::Char(c) => {
                let c = c.to_ascii_lowercase();
                if let Some(index) = self.choices.iter().position(|choice| choice.key == c) {
                    return self.pick(index);
                }
            }
            _ => {}
        }
        ModalAction::Stay
    }

    fn pick(&self, index: usize) -> ModalAction {
        match self.choices.get(index) {
            Some(choice) => ModalAction::Chose(choice.action.clone()),
            None => ModalAction::Close,
        }
    }

    pub(crate) fn render(&mut self, frame: &mut Frame<'_>, area: Rect) {
        let width = area.width.saturating_sub(4).min(72);
        let inner_width = usize::from(width.saturating_sub(2)).max(1);
        let mut lines = Vec::new();
        for line in hone_api::display::text(&self.message).lines() {
            lines.extend(wrap::wrap(
                vec![Span::raw(line.to_string())],
                inner_width,
                &[],
                &[],
                Mode::Words,
            ));
        }
        lines.truncate(usize::from(area.height.saturating_sub(5)).max(1));
        lines.push(Line::default());
        let mut options = Vec::new();
        for (index, choice) in self.choices.iter().enumerate() {
            let style = if index == self.selected {
                Style::new().fg(Color::Black).bg(Color::Cyan)
            } else {
                Style::new()
            };
            options.push(Span::styled(
                format!("[{}]", choice.key),
                style.add_modifier(Modifier::BOLD),
            ));
            options.push(Span::styled(format!(" {}", choice.label), style));
            options.push(Span::raw("   "));
        }
        lines.extend(wrap::wrap(options, inner_width, &[], &[], Mode::Words));
        let height = u16::try_from(lines.len() + 2).unwrap_or(u16::MAX);
        let area = centered(area, width, height);
        frame.render_widget(Clear, area);
        frame.render_widget(
            Paragraph::new(lines).block(
                Block::new()
                    .borders(Borders::ALL)
                    .border_type(BorderType::Rounded)
                    .border_style(Style::new().fg(Color::Red))
                    .title(Span::styled(
                        format!(" {} ", self.title),
                        Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
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

    fn dialog() -> ChoiceModal {
        ChoiceModal::new(
            "provider failed".into(),
            "timeout".into(),
            vec![
                Choice {
                    key: 'r',
                    label: "retry".into(),
                    action: ChoiceAction::Resend("hi".into()),
                },
                Choice {
                    key: 's',
                    label: "skip".into(),
                    action: ChoiceAction::Dismiss,
                },
            ],
        )
    }

    #[test]
    fn keys_arrows_and_escape_pick_options() {
        let key = |code| KeyEvent::new(code, KeyModifiers::NONE);
        assert_eq!(
            dialog().key(key(KeyCode::Char('r'))),
            ModalAction::Chose(ChoiceAction::Resend("hi".into()))
        );
        assert_eq!(
            dialog().key(key(KeyCode::Esc)),
            ModalAction::Chose(ChoiceAction::Dismiss)
        );
        let mut moved = dialog();
        moved.key(key(KeyCode::Right));
        assert_eq!(
            moved.key(key(KeyCode::Enter)),
            ModalAction::Chose(ChoiceAction::Dismiss)
        );
        assert_eq!(dialog().key(key(KeyCode::Char('z'))), ModalAction::Stay);
    }
}
