//! `<tool_call>…</tool_call>` blocks.

use super::{Step, TAG_CLOSE, TAG_OPEN};
use crate::json::{self, JsonScan, ScanEvent};

/// Progress through a `<tool_call>` block.
#[derive(Debug, Clone, Copy, Default)]
enum TagStage {
    /// Before the content's first character.
    #[default]
    Start,
    /// Inside the JSON content.
    Json,
    /// The JSON value ended at this offset; looking at what follows.
    AfterValue(usize),
    /// Something other than the closing tag followed the value ending at
    /// `value_end`; searching for `</tool_call>` from `from`.
    Search { value_end: usize, from: usize },
}

#[derive(Debug, Clone, Default)]
pub(super) struct TagState {
    stage: TagStage,
    scan: JsonScan,
}

impl TagState {
    pub(super) fn step(&mut self, buf: &str, eof: bool) -> Step {
        let body = TAG_OPEN.len();
        loop {
            match self.stage {
                TagStage::Start => {
                    let first = json::skip_ws(buf.as_bytes(), body);
                    match buf.as_bytes().get(first) {
                        None if eof => return tag_closed(buf, buf.len(), buf.len()),
                        None => return Step::NeedMore,
                        Some(b'{' | b'[') => {
                            self.scan = JsonScan::at(first);
                            self.stage = TagStage::Json;
                        }
                        Some(_) => {
                            return Step::Text {
                                len: body,
                                code_fence: None,
                            };
                        }
                    }
                }
                TagStage::Json => match self.scan.advance(buf.as_bytes(), true) {
                    ScanEvent::Complete(end) => self.stage = TagStage::AfterValue(end),
                    ScanEvent::NeedMore if eof => return self.at_eof(buf),
                    ScanEvent::NeedMore => return Step::NeedMore,
                    ScanEvent::Lt(at) => {
                        let rest = &buf[at..];
                        if rest.starts_with(TAG_CLOSE) {
                            return tag_closed(buf, at, at + TAG_CLOSE.len());
                        }
                        if rest.starts_with(TAG_OPEN) {
                            return tag_closed(buf, at, at);
                        }
                        if !eof && (TAG_CLOSE.starts_with(rest) || TAG_OPEN.starts_with(rest)) {
                            return Step::NeedMore;
                        }
                        self.scan.skip();
                    }
                },
                TagStage::AfterValue(value_end) => {
                    let next = json::skip_ws(buf.as_bytes(), value_end);
                    if next == buf.len() {
                        return if eof {
                            self.at_eof(buf)
                        } else {
                            Step::NeedMore
                        };
                    }
                    let rest = &buf[next..];
                    if rest.starts_with(TAG_CLOSE) {
                        return tag_closed(buf, next, next + TAG_CLOSE.len());
                    }
                    if rest.starts_with(TAG_OPEN) {
                        return tag_closed(buf, value_end, value_end);
                    }
                    if !eof && (TAG_CLOSE.starts_with(rest) || TAG_OPEN.starts_with(rest)) {
                        return Step::NeedMore;
                    }
                    self.stage = TagStage::Search {
                        value_end,
                        from: value_end,
                    };
                }
                TagStage::Search { value_end, from } => {
                    if let Some(found) = buf[from..].find(TAG_CLOSE) {
                        let at = from + found;
                        return tag_closed(buf, at, at + TAG_CLOSE.len());
                    }
                    if eof {
                        return self.at_eof(buf);
                    }
                    let mut next = buf.len().saturating_sub(TAG_CLOSE.len() - 1).max(from);
                    while !buf.is_char_boundary(next) {
                        next -= 1;
                    }
                    self.stage = TagStage::Search {
                        value_end,
                        from: next,
                    };
                    return Step::NeedMore;
                }
            }
        }
    }

    /// The stream ended inside the block: a complete JSON value is the call and
    /// what follows it is text again; otherwise the first `</tool_call>` (one inside
    /// a broken string) or the end of the stream closes the block.
    fn at_eof(&self, buf: &str) -> Step {
        let body = TAG_OPEN.len();
        let value_end = match self.stage {
            TagStage::AfterValue(end) | TagStage::Search { value_end: end, .. } => Some(end),
            TagStage::Start | TagStage::Json => None,
        };
        if let Some(end) = value_end
            && let Some(calls) = json::tagged_calls(&buf[body..end])
        {
            return Step::Calls {
                calls,
                consumed: end,
            };
        }
        match buf[body..].find(TAG_CLOSE) {
            Some(found) => tag_closed(buf, body + found, body + found + TAG_CLOSE.len()),
            None => tag_closed(buf, buf.len(), buf.len()),
        }
    }
}

/// A `<tool_call>` block whose content ends at `inner_end` and which spans `consumed` bytes.
fn tag_closed(buf: &str, inner_end: usize, consumed: usize) -> Step {
    match json::tagged_calls(&buf[TAG_OPEN.len()..inner_end]) {
        Some(calls) => Step::Calls { calls, consumed },
        None => Step::Text {
            len: consumed,
            code_fence: None,
        },
    }
}
