//! Bare JSON objects starting a line.

use std::collections::HashSet;

use super::Step;
use crate::json::{self, JsonScan, ScanEvent, Verdict};

/// Progress through a bare JSON object starting a line.
#[derive(Debug, Clone, Default)]
pub(super) struct BareState {
    key_ok: bool,
    scan: JsonScan,
}

impl BareState {
    pub(super) fn step(&mut self, buf: &str, known: &HashSet<String>, eof: bool) -> Step {
        if !self.key_ok {
            match json::first_key_verdict(buf, false) {
                Verdict::Accept => self.key_ok = true,
                Verdict::Undecided if !eof => return Step::NeedMore,
                Verdict::Undecided | Verdict::Reject => {
                    return Step::Text {
                        len: 1,
                        code_fence: None,
                    };
                }
            }
        }
        match self.scan.advance(buf.as_bytes(), false) {
            ScanEvent::Complete(end) => match json::untagged_calls(&buf[..end], known) {
                Some(calls) => Step::Calls {
                    calls,
                    consumed: end,
                },
                None => Step::Text {
                    len: end,
                    code_fence: None,
                },
            },
            ScanEvent::NeedMore | ScanEvent::Lt(_) if eof => Step::Text {
                len: buf.len(),
                code_fence: None,
            },
            ScanEvent::NeedMore | ScanEvent::Lt(_) => Step::NeedMore,
        }
    }
}
