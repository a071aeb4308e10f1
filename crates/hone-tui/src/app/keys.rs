//! Keys, mouse and paste.

use hone_api::Request;
use ratatui::crossterm::event::{
    Event as TermEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEventKind,
};

use super::{App, Effect};
use crate::complete::common_prefix;
use crate::host::SessionStart;
use crate::modal::{ChoiceAction, Modal, ModalAction};
use crate::popup::{Popup, PopupItem, PopupKind};
use crate::transcript::Entry;

/// Lines one mouse-wheel step scrolls.
const WHEEL_LINES: usize = 3;

impl App {
    /// Takes in one terminal event (key, mouse, paste, resize).
    pub fn on_terminal_event(&mut self, event: TermEvent) -> Vec<Effect> {
        let mut effects = Vec::new();
        match event {
            TermEvent::Key(key) if key.kind != KeyEventKind::Release => self.key(key, &mut effects),
            TermEvent::Mouse(mouse) => match mouse.kind {
                MouseEventKind::ScrollUp => self.scroll_by(false, WHEEL_LINES),
                MouseEventKind::ScrollDown => self.scroll_by(true, WHEEL_LINES),
                _ => {}
            },
            TermEvent::Paste(text) => match self.modal.as_mut() {
                Some(modal) => modal.paste(&text),
                None => {
                    self.input.insert(&text);
                    self.input_changed();
                }
            },
            _ => {}
        }
        effects
    }

    fn scroll_by(&mut self, down: bool, lines: usize) {
        if let Some(modal) = self.modal.as_mut() {
            modal.scroll(down, lines);
        } else if down {
            self.scroll = self.scroll.saturating_sub(lines);
        } else {
            self.scroll += lines;
        }
    }

