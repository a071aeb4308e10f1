//! Placing hunks by their content: line numbers are only hints. Each hunk is searched
//! exactly, then ignoring whitespace, nearest to its hint first; if that fails, up to two
//! outer context lines are dropped (like `patch`'s fuzz).

use crate::edit::lines::{LineBuffer, indentation, reindent_line};
use crate::edit::matching::{closest_lines, find_tolerant};
use crate::edit::patch::parse::{Hunk, HunkLine};

/// Outer context lines that may be ignored at most, at each end of a hunk.
const MAX_FUZZ: usize = 2;

/// Where a hunk was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Placement {
    /// Index in the file of the first line of the (trimmed) hunk.
    start: usize,
    /// Leading context lines ignored.
    lead: usize,
    /// Trailing context lines ignored.
    trail: usize,
    /// Whether the match ignored whitespace.
    tolerant: bool,
}

/// How lines are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Comparison {
    Exact,
    IgnoringWhitespace,
}

/// Applies `hunks` to the file `path` held in `buffer`, in order. On failure, says which
/// hunk failed and why (with the closest lines of the file).
pub(crate) fn apply_hunks(
    path: &str,
    buffer: &mut LineBuffer,
    hunks: &[Hunk],
) -> Result<(), String> {
    let original = buffer.lines().to_vec();
    // Where the original line numbers now are: shifted by earlier hunks and by how far
    // they were from their hints.
    let mut drift: isize = 0;
    let mut floor = 0;
    for (index, hunk) in hunks.iter().enumerate() {
        let old = hunk.old_lines();
        let inserts_after = old.is_empty() || hunk.old_count == Some(0);
        let base = hunk.old_start.map(|start| {
            if inserts_after {
                start
            } else {
                start.saturating_sub(1)
            }
        });
        let hint = base.map(|base| {
            usize::try_from(base as isize + drift)
                .unwrap_or(0)
                .clamp(floor, buffer.len().max(floor))
        });
        let placement = if old.is_empty() {
            match (hint, buffer.len()) {
                (Some(start), _) => Some(Placement {
                    start,
                    lead: 0,
                    trail: 0,
                    tolerant: false,
                }),
                (None, 0) => Some(Placement {
                    start: 0,
                    lead: 0,
                    trail: 0,
                    tolerant: false,
                }),
                (None, _) => None,
            }
        } else {
            locate(buffer.lines(), hunk, hint, floor)
        };
        let Some(placement) = placement else {
            return Err(failure(path, hunks, index, &original, &old));
        };
        let (replacement, consumed) = rebuild(buffer.lines(), hunk, placement);
        let added = replacement.len();
        buffer.splice(placement.start..placement.start + consumed, replacement);
        let delta = added as isize - consumed as isize;
        drift = match base {
            Some(base) => (placement.start - placement.lead) as isize - base as isize + delta,
            None => drift + delta,
        };
        floor = placement.start + added;
        if placement.trail == 0 && floor == buffer.len() {
            if hunk.new_missing_newline {
                buffer.set_final_newline(false);
            } else if hunk.old_missing_newline {
                buffer.set_final_newline(true);
            }
        }
    }
    Ok(())
}

/// Finds `hunk` in `lines` at or after `floor`: exact before whitespace-tolerant, full
/// context before fuzz, nearest to `hint` among equals.
fn locate(lines: &[String], hunk: &Hunk, hint: Option<usize>, floor: usize) -> Option<Placement> {
    let leading = hunk
        .lines
        .iter()
        .take_while(|line| matches!(line, HunkLine::Context(_)))
        .count();
    let trailing = hunk
        .lines
        .iter()
        .rev()
        .take_while(|line| matches!(line, HunkLine::Context(_)))
        .count();
    let mut tried = None;
    for fuzz in 0..=MAX_FUZZ {
        let (lead, trail) = (fuzz.min(leading), fuzz.min(trailing));
        if tried == Some((lead, trail)) || lead + trail >= hunk.lines.len() {
            continue;
        }
        tried = Some((lead, trail));
        let body = &hunk.lines[lead..hunk.lines.len() - trail];
        let old: Vec<String> = body
            .iter()
            .filter_map(|line| match line {
                HunkLine::Context(text) | HunkLine::Remove(text) => Some(text.clone()),
                HunkLine::Add(_) => None,
            })
            .collect();
        if old.is_empty() {
            continue;
        }
        for comparison in [Comparison::Exact, Comparison::IgnoringWhitespace] {
            let starts = match comparison {
                Comparison::Exact => find_exact(lines, &old, floor),
                Comparison::IgnoringWhitespace => find_tolerant(lines, &old, floor),
            };
            let wanted = hint.map(|hint| hint + lead);
            let nearest = starts
                .into_iter()
                .min_by_key(|&start| wanted.map_or(start, |wanted| start.abs_diff(wanted)));
            if let Some(start) = nearest {
                return Some(Placement {
                    start,
                    lead,
                    trail,
                    tolerant: comparison == Comparison::IgnoringWhitespace,
                });
            }
        }
    }
    None
}

/// Every start (at or after `from`, overlapping allowed) where `needle` occurs exactly.
fn find_exact(lines: &[String], needle: &[String], from: usize) -> Vec<usize> {
    if needle.len() > lines.len() {
        return Vec::new();
    }
    (from..=lines.len() - needle.len())
        .filter(|&start| lines[start..start + needle.len()] == *needle)
        .collect()
}

