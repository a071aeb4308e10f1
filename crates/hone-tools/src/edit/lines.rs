//! A file as lines that remembers its line endings, so edits keep CRLF files CRLF, keep
//! untouched lines byte for byte, and keep (or keep missing) the final newline.

use std::ops::Range;

/// A line ending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Eol {
    /// `\n`.
    Lf,
    /// `\r\n`.
    CrLf,
    /// No line ending (the last line of a file without a final newline).
    Missing,
}

impl Eol {
    fn as_str(self) -> &'static str {
        match self {
            Eol::Lf => "\n",
            Eol::CrLf => "\r\n",
            Eol::Missing => "",
        }
    }
}

/// The lines of a text file with their endings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LineBuffer {
    lines: Vec<String>,
    /// The ending of each line as read; inserted lines get [`Eol::Missing`] and are written
    /// with the file's usual ending.
    eols: Vec<Eol>,
    /// The ending most lines use (never `Missing`).
    usual: Eol,
    /// Whether the last line ends with a newline.
    final_newline: bool,
}

impl LineBuffer {
    /// Splits `text` into lines; an empty text has no lines (and gets a final newline once
    /// lines are added).
    pub(crate) fn parse(text: &str) -> Self {
        let mut lines = Vec::new();
        let mut eols = Vec::new();
        let (mut crlf, mut lf) = (0usize, 0usize);
        for piece in text.split_inclusive('\n') {
            let (line, eol) = if let Some(line) = piece.strip_suffix("\r\n") {
                crlf += 1;
                (line, Eol::CrLf)
            } else if let Some(line) = piece.strip_suffix('\n') {
                lf += 1;
                (line, Eol::Lf)
            } else {
                (piece, Eol::Missing)
            };
            lines.push(line.to_string());
            eols.push(eol);
        }
        Self {
            lines,
            eols,
            usual: if crlf > lf { Eol::CrLf } else { Eol::Lf },
            final_newline: text.is_empty() || text.ends_with('\n'),
        }
    }

    /// The lines, without endings.
    pub(crate) fn lines(&self) -> &[String] {
        &self.lines
    }

    /// Number of lines.
    pub(crate) fn len(&self) -> usize {
        self.lines.len()
    }

    /// `text` with this file's usual line ending (CRLF files stay CRLF).
    pub(crate) fn adapt_endings(&self, text: &str) -> String {
        let lf = text.replace("\r\n", "\n");
        match self.usual {
            Eol::CrLf => lf.replace('\n', "\r\n"),
            Eol::Lf | Eol::Missing => lf,
        }
    }

    /// Replaces the lines in `range` with `replacement` (written with the usual ending).
    pub(crate) fn splice(&mut self, range: Range<usize>, replacement: Vec<String>) {
        let count = replacement.len();
        self.lines.splice(range.clone(), replacement);
        self.eols
            .splice(range, std::iter::repeat_n(Eol::Missing, count));
    }

    /// Sets whether the file ends with a newline.
    pub(crate) fn set_final_newline(&mut self, final_newline: bool) {
        self.final_newline = final_newline;
    }

    /// The text again: original endings where lines kept them, the usual ending elsewhere.
    pub(crate) fn render(&self) -> String {
        let mut out = String::with_capacity(self.lines.iter().map(|line| line.len() + 2).sum());
        let last = self.lines.len().saturating_sub(1);
        for (index, (line, eol)) in self.lines.iter().zip(&self.eols).enumerate() {
            out.push_str(line);
            let eol = match eol {
                _ if index == last && !self.final_newline => Eol::Missing,
                Eol::Missing => self.usual,
                kept => *kept,
            };
            out.push_str(eol.as_str());
        }
        out
    }
}

/// The lines of text the model sent (any line endings); a final newline does not start
/// another line, so `"a\nb\n"` and `"a\nb"` are both two lines and `""` is none.
pub(crate) fn split_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(|line| line.strip_suffix('\r').unwrap_or(line).to_string())
        .collect()
}

