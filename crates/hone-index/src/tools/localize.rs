//! The code index as hone-context's [`Localizer`]: mentions in a request resolved to files,
//! definitions with their line ranges, reference sites for renames, and a text search when
//! the index knows no such symbol.

use std::collections::BTreeSet;

use hone_context::localize::{
    Candidate, Localizer, Mention, MentionKind, is_stop_word, is_test_path,
};

use super::SharedIndex;
use crate::indexer::Indexer;
use crate::model::{FileOutline, SymbolKind};
use crate::store::SymbolLocation;

/// Definitions looked at per name.
const DEFINITIONS_PER_NAME: usize = 8;
/// Reference sites attached for a rename.
const MAX_REFERENCES: usize = 20;
/// Files of a directory mention attached at most.
const FILES_PER_DIRECTORY: usize = 5;
/// Lines found by the text search per name.
const TEXT_HITS: usize = 5;
/// Files larger than this are not searched as text.
const MAX_SEARCH_BYTES: u64 = 512 * 1024;
/// Mentions looked up at most (a pasted log can name hundreds of things).
const MAX_MENTIONS: usize = 24;
/// Names searched as text at most per request.
const MAX_TEXT_SEARCHES: usize = 2;
/// Projects with more source files than this get no text search (it reads every file).
const MAX_TEXT_SEARCH_FILES: usize = 2_000;
/// Added to a definition in a file the request also names.
const NAMED_FILE_BONUS: f64 = 3.0;
/// Lines around a frame's line when no definition holds it.
const FRAME_LINES: u32 = 5;
/// A plain word must be this long to match as a part of a longer name.
const MIN_SEGMENT_CHARS: usize = 5;

/// Resolves request mentions through the project's code index.
#[derive(Debug, Clone)]
pub struct IndexLocalizer(SharedIndex);

impl IndexLocalizer {
    /// A localizer over `index`.
    pub fn new(index: SharedIndex) -> Self {
        Self(index)
    }
}

impl Localizer for IndexLocalizer {
    fn locate(&self, mentions: &[Mention]) -> Vec<Candidate> {
        let indexer = match self.0.fresh() {
            Ok(indexer) => indexer,
            Err(error) => {
                tracing::warn!(%error, "localisation without an up-to-date index");
                self.0.lock()
            }
        };
        locate(&indexer, mentions)
    }
}

fn locate(indexer: &Indexer, mentions: &[Mention]) -> Vec<Candidate> {
    let mut candidates = Vec::new();
    let source_files = indexer
        .files()
        .values()
        .filter(|record| record.language().is_some())
        .count();
    let mut text_searches = if source_files > MAX_TEXT_SEARCH_FILES {
        0
    } else {
        MAX_TEXT_SEARCHES
    };
    for mention in mentions.iter().take(MAX_MENTIONS) {
        match mention.kind {
            MentionKind::Frame => frame_for(indexer, mention, &mut candidates),
            MentionKind::Path | MentionKind::FileName => {
                files_for(indexer, mention, &mut candidates);
            }
            MentionKind::Symbol | MentionKind::Phrase | MentionKind::Word => {
                symbols_for(indexer, mention, &mut text_searches, &mut candidates);
            }
        }
    }
    let named: BTreeSet<String> = candidates
        .iter()
        .filter(|candidate| {
            matches!(
                candidate.kind,
                MentionKind::Path | MentionKind::FileName | MentionKind::Frame
            )
        })
        .map(|candidate| candidate.path.clone())
        .collect();
    for candidate in &mut candidates {
        if candidate.lines.is_some() && named.contains(&candidate.path) {
            candidate.score += NAMED_FILE_BONUS;
        }
    }
    let used = super::callees::callees(indexer, &candidates);
    candidates.extend(used);
    candidates
}

