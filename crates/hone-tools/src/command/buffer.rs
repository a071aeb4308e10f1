//! Bounded output buffers: a command printing gigabytes must not exhaust memory.

use std::collections::VecDeque;

/// Bytes of each foreground stream kept from the start (the rest goes to the tail).
const CAPTURE_HEAD_BYTES: usize = 4 * 1024 * 1024;
/// Bytes of each foreground stream kept from the end.
const CAPTURE_TAIL_BYTES: usize = 4 * 1024 * 1024;

/// The last `capacity` bytes written, plus how many were ever written.
#[derive(Debug)]
pub(crate) struct TailBuffer {
    bytes: VecDeque<u8>,
    capacity: usize,
    total: u64,
}

impl TailBuffer {
    /// An empty buffer keeping at most `capacity` bytes.
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            bytes: VecDeque::new(),
            capacity,
            total: 0,
        }
    }

    /// Appends `data`, dropping the oldest bytes beyond the capacity.
    pub(crate) fn push(&mut self, data: &[u8]) {
        self.total += data.len() as u64;
        let data = &data[data.len().saturating_sub(self.capacity)..];
        let overflow = (self.bytes.len() + data.len()).saturating_sub(self.capacity);
        self.bytes.drain(..overflow);
        self.bytes.extend(data);
    }

    /// How many bytes were ever written.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// How many of the written bytes are no longer kept.
    pub(crate) fn dropped(&self) -> u64 {
        self.total - self.bytes.len() as u64
    }

    /// The kept bytes written after the first `offset` bytes, as text, and how many bytes
    /// after `offset` were already dropped.
    pub(crate) fn since(&self, offset: u64) -> (String, u64) {
        let dropped = self.dropped();
        let skip = usize::try_from(offset.saturating_sub(dropped)).unwrap_or(usize::MAX);
        let kept: Vec<u8> = self.bytes.iter().skip(skip).copied().collect();
        (
            String::from_utf8_lossy(&kept).into_owned(),
            dropped.saturating_sub(offset),
        )
    }
}

/// One foreground stream: its first and last few megabytes.
#[derive(Debug)]
pub(crate) struct Capture {
    head: Vec<u8>,
    tail: TailBuffer,
}

impl Default for Capture {
    fn default() -> Self {
        Self {
            head: Vec::new(),
            tail: TailBuffer::new(CAPTURE_TAIL_BYTES),
        }
    }
}

impl Capture {
    /// Appends `data`.
    pub(crate) fn push(&mut self, data: &[u8]) {
        let room = CAPTURE_HEAD_BYTES
            .saturating_sub(self.head.len())
            .min(data.len());
        self.head.extend_from_slice(&data[..room]);
        self.tail.push(&data[room..]);
    }

    /// The captured text, with a marker where bytes were dropped.
    pub(crate) fn text(&self) -> String {
        let head = String::from_utf8_lossy(&self.head);
        let (tail, _) = self.tail.since(0);
        match self.tail.dropped() {
            0 => format!("{head}{tail}"),
            dropped => format!("{head}\n[... {dropped} bytes of output not kept ...]\n{tail}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_buffer_keeps_the_last_bytes_and_counts_all() {
        let mut buffer = TailBuffer::new(4);
        buffer.push(b"abc");
        buffer.push(b"defg");
        assert_eq!(buffer.total(), 7);
        assert_eq!(buffer.since(0), ("defg".to_string(), 3));
        assert_eq!(buffer.since(5), ("fg".to_string(), 0));
        assert_eq!(buffer.since(7), (String::new(), 0));
        buffer.push(b"0123456789");
        assert_eq!(buffer.since(7), ("6789".to_string(), 6));
    }

    #[test]
    fn capture_marks_the_dropped_middle() {
        let mut capture = Capture::default();
        capture.push(&vec![b'a'; CAPTURE_HEAD_BYTES]);
        capture.push(&vec![b'b'; CAPTURE_TAIL_BYTES + 10]);
        let text = capture.text();
        assert!(text.contains("\n[... 10 bytes of output not kept ...]\n"));
        assert!(text.starts_with('a') && text.ends_with('b'));
    }
}
