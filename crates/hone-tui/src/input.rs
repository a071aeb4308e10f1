//! The input box: a multi-line text area with ↑/↓ history and word replacement for
//! completion.

use ratatui::Frame;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Block, BorderType, Borders};
use ratatui_textarea::{CursorMove, TextArea, WrapMode};
use unicode_width::UnicodeWidthStr;

/// Most lines the box grows to before it scrolls.
const MAX_VISIBLE_LINES: usize = 6;
/// History entries kept in memory.
const HISTORY_LIMIT: usize = 500;

/// The text the user is typing, and what they typed before.
pub(crate) struct InputBox {
    area: TextArea<'static>,
    history: Vec<String>,
    position: Option<usize>,
    draft: String,
}

impl InputBox {
    /// An empty box with `history` (oldest first) for ↑/↓.
    pub(crate) fn new(mut history: Vec<String>) -> Self {
        let overflow = history.len().saturating_sub(HISTORY_LIMIT);
        history.drain(..overflow);
        Self {
            area: fresh_area(),
            history,
            position: None,
            draft: String::new(),
        }
    }

    /// The whole text.
    pub(crate) fn text(&self) -> String {
        self.area.lines().join("\n")
    }

    /// Whether nothing is typed.
    pub(crate) fn is_empty(&self) -> bool {
        self.area.is_empty()
    }

    /// Replaces the text, cursor at the end.
    pub(crate) fn set_text(&mut self, text: &str) {
        self.area = fresh_area();
        self.area.insert_str(text);
    }

    /// Takes the text out, leaving the box empty, and records it in the history.
    pub(crate) fn take(&mut self) -> String {
        let text = self.text();
        self.area = fresh_area();
        self.position = None;
        self.draft.clear();
        if !text.trim().is_empty() && self.history.last() != Some(&text) {
            self.history.push(text.clone());
            if self.history.len() > HISTORY_LIMIT {
                self.history.remove(0);
            }
        }
        text
    }

    /// Empties the box without recording anything.
    pub(crate) fn clear(&mut self) {
        self.area = fresh_area();
        self.position = None;
    }

    /// Inserts a line break at the cursor.
    pub(crate) fn newline(&mut self) {
        self.area.insert_newline();
    }

    /// Inserts pasted or completed text at the cursor.
    pub(crate) fn insert(&mut self, text: &str) {
        self.area
            .insert_str(text.replace("\r\n", "\n").replace('\r', "\n"));
    }

    /// Passes an editing key to the text area; true when the text changed.
    pub(crate) fn key(&mut self, key: KeyEvent) -> bool {
        self.area.input(key)
    }

    /// Whether the cursor is on the first line (↑ goes to history).
    pub(crate) fn on_first_line(&self) -> bool {
        self.area.cursor().0 == 0
    }

    /// Whether the cursor is on the last line (↓ goes to history).
    pub(crate) fn on_last_line(&self) -> bool {
        self.area.cursor().0 + 1 >= self.area.lines().len()
    }

    /// Moves the cursor up or down a line.
    pub(crate) fn move_line(&mut self, up: bool) {
        self.area
            .move_cursor(if up { CursorMove::Up } else { CursorMove::Down });
    }

    /// Shows the previous history entry; false when there is none.
    pub(crate) fn history_back(&mut self) -> bool {
        let next = match self.position {
            None if self.history.is_empty() => return false,
            None => {
                self.draft = self.text();
                self.history.len() - 1
            }
            Some(0) => return false,
            Some(position) => position - 1,
        };
        self.position = Some(next);
        let entry = self.history[next].clone();
        self.set_text(&entry);
        true
    }

    /// Shows the next history entry, or the draft after the newest; false at the draft.
    pub(crate) fn history_forward(&mut self) -> bool {
        let Some(position) = self.position else {
            return false;
        };
        if position + 1 < self.history.len() {
            self.position = Some(position + 1);
            let entry = self.history[position + 1].clone();
            self.set_text(&entry);
        } else {
            self.position = None;
            let draft = std::mem::take(&mut self.draft);
            self.set_text(&draft);
        }
        true
    }

