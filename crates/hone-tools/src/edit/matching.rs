//! Finding the text an edit replaces: exactly first, then line by line ignoring whitespace,
//! then ignoring whitespace across line breaks (`across_lines`); when nothing matches, the
//! closest lines of the file ("did you mean").

use crate::edit::across_lines;
use crate::edit::lines::{LineBuffer, fit_indentation, split_lines};
use crate::files::similarity::closest_window;
use crate::{ToolError, ToolErrorKind};

/// How many occurrences an edit may replace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Occurrences {
    /// Exactly one; several matches are an error.
    One,
    /// Every occurrence (at least one).
    All,
}

/// A successful replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Replaced {
    /// The new content of the file.
    pub(crate) content: String,
    /// 1-based first line of each replaced occurrence.
    pub(crate) lines: Vec<usize>,
    /// Whether the match needed whitespace tolerance.
    pub(crate) tolerant: bool,
}

/// Replaces `old` with `new` in `content` (the file `path`, named in errors).
pub(crate) fn replace(
    path: &str,
    content: &str,
    old: &str,
    new: &str,
    occurrences: Occurrences,
) -> Result<Replaced, ToolError> {
    let mut buffer = LineBuffer::parse(content);
    let exact_old = buffer.adapt_endings(old);
    let starts: Vec<usize> = content
        .match_indices(&exact_old)
        .map(|(start, _)| start)
        .collect();
    if !starts.is_empty() {
        let lines: Vec<usize> = starts
            .iter()
            .map(|&start| content[..start].matches('\n').count() + 1)
            .collect();
        check_count(path, &lines, occurrences, "")?;
        let new = buffer.adapt_endings(new);
        return Ok(Replaced {
            content: content.replace(&exact_old, &new),
            lines,
            tolerant: false,
        });
    }
    let (needle, numbered) = without_line_numbers(split_lines(old));
    let starts = if needle.iter().all(|line| line.trim().is_empty()) {
        Vec::new()
    } else {
        find_tolerant(buffer.lines(), &needle, 0)
    };
    if starts.is_empty() {
        return replace_across_lines(path, content, &buffer, &needle, new, numbered, occurrences);
    }
    let lines: Vec<usize> = starts.iter().map(|start| start + 1).collect();
    check_count(path, &lines, occurrences, " (ignoring whitespace)")?;
    let new_lines = if numbered {
        without_line_numbers(split_lines(new)).0
    } else {
        split_lines(new)
    };
    for &start in starts.iter().rev() {
        let matched = &buffer.lines()[start..start + needle.len()];
        let replacement = fit_indentation(new_lines.clone(), &needle, matched);
        buffer.splice(start..start + needle.len(), replacement);
    }
    Ok(Replaced {
        content: buffer.render(),
        lines,
        tolerant: true,
    })
}

/// The last tolerance: `needle` matched where only whitespace differs, line breaks
/// included (a function written on one line); one match unless `occurrences` says all.
fn replace_across_lines(
    path: &str,
    content: &str,
    buffer: &LineBuffer,
    needle: &[String],
    new: &str,
    numbered: bool,
    occurrences: Occurrences,
) -> Result<Replaced, ToolError> {
    let ranges = across_lines::find(content, &needle.join("\n"));
    if ranges.is_empty() {
        return Err(not_found(path, content, buffer.lines(), needle, new));
    }
    let lines: Vec<usize> = ranges
        .iter()
        .map(|range| content[..range.start].matches('\n').count() + 1)
        .collect();
    check_count(
        path,
        &lines,
        occurrences,
        " (ignoring whitespace and line breaks)",
    )?;
    let new = if numbered {
        without_line_numbers(split_lines(new)).0.join("\n")
    } else {
        new.to_string()
    };
    Ok(Replaced {
        content: across_lines::replace(content, &ranges, &new),
        lines,
        tolerant: true,
    })
}

/// Whether two lines are equal apart from whitespace (indentation, trailing spaces, runs).
pub(crate) fn same_ignoring_whitespace(a: &str, b: &str) -> bool {
    a.split_whitespace().eq(b.split_whitespace())
}

/// Non-overlapping starts (at or after `from`) of `needle` in `haystack`, compared
/// ignoring whitespace.
pub(crate) fn find_tolerant(haystack: &[String], needle: &[String], from: usize) -> Vec<usize> {
    let mut starts = Vec::new();
    if needle.is_empty() || needle.len() > haystack.len() {
        return starts;
    }
    let mut start = from;
    while start + needle.len() <= haystack.len() {
        let window = &haystack[start..start + needle.len()];
        if window
            .iter()
            .zip(needle)
            .all(|(line, wanted)| same_ignoring_whitespace(line, wanted))
        {
            starts.push(start);
            start += needle.len();
        } else {
            start += 1;
        }
    }
    starts
}

