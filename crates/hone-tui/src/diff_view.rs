//! Unified diffs as coloured lines: removed lines on red, added on green, the words that
//! changed inside a line highlighted more strongly, code syntax-coloured, long lines wrapped.

use std::ops::Range;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use similar::{ChangeTag, TextDiff};

use crate::highlight::LineHighlighter;
use crate::wrap::{self, Mode};

const REMOVED_BG: Color = Color::Indexed(52);
const REMOVED_WORD_BG: Color = Color::Indexed(88);
const ADDED_BG: Color = Color::Indexed(22);
const ADDED_WORD_BG: Color = Color::Indexed(28);
/// Changed-word highlighting only between lines at least this similar (0..1).
const MIN_SIMILARITY: f32 = 0.3;

/// What a diff changes, for one-line summaries.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct DiffStats {
    /// Files touched, in order.
    pub(crate) files: Vec<String>,
    /// Lines added.
    pub(crate) added: usize,
    /// Lines removed.
    pub(crate) removed: usize,
}

impl DiffStats {
    /// `src/a.rs +3 −1` (or `3 files +10 −2`).
    pub(crate) fn summary(&self) -> String {
        let what = match self.files.as_slice() {
            [one] => one.clone(),
            files => format!("{} files", files.len()),
        };
        format!("{what} +{} −{}", self.added, self.removed)
    }
}

/// Counts the files and lines of a unified diff.
pub(crate) fn stats(diff: &str) -> DiffStats {
    let diff = hone_api::display::text(diff);
    let mut stats = DiffStats::default();
    let mut old_path = None;
    for line in diff.lines() {
        if let Some(path) = line.strip_prefix("--- ") {
            old_path = Some(clean_path(path));
        } else if let Some(path) = line.strip_prefix("+++ ") {
            let path = file_name(old_path.take(), &clean_path(path));
            stats.files.push(path);
        } else if line.starts_with('+') {
            stats.added += 1;
        } else if line.starts_with('-') {
            stats.removed += 1;
        }
    }
    stats
}

fn clean_path(raw: &str) -> String {
    let raw = raw.split('\t').next().unwrap_or(raw).trim();
    raw.strip_prefix("a/")
        .or_else(|| raw.strip_prefix("b/"))
        .unwrap_or(raw)
        .to_string()
}

fn file_name(old: Option<String>, new: &str) -> String {
    if new == "/dev/null" {
        old.unwrap_or_else(|| new.to_string())
    } else {
        new.to_string()
    }
}

/// Renders `diff` to lines at most `width` columns wide.
pub(crate) fn render(diff: &str, width: usize) -> Vec<Line<'static>> {
    let diff = hone_api::display::text(diff);
    let mut view = DiffView::new(width.max(12));
    for raw in diff.lines() {
        view.line(&raw.replace('\t', "    "));
    }
    view.flush_changes();
    view.out
}

struct DiffView {
    width: usize,
    out: Vec<Line<'static>>,
    old_path: Option<String>,
    old_hl: LineHighlighter,
    new_hl: LineHighlighter,
    old_no: usize,
    new_no: usize,
    removed: Vec<String>,
    added: Vec<String>,
}

impl DiffView {
    fn new(width: usize) -> Self {
        Self {
            width,
            out: Vec::new(),
            old_path: None,
            old_hl: LineHighlighter::plain(),
            new_hl: LineHighlighter::plain(),
            old_no: 0,
            new_no: 0,
            removed: Vec::new(),
            added: Vec::new(),
        }
    }

