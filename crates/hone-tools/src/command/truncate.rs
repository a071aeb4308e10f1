//! Tiered truncation of command output, so a 50 000-line build log costs the model a few
//! hundred lines and still shows where it failed.
//!
//! - short (≤ 200 lines and ≤ 16 KB): kept whole;
//! - medium (≤ 2000 lines): the first and last 80 lines around an omission marker;
//! - long: the same, plus the omitted lines that look like errors or warnings (errors first,
//!   at most 40) with their line numbers and counts.
//!
//! Outside the short tier, lines longer than 400 bytes are cut.

const SHORT_MAX_LINES: usize = 200;
const SHORT_MAX_BYTES: usize = 16 * 1024;
const MEDIUM_MAX_LINES: usize = 2000;
const HEAD_LINES: usize = 80;
const TAIL_LINES: usize = 80;
const MAX_FLAGGED_LINES: usize = 40;
const MAX_LINE_BYTES: usize = 400;

/// Substrings that mark a line as an error. Case matters: `error:` and `Error:` count,
/// `0 errors` does not.
const ERROR_MARKERS: &[&str] = &[
    "error:",
    "error[",
    ": error ",
    "Error:",
    "ERROR",
    "ERR!",
    "FAILED",
    "FAIL:",
    "panicked",
    "Traceback",
    "fatal:",
    "Fatal:",
    "Exception",
    "undefined reference",
];

/// Line starts that mark an error (`error TS2322`, go's `FAIL\tpkg`, jest's `FAIL src/…`).
const ERROR_PREFIXES: &[&str] = &["error ", "FAIL ", "FAIL\t"];

/// Substrings that mark a line as a warning.
const WARNING_MARKERS: &[&str] = &["warning:", "warning[", "Warning:", "WARN"];

/// How serious a flagged line looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Severity {
    Error,
    Warning,
}

/// Shortens `text` (one output stream) by the tiers described in the module docs.
pub fn truncate_output(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= SHORT_MAX_LINES && text.len() <= SHORT_MAX_BYTES {
        return text.to_string();
    }
    let total = lines.len();
    let mut out = String::new();
    if total <= HEAD_LINES + TAIL_LINES {
        // Few lines but many bytes: only the line lengths need cutting.
        push_lines(&mut out, &lines);
        out.push_str(&format!(
            "[{total} lines; lines longer than {MAX_LINE_BYTES} bytes were cut]\n"
        ));
        return out;
    }
    let omitted = &lines[HEAD_LINES..total - TAIL_LINES];
    push_lines(&mut out, &lines[..HEAD_LINES]);
    if total <= MEDIUM_MAX_LINES {
        out.push_str(&format!(
            "[... {} lines omitted ({total} lines total) ...]\n",
            omitted.len()
        ));
    } else {
        push_flagged_summary(&mut out, omitted, HEAD_LINES + 1, total);
    }
    push_lines(&mut out, &lines[total - TAIL_LINES..]);
    out
}

/// Whether `text` is short enough to be kept whole.
pub(crate) fn fits_whole(text: &str) -> bool {
    text.len() <= SHORT_MAX_BYTES && text.lines().count() <= SHORT_MAX_LINES
}

/// The omission marker of the long tier, followed by the flagged lines among `omitted`
/// (whose first line is line `first_number` of the stream).
fn push_flagged_summary(out: &mut String, omitted: &[&str], first_number: usize, total: usize) {
    let flagged: Vec<(usize, Severity)> = omitted
        .iter()
        .enumerate()
        .filter_map(|(index, line)| classify(line).map(|severity| (index, severity)))
        .collect();
    let errors = flagged
        .iter()
        .filter(|(_, severity)| *severity == Severity::Error)
        .count();
    let warnings = flagged.len() - errors;
    let head = format!("[... {} lines omitted ({total} lines total)", omitted.len());
    if flagged.is_empty() {
        out.push_str(&format!(
            "{head}; no error or warning lines among them ...]\n"
        ));
        return;
    }
    let counts = format!(
        "{errors} error {}, {warnings} warning {}",
        plural(errors),
        plural(warnings)
    );
    if flagged.len() <= MAX_FLAGGED_LINES {
        out.push_str(&format!("{head}; {counts} among them:\n"));
    } else {
        out.push_str(&format!(
            "{head}; {counts} among them; showing the first {MAX_FLAGGED_LINES}, errors first:\n"
        ));
    }
    // Errors win the limited slots; the chosen lines are then shown in their original order.
    let mut shown: Vec<usize> = flagged
        .iter()
        .filter(|(_, severity)| *severity == Severity::Error)
        .chain(
            flagged
                .iter()
                .filter(|(_, severity)| *severity == Severity::Warning),
        )
        .take(MAX_FLAGGED_LINES)
        .map(|(index, _)| *index)
        .collect();
    shown.sort_unstable();
    for index in shown {
        out.push_str(&format!(
            "  {}: {}\n",
            first_number + index,
            clip(omitted[index])
        ));
    }
    out.push_str("... end of omitted lines]\n");
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "line" } else { "lines" }
}