/// The files a path or file name names: the exact path, files with that name, or the
/// source files of a directory.
fn files_for(indexer: &Indexer, mention: &Mention, out: &mut Vec<Candidate>) {
    let Some(name) = mention.names.first() else {
        return;
    };
    let weight = mention.kind.weight();
    let files = indexer.files();
    let file = |path: &str, score: f64| Candidate {
        path: path.to_string(),
        lines: None,
        what: "file".to_string(),
        mention: mention.text.clone(),
        kind: mention.kind,
        score,
    };
    if files.contains_key(name.as_str()) {
        out.push(file(name, weight));
        return;
    }
    let suffix = format!("/{}", name.trim_end_matches('/'));
    let same_name: Vec<&String> = files
        .keys()
        .filter(|path| path.ends_with(&suffix))
        .collect();
    if !same_name.is_empty() {
        // Several files of that name: each counts less.
        let share = weight / same_name.len() as f64;
        out.extend(same_name.into_iter().map(|path| file(path, share.max(1.0))));
        return;
    }
    let directory = format!("{}/", name.trim_end_matches('/'));
    out.extend(
        files
            .iter()
            .filter(|(path, record)| path.starts_with(&directory) && record.language().is_some())
            .take(FILES_PER_DIRECTORY)
            .map(|(path, _)| file(path, weight / 2.0)),
    );
}

/// Definitions of the mention's names (exact first, then similar names for code-like
/// mentions), files named like them, reference sites for a rename, and a text search
/// when the index has nothing.
fn symbols_for(
    indexer: &Indexer,
    mention: &Mention,
    text_searches: &mut usize,
    out: &mut Vec<Candidate>,
) {
    let store = indexer.store();
    let weight = mention.kind.weight();
    let before = out.len();
    for (rank, name) in mention.names.iter().enumerate() {
        // `in` or `as` would match half the project's names.
        if is_stop_word(name) {
            continue;
        }
        // Later variants (the head noun of a phrase) are weaker guesses.
        let factor = if rank == 0 { 1.0 } else { 0.8 / rank as f64 };
        let found = store
            .search_symbols(name, DEFINITIONS_PER_NAME)
            .unwrap_or_default();
        let (exact, similar): (Vec<SymbolLocation>, Vec<SymbolLocation>) = found
            .into_iter()
            .partition(|location| location.name.eq_ignore_ascii_case(name));
        let exact_case = |location: &SymbolLocation| if location.name == *name { 1.0 } else { 0.8 };
        for location in &exact {
            push_definition(
                indexer,
                mention,
                location,
                weight * factor * exact_case(location),
                out,
            );
        }
        if exact.is_empty() && mention.kind >= MentionKind::Phrase {
            for location in similar.iter().take(3) {
                push_definition(indexer, mention, location, weight * factor * 0.3, out);
            }
        } else if exact.is_empty() && name.chars().count() >= MIN_SEGMENT_CHARS {
            // A plain word that is a whole part of a name: "discount" → `apply_discount`.
            for location in similar
                .iter()
                .filter(|location| has_segment(&location.name, name))
                .take(3)
            {
                push_definition(indexer, mention, location, weight * factor * 0.6, out);
            }
        }
        if mention.rename && rank == 0 {
            references(indexer, mention, name, weight * 0.5, out);
        }
        for (path, _) in indexer
            .files()
            .iter()
            .filter(|(path, record)| record.language().is_some() && file_stem_is(path, name))
        {
            out.push(Candidate {
                path: path.clone(),
                lines: None,
                what: "file".to_string(),
                mention: mention.text.clone(),
                kind: mention.kind,
                score: weight * factor * 0.7,
            });
        }
    }
    if out.len() == before && mention.kind == MentionKind::Symbol && *text_searches > 0 {
        *text_searches -= 1;
        for name in &mention.names {
            text_search(indexer, mention, name, weight * 0.4, out);
        }
    }
}

/// Whether `word` is one of the words `name` is made of (`apply_discount`, `applyDiscount`
/// and `ApplyDiscount` are made of `apply` and `discount`), ignoring case.
fn has_segment(name: &str, word: &str) -> bool {
    let mut segments: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for character in name.chars() {
        let boundary = character == '_' || (character.is_uppercase() && previous_lower);
        if boundary && !current.is_empty() {
            segments.push(std::mem::take(&mut current));
        }
        if character != '_' {
            current.extend(character.to_lowercase());
        }
        previous_lower = character.is_lowercase() || character.is_ascii_digit();
    }
    segments.push(current);
    segments
        .iter()
        .any(|segment| segment.eq_ignore_ascii_case(word))
}