/// Lines `start..start + count` (0-based) of `lines`, numbered 1-based like read_file
/// shows them; long windows are shortened.
pub(crate) fn numbered(lines: &[String], start: usize, count: usize) -> String {
    const MAX_SHOWN: usize = 40;
    let end = (start + count).min(lines.len());
    let width = end.to_string().len();
    let mut out = String::new();
    for (index, line) in lines.iter().enumerate().take(end).skip(start) {
        if index == start + MAX_SHOWN {
            out.push_str(&format!("{:>width$}│ …\n", "…"));
            break;
        }
        out.push_str(&format!("{:>width$}│ {line}\n", index + 1));
    }
    out
}

/// The closest lines of `haystack` to `needle`, as a "did you mean" paragraph (or a
/// sentence saying nothing is similar).
pub(crate) fn closest_lines(path: &str, haystack: &[String], needle: &[String]) -> String {
    // Line by line, or, when the needle's line breaks differ from the file's (a function
    // written on one line), by its text without whitespace: the better of the two.
    let by_lines = closest_window(haystack, needle);
    let joined = needle.join("\n");
    let by_text = match by_lines {
        Some((_, _, score)) if score >= 0.9 => None,
        _ if joined.len() > 2_000 => None,
        _ => across_lines::closest_window(haystack, &joined),
    };
    let closest = match (by_lines, by_text) {
        (Some(lines), Some(text)) if text.2 > lines.2 => Some(text),
        (None, text) => text,
        (lines, _) => lines,
    };
    match closest {
        Some((start, count, score)) if score >= 0.3 => {
            let lines = if count == 1 {
                format!("line {}", start + 1)
            } else {
                format!("lines {}–{}", start + 1, start + count)
            };
            format!(
                "Did you mean {lines} of {path} ({:.0}% similar)?\n{}",
                score * 100.0,
                numbered(haystack, start, count)
            )
        }
        _ => format!("Nothing in {path} looks similar.\n"),
    }
}

fn not_found(
    path: &str,
    content: &str,
    haystack: &[String],
    needle: &[String],
    new: &str,
) -> ToolError {
    // Small models often repeat an edit that already succeeded.
    let applied_already = (!new.trim().is_empty())
        .then(|| content.find(new))
        .flatten()
        .map(|at| {
            let line = content[..at].matches('\n').count() + 1;
            format!(
                "new_text is already in {path} (line {line}): if you made this edit already, do \
                 not repeat it; answer the user when the task is done. Otherwise: "
            )
        })
        .unwrap_or_default();
    ToolError::new(
        ToolErrorKind::EditFailed,
        format!(
            "old_text was not found in {path} (not even ignoring indentation, whitespace and \
             line breaks). \
             {applied_already}{}Copy old_text exactly from the current file (without the line \
             numbers), or read {path} again with read_file, then retry.",
            closest_lines(path, haystack, needle)
        ),
    )
}

fn check_count(
    path: &str,
    lines: &[usize],
    occurrences: Occurrences,
    how: &str,
) -> Result<(), ToolError> {
    if lines.len() > 1 && occurrences == Occurrences::One {
        let numbers: Vec<String> = lines.iter().map(ToString::to_string).collect();
        return Err(ToolError::new(
            ToolErrorKind::EditFailed,
            format!(
                "old_text matches {} places in {path}{how}, starting at lines {}. Include more \
                 surrounding lines in old_text so it matches exactly one place, or set \
                 replace_all=true to change every occurrence.",
                lines.len(),
                numbers.join(", ")
            ),
        ));
    }
    Ok(())
}

/// `lines` without read_file's `  12│ ` prefixes when every line has one (models sometimes
/// copy them), and whether they were removed.
fn without_line_numbers(lines: Vec<String>) -> (Vec<String>, bool) {
    let stripped: Option<Vec<String>> = lines
        .iter()
        .map(|line| strip_line_number(line).map(str::to_string))
        .collect();
    match stripped {
        Some(stripped) if !stripped.is_empty() => (stripped, true),
        _ => (lines, false),
    }
}