/// The leading whitespace of `line`.
pub(crate) fn indentation(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// Fits `new` (written against `old`, which matched the file's lines `matched` only when
/// ignoring whitespace) to the file's indentation. Each new line is shifted like the
/// nearest line before it that also appears in `old` (an anchor), or like the first line;
/// so a model that lost the indentation of some lines still lands at the file's depth,
/// and deliberate changes of depth are kept relative.
pub(crate) fn fit_indentation(new: Vec<String>, old: &[String], matched: &[String]) -> Vec<String> {
    let shift_of = |index: usize| {
        (
            indentation(&old[index]).to_string(),
            indentation(&matched[index]).to_string(),
        )
    };
    let first = old.iter().position(|line| !line.trim().is_empty());
    let mut shift = first.map_or((String::new(), String::new()), shift_of);
    let mut cursor = 0;
    new.into_iter()
        .map(|line| {
            let wanted = line.trim();
            if !wanted.is_empty()
                && let Some(offset) = old[cursor..].iter().position(|old| old.trim() == wanted)
            {
                shift = shift_of(cursor + offset);
                cursor += offset + 1;
            }
            reindent_line(line, &shift.0, &shift.1)
        })
        .collect()
}

/// Moves `line` from indentation `from` to `to`: a leading `from` becomes `to` (so code
/// written at the wrong depth lands at the file's depth); other lines stay as they are.
pub(crate) fn reindent_line(line: String, from: &str, to: &str) -> String {
    match line.strip_prefix(from) {
        Some(rest) if !line.trim().is_empty() => format!("{to}{rest}"),
        _ => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(lines: &[&str]) -> Vec<String> {
        lines.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn untouched_text_renders_byte_for_byte() {
        for text in ["", "a", "a\n", "a\r\nb\r\n", "a\nb\r\nc", "\n\n"] {
            assert_eq!(LineBuffer::parse(text).render(), text);
        }
    }

    #[test]
    fn inserted_lines_use_the_files_usual_ending() {
        let mut buffer = LineBuffer::parse("a\r\nb\r\nc\r\n");
        buffer.splice(1..2, strings(&["x", "y"]));
        assert_eq!(buffer.render(), "a\r\nx\r\ny\r\nc\r\n");
    }

    #[test]
    fn a_missing_final_newline_stays_missing() {
        let mut buffer = LineBuffer::parse("a\nb");
        buffer.splice(1..2, strings(&["c", "d"]));
        assert_eq!(buffer.render(), "a\nc\nd");
        let mut appended = LineBuffer::parse("a\nb");
        appended.splice(2..2, strings(&["c"]));
        assert_eq!(appended.render(), "a\nb\nc");
    }

    #[test]
    fn lines_added_to_an_empty_file_end_with_a_newline() {
        let mut buffer = LineBuffer::parse("");
        buffer.splice(0..0, strings(&["x"]));
        assert_eq!(buffer.render(), "x\n");
    }

    #[test]
    fn new_text_moves_to_the_files_depth() {
        let old = strings(&["x();"]);
        let matched = strings(&["        x();"]);
        let new = strings(&["if x {", "    y();", "}", ""]);
        assert_eq!(
            fit_indentation(new, &old, &matched),
            strings(&["        if x {", "            y();", "        }", ""])
        );
        let tabs = strings(&["    a", "        b"]);
        let fitted = fit_indentation(tabs, &strings(&["    a"]), &strings(&["\ta"]));
        assert_eq!(fitted, strings(&["\ta", "\t    b"]));
    }

    #[test]
    fn lines_that_lost_their_indentation_follow_their_anchor() {
        let old = strings(&["fn f() {", "x();", "}"]);
        let matched = strings(&["fn f() {", "    x();", "}"]);
        let new = strings(&["fn f() {", "x();", "y();", "}"]);
        assert_eq!(
            fit_indentation(new, &old, &matched),
            strings(&["fn f() {", "    x();", "    y();", "}"])
        );
    }

    #[test]
    fn text_from_the_model_is_split_without_a_phantom_last_line() {
        assert_eq!(split_lines("a\r\nb\n"), strings(&["a", "b"]));
        assert!(split_lines("").is_empty());
        assert_eq!(split_lines("\n"), strings(&[""]));
    }
}
