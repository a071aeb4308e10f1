//! Ranked candidates cut to a token budget and rendered with line numbers.

use std::collections::BTreeMap;

use super::Candidate;
use crate::history::HONE_NOTE_PREFIX;
use crate::tokens::Tokenizer;

/// How the attached code's note begins (after [`HONE_NOTE_PREFIX`]).
const LOCALIZED_OPENING: &str = "Code from the project that this request is about";

/// Whether `text` is localised code attached to a request.
pub(crate) fn is_localized(text: &str) -> bool {
    text.strip_prefix(HONE_NOTE_PREFIX)
        .is_some_and(|rest| rest.trim_start().starts_with(LOCALIZED_OPENING))
}

/// Lines of context kept around a definition.
pub const CONTEXT_LINES: u32 = 3;
/// A file of at most this many lines whose numbered text takes at most half the budget is
/// attached whole.
const SMALL_FILE_LINES: usize = 150;
/// Lines shown from the start of a large file that is only named by its path.
const HEAD_LINES: u32 = 40;
/// Candidates looked at, best first.
const MAX_CANDIDATES: usize = 24;
/// Candidates scoring under this share of the best one are left out.
const MIN_SHARE_OF_BEST: f64 = 0.25;

/// One attached piece of code, as reported to the user (the front-end protocol's type).
pub use hone_api::LocalizedItem;

/// The code attached to a request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Attachment {
    /// The pieces, in the order shown.
    pub items: Vec<LocalizedItem>,
    /// The text for the user message (empty when nothing was found).
    pub text: String,
    /// Estimated tokens of `text`.
    pub tokens: usize,
}

