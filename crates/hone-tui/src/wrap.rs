//! Wrapping styled text to a width, so the conversation knows every entry's height.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Where a line may break.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Between words; a word longer than the width is split.
    Words,
    /// Anywhere (code, diffs).
    Chars,
}

/// The display width of some spans.
pub(crate) fn width_of(spans: &[Span<'_>]) -> usize {
    spans.iter().map(|span| span.content.width()).sum()
}

/// Wraps `spans` to `width` columns. The first line starts with `first`, every further
/// line with `rest` (indentation, quote bars, diff gutters).
pub(crate) fn wrap(
    spans: Vec<Span<'static>>,
    width: usize,
    first: &[Span<'static>],
    rest: &[Span<'static>],
    mode: Mode,
) -> Vec<Line<'static>> {
    let mut out = Builder::new(width.max(1), first, rest);
    for span in spans {
        match mode {
            Mode::Words => {
                for (is_space, piece) in pieces(&span.content) {
                    out.push_word(piece, is_space, span.style);
                }
            }
            Mode::Chars => out.push_chars(&span.content, span.style),
        }
    }
    out.finish()
}

/// Splits text into alternating runs of whitespace and non-whitespace.
fn pieces(text: &str) -> Vec<(bool, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut current: Option<bool> = None;
    for (index, c) in text.char_indices() {
        let space = c.is_whitespace();
        match current {
            Some(kind) if kind == space => {}
            Some(kind) => {
                out.push((kind, &text[start..index]));
                start = index;
                current = Some(space);
            }
            None => current = Some(space),
        }
    }
    if let Some(kind) = current {
        out.push((kind, &text[start..]));
    }
    out
}

struct Builder<'p> {
    width: usize,
    rest: &'p [Span<'static>],
    lines: Vec<Line<'static>>,
    current: Vec<Span<'static>>,
    used: usize,
    empty: bool,
}

impl<'p> Builder<'p> {
    fn new(width: usize, first: &[Span<'static>], rest: &'p [Span<'static>]) -> Self {
        Self {
            width,
            rest,
            lines: Vec::new(),
            current: first.to_vec(),
            used: width_of(first),
            empty: true,
        }
    }

    fn push_word(&mut self, text: &str, is_space: bool, style: Style) {
        let width = text.width();
        if self.used + width <= self.width {
            self.append(text, style, width);
            return;
        }
        if is_space {
            self.break_line();
            return;
        }
        if !self.empty && width + width_of(self.rest) <= self.width {
            self.break_line();
            self.append(text, style, width);
            return;
        }
        self.push_chars(text, style);
    }

    fn push_chars(&mut self, text: &str, style: Style) {
        let mut chunk = String::new();
        let mut chunk_width = 0;
        for c in text.chars() {
            if c == '\n' {
                continue;
            }
            let width = c.width().unwrap_or(0);
            if self.used + chunk_width + width > self.width && !(self.empty && chunk.is_empty()) {
                let taken = std::mem::take(&mut chunk);
                self.append(&taken, style, chunk_width);
                chunk_width = 0;
                self.break_line();
            }
            chunk.push(c);
            chunk_width += width;
        }
        if !chunk.is_empty() {
            self.append(&chunk, style, chunk_width);
        }
    }

    fn append(&mut self, text: &str, style: Style, width: usize) {
        if text.is_empty() {
            return;
        }
        self.used += width;
        self.empty = false;
        match self.current.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push_str(text),
            _ => self.current.push(Span::styled(text.to_string(), style)),
        }
    }

    fn break_line(&mut self) {
        let mut spans = std::mem::replace(&mut self.current, self.rest.to_vec());
        trim_trailing_space(&mut spans);
        self.lines.push(Line::from(spans));
        self.used = width_of(self.rest);
        self.empty = true;
    }

    fn finish(mut self) -> Vec<Line<'static>> {
        let mut spans = std::mem::take(&mut self.current);
        trim_trailing_space(&mut spans);
        self.lines.push(Line::from(spans));
        self.lines
    }
}

fn trim_trailing_space(spans: &mut Vec<Span<'static>>) {
    while let Some(last) = spans.last() {
        let trimmed = last.content.trim_end().len();
        if trimmed == last.content.len() {
            break;
        }
        if trimmed == 0 && spans.len() > 1 {
            spans.pop();
            continue;
        }
        if let Some(last) = spans.last_mut() {
            last.content.to_mut().truncate(trimmed);
        }
        break;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn words_wrap_at_spaces_with_continuation_prefix() {
        let lines = wrap(
            vec![Span::raw("one two three four")],
            10,
            &[Span::raw("• ")],
            &[Span::raw("  ")],
            Mode::Words,
        );
        assert_eq!(texts(&lines), ["• one two", "  three", "  four"]);
    }

    #[test]
    fn long_words_and_code_are_split_anywhere() {
        let lines = wrap(vec![Span::raw("abcdefghij")], 4, &[], &[], Mode::Words);
        assert_eq!(texts(&lines), ["abcd", "efgh", "ij"]);
        let lines = wrap(vec![Span::raw("let x = 1;")], 6, &[], &[], Mode::Chars);
        assert_eq!(texts(&lines), ["let x ", "= 1;"].map(str::trim_end));
    }

    #[test]
    fn styles_survive_wrapping_and_wide_characters_count_double() {
        let bold = Style::new().bold();
        let lines = wrap(
            vec![Span::raw("ab "), Span::styled("cd", bold)],
            4,
            &[],
            &[],
            Mode::Words,
        );
        assert_eq!(texts(&lines), ["ab", "cd"]);
        assert_eq!(lines[1].spans[0].style, bold);
        let lines = wrap(vec![Span::raw("日本語")], 4, &[], &[], Mode::Chars);
        assert_eq!(texts(&lines), ["日本", "語"]);
    }

    #[test]
    fn empty_input_is_one_line_and_tiny_widths_terminate() {
        assert_eq!(wrap(Vec::new(), 10, &[], &[], Mode::Words).len(), 1);
        let lines = wrap(
            vec![Span::raw("abc")],
            1,
            &[Span::raw(">>")],
            &[],
            Mode::Words,
        );
        assert!(lines.len() <= 4, "{lines:?}");
    }
}