    /// The word before the cursor on its line (what Tab completes), with its start column.
    pub(crate) fn word_before_cursor(&self) -> (String, usize) {
        let (row, column) = (self.area.cursor().0, self.area.cursor().1);
        let line = self.area.lines().get(row).map(String::as_str).unwrap_or("");
        let before: Vec<char> = line.chars().take(column).collect();
        let start = before
            .iter()
            .rposition(|c| c.is_whitespace())
            .map_or(0, |index| index + 1);
        (before[start..].iter().collect(), start)
    }

    /// Replaces the word before the cursor with `replacement`.
    pub(crate) fn replace_word_before_cursor(&mut self, replacement: &str) {
        let (word, _) = self.word_before_cursor();
        for _ in 0..word.chars().count() {
            self.area.delete_char();
        }
        self.area.insert_str(replacement);
    }

    /// Rows the box needs at `width` columns, borders included.
    pub(crate) fn height(&self, width: u16) -> u16 {
        let inner = usize::from(width.saturating_sub(2)).max(1);
        let rows: usize = self
            .area
            .lines()
            .iter()
            .map(|line| line.width().div_ceil(inner).max(1))
            .sum();
        u16::try_from(rows.clamp(1, MAX_VISIBLE_LINES) + 2).unwrap_or(3)
    }

    /// Draws the box.
    pub(crate) fn render(&mut self, frame: &mut Frame<'_>, area: Rect, busy: bool) {
        let border = if busy { Color::DarkGray } else { Color::Cyan };
        let title = if busy {
            " message (queued until the turn ends) "
        } else {
            " message "
        };
        self.area.set_block(
            Block::new()
                .borders(Borders::ALL)
                .border_type(BorderType::Rounded)
                .border_style(Style::new().fg(border))
                .title(title),
        );
        frame.render_widget(&self.area, area);
    }
}

fn fresh_area() -> TextArea<'static> {
    let mut area = TextArea::default();
    area.set_cursor_line_style(Style::new());
    area.set_cursor_style(Style::new().add_modifier(Modifier::REVERSED));
    area.set_placeholder_text("Ask hone, or / for commands");
    area.set_placeholder_style(Style::new().add_modifier(Modifier::DIM));
    area.set_wrap_mode(WrapMode::WordOrGlyph);
    area
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_walks_back_and_returns_to_the_draft() {
        let mut input = InputBox::new(vec!["first".into(), "second".into()]);
        input.set_text("draft");
        assert!(input.history_back());
        assert_eq!(input.text(), "second");
        assert!(input.history_back());
        assert_eq!(input.text(), "first");
        assert!(!input.history_back());
        assert!(input.history_forward());
        assert!(input.history_forward());
        assert_eq!(input.text(), "draft");
        assert!(!input.history_forward());
    }

    #[test]
    fn taking_text_records_it_once() {
        let mut input = InputBox::new(Vec::new());
        input.set_text("hello");
        assert_eq!(input.take(), "hello");
        input.set_text("hello");
        input.take();
        assert!(input.is_empty());
        assert!(input.history_back());
        assert_eq!(input.text(), "hello");
        assert!(!input.history_back(), "duplicates are not stored twice");
    }

    #[test]
    fn the_word_before_the_cursor_is_replaced() {
        let mut input = InputBox::new(Vec::new());
        input.set_text("/add src/ma");
        assert_eq!(input.word_before_cursor(), ("src/ma".into(), 5));
        input.replace_word_before_cursor("src/main.rs");
        assert_eq!(input.text(), "/add src/main.rs");
    }

    #[test]
    fn height_grows_with_lines_up_to_a_limit() {
        let mut input = InputBox::new(Vec::new());
        assert_eq!(input.height(40), 3);
        input.set_text("a\nb\nc");
        assert_eq!(input.height(40), 5);
        input.set_text(&"x\n".repeat(20));
        assert_eq!(input.height(40), 8);
    }
}
