//! The streaming, lenient tool-call parser.

use std::collections::HashSet;

use crate::json::RawCall;

mod bare;
mod fence;
mod tag;

use bare::BareState;
use fence::FenceState;
use tag::TagState;

/// Tag opening a prompt-level tool call.
pub(crate) const TAG_OPEN: &str = "<tool_call>";
/// Tag closing a prompt-level tool call.
pub(crate) const TAG_CLOSE: &str = "</tool_call>";

/// Most input the parser holds back for one undecided candidate (an unclosed tag,
/// fence or JSON object); past this it gives up and releases the input as text.
pub const MAX_HELD_BYTES: usize = 256 * 1024;

/// One piece of model output, as told apart by [`ToolCallParser`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    /// Visible text, byte for byte as the model wrote it.
    Text(String),
    /// A tool call.
    Call {
        /// The tool's name (inside `<tool_call>` tags possibly not a known tool).
        name: String,
        /// The arguments as JSON object text: an object is re-serialised compactly
        /// (keys sorted), a JSON-encoded string is unwrapped as written; for
        /// malformed JSON inside tags, the raw inner text of the block.
        arguments: String,
    },
}

/// Splits streamed model output into visible text and prompt-level tool calls.
///
/// Recognised forms:
///
/// * `<tool_call>{"name": …, "arguments": …}</tool_call>`, anywhere in the text:
///   whitespace inside the tags is fine, `parameters` may replace `arguments`,
///   arguments may be a JSON-encoded string, one block may hold several objects or a
///   JSON array of calls, and a missing closing tag is tolerated at the end of the
///   stream or when the next `<tool_call>` starts. Inside tags the name need not be
///   a known tool (the agent tells the model it does not exist). When the JSON is
///   malformed but a `"name": "…"` can be found, the call carries the raw inner text
///   as arguments; otherwise the block stays text. A tag whose content does not
///   start with `{` or `[` (prose mentioning the tag) stays text at once.
/// * A code fence at the start of a line, with no language or `json`, `tool_call`,
///   `tool_code`, `tool_use` or `xml`, whose whole content is a call object, several
///   of them, an array of them or `<tool_call>` blocks. Small models do this often.
/// * A bare JSON object starting a line (after optional indentation).
///
/// Fenced and bare JSON only counts when every object in it names a known tool,
/// has `arguments` or `parameters` and no keys besides `name`, `arguments`,
/// `parameters`, `id` and `type` (the OpenAI shape `{"type": "function",
/// "function": {…}}` is accepted too). Everything else — ordinary code blocks,
/// other JSON, prose — comes out as [`Parsed::Text`] exactly as written; nothing
/// is lost or altered. Code blocks in other languages are skipped whole, so their
/// content is never taken for a call.
///
/// Other decisions: inside a code block in another language (```` ```rust ````…)
/// nothing is detected, not even tags; text after the JSON inside a closed tag is
/// dropped with the block; raw newlines in JSON strings are repaired; a
/// Python-dict-style name (`'name': 'read_file'`) inside tags is found like a
/// malformed one; JSON in the middle of a line is never a call.
///
/// Text is released as soon as it cannot start a call: only a suspicious suffix is
/// held back (a partial `<tool_call>` at the end of the input, an open candidate
/// fence, a line-starting `{` whose braces do not balance yet), at most
/// [`MAX_HELD_BYTES`]. The output does not depend on how the input was split,
/// except for candidates larger than that cap.
#[derive(Debug, Clone)]
pub struct ToolCallParser {
    known: HashSet<String>,
    buf: String,
    line_blank: bool,
    code_fence: Option<usize>,
    candidate: Option<Candidate>,
}

/// What an undecided candidate at the start of the buffer turned out to be.
enum Step {
    /// Not decidable yet.
    NeedMore,
    /// Calls spanning the first `consumed` bytes.
    Calls {
        calls: Vec<RawCall>,
        consumed: usize,
    },
    /// The first `len` bytes are text; afterwards the parser is in this code fence.
    Text {
        len: usize,
        code_fence: Option<usize>,
    },
}

#[derive(Debug, Clone)]
enum Candidate {
    Tag(TagState),
    Fence(FenceState),
    Bare(BareState),
}

impl ToolCallParser {
    /// A parser accepting fenced and bare JSON calls to these tools.
    pub fn new<I, S>(known_tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self::with_known(known_tools.into_iter().map(Into::into).collect())
    }

    fn with_known(known: HashSet<String>) -> Self {
        Self {
            known,
            buf: String::new(),
            line_blank: true,
            code_fence: None,
            candidate: None,
        }
    }

    /// Feeds more output; returns what can be decided so far (adjacent text merged).
    pub fn push(&mut self, text: &str) -> Vec<Parsed> {
        self.buf.push_str(text);
        self.process(false)
    }