    fn line(&mut self, line: &str) {
        if let Some(text) = line.strip_prefix('-').filter(|_| !line.starts_with("--- ")) {
            self.removed.push(text.to_string());
            return;
        }
        if let Some(text) = line.strip_prefix('+').filter(|_| !line.starts_with("+++ ")) {
            self.added.push(text.to_string());
            return;
        }
        self.flush_changes();
        if let Some(path) = line.strip_prefix("--- ") {
            self.old_path = Some(clean_path(path));
        } else if let Some(path) = line.strip_prefix("+++ ") {
            let path = file_name(self.old_path.take(), &clean_path(path));
            self.old_hl = LineHighlighter::for_path(&path);
            self.new_hl = LineHighlighter::for_path(&path);
            if !self.out.is_empty() {
                self.out.push(Line::default());
            }
            self.out.push(Line::styled(
                path,
                Style::new().add_modifier(Modifier::BOLD),
            ));
        } else if line.starts_with("@@") {
            let (old, new) = hunk_starts(line);
            self.old_no = old;
            self.new_no = new;
            self.push_wrapped(
                vec![Span::styled(line.to_string(), Style::new().fg(Color::Cyan))],
                Vec::new(),
                Style::new(),
            );
        } else if let Some(text) = line.strip_prefix(' ').or((line.is_empty()).then_some("")) {
            let spans = self.new_hl.line(text);
            let _ = self.old_hl.line(text);
            let gutter = gutter(self.new_no, ' ', Style::new());
            self.old_no += 1;
            self.new_no += 1;
            self.push_wrapped(spans, gutter, Style::new());
        } else if !line.starts_with("diff ") && !line.starts_with("index ") {
            self.push_wrapped(
                vec![Span::styled(
                    line.to_string(),
                    Style::new().add_modifier(Modifier::DIM),
                )],
                Vec::new(),
                Style::new(),
            );
        }
    }

    /// Shows a block of removed lines followed by added lines, pairing them up for
    /// changed-word highlights.
    fn flush_changes(&mut self) {
        let removed = std::mem::take(&mut self.removed);
        let added = std::mem::take(&mut self.added);
        let mut removed_words = vec![Vec::new(); removed.len()];
        let mut added_words = vec![Vec::new(); added.len()];
        for index in 0..removed.len().min(added.len()) {
            if let Some((old, new)) = changed_words(&removed[index], &added[index]) {
                removed_words[index] = old;
                added_words[index] = new;
            }
        }
        let removed_style = Style::new().bg(REMOVED_BG);
        let added_style = Style::new().bg(ADDED_BG);
        for (text, words) in removed.iter().zip(&removed_words) {
            let spans = emphasise(
                self.old_hl.line(text),
                words,
                Style::new().bg(REMOVED_WORD_BG),
            );
            let gutter = gutter(self.old_no, '-', Style::new().fg(Color::Red));
            self.old_no += 1;
            self.push_wrapped(spans, gutter, removed_style);
        }
        for (text, words) in added.iter().zip(&added_words) {
            let spans = emphasise(
                self.new_hl.line(text),
                words,
                Style::new().bg(ADDED_WORD_BG),
            );
            let gutter = gutter(self.new_no, '+', Style::new().fg(Color::Green));
            self.new_no += 1;
            self.push_wrapped(spans, gutter, added_style);
        }
    }

    fn push_wrapped(
        &mut self,
        spans: Vec<Span<'static>>,
        gutter: Vec<Span<'static>>,
        style: Style,
    ) {
        let rest = vec![Span::raw(" ".repeat(wrap::width_of(&gutter)))];
        for line in wrap::wrap(spans, self.width, &gutter, &rest, Mode::Chars) {
            self.out.push(line.style(style));
        }
    }
}

/// `  12 + ` — the line number and the change sign.
fn gutter(number: usize, sign: char, sign_style: Style) -> Vec<Span<'static>> {
    vec![
        Span::styled(format!("{number:>4} "), Style::new().fg(Color::DarkGray)),
        Span::styled(format!("{sign} "), sign_style),
    ]
}

/// The old and new start lines of `@@ -a,b +c,d @@`.
fn hunk_starts(header: &str) -> (usize, usize) {
    let mut old = 1;
    let mut new = 1;
    for part in header.split_whitespace() {
        let number = |text: &str| text.split(',').next().and_then(|n| n.parse().ok());
        if let Some(rest) = part.strip_prefix('-') {
            old = number(rest).unwrap_or(old);
        } else if let Some(rest) = part.strip_prefix('+') {
            new = number(rest).unwrap_or(new);
        }
    }
    (old, new)
}

/// Byte ranges of changed words in one line.
type Ranges = Vec<Range<usize>>;

