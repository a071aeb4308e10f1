//! Where a completion ends: a model asked to fill the middle often goes on past the block
//! it was in, or writes again what follows the cursor. The completion is cut at the end of
//! the block (a bracket opened before the cursor closes, or the indentation drops below
//! the cursor's line), at two blank lines, and before anything that repeats the suffix.

/// At most this many lines of one completion.
const MAX_LINES: usize = 24;

/// Markers some models write when they are done (never code).
const END_MARKERS: [&str; 6] = [
    "<|endoftext|>",
    "<|file_sep|>",
    "<|fim_",
    "<|im_end|>",
    "<EOT>",
    "</s>",
];

/// `completion`, inserted after `line_before` (the cursor's line up to the cursor) and
/// before `suffix` (the document after the cursor), cut where it should end. Empty when
/// nothing of it is worth inserting.
pub(crate) fn cut(completion: &str, line_before: &str, suffix: &str) -> String {
    let text = before_markers(completion);
    let rest_of_line = suffix.split('\n').next().unwrap_or("").trim_end();
    // Text after the cursor on its line: the completion fills that line only.
    if !rest_of_line.trim().is_empty() {
        let first = text.split('\n').next().unwrap_or("");
        let first = first.strip_suffix(rest_of_line).unwrap_or(first);
        let first = match first.find(rest_of_line.trim()) {
            Some(at) if !rest_of_line.trim().is_empty() && at > 0 => &first[..at],
            _ => first,
        };
        return first.trim_end().to_string();
    }
    let (mut kept, _) = block_lines(text, line_before, suffix);
    while kept.last().is_some_and(|line| line.trim().is_empty()) {
        kept.pop();
    }
    let joined = kept.join("\n");
    let joined = joined.strip_suffix(rest_of_line).unwrap_or(&joined);
    joined.trim_end().to_string()
}

/// Whether `partial`, the start of a completion still being written, already reaches
/// where [`cut`] ends it, so the model can stop: at an end marker, at the end of the
/// cursor's line when text follows the cursor on it, or when a whole line of it ends the
/// block.
pub(crate) fn finished(partial: &str, line_before: &str, suffix: &str) -> bool {
    let text = before_markers(partial);
    if text.len() < partial.len() {
        return true;
    }
    let rest_of_line = suffix.split('\n').next().unwrap_or("");
    if !rest_of_line.trim().is_empty() {
        return text.contains('\n');
    }
    let Some(last_newline) = text.rfind('\n') else {
        return false;
    };
    block_lines(&text[..last_newline], line_before, suffix).1
}

/// `text` up to the first end marker.
fn before_markers(text: &str) -> &str {
    let mut text = text;
    for marker in END_MARKERS {
        if let Some(at) = text.find(marker) {
            text = &text[..at];
        }
    }
    text
}

/// The lines of `text` that belong to the block at the cursor, and whether a line of
/// `text` ended it (rather than `text` running out).
fn block_lines<'a>(text: &'a str, line_before: &str, suffix: &str) -> (Vec<&'a str>, bool) {
    let next_line = suffix
        .split('\n')
        .skip(1)
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("");
    let base_indent = indent_of(line_before);
    let mut kept: Vec<&str> = Vec::new();
    let mut depth: i64 = 0;
    let mut blank_run = 0;
    for (index, line) in text.split('\n').enumerate() {
        if index >= MAX_LINES {
            return (kept, true);
        }
        let trimmed = line.trim();
        if index > 0 {
            if trimmed.is_empty() {
                blank_run += 1;
                if blank_run >= 2 {
                    return (kept, true);
                }
                kept.push(line);
                continue;
            }
            blank_run = 0;
            // What follows the cursor already: the completion ends before it.
            if !next_line.is_empty() && trimmed == next_line {
                return (kept, true);
            }
            if indent_of(line) < base_indent && !closes_only(trimmed) {
                return (kept, true);
            }
        }
        depth += bracket_balance(line);
        kept.push(line);
        // A bracket opened before the cursor closed: the block ends with this line.
        if depth < 0 && index > 0 {
            return (kept, true);
        }
    }
    (kept, false)
}