    /// Ends the output: decides everything held back (an unclosed `<tool_call>` is
    /// still a call) and resets the parser for a new response.
    pub fn finish(&mut self) -> Vec<Parsed> {
        let parsed = self.process(true);
        self.reset();
        parsed
    }

    /// Gives up on the output: returns everything held back verbatim, without
    /// looking for calls in it, and resets the parser. For failed or cancelled streams.
    pub fn flush_raw(&mut self) -> String {
        let held = std::mem::take(&mut self.buf);
        self.reset();
        held
    }

    /// Bytes currently held back.
    pub fn held_len(&self) -> usize {
        self.buf.len()
    }

    fn reset(&mut self) {
        self.buf.clear();
        self.line_blank = true;
        self.code_fence = None;
        self.candidate = None;
    }

    fn process(&mut self, eof: bool) -> Vec<Parsed> {
        let mut out = Output::default();
        loop {
            let mut candidate = match self.candidate.take() {
                Some(candidate) => candidate,
                None => match self.scan_text(eof, &mut out) {
                    Some(candidate) => candidate,
                    None => break,
                },
            };
            let step = match &mut candidate {
                Candidate::Tag(state) => state.step(&self.buf, eof),
                Candidate::Fence(state) => state.step(&self.buf, &self.known, eof),
                Candidate::Bare(state) => state.step(&self.buf, &self.known, eof),
            };
            match step {
                Step::NeedMore if eof || self.buf.len() > MAX_HELD_BYTES => {
                    self.emit_text(self.buf.len(), &mut out);
                    self.code_fence = match &candidate {
                        Candidate::Fence(state) if !eof => Some(state.width),
                        _ => None,
                    };
                }
                Step::NeedMore => {
                    self.candidate = Some(candidate);
                    break;
                }
                Step::Calls { calls, consumed } => {
                    for (name, arguments) in calls {
                        out.0.push(Parsed::Call { name, arguments });
                    }
                    self.buf.drain(..consumed);
                    self.line_blank = false;
                }
                Step::Text { len, code_fence } => {
                    self.emit_text(len, &mut out);
                    self.code_fence = code_fence;
                }
            }
        }
        out.0
    }

    /// Releases plain text from the buffer up to the next candidate, which it
    /// returns (starting at the buffer's first byte), or up to a held suffix.
    fn scan_text(&mut self, eof: bool, out: &mut Output) -> Option<Candidate> {
        let bytes = self.buf.as_bytes();
        let mut index = 0;
        let mut blank = self.line_blank;
        let mut fence = self.code_fence;
        let mut found = None;
        while let Some(&byte) = bytes.get(index) {
            if byte == b'<' && fence.is_none() {
                let rest = &self.buf[index..];
                if rest.starts_with(TAG_OPEN) {
                    found = Some(Candidate::Tag(TagState::default()));
                    break;
                }
                if !eof && TAG_OPEN.starts_with(rest) {
                    break;
                }
            } else if byte == b'`' && blank {
                let run = bytes[index..].iter().take_while(|&&b| b == b'`').count();
                if !eof && index + run == bytes.len() {
                    break;
                }
                match fence {
                    None if run >= 3 => {
                        found = Some(Candidate::Fence(FenceState::new(run)));
                        break;
                    }
                    Some(width) if run >= width => fence = None,
                    _ => {}
                }
                index += run;
                blank = false;
                continue;
            } else if byte == b'{' && blank && fence.is_none() {
                found = Some(Candidate::Bare(BareState::default()));
                break;
            }
            blank = match byte {
                b'\n' => true,
                b' ' | b'\t' | b'\r' => blank,
                _ => false,
            };
            index += 1;
        }
        out.text(&self.buf[..index]);
        self.buf.drain(..index);
        self.line_blank = blank;
        self.code_fence = fence;
        found
    }

    /// Releases the first `len` bytes of the buffer as text.
    fn emit_text(&mut self, len: usize, out: &mut Output) {
        let text = &self.buf[..len];
        self.line_blank = match text.rfind('\n') {
            Some(newline) => is_blank(&text[newline + 1..]),
            None => self.line_blank && is_blank(text),
        };
        out.text(text);
        self.buf.drain(..len);
    }
}

fn is_blank(text: &str) -> bool {
    text.bytes()
        .all(|byte| matches!(byte, b' ' | b'\t' | b'\r'))
}

/// Parsed pieces with adjacent text merged.
#[derive(Default)]
struct Output(Vec<Parsed>);

impl Output {
    fn text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        match self.0.last_mut() {
            Some(Parsed::Text(previous)) => previous.push_str(text),
            _ => self.0.push(Parsed::Text(text.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests;