fn classify(line: &str) -> Option<Severity> {
    let trimmed = line.trim_start();
    if ERROR_MARKERS.iter().any(|marker| line.contains(marker))
        || ERROR_PREFIXES
            .iter()
            .any(|prefix| trimmed.starts_with(prefix))
    {
        Some(Severity::Error)
    } else if WARNING_MARKERS.iter().any(|marker| line.contains(marker)) {
        Some(Severity::Warning)
    } else {
        None
    }
}

fn push_lines(out: &mut String, lines: &[&str]) {
    for line in lines {
        out.push_str(&clip(line));
        out.push('\n');
    }
}

/// `line`, cut to [`MAX_LINE_BYTES`] on a character boundary with a note of what was cut.
fn clip(line: &str) -> String {
    if line.len() <= MAX_LINE_BYTES {
        return line.to_string();
    }
    let mut end = MAX_LINE_BYTES;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… [+{} bytes]", &line[..end], line.len() - end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(count: usize) -> String {
        (1..=count).map(|n| format!("line {n}\n")).collect()
    }

    #[test]
    fn short_output_is_kept_whole() {
        let text = numbered(200);
        assert_eq!(truncate_output(&text), text);
        assert_eq!(truncate_output(""), "");
    }

    #[test]
    fn medium_output_keeps_head_and_tail_with_the_omitted_count() {
        let out = truncate_output(&numbered(500));
        assert!(out.starts_with("line 1\n"), "{out}");
        assert!(out.contains("line 80\n[... 340 lines omitted (500 lines total) ...]\nline 421\n"));
        assert!(out.ends_with("line 500\n"));
        assert!(!out.contains("line 81\n"));
        assert_eq!(out.lines().count(), 161);
    }

    #[test]
    fn medium_output_does_not_list_errors() {
        let mut text = numbered(100);
        text.push_str("error: boom\n");
        text.push_str(&numbered(200));
        let out = truncate_output(&text);
        assert!(!out.contains("boom"), "{out}");
    }

    #[test]
    fn long_output_lists_omitted_error_and_warning_lines_with_numbers() {
        let mut text = numbered(1000);
        text.push_str("warning: unused variable `x`\n");
        text.push_str("error[E0308]: mismatched types\n");
        text.push_str(&numbered(2000));
        let out = truncate_output(&text);
        assert!(
            out.contains("[... 2842 lines omitted (3002 lines total); 1 error line, 1 warning line among them:\n"),
            "{out}"
        );
        assert!(out.contains(
            "  1001: warning: unused variable `x`\n  1002: error[E0308]: mismatched types\n"
        ));
        assert!(out.contains("... end of omitted lines]\nline 1921\n"));
        assert!(out.ends_with("line 2000\n"));
    }

    #[test]
    fn long_output_caps_flagged_lines_and_prefers_errors() {
        let mut text = numbered(100);
        for n in 0..300 {
            text.push_str(&format!("warning: w{n}\n"));
        }
        for n in 0..412 {
            text.push_str(&format!("error: e{n}\n"));
        }
        text.push_str(&numbered(2000));
        let out = truncate_output(&text);
        assert!(
            out.contains(
                "412 error lines, 300 warning lines among them; showing the first 40, errors first"
            ),
            "{out}"
        );
        assert!(out.contains("  401: error: e0\n"));
        assert!(!out.contains("warning: w"));
        assert_eq!(out.matches(": error: e").count(), 40);
    }

    #[test]
    fn long_output_without_flagged_lines_says_so() {
        let out = truncate_output(&numbered(3000));
        assert!(
            out.contains("no error or warning lines among them"),
            "{out}"
        );
    }

    #[test]
    fn few_very_long_lines_are_cut_not_dropped() {
        let text = format!("{}\nshort\n", "é".repeat(20_000));
        let out = truncate_output(&text);
        assert!(out.contains("… [+"), "{out}");
        assert!(out.contains("short\n"));
        assert!(out.len() < 1000);
    }

    #[test]
    fn classification_is_case_aware() {
        assert_eq!(classify("error: linking failed"), Some(Severity::Error));
        assert_eq!(classify("ValueError: bad"), Some(Severity::Error));
        assert_eq!(classify("thread 'main' panicked at"), Some(Severity::Error));
        assert_eq!(classify("--- FAIL: TestParse"), Some(Severity::Error));
        assert_eq!(classify("FAIL\tgithub.com/x/y"), Some(Severity::Error));
        assert_eq!(
            classify("src/a.ts(3,5): error TS2322: no"),
            Some(Severity::Error)
        );
        assert_eq!(classify("warning: unused import"), Some(Severity::Warning));
        assert_eq!(classify("0 errors, 0 warnings"), None);
        assert_eq!(classify("test result: ok. 3 passed"), None);
    }

    #[test]
    fn fits_whole_matches_the_short_tier() {
        assert!(fits_whole(&numbered(200)));
        assert!(!fits_whole(&numbered(201)));
        assert!(!fits_whole(&"x".repeat(SHORT_MAX_BYTES + 1)));
    }
}