/// The width of `line`'s leading whitespace (a tab counts as four).
fn indent_of(line: &str) -> usize {
    line.chars()
        .take_while(|character| character.is_whitespace())
        .map(|character| if character == '\t' { 4 } else { 1 })
        .sum()
}

/// Whether `line` only closes brackets (`}`, `});`, `)`, …).
fn closes_only(line: &str) -> bool {
    line.starts_with(['}', ')', ']'])
        && line
            .chars()
            .all(|character| matches!(character, '}' | ')' | ']' | ';' | ',' | ' '))
}

/// Opening minus closing brackets on `line`, outside string literals (roughly).
fn bracket_balance(line: &str) -> i64 {
    let mut balance = 0;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for character in line.chars() {
        if let Some(open) = quote {
            if escaped {
                escaped = false;
            } else if character == '\\' {
                escaped = true;
            } else if character == open {
                quote = None;
            }
            continue;
        }
        match character {
            '"' | '\'' | '`' => quote = Some(character),
            '(' | '[' | '{' => balance += 1,
            ')' | ']' | '}' => balance -= 1,
            _ => {}
        }
    }
    balance
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rest_of_the_line_is_not_repeated() {
        assert_eq!(
            cut("value + 1);\nfoo();", "let x = add(", ");\n"),
            "value + 1"
        );
        assert_eq!(cut("len() > 0 {\n", "if v.", " {\n    x\n}"), "len() > 0");
        assert_eq!(cut("<|endoftext|>junk", "let ", "\n"), "");
    }

    #[test]
    fn a_block_ends_where_its_bracket_closes() {
        let completion = "    a + b\n}\n\nfn other() {\n    1\n}\n";
        assert_eq!(
            cut(completion, "fn add(a: i32, b: i32) -> i32 {", "\n"),
            "    a + b\n}"
        );
    }

    #[test]
    fn the_suffix_is_never_written_again() {
        let completion = "let y = x * 2;\n    y\n}\nfn main() {}";
        let suffix = "\n}\n\nfn main() {}\n";
        assert_eq!(cut(completion, "    ", suffix), "let y = x * 2;\n    y");
    }

    #[test]
    fn indentation_below_the_cursor_ends_python_blocks() {
        let completion = "return a + b\n\ndef other():\n    pass";
        assert_eq!(cut(completion, "    ", "\n"), "return a + b");
    }

    #[test]
    fn generation_stops_once_the_end_is_written() {
        // Text after the cursor on its line: the first line break ends it.
        assert!(!finished("value + 1", "let x = add(", ");\n"));
        assert!(finished("value + 1);\n", "let x = add(", ");\n"));
        // A block: only a whole line that ends it counts.
        let line = "fn add(a: i32, b: i32) -> i32 {";
        assert!(!finished("    a + b\n", line, "\n"));
        assert!(!finished("    a + b\n}", line, "\n"));
        assert!(finished("    a + b\n}\n", line, "\n"));
        assert!(!finished("return a + b\n", "    ", "\n"));
        assert!(finished("return a + b\n\ndef other():\n", "    ", "\n"));
        assert!(finished("x<|endoftext|>", "", "\n"));
        // Whatever stops early is what `cut` keeps anyway.
        let text = "    a + b\n}\n";
        assert_eq!(
            cut(text, line, "\n"),
            cut(&format!("{text}\nfn b() {{}}"), line, "\n")
        );
    }

    #[test]
    fn two_blank_lines_end_a_completion() {
        assert_eq!(cut("x = 1\n\n\ny = 2", "", "\n"), "x = 1");
        let long = "a\n".repeat(100);
        assert_eq!(cut(&long, "", "\n").lines().count(), MAX_LINES);
    }
}