/// The lines replacing the matched ones, and how many file lines the hunk consumed.
/// Context keeps the file's version; added lines follow the file's indentation when the
/// match ignored whitespace.
fn rebuild(lines: &[String], hunk: &Hunk, placement: Placement) -> (Vec<String>, usize) {
    let body = &hunk.lines[placement.lead..hunk.lines.len() - placement.trail];
    // Added lines shift like the old line before them (the first one for leading
    // additions): the hunk's indentation of it becomes the file's.
    let shift_at = |text: &str, at: usize| {
        if placement.tolerant {
            (
                indentation(text).to_string(),
                indentation(&lines[at]).to_string(),
            )
        } else {
            (String::new(), String::new())
        }
    };
    let old_lines = body.iter().filter_map(|line| match line {
        HunkLine::Context(text) | HunkLine::Remove(text) => Some(text),
        HunkLine::Add(_) => None,
    });
    let mut shift = (placement.start..)
        .zip(old_lines)
        .find(|(_, text)| !text.trim().is_empty())
        .map(|(at, text)| shift_at(text, at))
        .unwrap_or_default();
    let mut at = placement.start;
    let mut out = Vec::with_capacity(body.len());
    for line in body {
        match line {
            HunkLine::Context(text) | HunkLine::Remove(text) => {
                if !text.trim().is_empty() {
                    shift = shift_at(text, at);
                }
                if matches!(line, HunkLine::Context(_)) {
                    out.push(lines[at].clone());
                }
                at += 1;
            }
            HunkLine::Add(text) => out.push(reindent_line(text.clone(), &shift.0, &shift.1)),
        }
    }
    (out, at - placement.start)
}

fn failure(
    path: &str,
    hunks: &[Hunk],
    index: usize,
    original: &[String],
    old: &[String],
) -> String {
    let hunk = &hunks[index];
    let which = format!(
        "hunk {} of {} for {path} (`{}`)",
        index + 1,
        hunks.len(),
        hunk.header
    );
    if old.is_empty() {
        return format!(
            "{which} only adds lines and has no line numbers, so there is no way to tell where \
             they go; include 2–3 unchanged lines around the addition as context."
        );
    }
    format!(
        "{which} does not match the file: its {} context and removed lines were not found, not \
         even ignoring whitespace. {}Read {path} again and regenerate this hunk from its current \
         lines, or use edit_file for this change.",
        old.len(),
        closest_lines(path, original, old)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::patch::parse::parse;

    fn patched(file: &str, patch: &str) -> Result<String, String> {
        let files = parse(patch).map_err(|error| error.message)?;
        let mut buffer = LineBuffer::parse(file);
        apply_hunks("f.txt", &mut buffer, &files[0].hunks)?;
        Ok(buffer.render())
    }

    const FILE: &str = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n";

    #[test]
    fn wrong_line_numbers_are_only_hints() {
        let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -40,3 +40,3 @@\n four\n-five\n+FIVE\n six\n";
        assert_eq!(
            patched(FILE, patch).unwrap(),
            "one\ntwo\nthree\nfour\nFIVE\nsix\nseven\n"
        );
    }

    #[test]
    fn the_match_nearest_to_the_hint_wins() {
        let file = "x\nsame\nx\nx\nx\nsame\nx\n";
        let patch = "--- f.txt\n+++ f.txt\n@@ -6 +6 @@\n-same\n+changed\n";
        assert_eq!(
            patched(file, patch).unwrap(),
            "x\nsame\nx\nx\nx\nchanged\nx\n"
        );
    }

    #[test]
    fn whitespace_differences_are_tolerated_and_additions_follow_the_file() {
        let file = "fn f() {\n    let a = 1;\n    let b = 2;\n}\n";
        let patch = "--- f.rs\n+++ f.rs\n@@\n let a = 1;\n+let c = 3;\n let b = 2;\n";
        assert_eq!(
            patched(file, patch).unwrap(),
            "fn f() {\n    let a = 1;\n    let c = 3;\n    let b = 2;\n}\n"
        );
    }

    #[test]
    fn stale_outer_context_is_fuzzed_away() {
        let patch = "--- f\n+++ f\n@@ -2,5 +2,5 @@\n TWO\n three\n-four\n+4\n five\n SIX\n";
        assert_eq!(
            patched(FILE, patch).unwrap(),
            "one\ntwo\nthree\n4\nfive\nsix\nseven\n"
        );
    }

    #[test]
    fn later_hunks_follow_the_shift_of_earlier_ones() {
        let patch = "--- f\n+++ f\n@@ -1,2 +1,4 @@\n one\n+1a\n+1b\n two\n@@ -6,2 +8,2 @@\n six\n-seven\n+7\n";
        assert_eq!(
            patched(FILE, patch).unwrap(),
            "one\n1a\n1b\ntwo\nthree\nfour\nfive\nsix\n7\n"
        );
    }

    #[test]
    fn no_newline_markers_are_honoured_at_the_end() {
        let patch = "--- f\n+++ f\n@@ -7 +7 @@\n-seven\n+SEVEN\n\\ No newline at end of file\n";
        assert!(patched(FILE, patch).unwrap().ends_with("six\nSEVEN"));
    }

    #[test]
    fn a_failing_hunk_is_named_with_the_closest_lines() {
        let patch =
            "--- f\n+++ f\n@@ -1 +1 @@\n-one\n+1\n@@ -3,2 +3,2 @@ section\n-thre\n-fuor\n+3\n";
        let error = patched(FILE, patch).unwrap_err();
        assert!(
            error.contains("hunk 2 of 2 for f.txt (`@@ -3,2 +3,2 @@ section`)"),
            "{error}"
        );
        assert!(error.contains("3│ three"), "{error}");
    }
}
