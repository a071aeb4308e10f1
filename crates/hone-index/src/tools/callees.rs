//! One step down the call graph: the project definitions the best candidates use.
//!
//! A bug report names the function people call (`ms(-1000)`, `cart.receipt()`); the bug
//! is often in a helper it calls (`fmtShort`, `format_money`) or a constant it reads
//! (`parseRegExp`). The names used inside the best candidates' code that are defined in the
//! same file or in a project file it imports become weaker candidates of their own.

use std::collections::BTreeSet;

use hone_context::localize::{Candidate, is_test_path};

use super::localize::{definition_range, kind_word};
use crate::indexer::Indexer;
use crate::model::SymbolKind;

/// Candidates whose callees are looked at, best first.
const PARENTS: usize = 3;
/// Only candidates scoring at least this share of the best one are parents.
const PARENT_SHARE_OF_BEST: f64 = 0.5;
/// A callee's score as a share of its parent's.
const CALLEE_SHARE: f64 = 0.5;
/// Callees added per parent.
const CALLEES_PER_PARENT: usize = 6;
/// Distinct names looked up per parent (a long function uses hundreds).
const NAMES_PER_PARENT: usize = 200;
/// A file attached without a definition is read this far for the names it uses (its head,
/// where a module's entry point and constants usually are).
const FILE_HEAD_LINES: u32 = 40;
/// Files of at most this many lines are read whole.
const SMALL_FILE_LINES: u32 = 150;

/// The definitions that the best of `candidates` use, as new candidates (none already
/// among `candidates`).
pub(super) fn callees(indexer: &Indexer, candidates: &[Candidate]) -> Vec<Candidate> {
    let mut ranked: Vec<&Candidate> = candidates
        .iter()
        .filter(|candidate| !is_test_path(&candidate.path))
        .collect();
    ranked.sort_by(|a, b| b.score.total_cmp(&a.score));
    let Some(best) = ranked.first().map(|candidate| candidate.score) else {
        return Vec::new();
    };
    let mut seen: BTreeSet<(String, Option<(u32, u32)>)> = candidates
        .iter()
        .map(|candidate| (candidate.path.clone(), candidate.lines))
        .collect();
    let mut parents: Vec<&Candidate> = Vec::new();
    for candidate in ranked {
        if parents.len() == PARENTS || candidate.score < best * PARENT_SHARE_OF_BEST {
            break;
        }
        let duplicate = parents
            .iter()
            .any(|parent| parent.path == candidate.path && parent.lines == candidate.lines);
        if !duplicate {
            parents.push(candidate);
        }
    }
    let mut out = Vec::new();
    for parent in parents {
        let found = callees_of(indexer, parent);
        for (rank, mut callee) in found.into_iter().take(CALLEES_PER_PARENT).enumerate() {
            if seen.insert((callee.path.clone(), callee.lines)) {
                // Earlier uses first: the first helper a function calls is usually its core.
                callee.score = parent.score * CALLEE_SHARE * (1.0 - 0.05 * rank as f64);
                out.push(callee);
            }
        }
    }
    out
}

/// The definitions `parent`'s code uses, in the order it first uses them; scores unset.
fn callees_of(indexer: &Indexer, parent: &Candidate) -> Vec<Candidate> {
    let Ok(text) = std::fs::read_to_string(indexer.root().join(&parent.path)) else {
        return Vec::new();
    };
    let lines: Vec<&str> = text.lines().collect();
    let last = u32::try_from(lines.len()).unwrap_or(u32::MAX);
    let (start, end) = match parent.lines {
        Some(range) => range,
        None if last <= SMALL_FILE_LINES => (1, last),
        None => (1, FILE_HEAD_LINES.min(last)),
    };
    let mut names: Vec<&str> = Vec::new();
    for line in lines
        .iter()
        .skip(start.saturating_sub(1) as usize)
        .take((end.saturating_sub(start) + 1) as usize)
    {
        for word in line.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')) {
            let starts_like_a_name = word
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$');
            if word.chars().count() >= 3 && starts_like_a_name && !names.contains(&word) {
                names.push(word);
            }
        }
        if names.len() >= NAMES_PER_PARENT {
            break;
        }
    }
    let store = indexer.store();
    let mut files: BTreeSet<String> = store
        .dependencies(&parent.path)
        .unwrap_or_default()
        .into_iter()
        .map(|edge| edge.to)
        .filter(|path| !is_test_path(path))
        .collect();
    files.insert(parent.path.clone());
    let mut out = Vec::new();
    for name in names {
        let Ok(locations) = store.definitions(name) else {
            continue;
        };
        for location in locations {
            if !files.contains(&location.path) || !is_code(location.kind) {
                continue;
            }
            let outline = store.outline(&location.path).ok().flatten();
            let (range, what) = outline
                .as_ref()
                .and_then(|outline| definition_range(outline, &location))
                .unwrap_or_else(|| {
                    (
                        (location.line, location.line),
                        format!("{} {}", kind_word(location.kind), location.name),
                    )
                });
            // The parent itself, or a definition inside the code already looked at.
            let inside_parent = location.path == parent.path && start <= range.0 && range.1 <= end;
            if inside_parent {
                continue;
            }
            out.push(Candidate {
                path: location.path.clone(),
                lines: Some(range),
                what: format!("{what} (used by {})", parent_label(parent)),
                mention: parent.mention.clone(),
                kind: parent.kind,
                score: 0.0,
            });
        }
    }
    out
}

/// Whether a definition of `kind` holds code that runs when it is used: functions, methods
/// and the constants they read (a bug lives there), not the types they name.
fn is_code(kind: SymbolKind) -> bool {
    matches!(
        kind,
        SymbolKind::Function | SymbolKind::Method | SymbolKind::Variable
    )
}

/// How a parent is named in its callees' descriptions.
fn parent_label(parent: &Candidate) -> String {
    match parent.lines {
        Some(_) => parent.what.clone(),
        None => parent.path.clone(),
    }
}