impl Attachment {
    /// Whether nothing was attached.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The pieces described on one line, comma-separated.
    pub fn summary(&self) -> String {
        self.items
            .iter()
            .map(LocalizedItem::describe)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A piece being planned.
#[derive(Debug, Clone)]
struct Piece {
    path: String,
    start: u32,
    end: u32,
    whole: bool,
    symbols: Vec<String>,
    reasons: Vec<String>,
}

/// Cuts `candidates` to `budget_tokens`: best first, whole small files, otherwise the
/// definition with [`CONTEXT_LINES`] around it (overlapping pieces of one file merged); a
/// candidate that would pass the budget is skipped for the next one. `read` gives a file's
/// text (`None`: unreadable, skipped).
pub fn plan_attachment(
    mut candidates: Vec<Candidate>,
    budget_tokens: usize,
    tokenizer: Tokenizer,
    read: &mut dyn FnMut(&str) -> Option<String>,
) -> Attachment {
    candidates.sort_by(|a, b| b.score.total_cmp(&a.score));
    let best = candidates.first().map_or(0.0, |candidate| candidate.score);
    let mut files: BTreeMap<String, Option<Vec<String>>> = BTreeMap::new();
    let mut pieces: Vec<Piece> = Vec::new();
    for candidate in candidates
        .iter()
        .take(MAX_CANDIDATES)
        .filter(|candidate| candidate.score >= best * MIN_SHARE_OF_BEST)
    {
        let lines = files
            .entry(candidate.path.clone())
            .or_insert_with(|| {
                read(&candidate.path).map(|text| text.lines().map(str::to_string).collect())
            })
            .clone();
        let Some(lines) = lines.filter(|lines| !lines.is_empty()) else {
            continue;
        };
        let mut tried = pieces.clone();
        add(&mut tried, candidate, &lines, budget_tokens, tokenizer);
        if total_tokens(&tried, &files, tokenizer) <= budget_tokens {
            pieces = tried;
        }
    }
    render(&pieces, &files, tokenizer)
}

/// Adds `candidate` to `pieces`: whole small file, or its lines merged with the file's
/// other pieces.
fn add(
    pieces: &mut Vec<Piece>,
    candidate: &Candidate,
    lines: &[String],
    budget: usize,
    tokenizer: Tokenizer,
) {
    let reason = candidate.reason();
    let symbol = candidate.lines.map(|_| candidate.what.clone());
    let last = u32::try_from(lines.len()).unwrap_or(u32::MAX);
    let note = |piece: &mut Piece| {
        if !piece.reasons.contains(&reason) {
            piece.reasons.push(reason.clone());
        }
        if let Some(symbol) = &symbol
            && !piece.symbols.contains(symbol)
        {
            piece.symbols.push(symbol.clone());
        }
    };
    if let Some(whole) = pieces
        .iter_mut()
        .find(|piece| piece.path == candidate.path && piece.whole)
    {
        note(whole);
        return;
    }
    let small =
        lines.len() <= SMALL_FILE_LINES && tokenizer.count(&numbered(lines, 1, last)) <= budget / 2;
    let (start, end, whole) = match candidate.lines {
        _ if small => (1, last, true),
        Some((start, end)) => (
            start.saturating_sub(CONTEXT_LINES).max(1),
            end.saturating_add(CONTEXT_LINES).min(last),
            false,
        ),
        None if pieces.iter().any(|piece| piece.path == candidate.path) => return,
        None => (1, HEAD_LINES.min(last), false),
    };
    let mut piece = Piece {
        path: candidate.path.clone(),
        start,
        end,
        whole,
        symbols: Vec::new(),
        reasons: Vec::new(),
    };
    // Pieces of the same file this one touches are folded into it.
    let mut index = 0;
    while index < pieces.len() {
        let other = &pieces[index];
        let touches = other.path == piece.path
            && (piece.whole || (other.start <= piece.end + 1 && piece.start <= other.end + 1));
        if touches {
            let other = pieces.remove(index);
            piece.start = piece.start.min(other.start);
            piece.end = piece.end.max(other.end);
            piece.symbols.extend(other.symbols);
            piece.reasons.extend(other.reasons);
        } else {
            index += 1;
        }
    }
    note(&mut piece);
    if piece.whole {
        piece.symbols.clear();
    }
    pieces.push(piece);
}

fn total_tokens(
    pieces: &[Piece],
    files: &BTreeMap<String, Option<Vec<String>>>,
    tokenizer: Tokenizer,
) -> usize {
    render(pieces, files, tokenizer).tokens
}

/// The attachment text: a note, then each piece under a header, numbered like read_file.
fn render(
    pieces: &[Piece],
    files: &BTreeMap<String, Option<Vec<String>>>,
    tokenizer: Tokenizer,
) -> Attachment {
    if pieces.is_empty() {
        return Attachment::default();
    }
    // Pieces of one file together, in file order, files in order of their best piece.
    let mut order: Vec<&str> = Vec::new();
    for piece in pieces {
        if !order.contains(&piece.path.as_str()) {
            order.push(&piece.path);
        }
    }
    let mut sorted: Vec<&Piece> = pieces.iter().collect();
    sorted.sort_by_key(|piece| {
        (
            order.iter().position(|path| *path == piece.path),
            piece.start,
        )
    });
    let mut text = format!(
        "{HONE_NOTE_PREFIX} {LOCALIZED_OPENING}, found by hone (line numbers are not part of \
         the files):\n"
    );
    let mut items = Vec::new();
    for piece in sorted {
        let Some(Some(lines)) = files.get(&piece.path) else {
            continue;
        };
        // What the user named outright first, then what matched.
        let mut reasons = piece.reasons.clone();
        reasons.sort_by_key(|reason| !reason.starts_with("mentions"));
        let mut item = LocalizedItem {
            path: piece.path.clone(),
            start_line: piece.start,
            end_line: piece.end,
            whole_file: piece.whole,
            symbols: piece.symbols.clone(),
            reasons,
            tokens: 0,
        };
        let block = format!(
            "\n{}:\n```{}\n{}```\n",
            item.heading(),
            fence_language(&piece.path),
            numbered(lines, piece.start, piece.end)
        );
        item.tokens = u64::try_from(tokenizer.count(&block)).unwrap_or(u64::MAX);
        text.push_str(&block);
        items.push(item);
    }
    let tokens = tokenizer.count(&text);
    Attachment {
        items,
        text,
        tokens,
    }
}

/// The text of an attachment without its line numbers, for a model that answers with code
/// blocks rather than tools (small models copy the numbers into their code, at a few
/// tokens per line).
pub fn without_line_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    for line in text.split_inclusive('\n') {
        if line.starts_with("```") {
            in_code = !in_code;
            out.push_str(line);
            continue;
        }
        let stripped = in_code
            .then(|| {
                let (number, rest) = line.split_once('│')?;
                let number = number.trim_start();
                (!number.is_empty() && number.chars().all(|c| c.is_ascii_digit()))
                    .then(|| rest.strip_prefix(' ').unwrap_or(rest))
            })
            .flatten();
        out.push_str(stripped.unwrap_or(line));
    }
    out.replacen(" (line numbers are not part of the files)", "", 1)
}

/// Lines `start..=end` (1-based) numbered like read_file's output.
fn numbered(lines: &[String], start: u32, end: u32) -> String {
    let width = end.to_string().len();
    let mut out = String::new();
    for number in start..=end {
        let Some(line) = usize::try_from(number)
            .ok()
            .and_then(|number| lines.get(number.wrapping_sub(1)))
        else {
            break;
        };
        if line.is_empty() {
            out.push_str(&format!("{number:>width$}│\n"));
        } else {
            out.push_str(&format!("{number:>width$}│ {line}\n"));
        }
    }
    out
}

/// The Markdown fence language of `path` (its extension; empty when it has none).
pub(crate) fn fence_language(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.').map_or("", |(_, extension)| extension)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::localize::MentionKind;

    fn candidate(path: &str, lines: Option<(u32, u32)>, what: &str, score: f64) -> Candidate {
        Candidate {
            path: path.to_string(),
            lines,
            what: what.to_string(),
            mention: what.rsplit(' ').next().unwrap_or(what).to_string(),
            kind: MentionKind::Symbol,
            score,
        }
    }

    fn source(lines: usize) -> String {
        (1..=lines)
            .map(|n| format!("let line{n} = {n};\n"))
            .collect()
    }

    fn reader(files: &[(&str, String)]) -> impl FnMut(&str) -> Option<String> {
        let files: BTreeMap<String, String> = files
            .iter()
            .map(|(path, text)| ((*path).to_string(), text.clone()))
            .collect();
        move |path| files.get(path).cloned()
    }

    #[test]
    fn a_small_file_is_attached_whole_with_line_numbers() {
        let files = [(
            "src/math.ts",
            "export function add(a, b) {\n  return a - b;\n}\n".to_string(),
        )];
        let attachment = plan_attachment(
            vec![candidate("src/math.ts", Some((1, 3)), "function add", 5.0)],
            2_000,
            Tokenizer::Estimate,
            &mut reader(&files),
        );
        assert_eq!(attachment.items.len(), 1);
        assert!(attachment.items[0].whole_file);
        assert_eq!(
            attachment.summary(),
            "src/math.ts (whole file, matches \"add\")"
        );
        assert!(
            attachment
                .text
                .contains("```ts\n1│ export function add(a, b) {\n2│   return a - b;\n"),
            "{}",
            attachment.text
        );
        assert!(attachment.text.starts_with("[hone]"));
        assert!(attachment.tokens > 0);
    }

    #[test]
    fn line_numbers_can_be_left_out() {
        let attachment = plan_attachment(
            vec![candidate("src/math.ts", None, "file", 3.0)],
            1_000,
            Tokenizer::Estimate,
            &mut reader(&[("src/math.ts", "a│ b\n\n  c\n".to_string())]),
        );
        let plain = without_line_numbers(&attachment.text);
        assert!(plain.contains("```ts\na│ b\n\n  c\n```"), "{plain}");
        assert!(!plain.contains("line numbers"), "{plain}");
        assert!(plain.starts_with(HONE_NOTE_PREFIX), "{plain}");
        // Outside code nothing is touched.
        assert_eq!(without_line_numbers("1│ x\n"), "1│ x\n");
    }

    #[test]
    fn a_large_file_gives_the_definition_with_context() {
        let files = [("cart.ts", source(400))];
        let attachment = plan_attachment(
            vec![candidate(
                "cart.ts",
                Some((100, 110)),
                "function cartTotal",
                5.0,
            )],
            2_000,
            Tokenizer::Estimate,
            &mut reader(&files),
        );
        let item = &attachment.items[0];
        assert!(!item.whole_file);
        assert_eq!((item.start_line, item.end_line), (97, 113));
        assert_eq!(
            item.describe(),
            "cart.ts:97-113 (function cartTotal, matches \"cartTotal\")"
        );
        assert!(
            attachment
                .text
                .contains("\ncart.ts:97-113 (function cartTotal):\n```"),
            "the model reads where and what, not why: {}",
            attachment.text
        );
        assert!(attachment.text.contains(" 97│ let line97 = 97;"));
        assert!(!attachment.text.contains("line96 "));
    }

    #[test]
    fn overlapping_definitions_of_one_file_merge() {
        let files = [("big.rs", source(300))];
        let attachment = plan_attachment(
            vec![
                candidate("big.rs", Some((50, 60)), "function a", 5.0),
                candidate("big.rs", Some((62, 70)), "function b", 4.0),
            ],
            4_000,
            Tokenizer::Estimate,
            &mut reader(&files),
        );
        assert_eq!(attachment.items.len(), 1);
        let item = &attachment.items[0];
        assert_eq!((item.start_line, item.end_line), (47, 73));
        assert_eq!(item.symbols, ["function a", "function b"]);
    }

    #[test]
    fn the_budget_keeps_the_best_and_skips_what_does_not_fit() {
        let files = [
            ("a.rs", source(400)),
            ("b.rs", source(400)),
            ("c.rs", source(400)),
        ];
        let attachment = plan_attachment(
            vec![
                candidate("b.rs", Some((1, 200)), "function huge", 3.0),
                candidate("a.rs", Some((10, 20)), "function best", 9.0),
                candidate("c.rs", Some((30, 35)), "function small", 2.5),
            ],
            400,
            Tokenizer::Estimate,
            &mut reader(&files),
        );
        let paths: Vec<&str> = attachment
            .items
            .iter()
            .map(|item| item.path.as_str())
            .collect();
        assert_eq!(paths, ["a.rs", "c.rs"]);
        assert!(attachment.tokens <= 400, "{}", attachment.tokens);
    }

    #[test]
    fn weak_unreadable_and_empty_candidates_are_left_out() {
        let files = [("a.rs", source(10)), ("empty.rs", String::new())];
        let attachment = plan_attachment(
            vec![
                candidate("a.rs", Some((1, 2)), "function a", 10.0),
                candidate("weak.rs", Some((1, 2)), "function w", 1.0),
                candidate("missing.rs", Some((1, 2)), "function m", 9.0),
                candidate("empty.rs", None, "file", 9.0),
            ],
            2_000,
            Tokenizer::Estimate,
            &mut reader(&files),
        );
        let paths: Vec<&str> = attachment
            .items
            .iter()
            .map(|item| item.path.as_str())
            .collect();
        assert_eq!(paths, ["a.rs"]);
        let nothing = plan_attachment(Vec::new(), 2_000, Tokenizer::Estimate, &mut reader(&files));
        assert!(nothing.is_empty());
        assert_eq!(nothing.text, "");
        assert_eq!(nothing.summary(), "");
    }

    #[test]
    fn a_large_file_named_only_by_path_shows_its_start() {
        let files = [("src/big.py", source(500))];
        let mut file = candidate("src/big.py", None, "file", 6.0);
        file.kind = MentionKind::Path;
        file.mention = "src/big.py".to_string();
        let attachment =
            plan_attachment(vec![file], 2_000, Tokenizer::Estimate, &mut reader(&files));
        let item = &attachment.items[0];
        assert_eq!((item.start_line, item.end_line), (1, HEAD_LINES));
        assert_eq!(item.reasons, ["mentions \"src/big.py\""]);
        assert!(attachment.text.contains("```py\n"));
    }
}
