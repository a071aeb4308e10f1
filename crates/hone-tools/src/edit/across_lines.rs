//! Matching an edit's `old_text` when only whitespace differs across line breaks: a
//! three-line function written on one line, a call re-wrapped, a body re-indented with
//! lines joined. The file and the text are compared without their whitespace, except that
//! two word characters must stay apart (or together) as they are in the file, so `x = 1`
//! never matches inside `max = 1` and `return a` never matches `returna`.

use std::ops::Range;

use crate::edit::lines::{LineBuffer, indentation, reindent_line, split_lines};
use crate::files::similarity::{Bigrams, bigram_similarity};

/// Text without its whitespace, and where each of its bytes came from.
struct Compact {
    text: String,
    /// For each byte of `text`, the byte of the original it is.
    origin: Vec<usize>,
    /// For each byte of `text` starting a character: whether whitespace came before it.
    spaced: Vec<bool>,
}

impl Compact {
    fn of(original: &str) -> Self {
        let mut text = String::with_capacity(original.len());
        let mut origin = Vec::with_capacity(original.len());
        let mut spaced = Vec::with_capacity(original.len());
        let mut after_space = false;
        for (at, character) in original.char_indices() {
            if character.is_whitespace() {
                after_space = true;
                continue;
            }
            text.push(character);
            for offset in 0..character.len_utf8() {
                origin.push(at + offset);
                spaced.push(after_space && offset == 0);
            }
            after_space = false;
        }
        Self {
            text,
            origin,
            spaced,
        }
    }

    fn char_at(&self, at: usize) -> Option<char> {
        self.text.get(at..).and_then(|rest| rest.chars().next())
    }

    fn char_before(&self, at: usize) -> Option<char> {
        self.text
            .get(..at)
            .and_then(|before| before.chars().next_back())
    }
}

fn is_word(character: char) -> bool {
    character.is_alphanumeric() || character == '_'
}

/// The byte ranges of `content` that equal `old` apart from whitespace (see the module
/// docs), without overlaps, in order.
pub(crate) fn find(content: &str, old: &str) -> Vec<Range<usize>> {
    let needle = Compact::of(old);
    if needle.text.is_empty() {
        return Vec::new();
    }
    let haystack = Compact::of(content);
    let mut found: Vec<Range<usize>> = Vec::new();
    let mut from = 0;
    while let Some(offset) = haystack
        .text
        .get(from..)
        .and_then(|rest| rest.find(&needle.text))
    {
        let start = from + offset;
        if same_word_breaks(&haystack, &needle, start) {
            let end = start + needle.text.len();
            found.push(haystack.origin[start]..haystack.origin[end - 1] + 1);
            from = end;
        } else {
            from = start + haystack.char_at(start).map_or(1, char::len_utf8);
        }
    }
    found
}

/// Whether the match of `needle` at `start` of `haystack` separates words as the file
/// does: inside it, and at both of its ends.
fn same_word_breaks(haystack: &Compact, needle: &Compact, start: usize) -> bool {
    let mut previous: Option<char> = None;
    for (offset, character) in needle.text.char_indices() {
        if let Some(before) = previous
            && is_word(before)
            && is_word(character)
            && needle.spaced[offset] != haystack.spaced[start + offset]
        {
            return false;
        }
        previous = Some(character);
    }
    let end = start + needle.text.len();
    let glued_before = needle.text.chars().next().is_some_and(is_word)
        && haystack.char_before(start).is_some_and(is_word)
        && !haystack.spaced[start];
    let glued_after = previous.is_some_and(is_word)
        && haystack.char_at(end).is_some_and(is_word)
        && !haystack.spaced.get(end).copied().unwrap_or(true);
    !glued_before && !glued_after
}

/// `content` with each of `ranges` replaced by `new`: its first line where the match
/// starts, its other lines moved from the indentation of its first line to that of the
/// file's line where the match starts. A match covering whole lines that is replaced by
/// nothing takes its lines with it.
pub(crate) fn replace(content: &str, ranges: &[Range<usize>], new: &str) -> String {
    let buffer = LineBuffer::parse(content);
    let new_lines = split_lines(new);
    let mut out = String::with_capacity(content.len() + new.len());
    let mut copied = 0;
    for range in ranges {
        let line_start = content[..range.start].rfind('\n').map_or(0, |at| at + 1);
        let base = indentation(&content[line_start..]);
        let line_end = content[range.end..]
            .find('\n')
            .map_or(content.len(), |at| range.end + at + 1);
        let whole_lines = content[line_start..range.start].trim().is_empty()
            && content[range.end..line_end].trim().is_empty();
        if new.trim().is_empty() && whole_lines {
            out.push_str(&content[copied..line_start]);
            copied = line_end;
            continue;
        }
        out.push_str(&content[copied..range.start]);
        let first_indent = new_lines
            .iter()
            .find(|line| !line.trim().is_empty())
            .map_or("", |line| indentation(line))
            .to_string();
        let moved: Vec<String> = new_lines
            .iter()
            .enumerate()
            .map(|(index, line)| {
                if index == 0 {
                    line.trim_start().to_string()
                } else {
                    reindent_line(line.clone(), &first_indent, base)
                }
            })
            .collect();
        out.push_str(&buffer.adapt_endings(&moved.join("\n")));
        copied = range.end;
    }
    out.push_str(&content[copied..]);
    out
}