fn strip_line_number(line: &str) -> Option<&str> {
    let rest = line.trim_start();
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let rest = rest[digits..].strip_prefix('│')?;
    Some(rest.strip_prefix(' ').unwrap_or(rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "fn main() {\n    let a = 1;\n    let b = 2;\n}\n";

    #[test]
    fn exact_matches_replace_inside_a_line() {
        let done = replace("m.rs", FILE, "a = 1", "a = 10", Occurrences::One).unwrap();
        assert_eq!(
            done.content,
            "fn main() {\n    let a = 10;\n    let b = 2;\n}\n"
        );
        assert_eq!(done.lines, vec![2]);
        assert!(!done.tolerant);
    }

    #[test]
    fn a_wrongly_indented_old_text_matches_and_new_text_is_reindented() {
        let done = replace(
            "m.rs",
            FILE,
            "let a = 1;\nlet b = 2;",
            "let a = 1;\nif a > 0 {\n    let b = 3;\n}",
            Occurrences::One,
        )
        .unwrap();
        assert!(done.tolerant);
        assert_eq!(
            done.content,
            "fn main() {\n    let a = 1;\n    if a > 0 {\n        let b = 3;\n    }\n}\n"
        );
    }

    #[test]
    fn copied_line_numbers_are_ignored() {
        let done = replace(
            "m.rs",
            FILE,
            "2│     let a = 1;",
            "2│     let a = 5;",
            Occurrences::One,
        )
        .unwrap();
        assert!(
            done.content.contains("    let a = 5;\n"),
            "{}",
            done.content
        );
    }

    const JS: &str = "export function add(a, b) {\n  return a - b;\n}\n\nexport function mul(a, b) {\n  return a * b;\n}\n";

    #[test]
    fn a_function_written_on_one_line_matches_across_line_breaks() {
        let done = replace(
            "math.js",
            JS,
            "export function add(a, b) { return a - b; }",
            "export function add(a, b) {\n  return a + b;\n}",
            Occurrences::One,
        )
        .unwrap();
        assert!(done.tolerant);
        assert_eq!(done.lines, vec![1]);
        assert_eq!(done.content, JS.replacen("a - b", "a + b", 1));
    }

    #[test]
    fn a_match_across_line_breaks_must_be_unique() {
        let twice = format!("{JS}{JS}");
        let error = replace(
            "math.js",
            &twice,
            "export function add(a, b) { return a - b; }",
            "x",
            Occurrences::One,
        )
        .unwrap_err();
        assert!(
            error.message.contains(
                "matches 2 places in math.js (ignoring whitespace and line breaks), starting at \
                 lines 1, 8"
            ),
            "{}",
            error.message
        );
    }

    #[test]
    fn a_joined_function_that_does_not_match_reports_its_closest_lines() {
        let error = replace(
            "math.js",
            JS,
            "export function mul(a, b) { return a / b; }",
            "export function mul(a, b) { return a * b * 1; }",
            Occurrences::One,
        )
        .unwrap_err();
        assert!(
            error
                .message
                .contains("Did you mean lines 5–7 of math.js ("),
            "{}",
            error.message
        );
        assert!(
            error.message.contains("6│   return a * b;"),
            "{}",
            error.message
        );
    }

    #[test]
    fn several_matches_list_their_lines() {
        let text = "x\ny\nx\n";
        let error = replace("t", text, "x", "z", Occurrences::One).unwrap_err();
        assert!(
            error
                .message
                .contains("matches 2 places in t, starting at lines 1, 3"),
            "{}",
            error.message
        );
        let all = replace("t", text, "x", "z", Occurrences::All).unwrap();
        assert_eq!(all.content, "z\ny\nz\n");
    }

    #[test]
    fn repeating_an_applied_edit_says_it_is_done() {
        let once = replace("m.rs", FILE, "a = 1", "a = 10", Occurrences::One).unwrap();
        let error =
            replace("m.rs", &once.content, "a = 1;", "a = 10", Occurrences::One).unwrap_err();
        assert!(
            error
                .message
                .contains("new_text is already in m.rs (line 2): if you made this edit already"),
            "{}",
            error.message
        );
        assert!(
            error.message.contains("do not repeat it"),
            "{}",
            error.message
        );
    }

    #[test]
    fn no_match_shows_the_closest_lines_with_numbers() {
        let error = replace(
            "m.rs",
            FILE,
            "let b = 3;\n}",
            "let b = 4;\n}",
            Occurrences::One,
        )
        .unwrap_err();
        assert_eq!(error.kind, ToolErrorKind::EditFailed);
        assert!(
            error.message.contains("Did you mean lines 3–4 of m.rs ("),
            "{}",
            error.message
        );
        assert!(
            error.message.contains("3│     let b = 2;"),
            "{}",
            error.message
        );
    }
}
