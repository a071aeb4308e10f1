//! A document's change as the smallest line edits, so the editor keeps the cursor and
//! the undo history of the untouched lines.

use similar::{DiffOp, TextDiff};
use tower_lsp_server::ls_types::{Range, TextEdit};

use crate::documents::position;

/// The edits that turn `old` into `new`, one per changed run of lines.
pub(crate) fn line_edits(old: &str, new: &str) -> Vec<TextEdit> {
    let diff = TextDiff::from_lines(old, new);
    let old_starts = line_starts(old);
    let new_starts = line_starts(new);
    let byte =
        |starts: &[usize], line: usize, text: &str| starts.get(line).copied().unwrap_or(text.len());
    let mut edits = Vec::new();
    for op in diff.ops() {
        let (old_range, new_range) = match *op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Delete {
                old_index,
                old_len,
                new_index,
            } => (old_index..old_index + old_len, new_index..new_index),
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => (old_index..old_index, new_index..new_index + new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (
                old_index..old_index + old_len,
                new_index..new_index + new_len,
            ),
        };
        let from = byte(&old_starts, old_range.start, old);
        let to = byte(&old_starts, old_range.end, old);
        let text =
            &new[byte(&new_starts, new_range.start, new)..byte(&new_starts, new_range.end, new)];
        edits.push(TextEdit {
            range: Range::new(position(old, from), position(old, to)),
            new_text: text.to_string(),
        });
    }
    edits
}

/// The byte offset where each line of `text` starts.
fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(
        text.match_indices('\n')
            .map(|(at, _)| at + 1)
            .filter(|at| *at < text.len()),
    );
    starts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::offset;

    /// Applies `edits` (non-overlapping, in order) to `text`.
    fn apply(text: &str, edits: &[TextEdit]) -> String {
        let mut out = text.to_string();
        for edit in edits.iter().rev() {
            let from = offset(text, edit.range.start);
            let to = offset(text, edit.range.end);
            out.replace_range(from..to, &edit.new_text);
        }
        out
    }

    #[test]
    fn edits_turn_the_old_text_into_the_new() {
        let cases = [
            ("a\nb\nc\n", "a\nB\nc\n"),
            ("a\nb\nc\n", "a\nc\n"),
            ("a\nb", "a\nb\nc"),
            ("", "new\n"),
            ("x\n", ""),
            (
                "fn a() {\n    1\n}\n",
                "/// Doc.\nfn a() {\n    2\n}\n\nfn b() {}\n",
            ),
        ];
        for (old, new) in cases {
            let edits = line_edits(old, new);
            assert_eq!(apply(old, &edits), new, "{old:?} -> {new:?}: {edits:?}");
        }
        assert!(line_edits("same\n", "same\n").is_empty());
        assert_eq!(line_edits("a\nb\nc\n", "a\nB\nc\n").len(), 1);
    }
}