/// The window of consecutive `lines` whose text, without whitespace, is most like
/// `needle`'s: `(start index, length, similarity)`. For a needle whose line breaks differ
/// from the file's (a function written on one line), where comparing line by line finds
/// nothing alike.
pub(crate) fn closest_window(lines: &[String], needle: &str) -> Option<(usize, usize, f64)> {
    /// Files longer than this are not scanned this way (the scan is per line and window).
    const MAX_LINES: usize = 5_000;
    let wanted = Compact::of(needle).text;
    if wanted.is_empty() || lines.is_empty() || lines.len() > MAX_LINES {
        return None;
    }
    let wanted_bigrams = Bigrams::of(&wanted);
    let compact: Vec<String> = lines.iter().map(|line| Compact::of(line).text).collect();
    let mut best: Option<(usize, usize, f64)> = None;
    for start in 0..lines.len() {
        if compact[start].is_empty() {
            continue;
        }
        let mut window = String::new();
        for (offset, line) in compact[start..].iter().enumerate() {
            window.push_str(line);
            if window.len() >= wanted.len() || start + offset + 1 == lines.len() {
                let score = bigram_similarity(&wanted_bigrams, &Bigrams::of(&window));
                if best.is_none_or(|(_, _, best_score)| score > best_score) {
                    best = Some((start, offset + 1, score));
                }
                break;
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    const JS: &str = "export function add(a, b) {\n  return a - b;\n}\n\nexport function sub(a, b) {\n  return a - b;\n}\n";

    #[test]
    fn a_function_written_on_one_line_matches_its_lines() {
        let ranges = find(JS, "export function add(a, b) { return a - b; }");
        assert_eq!(ranges.len(), 1);
        assert_eq!(
            &JS[ranges[0].clone()],
            "export function add(a, b) {\n  return a - b;\n}"
        );
    }

    #[test]
    fn words_stay_apart_or_together_as_in_the_file() {
        assert_eq!(find("let max = 1;\n", "x = 1"), Vec::<Range<usize>>::new());
        assert_eq!(find("returna;\n", "return a"), Vec::<Range<usize>>::new());
        assert_eq!(find("return a;\n", "returna"), Vec::<Range<usize>>::new());
        assert_eq!(find("f(a,\n  b)\n", "f(a, b)"), vec![0..9]);
        assert!(find("abc", "  \n ").is_empty());
    }

    #[test]
    fn every_match_is_found_in_order() {
        let ranges = find(JS, "return a-b;");
        assert_eq!(ranges.len(), 2);
        assert!(ranges[0].end <= ranges[1].start);
    }

    #[test]
    fn the_replacement_takes_the_indentation_of_the_file() {
        let file = "class A {\n    add(a, b) {\n        return a - b;\n    }\n}\n";
        let ranges = find(file, "add(a, b) { return a - b; }");
        let new = "add(a, b) {\n    return a + b;\n}";
        assert_eq!(
            replace(file, &ranges, new),
            "class A {\n    add(a, b) {\n        return a + b;\n    }\n}\n"
        );
    }

    #[test]
    fn a_one_line_replacement_stays_on_one_line() {
        let ranges = find(JS, "export function add(a, b) { return a - b; }");
        let done = replace(JS, &ranges, "export function add(a, b) { return a + b; }");
        assert!(
            done.starts_with("export function add(a, b) { return a + b; }\n\nexport function sub"),
            "{done}"
        );
    }

    #[test]
    fn deleting_whole_lines_removes_them() {
        let ranges = find(JS, "export function add(a, b) { return a - b; }");
        assert_eq!(
            replace(JS, &ranges, ""),
            "\nexport function sub(a, b) {\n  return a - b;\n}\n"
        );
    }

    #[test]
    fn crlf_files_keep_their_endings() {
        let file = "fn a() {\r\n    1\r\n}\r\n";
        let ranges = find(file, "fn a() { 1 }");
        assert_eq!(
            replace(file, &ranges, "fn a() {\n    2\n}"),
            "fn a() {\r\n    2\r\n}\r\n"
        );
    }

    #[test]
    fn the_closest_window_spans_the_lines_of_a_joined_needle() {
        let lines: Vec<String> = JS.lines().map(str::to_string).collect();
        let (start, count, score) =
            closest_window(&lines, "export function sub(a, b) { return a * b; }").unwrap();
        assert_eq!((start, count), (4, 3));
        assert!(score > 0.8, "{score}");
        assert!(closest_window(&lines, "   ").is_none());
    }
}
