//! Code fences that may hold calls.

use std::collections::HashSet;

use super::{Parsed, Step, TAG_OPEN, ToolCallParser};
use crate::json::{self, RawCall, Verdict};

/// Info strings of code fences that may hold a call; any other language (```` ```rust ````…)
/// marks an ordinary code block, whose content is never searched for calls.
const FENCE_LANGUAGES: &[&str] = &[
    "",
    "json",
    "jsonc",
    "json5",
    "tool_call",
    "tool_code",
    "tool_use",
    "xml",
];

/// Progress through a code fence that may hold a call.
#[derive(Debug, Clone)]
pub(super) struct FenceState {
    /// Number of backticks opening the fence.
    pub(super) width: usize,
    /// Where the content starts, once the opening line is complete.
    content_start: Option<usize>,
    /// Whether the content's beginning looks like a call.
    content_ok: bool,
    /// Start of the first line not yet known to be content.
    line_start: usize,
    /// Whether that line is known not to close the fence.
    head_checked: bool,
    /// How far the search for that line's end got.
    searched_to: usize,
}

impl FenceState {
    pub(super) fn new(width: usize) -> Self {
        Self {
            width,
            content_start: None,
            content_ok: false,
            line_start: 0,
            head_checked: false,
            searched_to: 0,
        }
    }

    pub(super) fn step(&mut self, buf: &str, known: &HashSet<String>, eof: bool) -> Step {
        let reject = Step::Text {
            len: self.width,
            code_fence: Some(self.width),
        };
        let content_start = match self.content_start {
            Some(start) => start,
            None => {
                let info = &buf[self.width..];
                let Some(newline) = info.find('\n') else {
                    return if eof || !language_may_be_accepted(info) {
                        reject
                    } else {
                        Step::NeedMore
                    };
                };
                let language = info[..newline].trim().to_ascii_lowercase();
                if !FENCE_LANGUAGES.contains(&language.as_str()) {
                    return reject;
                }
                let start = self.width + newline + 1;
                self.content_start = Some(start);
                self.line_start = start;
                self.searched_to = start;
                start
            }
        };
        if !self.content_ok {
            match content_verdict(&buf[content_start..]) {
                Verdict::Reject => return reject,
                Verdict::Undecided if !eof => return Step::NeedMore,
                Verdict::Undecided | Verdict::Accept => self.content_ok = true,
            }
        }
        let bytes = buf.as_bytes();
        loop {
            if !self.head_checked {
                let line = &bytes[self.line_start..];
                let indent = line
                    .iter()
                    .take_while(|&&b| b == b' ' || b == b'\t')
                    .count();
                let ticks = line[indent..].iter().take_while(|&&b| b == b'`').count();
                if ticks >= self.width {
                    let content = &buf[content_start..self.line_start];
                    let consumed = self.line_start + indent + ticks;
                    return match fence_calls(content, known) {
                        Some(calls) => Step::Calls { calls, consumed },
                        None => Step::Text {
                            len: consumed,
                            code_fence: None,
                        },
                    };
                }
                if indent + ticks == line.len() {
                    break;
                }
                self.head_checked = true;
            }
            match buf[self.searched_to..].find('\n') {
                Some(newline) => {
                    self.line_start = self.searched_to + newline + 1;
                    self.searched_to = self.line_start;
                    self.head_checked = false;
                }
                None => {
                    self.searched_to = buf.len();
                    break;
                }
            }
        }
        if !eof {
            return Step::NeedMore;
        }
        match fence_calls(&buf[content_start..], known) {
            Some(calls) => Step::Calls {
                calls,
                consumed: buf.len(),
            },
            None => Step::Text {
                len: buf.len(),
                code_fence: None,
            },
        }
    }
}

/// Whether an incomplete opening-line info string may still become an accepted language.
fn language_may_be_accepted(info: &str) -> bool {
    let text = info.trim_start();
    let word = text.trim_end();
    if word.is_empty() {
        return true;
    }
    if word.contains(char::is_whitespace) {
        return false;
    }
    let word = word.to_ascii_lowercase();
    if word.len() < text.len() {
        // The word is finished: only trailing whitespace may follow.
        FENCE_LANGUAGES.contains(&word.as_str())
    } else {
        FENCE_LANGUAGES
            .iter()
            .any(|language| language.starts_with(&word))
    }
}

/// Whether a fence's content so far can be a call: JSON starting with a call key,
/// or a `<tool_call>` block.
fn content_verdict(content: &str) -> Verdict {
    let first = json::skip_ws(content.as_bytes(), 0);
    let rest = &content[first..];
    match rest.as_bytes().first() {
        None => Verdict::Undecided,
        Some(b'{' | b'[') => json::first_key_verdict(rest, true),
        Some(b'<') if rest.starts_with(TAG_OPEN) => Verdict::Accept,
        Some(b'<') if TAG_OPEN.starts_with(rest) => Verdict::Undecided,
        Some(_) => Verdict::Reject,
    }
}

/// Calls making up a fence's whole content, if that is what it is.
fn fence_calls(content: &str, known: &HashSet<String>) -> Option<Vec<RawCall>> {
    let trimmed = content.trim();
    if !trimmed.starts_with('<') {
        return json::untagged_calls(trimmed, known);
    }
    let mut inner = ToolCallParser::with_known(known.clone());
    let mut parsed = inner.push(trimmed);
    parsed.extend(inner.finish());
    let mut calls = Vec::new();
    for piece in parsed {
        match piece {
            Parsed::Call { name, arguments } => calls.push((name, arguments)),
            Parsed::Text(text) if text.trim().is_empty() => {}
            Parsed::Text(_) => return None,
        }
    }
    (!calls.is_empty()).then_some(calls)
}