    fn key(&mut self, key: KeyEvent, effects: &mut Vec<Effect>) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && key.code == KeyCode::Char('c') {
            self.interrupt(effects);
            return;
        }
        if self.interrupt_armed {
            self.interrupt_armed = false;
            self.note = None;
        }
        if ctrl && key.code == KeyCode::Char('d') {
            self.quit = true;
            effects.push(Effect::Quit);
            return;
        }
        if self.modal.is_some() {
            self.modal_key(key, effects);
            return;
        }
        match (key.code, ctrl) {
            (KeyCode::Char('z'), true) => {
                Self::send(effects, Request::Undo { count: 1 });
                return;
            }
            (KeyCode::Char('o'), true) => {
                let shown = self.transcript.toggle_tool_output();
                self.note = Some(
                    if shown {
                        "tool output shown (Ctrl+O hides)"
                    } else {
                        "tool output hidden"
                    }
                    .into(),
                );
                return;
            }
            (KeyCode::Char('t'), true) => {
                let shown = self.transcript.toggle_thinking();
                self.note = Some(
                    if shown {
                        "thinking shown (Ctrl+T hides)"
                    } else {
                        "thinking hidden"
                    }
                    .into(),
                );
                return;
            }
            (KeyCode::Char('g'), true) => {
                self.note = Some(
                    match self.transcript.toggle_diffs() {
                        Some(true) => "diffs expanded (Ctrl+G collapses them)",
                        Some(false) => "diffs collapsed",
                        None => "no diffs in the conversation yet",
                    }
                    .into(),
                );
                return;
            }
            (KeyCode::Char('j'), true) => {
                self.input.newline();
                return;
            }
            (KeyCode::Home, true) => {
                self.scroll = usize::MAX / 2;
                return;
            }
            (KeyCode::End, true) => {
                self.scroll = 0;
                return;
            }
            _ => {}
        }
        self.note = None;
        match key.code {
            KeyCode::Enter
                if key
                    .modifiers
                    .intersects(KeyModifiers::ALT | KeyModifiers::SHIFT) =>
            {
                self.input.newline();
            }
            KeyCode::Enter => self.enter(effects),
            KeyCode::Tab => self.tab(effects),
            KeyCode::Esc => {
                if self.popup.take().is_none() {
                    if self.indexing.take().is_some() {
                        effects.push(Effect::SkipIndexing);
                    } else {
                        self.scroll = 0;
                    }
                }
            }
            KeyCode::Up | KeyCode::Down => self.up_down(key),
            KeyCode::PageUp => self.scroll_by(false, self.page),
            KeyCode::PageDown => self.scroll_by(true, self.page),
            KeyCode::End if self.input.is_empty() => self.scroll = 0,
            _ => {
                if self.input.key(key) {
                    self.input_changed();
                }
            }
        }
    }

    fn interrupt(&mut self, effects: &mut Vec<Effect>) {
        if self.interrupt_armed {
            self.quit = true;
            effects.push(Effect::Quit);
            return;
        }
        if self.running {
            Self::send(effects, Request::Cancel);
            self.modal = self
                .modal
                .take()
                .filter(|modal| !matches!(modal, Modal::Approval(_)));
            self.waiting
                .retain(|modal| !matches!(modal, Modal::Approval(_)));
            self.interrupt_armed = true;
            self.note = Some("interrupting… (Ctrl+C again quits)".into());
        } else if self.modal.is_some() {
            // Idle: Ctrl+C closes a dialog (help, status, sessions, an error choice).
            self.modal = self.waiting.pop_front();
        } else if !self.input.is_empty() {
            self.input.clear();
            self.popup = None;
        } else {
            self.interrupt_armed = true;
            self.note = Some("press Ctrl+C again to quit (Ctrl+D quits too)".into());
        }
    }

    fn modal_key(&mut self, key: KeyEvent, effects: &mut Vec<Effect>) {
        let Some(modal) = self.modal.as_mut() else {
            return;
        };
        let action = modal.key(key);
        self.modal_action(action, effects);
    }

    pub(super) fn modal_action(&mut self, action: ModalAction, effects: &mut Vec<Effect>) {
        match action {
            ModalAction::Stay => return,
            ModalAction::Close => {}
            ModalAction::Decide { call_id, decision } => {
                Self::send(effects, Request::Approval { call_id, decision });
            }
            ModalAction::ExternalEdit { call_id, content } => {
                effects.push(Effect::ExternalEdit { call_id, content });
                return;
            }
            ModalAction::Chose(ChoiceAction::Answer(choice)) => {
                Self::send(effects, Request::ErrorChoice { choice });
            }
            ModalAction::Chose(ChoiceAction::Conflict(choice)) => {
                Self::send(effects, Request::ConflictChoice { choice });
            }
            ModalAction::Chose(ChoiceAction::Resend(text)) => self.submit_message(text, effects),
            ModalAction::Chose(ChoiceAction::Dismiss) => {}
            ModalAction::LoadSession(id) => {
                if self.running {
                    self.notice("a turn is running — Ctrl+C interrupts it first");
                } else {
                    effects.push(Effect::StartSession(SessionStart {
                        resume: Some(id),
                        model: None,
                    }));
                }
            }
            ModalAction::DeleteSession(id) => effects.push(Effect::DeleteSession(id)),
        }
        self.modal = self.waiting.pop_front();
    }

    /// The external editor returned with `edited` (None: it failed or was abandoned).
    pub fn editor_returned(&mut self, call_id: &str, edited: Option<String>) -> Vec<Effect> {
        let mut effects = Vec::new();
        let action = match self.modal.as_mut() {
            Some(Modal::Approval(modal)) if modal.call_id() == call_id => modal.edited(edited),
            _ => return effects,
        };
        self.modal_action(action, &mut effects);
        effects
    }

    fn up_down(&mut self, key: KeyEvent) {
        let up = key.code == KeyCode::Up;
        if let Some(popup) = self.popup.as_mut() {
            popup.select(!up);
            return;
        }
        let moved = if up && self.input.on_first_line() {
            self.input.history_back()
        } else if !up && self.input.on_last_line() {
            self.input.history_forward()
        } else {
            self.input.move_line(up);
            true
        };
        if moved {
            self.input_changed();
        }
    }

    fn enter(&mut self, effects: &mut Vec<Effect>) {
        if let Some(popup) = self.popup.take()
            && let Some(item) = popup.current()
        {
            let label = item.label.clone();
            let typed_in_full = self.input.text().trim() == label;
            let takes_args = crate::commands::COMMANDS
                .iter()
                .any(|command| command.name == label && !command.args.is_empty());
            if popup.kind == PopupKind::Words || (takes_args && !typed_in_full) {
                self.accept(&popup);
                return;
            }
            self.input.set_text(&label);
        }
        let text = self.input.take();
        if text.trim().is_empty() {
            return;
        }
        effects.push(Effect::RememberInput(text.clone()));
        if text.trim_start().starts_with('/') {
            self.run_command(text.trim(), effects);
        } else {
            self.submit_message(text, effects);
        }
    }

    /// Sends `text` as the user's message, as if typed and entered (`hone "task"`).
    pub fn send_message(&mut self, text: String) -> Vec<Effect> {
        let mut effects = vec![Effect::RememberInput(text.clone())];
        self.submit_message(text, &mut effects);
        effects
    }

    pub(super) fn submit_message(&mut self, text: String, effects: &mut Vec<Effect>) {
        self.scroll = 0;
        self.last_message = Some(text.clone());
        self.transcript.push(Entry::User(text.clone()));
        Self::send(effects, Request::user_message(text));
    }

    fn tab(&mut self, effects: &mut Vec<Effect>) {
        if let Some(popup) = self.popup.take() {
            self.accept(&popup);
            return;
        }
        let (word, _) = self.input.word_before_cursor();
        if word.is_empty() {
            return;
        }
        effects.push(Effect::Complete { word });
    }

    fn accept(&mut self, popup: &Popup) {
        let Some(item) = popup.current() else {
            return;
        };
        match popup.kind {
            PopupKind::Commands => {
                self.input.set_text(&format!("{} ", item.label));
            }
            PopupKind::Words => self.input.replace_word_before_cursor(&item.label),
        }
    }

    /// Completions found for `word` (paths, symbols): one is inserted, several are offered.
    pub fn show_completions(&mut self, word: &str, candidates: Vec<(String, String)>) {
        if self.input.word_before_cursor().0 != word || self.modal.is_some() {
            return;
        }
        match candidates.len() {
            0 => self.note = Some(format!("nothing completes `{word}`")),
            1 => {
                self.input.replace_word_before_cursor(&candidates[0].0);
                self.popup = None;
            }
            _ => {
                let labels: Vec<String> =
                    candidates.iter().map(|(label, _)| label.clone()).collect();
                let prefix = common_prefix(&labels);
                if prefix.len() > word.len() {
                    self.input.replace_word_before_cursor(&prefix);
                }
                self.popup = Some(Popup::words(
                    candidates
                        .into_iter()
                        .map(|(label, detail)| PopupItem { label, detail })
                        .collect(),
                ));
            }
        }
    }

    /// Opens or closes the command popup as the text changes.
    fn input_changed(&mut self) {
        let text = self.input.text();
        let typing_command = text.starts_with('/') && !text.contains(char::is_whitespace);
        if typing_command {
            self.popup = Popup::commands(&text);
        } else if self
            .popup
            .as_ref()
            .is_some_and(|popup| popup.kind == PopupKind::Commands)
        {
            self.popup = None;
        } else if let Some(popup) = self.popup.as_ref() {
            let (word, _) = self.input.word_before_cursor();
            let still = popup.items.iter().any(|item| item.label.starts_with(&word));
            if !still || word.is_empty() {
                self.popup = None;
            }
        }
    }
}