/// The definition around the line a traceback frame points at (the lines around it when
/// no definition holds it), and for a frame in a test, the project files the test
/// imports. The frame's path may be absolute or start outside the project: its longest
/// tail that is a project file is taken.
fn frame_for(indexer: &Indexer, mention: &Mention, out: &mut Vec<Candidate>) {
    let (Some(written), Some(line)) = (mention.names.first(), mention.line) else {
        return;
    };
    let normalised = written.replace('\\', "/");
    let parts: Vec<&str> = normalised
        .split('/')
        .filter(|part| !part.is_empty())
        .collect();
    let files = indexer.files();
    let path = (0..parts.len())
        .map(|skip| parts[skip..].join("/"))
        .find(|tail| files.contains_key(tail.as_str()))
        .or_else(|| {
            // A bare file name (Java frames): the one project file of that name.
            let suffix = format!("/{normalised}");
            let mut same = files.keys().filter(|path| path.ends_with(&suffix));
            match (same.next(), same.next()) {
                (Some(only), None) if parts.len() == 1 => Some(only.clone()),
                _ => None,
            }
        });
    let Some(path) = path else {
        return;
    };
    let outline = indexer.store().outline(&path).ok().flatten();
    let (lines, what) = outline
        .as_ref()
        .and_then(|outline| definition_at(outline, line))
        .unwrap_or_else(|| {
            (
                (line.saturating_sub(FRAME_LINES).max(1), line + FRAME_LINES),
                format!("line {line}"),
            )
        });
    let weight = mention.kind.weight();
    let in_test = is_test_path(&path);
    if in_test {
        // An assertion's frame is in the test; the code it tests is what the test imports
        // (a JavaScript assertion's stack often shows no other project frame).
        let imported = indexer.store().dependencies(&path).unwrap_or_default();
        out.extend(
            imported
                .into_iter()
                .filter(|edge| !is_test_path(&edge.to))
                .map(|edge| Candidate {
                    path: edge.to,
                    lines: None,
                    what: "file".to_string(),
                    mention: mention.text.clone(),
                    kind: mention.kind,
                    score: weight - 2.0,
                }),
        );
    }
    out.push(Candidate {
        path,
        lines: Some(lines),
        what,
        mention: mention.text.clone(),
        kind: mention.kind,
        // Of a test's frames and the code's, the code leads.
        score: if in_test { weight - 1.0 } else { weight },
    });
}

/// The innermost function or method of `outline` holding `line`, else its class.
fn definition_at(outline: &FileOutline, line: u32) -> Option<((u32, u32), String)> {
    let at = |start: u32, end: u32| start <= line && line <= end;
    for class in &outline.classes {
        for method in &class.methods {
            if at(method.start_line, method.end_line) {
                return Some((
                    (method.start_line, method.end_line),
                    format!("method {}.{}", class.name, method.name),
                ));
            }
        }
    }
    if let Some(function) = outline
        .functions
        .iter()
        .find(|function| at(function.start_line, function.end_line))
    {
        return Some((
            (function.start_line, function.end_line),
            format!("function {}", function.name),
        ));
    }
    outline
        .classes
        .iter()
        .find(|class| at(class.start_line, class.end_line))
        .map(|class| {
            (
                (class.start_line, class.end_line),
                format!("class {}", class.name),
            )
        })
}

/// Whether `path`'s file name without extension, or one of its directories, is `name`.
fn file_stem_is(path: &str, name: &str) -> bool {
    let mut parts = path.split('/').rev();
    let stem_matches = parts.next().is_some_and(|file| {
        file.split_once('.')
            .map_or(file, |(stem, _)| stem)
            .eq_ignore_ascii_case(name)
    });
    stem_matches || parts.any(|directory| directory.eq_ignore_ascii_case(name))
}

fn push_definition(
    indexer: &Indexer,
    mention: &Mention,
    location: &SymbolLocation,
    score: f64,
    out: &mut Vec<Candidate>,
) {
    let outline = indexer.store().outline(&location.path).ok().flatten();
    let (lines, what) = outline
        .as_ref()
        .and_then(|outline| definition_range(outline, location))
        .unwrap_or_else(|| {
            (
                (location.line, location.line),
                format!("{} {}", kind_word(location.kind), location.name),
            )
        });
    out.push(Candidate {
        path: location.path.clone(),
        lines: Some(lines),
        what,
        mention: mention.text.clone(),
        kind: mention.kind,
        score,
    });
}

