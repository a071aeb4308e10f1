//! `read_file` and `file_hash`: file content with line numbers, and content hashes.

use hone_policy::ResolvedPath;
use hone_protocol::ToolSpec;
use serde_json::{Value, json};

use crate::files::read_bytes_in;
use crate::files::suggest::not_found;
use crate::files::text::{decode, hash_bytes, is_binary};
use crate::{
    Args, Plan, SecretRead, TextEncoding, Tool, ToolContext, ToolError, ToolKind, ToolOutput,
};

/// Without a range, files longer than this many lines are cut (head and tail kept).
const MAX_LINES: usize = 400;
/// Without a range, files larger than this many bytes are cut (head and tail kept).
const MAX_BYTES: usize = 40 * 1024;
/// Budget of the kept head of a cut file (lines, bytes); the tail gets half of it.
const HEAD_LINES: usize = 250;
const HEAD_BYTES: usize = 24 * 1024;
/// Even an explicit range stops after this much output.
const RANGE_MAX_LINES: usize = 2_000;
const RANGE_MAX_BYTES: usize = 200 * 1024;
/// Lines longer than this (minified code) are shortened.
const MAX_LINE_CHARS: usize = 2_000;

const READ_USAGE: &str = "{path, start_line?, end_line?}";

/// `read_file`: a text file with line numbers.
pub(crate) struct ReadFile;

impl Tool for ReadFile {
    fn name(&self) -> &'static str {
        "read_file"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: "Read a text file, shown with line numbers (`  12│ text`; the numbers \
                          are not part of the file). Long files are cut in the middle: read the \
                          omitted part with start_line/end_line. Read a file before overwriting \
                          it or editing it by line numbers."
                .to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File path relative to the project root."},
                    "start_line": {"type": "integer", "description": "First line to show (1-based)."},
                    "end_line": {"type": "integer", "description": "Last line to show (inclusive)."}
                },
                "required": ["path"]
            }),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), READ_USAGE, arguments)?;
        let given = args.string("path")?;
        let range = Requested {
            start: args.opt_integer("start_line")?,
            end: args.opt_integer("end_line")?,
        };
        let (resolved, bytes) = load(context, &given)?;
        let shown = show(&resolved.relative, &bytes, &range)?;
        if context.guard().is_secret(&resolved.relative) {
            // Recorded by the core once the user lets the model see it.
            return Ok(Plan::SecretRead(SecretRead {
                path: resolved.relative,
                output: ToolOutput::ok(shown),
                hash: hash_bytes(&bytes),
            }));
        }
        // Recorded only once the model gets to see the content.
        context
            .reads()
            .record(&resolved.relative, &hash_bytes(&bytes));
        Ok(done(shown))
    }
}

/// What read_file shows of the file `path` with content `bytes`.
fn show(path: &str, bytes: &[u8], range: &Requested) -> Result<String, ToolError> {
    if is_binary(bytes) {
        return Ok(format!("{path}\n[binary file, {} bytes]", bytes.len()));
    }
    let (text, encoding) = decode(bytes);
    let lines: Vec<&str> = text.lines().collect();
    let notes = match encoding {
        TextEncoding::Latin1 => "\n[not UTF-8: decoded as Latin-1]",
        TextEncoding::Utf8 => "",
    };
    if lines.is_empty() {
        if let Some(start) = range.start.filter(|&start| start > 1) {
            return Err(ToolError::invalid(format!(
                "{path} is empty (0 lines), so there is no line {start}; read it without \
                 start_line"
            )));
        }
        return Ok(format!("{path} (0 lines){notes}\n[empty file]"));
    }
    let (first, last) = range.resolve(path, lines.len())?;
    let header = if range.is_given() {
        format!("{path} (lines {first}–{last} of {})", lines.len())
    } else {
        let plural = if lines.len() == 1 { "" } else { "s" };
        format!("{path} ({} line{plural})", lines.len())
    };
    let cut = if range.is_given() {
        Cut::StopAtLimit
    } else {
        Cut::KeepHeadAndTail
    };
    let body = render(&lines, first, last, cut);
    Ok(format!("{header}{notes}\n{body}"))
}

/// `file_hash`: the SHA-256 of a file.
pub(crate) struct FileHash;

impl Tool for FileHash {
    fn name(&self) -> &'static str {
        "file_hash"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: "SHA-256 of a file's bytes (hex): check whether a file changed without \
                          reading it again."
                .to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File path relative to the project root."}
                },
                "required": ["path"]
            }),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{path}", arguments)?;
        let given = args.string("path")?;
        let (resolved, bytes) = load(context, &given)?;
        let hash = hash_bytes(&bytes);
        context.reads().record(&resolved.relative, &hash);
        Ok(done(format!(
            "{hash}  {} ({} bytes)",
            resolved.relative,
            bytes.len()
        )))
    }
}

fn done(text: String) -> Plan {
    Plan::Done(ToolOutput::ok(text))
}

/// Resolves `given` for reading and loads its bytes; missing paths get suggestions.
fn load(context: &ToolContext, given: &str) -> Result<(ResolvedPath, Vec<u8>), ToolError> {
    let resolved = context.guard().resolve_read(given)?;
    if !resolved.absolute.exists() {
        return Err(not_found(context, given, ""));
    }
    let bytes = read_bytes_in(context, &resolved)?;
    Ok((resolved, bytes))
}

/// The line range the model asked for.
struct Requested {
    start: Option<u64>,
    end: Option<u64>,
}

impl Requested {
    fn is_given(&self) -> bool {
        self.start.is_some() || self.end.is_some()
    }

