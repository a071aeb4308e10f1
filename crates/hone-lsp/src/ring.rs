//! The ring of recently opened and edited code (as llama.vim keeps): a few chunks of
//! lines from the project's documents — the start of a document when it is opened, the
//! lines around the last edit when it changes, unsaved text included — newest first.
//! A completion gets the newest chunks of the other documents within a budget. A new
//! chunk replaces the older chunks of the same document it overlaps, and the ring keeps
//! at most [`RING_CHUNKS`] chunks of at most [`CHUNK_BYTES`] each. Documents outside the
//! project never enter it (the caller only passes project paths).

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Mutex;

use crate::documents::Document;
use crate::lock;

/// Chunks the ring keeps.
pub(crate) const RING_CHUNKS: usize = 16;
/// Lines of a chunk at most.
const CHUNK_LINES: usize = 32;
/// Bytes of a chunk at most.
pub(crate) const CHUNK_BYTES: usize = 1_500;

/// Lines of one document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chunk {
    /// The document's root-relative path.
    pub(crate) path: String,
    /// The lines it holds (0-based, end exclusive).
    lines: Range<usize>,
    /// Their text, each line ending with a newline.
    pub(crate) text: String,
}

/// The recently opened and edited chunks, newest first.
#[derive(Default)]
pub(crate) struct Ring {
    chunks: Mutex<VecDeque<Chunk>>,
}

impl Ring {
    /// Remembers the lines of `text` (the document at `path`) around line `line`; older
    /// chunks of the same document it overlaps are dropped, and the oldest chunks beyond
    /// [`RING_CHUNKS`].
    pub(crate) fn remember(&self, path: &str, text: &str, line: usize) {
        let Some(chunk) = chunk_around(path, text, line) else {
            return;
        };
        let mut chunks = lock(&self.chunks);
        chunks.retain(|old| {
            old.path != chunk.path
                || (old.lines.end <= chunk.lines.start || chunk.lines.end <= old.lines.start)
        });
        chunks.push_front(chunk);
        chunks.truncate(RING_CHUNKS);
    }

    /// Remembers the lines of `document` around line `line` when it is in the project;
    /// a document outside it is never remembered.
    pub(crate) fn remember_document(&self, document: &Document, line: usize) {
        if let Some(path) = &document.relative {
            self.remember(path, &document.text, line);
        }
    }

    /// The newest chunks of documents other than `current`, at most `budget` bytes of
    /// text in all, newest first; a chunk whose text is already given is not given again.
    pub(crate) fn context(&self, current: &str, budget: usize) -> Vec<Chunk> {
        let chunks = lock(&self.chunks);
        let mut chosen: Vec<Chunk> = Vec::new();
        let mut used = 0;
        for chunk in chunks.iter().filter(|chunk| chunk.path != current) {
            if used + chunk.text.len() > budget
                || chosen.iter().any(|other| other.text == chunk.text)
            {
                continue;
            }
            used += chunk.text.len();
            chosen.push(chunk.clone());
        }
        chosen
    }
}