/// The line range and label of the function, method or class defined at `location`.
pub(super) fn definition_range(
    outline: &FileOutline,
    location: &SymbolLocation,
) -> Option<((u32, u32), String)> {
    let line = location.line;
    let at = |start: u32, end: u32| start <= line && line <= end;
    for class in &outline.classes {
        for method in &class.methods {
            if method.name == location.name && at(method.start_line, method.end_line) {
                return Some((
                    (method.start_line, method.end_line),
                    format!("method {}.{}", class.name, method.name),
                ));
            }
        }
        if class.name == location.name && at(class.start_line, class.end_line) {
            let kind = kind_word(location.kind);
            return Some((
                (class.start_line, class.end_line),
                format!("{kind} {}", class.name),
            ));
        }
    }
    outline
        .functions
        .iter()
        .find(|function| {
            function.name == location.name && at(function.start_line, function.end_line)
        })
        .map(|function| {
            (
                (function.start_line, function.end_line),
                format!("function {}", function.name),
            )
        })
}

pub(super) fn kind_word(kind: SymbolKind) -> &'static str {
    match kind {
        SymbolKind::Function => "function",
        SymbolKind::Method => "method",
        SymbolKind::Class => "class",
        SymbolKind::Struct => "struct",
        SymbolKind::Interface => "interface",
        SymbolKind::Trait => "trait",
        SymbolKind::Enum => "enum",
        SymbolKind::Type => "type",
        SymbolKind::Variable => "variable",
        SymbolKind::Module => "module",
        SymbolKind::Property => "property",
    }
}

/// The sites referring to `name`, for a rename.
fn references(
    indexer: &Indexer,
    mention: &Mention,
    name: &str,
    score: f64,
    out: &mut Vec<Candidate>,
) {
    let sites = indexer.store().references(name).unwrap_or_default();
    out.extend(
        sites
            .into_iter()
            .take(MAX_REFERENCES)
            .map(|site| Candidate {
                path: site.path,
                lines: Some((site.line, site.line)),
                what: format!("reference to {name}"),
                mention: mention.text.clone(),
                kind: mention.kind,
                score,
            }),
    );
}

/// Lines of indexed source files containing `name` as a whole word.
fn text_search(
    indexer: &Indexer,
    mention: &Mention,
    name: &str,
    score: f64,
    out: &mut Vec<Candidate>,
) {
    let mut hits = 0;
    for (path, record) in indexer.files() {
        if record.language().is_none() || record.size > MAX_SEARCH_BYTES {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(indexer.root().join(path)) else {
            continue;
        };
        for (number, line) in text.lines().enumerate() {
            if !contains_word(line, name) {
                continue;
            }
            let line = u32::try_from(number + 1).unwrap_or(u32::MAX);
            out.push(Candidate {
                path: path.clone(),
                lines: Some((line, line)),
                what: format!("line mentioning {name}"),
                mention: mention.text.clone(),
                kind: mention.kind,
                score,
            });
            hits += 1;
            if hits == TEXT_HITS {
                return;
            }
        }
    }
}

fn contains_word(line: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    line.match_indices(word).any(|(start, _)| {
        let before = line[..start].chars().next_back();
        let after = line[start + word.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_only() {
        assert!(contains_word("let total = cartTotal(x);", "cartTotal"));
        assert!(!contains_word("let subtotal = 1;", "total"));
        assert!(contains_word("total", "total"));
    }

    #[test]
    fn names_are_made_of_their_snake_and_camel_parts() {
        assert!(has_segment("apply_discount", "discount"));
        assert!(has_segment("applyDiscount", "discount"));
        assert!(has_segment("ApplyDiscount", "apply"));
        assert!(!has_segment("discounted", "discount"));
        assert!(!has_segment("insert", "in"));
    }

    #[test]
    fn stems_and_directories_name_files() {
        assert!(file_stem_is("crates/helper/src/lib.rs", "helper"));
        assert!(file_stem_is("src/cart.ts", "Cart"));
        assert!(!file_stem_is("src/cartesian.ts", "cart"));
    }
}