    /// The 1-based inclusive range to show of a file with `total` (> 0) lines.
    fn resolve(&self, shown: &str, total: usize) -> Result<(usize, usize), ToolError> {
        let start = usize::try_from(self.start.unwrap_or(1).max(1)).unwrap_or(usize::MAX);
        if start > total {
            return Err(ToolError::invalid(format!(
                "start_line {start} is past the end of {shown}, which has {total} lines; use a \
                 start_line between 1 and {total}"
            )));
        }
        let end = self
            .end
            .map_or(total, |end| usize::try_from(end).unwrap_or(usize::MAX))
            .min(total);
        if end < start {
            return Err(ToolError::invalid(format!(
                "end_line {end} is before start_line {start}; give end_line >= start_line \
                 ({shown} has {total} lines)"
            )));
        }
        Ok((start, end))
    }
}

/// How a long selection is shortened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cut {
    /// A whole file: keep its head and tail, name the omitted middle.
    KeepHeadAndTail,
    /// An explicit range: show it up to the (larger) range limit, then say where to go on.
    StopAtLimit,
}

/// Lines `first..=last` (1-based) with numbers; cut to a head and a tail when no range was
/// asked for and the selection is long, or stopped early when an explicit range is huge.
fn render(lines: &[&str], first: usize, last: usize, cut: Cut) -> String {
    let width = last.to_string().len();
    let numbered = |number: usize| number_line(number, lines[number - 1], width);
    let selected: Vec<usize> = (first..=last).collect();
    let bytes: usize = selected
        .iter()
        .map(|&number| lines[number - 1].len() + 1)
        .sum();
    let mut out = String::new();
    if cut == Cut::StopAtLimit {
        let kept = take_within(&selected, lines, RANGE_MAX_LINES, RANGE_MAX_BYTES);
        for &number in &selected[..kept] {
            out.push_str(&numbered(number));
        }
        if kept < selected.len() {
            let next = selected[kept];
            out.push_str(&format!(
                "[... output stops at line {} of {last}; call read_file with start_line={next} \
                 to continue ...]\n",
                next - 1
            ));
        }
    } else if selected.len() > MAX_LINES || bytes > MAX_BYTES {
        let head = take_within(&selected, lines, HEAD_LINES, HEAD_BYTES);
        let reversed: Vec<usize> = selected.iter().rev().copied().collect();
        let tail = take_within(&reversed, lines, HEAD_LINES / 2, HEAD_BYTES / 2)
            .min(selected.len() - head);
        let omitted_first = selected[head];
        let omitted_last = selected[selected.len() - tail - 1];
        for &number in &selected[..head] {
            out.push_str(&numbered(number));
        }
        out.push_str(&format!(
            "[... {} lines omitted (lines {omitted_first}–{omitted_last}); call read_file with \
             start_line/end_line to see them ...]\n",
            omitted_last + 1 - omitted_first
        ));
        for &number in &selected[selected.len() - tail..] {
            out.push_str(&numbered(number));
        }
    } else {
        for &number in &selected {
            out.push_str(&numbered(number));
        }
    }
    out
}

/// How many of `numbers` (in order) fit in `max_lines` lines and `max_bytes` bytes
/// (at least one).
fn take_within(numbers: &[usize], lines: &[&str], max_lines: usize, max_bytes: usize) -> usize {
    let mut bytes = 0;
    for (taken, &number) in numbers.iter().enumerate() {
        bytes += lines[number - 1].len().min(MAX_LINE_CHARS) + 8;
        if taken >= max_lines || (bytes > max_bytes && taken > 0) {
            return taken;
        }
    }
    numbers.len()
}

fn number_line(number: usize, line: &str, width: usize) -> String {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line.is_empty() {
        return format!("{number:>width$}│\n");
    }
    let chars = line.chars().count();
    if chars > MAX_LINE_CHARS {
        let kept: String = line.chars().take(MAX_LINE_CHARS).collect();
        return format!("{number:>width$}│ {kept} … [line cut: {chars} characters in total]\n");
    }
    format!("{number:>width$}│ {line}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_right_aligned_to_the_widest_shown() {
        let lines = vec!["a"; 12];
        let out = render(&lines, 9, 12, Cut::StopAtLimit);
        assert!(out.starts_with(" 9│ a\n10│ a\n"), "{out}");
    }

    #[test]
    fn long_files_keep_head_and_tail_and_name_the_gap() {
        let owned: Vec<String> = (1..=1000).map(|n| format!("line {n}")).collect();
        let lines: Vec<&str> = owned.iter().map(String::as_str).collect();
        let out = render(&lines, 1, 1000, Cut::KeepHeadAndTail);
        assert!(out.contains("   1│ line 1\n"), "{out}");
        assert!(out.contains(" 250│ line 250\n"));
        assert!(out.contains(
            "[... 625 lines omitted (lines 251–875); call read_file with start_line/end_line"
        ));
        assert!(out.contains("1000│ line 1000\n"));
        assert!(!out.contains("line 251\n"));
    }

    #[test]
    fn huge_explicit_ranges_stop_with_a_continuation_hint() {
        let owned: Vec<String> = (1..=3000).map(|n| format!("l{n}")).collect();
        let lines: Vec<&str> = owned.iter().map(String::as_str).collect();
        let out = render(&lines, 1, 3000, Cut::StopAtLimit);
        assert!(out.ends_with(
            "[... output stops at line 2000 of 3000; call read_file with start_line=2001 to continue ...]\n"
        ));
    }

    #[test]
    fn very_long_lines_are_cut() {
        let long = "x".repeat(MAX_LINE_CHARS + 10);
        let out = number_line(1, &long, 1);
        assert!(out.ends_with("… [line cut: 2010 characters in total]\n"));
    }
}