/// The byte ranges that differ between two similar lines, word by word.
fn changed_words(old: &str, new: &str) -> Option<(Ranges, Ranges)> {
    let diff = TextDiff::from_words(old, new);
    if diff.ratio() < MIN_SIMILARITY {
        return None;
    }
    let (mut old_at, mut new_at) = (0, 0);
    let (mut old_ranges, mut new_ranges) = (Vec::new(), Vec::new());
    for change in diff.iter_all_changes() {
        let len = change.value().len();
        match change.tag() {
            ChangeTag::Equal => {
                old_at += len;
                new_at += len;
            }
            ChangeTag::Delete => {
                push_range(&mut old_ranges, old_at..old_at + len);
                old_at += len;
            }
            ChangeTag::Insert => {
                push_range(&mut new_ranges, new_at..new_at + len);
                new_at += len;
            }
        }
    }
    Some((old_ranges, new_ranges))
}

fn push_range(ranges: &mut Vec<Range<usize>>, range: Range<usize>) {
    match ranges.last_mut() {
        Some(last) if last.end == range.start => last.end = range.end,
        _ => ranges.push(range),
    }
}

/// Splits `spans` at the edges of `ranges` and patches `emphasis` onto the inside.
fn emphasise(
    spans: Vec<Span<'static>>,
    ranges: &[Range<usize>],
    emphasis: Style,
) -> Vec<Span<'static>> {
    if ranges.is_empty() {
        return spans;
    }
    let mut out = Vec::new();
    let mut at = 0;
    for span in spans {
        let text = span.content.as_ref();
        let mut cuts = vec![0, text.len()];
        for range in ranges {
            for edge in [range.start, range.end] {
                if edge > at && edge < at + text.len() && text.is_char_boundary(edge - at) {
                    cuts.push(edge - at);
                }
            }
        }
        cuts.sort_unstable();
        cuts.dedup();
        for pair in cuts.windows(2) {
            let (start, end) = (pair[0], pair[1]);
            let inside = ranges
                .iter()
                .any(|range| range.start <= at + start && at + end <= range.end);
            let style = if inside {
                span.style.patch(emphasis)
            } else {
                span.style
            };
            out.push(Span::styled(text[start..end].to_string(), style));
        }
        at += text.len();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: &str = "--- a/src/math.js\n+++ b/src/math.js\n@@ -1,3 +1,3 @@\n function add(a, b) {\n-  return a - b;\n+  return a + b;\n }\n";

    #[test]
    fn lines_get_numbers_signs_and_backgrounds() {
        let lines = render(DIFF, 60);
        let text: Vec<String> = lines.iter().map(ToString::to_string).collect();
        assert_eq!(
            text,
            [
                "src/math.js",
                "@@ -1,3 +1,3 @@",
                "   1   function add(a, b) {",
                "   2 -   return a - b;",
                "   2 +   return a + b;",
                "   3   }",
            ]
        );
        assert_eq!(lines[3].style.bg, Some(REMOVED_BG));
        assert_eq!(lines[4].style.bg, Some(ADDED_BG));
    }

    #[test]
    fn only_the_changed_word_is_emphasised() {
        let lines = render(DIFF, 60);
        let emphasised = |line: &Line<'_>, bg: Color| -> String {
            line.spans
                .iter()
                .filter(|span| span.style.bg == Some(bg))
                .map(|span| span.content.as_ref())
                .collect()
        };
        assert_eq!(emphasised(&lines[3], REMOVED_WORD_BG), "-");
        assert_eq!(emphasised(&lines[4], ADDED_WORD_BG), "+");
    }

    #[test]
    fn unrelated_lines_are_not_word_highlighted() {
        assert!(changed_words("alpha beta gamma", "1234567").is_none());
    }

    #[test]
    fn long_lines_wrap_under_the_gutter() {
        let diff = format!(
            "--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n+{}\n",
            "word ".repeat(10)
        );
        let lines = render(&diff, 20);
        assert!(lines.len() > 4);
        assert!(lines[3].to_string().starts_with("       "));
    }

    #[test]
    fn stats_count_files_and_lines() {
        let stats = stats(DIFF);
        assert_eq!(stats.summary(), "src/math.js +1 −1");
        let created = stats_for_new();
        assert_eq!(created.files, ["new.txt"]);
    }

    fn stats_for_new() -> DiffStats {
        stats("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n")
    }
}