/// The chunk of `text` around line `line`: up to [`CHUNK_LINES`] lines centred on it,
/// lines farthest from it dropped until it fits [`CHUNK_BYTES`]; `None` for blank text.
fn chunk_around(path: &str, text: &str, line: usize) -> Option<Chunk> {
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return None;
    }
    let line = line.min(lines.len() - 1);
    let mut start = line.saturating_sub(CHUNK_LINES / 2);
    let mut end = (start + CHUNK_LINES).min(lines.len());
    start = end.saturating_sub(CHUNK_LINES).min(start);
    let size = |range: &Range<usize>| -> usize {
        lines[range.clone()].iter().map(|line| line.len() + 1).sum()
    };
    while size(&(start..end)) > CHUNK_BYTES && end - start > 1 {
        if line - start > end - 1 - line {
            start += 1;
        } else {
            end -= 1;
        }
    }
    let mut chunk: String = lines[start..end]
        .iter()
        .flat_map(|line| [*line, "\n"])
        .collect();
    if chunk.len() > CHUNK_BYTES {
        let cut = crate::documents::floor_char_boundary(&chunk, CHUNK_BYTES);
        chunk.truncate(cut);
    }
    if chunk.trim().is_empty() {
        return None;
    }
    Some(Chunk {
        path: path.to_string(),
        lines: start..end,
        text: chunk,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(count: usize) -> String {
        (0..count)
            .map(|number| format!("line {number}\n"))
            .collect()
    }

    #[test]
    fn the_chunk_is_taken_around_the_edited_line() {
        let text = numbered(200);
        let chunk = chunk_around("a.rs", &text, 100).unwrap();
        assert_eq!(chunk.lines, 84..116);
        assert!(chunk.text.starts_with("line 84\n"), "{}", chunk.text);
        assert!(chunk.text.contains("line 100\n"));
        // Near the end of the document the chunk still has its lines.
        assert_eq!(chunk_around("a.rs", &text, 199).unwrap().lines, 168..200);
        assert_eq!(chunk_around("a.rs", &text, 5000).unwrap().lines, 168..200);
        // Long lines: the ones farthest from the edit go first.
        let long: String = (0..40)
            .map(|n| format!("{n:03}{}\n", "x".repeat(96)))
            .collect();
        let chunk = chunk_around("b.rs", &long, 20).unwrap();
        assert!(chunk.text.len() <= CHUNK_BYTES);
        assert!(chunk.text.contains("\n020x"), "{}", chunk.text);
        assert!(chunk.lines.contains(&20) && chunk.lines.len() < CHUNK_LINES);
        assert!(chunk_around("c.rs", "\n  \n", 0).is_none());
        assert!(chunk_around("c.rs", "", 0).is_none());
    }

    #[test]
    fn newest_chunks_of_other_documents_come_first_within_the_budget() {
        let ring = Ring::default();
        ring.remember("a.rs", "fn a() {}\n", 0);
        ring.remember("b.rs", "fn b() {}\n", 0);
        ring.remember("current.rs", "fn current() {}\n", 0);
        let paths = |chunks: Vec<Chunk>| -> Vec<String> {
            chunks.into_iter().map(|chunk| chunk.path).collect()
        };
        assert_eq!(paths(ring.context("current.rs", 3_000)), ["b.rs", "a.rs"]);
        // The budget counts bytes of text: only what fits is given.
        assert_eq!(paths(ring.context("current.rs", 12)), ["b.rs"]);
        assert!(ring.context("current.rs", 5).is_empty());
    }

    #[test]
    fn documents_outside_the_project_never_enter_the_ring() {
        let ring = Ring::default();
        let mut document = Document {
            text: "fn secret() {}\n".into(),
            version: 1,
            language: "rust".into(),
            relative: None,
        };
        ring.remember_document(&document, 0);
        assert!(ring.context("main.rs", usize::MAX).is_empty());
        document.relative = Some("src/lib.rs".into());
        ring.remember_document(&document, 0);
        let chunks = ring.context("main.rs", usize::MAX);
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].path, "src/lib.rs");
    }

    #[test]
    fn an_overlapping_chunk_replaces_the_older_one_and_the_oldest_go() {
        let ring = Ring::default();
        let text = numbered(400);
        ring.remember("a.rs", &text, 10);
        ring.remember("a.rs", &text, 12);
        ring.remember("a.rs", &text, 300);
        let chunks = ring.context("other.rs", usize::MAX);
        assert_eq!(chunks.len(), 2);
        assert!(chunks[0].text.contains("line 300\n"));
        assert!(chunks[1].text.contains("line 12\n"));
        // Identical text from two documents is given once.
        ring.remember("copy.rs", "same\n", 0);
        ring.remember("twin.rs", "same\n", 0);
        assert_eq!(ring.context("other.rs", usize::MAX).len(), 3);
        // Bounded: the oldest chunks are evicted.
        for number in 0..RING_CHUNKS + 5 {
            ring.remember(&format!("f{number}.rs"), "x\n", 0);
        }
        let chunks = ring.context("other.rs", usize::MAX);
        assert_eq!(chunks.len(), 1, "identical texts collapse");
        assert_eq!(lock(&ring.chunks).len(), RING_CHUNKS);
        assert_eq!(
            lock(&ring.chunks).back().unwrap().path,
            "f5.rs",
            "the oldest were dropped"
        );
    }
}
