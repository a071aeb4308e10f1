//! What a request names: paths, file names, symbols, call-like words and phrases.
//!
//! Pure text rules, no index: a traceback's `File "app/users.py", line 4, in find` is a
//! frame (its file and line, and `find` a symbol), `src/store.ts` is a path, `store.ts` a
//! file name, `average()`, `store.load`, `ItemStore`, `cart_total`, `--dry-run`,
//! `timeout=5` and `` `clamp` `` are symbols, "the add function" names `add`, and a run
//! of plain words ("the cart total") becomes a phrase whose identifier variants
//! (`cartTotal`, `cart_total`, `CartTotal`, `total`) the index can look up. Stop words and
//! names of one or two letters never become mentions: they would match everything.

use serde::{Deserialize, Serialize};

use super::frames::frames;

/// How a mention was recognised; the order is also how much it is trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MentionKind {
    /// A plain word that may name a symbol or a file (`helper`).
    Word,
    /// Plain words that may name one identifier (`the cart total`).
    Phrase,
    /// An identifier written as code: a call, CamelCase, snake_case, quoted, or next to
    /// "function"/"class"/….
    Symbol,
    /// A file name without directory (`store.ts`).
    FileName,
    /// A path with a directory (`src/store.ts`, `crates/helper/`).
    Path,
    /// A traceback frame: a file and a line ([`Mention::line`]).
    Frame,
}

impl MentionKind {
    /// How much a match through this kind of mention counts when ranking.
    pub fn weight(self) -> f64 {
        match self {
            Self::Word => 1.0,
            Self::Phrase => 2.0,
            Self::Symbol => 4.0,
            Self::FileName => 5.0,
            Self::Path => 6.0,
            Self::Frame => 8.0,
        }
    }
}

/// One thing the request names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    /// The text as written (`the cart total`, `average()`).
    pub text: String,
    /// How it was recognised.
    pub kind: MentionKind,
    /// What to look up: the path or file name, or the identifier and its variants.
    pub names: Vec<String>,
    /// Whether the request asks to rename it (its references matter too).
    pub rename: bool,
    /// The line a frame points at (`None` for other mentions).
    pub line: Option<u32>,
}

/// File extensions that make a word a file name.
const EXTENSIONS: &[&str] = &[
    "rs", "ts", "tsx", "js", "jsx", "mjs", "cjs", "py", "go", "java", "kt", "c", "h", "cc", "cpp",
    "hpp", "cs", "rb", "php", "swift", "scala", "json", "toml", "yaml", "yml", "md", "sh", "html",
    "css", "scss", "sql", "vue", "svelte", "lua", "zig", "ex", "exs",
];

/// Words that mark the identifier next to them as a definition's name.
const KIND_WORDS: &[&str] = &[
    "function",
    "fn",
    "method",
    "class",
    "struct",
    "enum",
    "trait",
    "interface",
    "type",
    "constant",
    "variable",
    "field",
    "module",
    "crate",
    "package",
];

/// Words that never name code, however written (`class in`, `as`).
const FUNCTION_WORDS: &[&str] = &[
    "a", "about", "after", "again", "all", "also", "always", "an", "and", "any", "are", "aren't",
    "around", "as", "at", "be", "because", "been", "before", "being", "both", "but", "by", "can",
    "can't", "could", "did", "do", "does", "doesn't", "don't", "each", "either", "even", "ever",
    "every", "for", "from", "had", "has", "have", "here", "how", "i", "if", "in", "into", "is",
    "isn't", "it", "it's", "its", "just", "may", "me", "might", "more", "most", "much", "must",
    "my", "never", "not", "now", "of", "on", "only", "or", "our", "please", "should", "so", "some",
    "still", "such", "than", "that", "the", "their", "them", "then", "there", "these", "this",
    "those", "to", "too", "very", "via", "was", "wasn't", "we", "were", "what", "when", "where",
    "which", "while", "who", "why", "will", "with", "within", "without", "won't", "would", "yet",
    "you", "your",
];

/// Words that name code only when written as code (`add()`, "the `add` function"), never as
/// plain prose ("add a method", "the tests fail").
const PROSE_WORDS: &[&str] = &[
    "add",
    "adding",
    "alone",
    "anything",
    "bug",
    "change",
    "changing",
    "code",
    "come",
    "comes",
    "create",
    "doing",
    "done",
    "error",
    "explain",
    "file",
    "files",
    "fix",
    "get",
    "gets",
    "give",
    "given",
    "gives",
    "got",
    "instead",
    "let",
    "like",
    "make",
    "many",
    "need",
    "needs",
    "new",
    "nothing",
    "one",
    "other",
    "out",
    "project",
    "rename",
    "return",
    "returns",
    "run",
    "same",
    "see",
    "something",
    "sure",
    "test",
    "tests",
    "thing",
    "things",
    "update",
    "use",
    "uses",
    "using",
    "want",
    "way",
    "work",
    "works",
    "write",
    "wrong",
];

/// Names shorter than this never become mentions (`a`, `in`, `as` match everything).
const MIN_NAME_CHARS: usize = 3;

/// Whether `word` can never name code: too short, or a function word (`in`, `as`, `the`).
pub fn is_stop_word(word: &str) -> bool {
    word.chars().count() < MIN_NAME_CHARS
        || FUNCTION_WORDS.contains(&word.to_ascii_lowercase().as_str())
}

/// Whether plain `word` in prose is no name: a stop word or a word of requests ("fix").
fn is_prose_word(word: &str) -> bool {
    is_stop_word(word) || PROSE_WORDS.contains(&word.to_ascii_lowercase().as_str())
}

/// The mentions in `request`, strongest first, without duplicates.
pub fn extract_mentions(request: &str) -> Vec<Mention> {
    let rename = request.to_ascii_lowercase().contains("rename");
    let tokens = tokens(request);
    let mut mentions: Vec<Mention> = Vec::new();
    for frame in frames(request) {
        let text = format!("{}:{}", frame.path, frame.line);
        mentions.push(Mention {
            text: text.clone(),
            kind: MentionKind::Frame,
            names: vec![frame.path.trim_start_matches("./").to_string()],
            rename: false,
            line: Some(frame.line),
        });
        if let Some(function) = frame.function.filter(|name| !is_stop_word(name))
            && !mentions
                .iter()
                .any(|known| known.names == [function.as_str()])
        {
            mentions.push(Mention {
                text: function.clone(),
                kind: MentionKind::Symbol,
                names: vec![function],
                rename: false,
                line: None,
            });
        }
    }
    let mut push = |text: &str, kind: MentionKind, names: Vec<String>| {
        // Stop words and one- or two-letter names never name code (paths are kept whole).
        let names: Vec<String> = match kind {
            MentionKind::FileName | MentionKind::Path | MentionKind::Frame => names,
            MentionKind::Symbol => names
                .into_iter()
                .filter(|name| !is_stop_word(name))
                .collect(),
            MentionKind::Phrase | MentionKind::Word => names
                .into_iter()
                .filter(|name| !is_prose_word(name))
                .collect(),
        };
        if names.is_empty() {
            return;
        }
        if let Some(known) = mentions
            .iter_mut()
            .find(|known| known.names == names && known.line.is_none())
        {
            known.kind = known.kind.max(kind);
            return;
        }
        mentions.push(Mention {
            text: text.to_string(),
            kind,
            names,
            rename: rename && kind >= MentionKind::Symbol,
            line: None,
        });
    };
    for (index, token) in tokens.iter().enumerate() {
        let word = token.word.as_str();
        if let Some(kind) = file_kind(word) {
            push(word, kind, vec![word.trim_start_matches("./").to_string()]);
            continue;
        }
        let calls = call_names(word);
        if !calls.is_empty() {
            for name in calls {
                push(word, MentionKind::Symbol, vec![name.to_string()]);
            }
            continue;
        }
        if let Some(shaped) = code_shaped(word) {
            for (kind, names) in shaped {
                push(word, kind, names);
            }
            continue;
        }
        if !is_identifier(word) {
            continue;
        }
        let next_to_kind_word = [index.checked_sub(1), Some(index + 1)]
            .into_iter()
            .flatten()
            .filter_map(|other| tokens.get(other))
            .any(|other| KIND_WORDS.contains(&other.word.to_ascii_lowercase().as_str()));
        let kind_word = KIND_WORDS.contains(&word.to_ascii_lowercase().as_str());
        if token.quoted || looks_like_code(word) || (next_to_kind_word && !kind_word) {
            push(word, MentionKind::Symbol, vec![word.to_string()]);
        }
    }
    for run in phrases(&tokens) {
        let words: Vec<&str> = run.iter().map(String::as_str).collect();
        for size in [2, 3] {
            for window in words.windows(size) {
                push(&window.join(" "), MentionKind::Phrase, variants(window));
            }
        }
        // "reversing the words" names `reverseWords`: the pairs again with base forms.
        for window in words.windows(2) {
            for stemmed in stemmed_pairs(window[0], window[1]) {
                let pair = [stemmed.0.as_str(), stemmed.1.as_str()];
                push(&window.join(" "), MentionKind::Phrase, variants(&pair));
            }
        }
        for word in &words {
            if !KIND_WORDS.contains(word) {
                // "prices" names `price` as well.
                let mut names = vec![(*word).to_string()];
                names.extend(base_forms(word));
                push(word, MentionKind::Word, names);
            }
        }
    }
    mentions.sort_by_key(|mention| std::cmp::Reverse(mention.kind));
    mentions
}

/// One word of the request, with whether it was quoted or in backticks.
#[derive(Debug)]
struct Token {
    word: String,
    quoted: bool,
    /// Whether a sentence or clause ends after it (`.`, `,`, `;`, `:`, `?`, `!`).
    ends_clause: bool,
}

fn tokens(request: &str) -> Vec<Token> {
    request
        .split_whitespace()
        .filter_map(|raw| {
            let quoted = raw.starts_with(['`', '\'', '"']) || raw.ends_with(['`', '\'', '"']);
            let trimmed = raw.trim_matches(|c: char| "`'\"“”‘’«»[]{}<>".contains(c));
            let ends_clause = trimmed.ends_with(['.', ',', ';', ':', '?', '!']);
            let word = trimmed.trim_end_matches(['.', ',', ';', ':', '?', '!', '`', '\'', '"']);
            let word = word.trim_start_matches(['(', '`', '\'', '"']);
            let word = if word.ends_with(')') && !word.ends_with("()") {
                word.trim_end_matches(')')
            } else {
                word
            };
            (!word.is_empty()).then(|| Token {
                word: word.to_string(),
                quoted,
                ends_clause,
            })
        })
        .collect()
}

/// Words written as code that are neither files nor calls: `--dry-run` (the option and
/// its attribute `dry_run`), `timeout=5` (the key), `shop.pricing` / `self.total` (the
/// last part a symbol, the first a word naming a module or object).
fn code_shaped(word: &str) -> Option<Vec<(MentionKind, Vec<String>)>> {
    if let Some(flag) = word.strip_prefix("--") {
        let flag = flag.split('=').next().unwrap_or(flag);
        let valid = flag.len() > 1
            && flag
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        return valid.then(|| {
            vec![(
                MentionKind::Symbol,
                vec![flag.replace('-', "_"), format!("--{flag}")],
            )]
        });
    }
    if let Some((key, _)) = word.split_once('=') {
        let key = key.trim_end_matches(['!', '<', '>', '=']);
        return is_identifier(key).then(|| vec![(MentionKind::Symbol, vec![key.to_string()])]);
    }
    let parts: Vec<&str> = word.split('.').collect();
    if parts.len() >= 2 && parts.iter().all(|part| is_identifier(part)) {
        let last = parts[parts.len() - 1];
        let mut shaped = vec![(MentionKind::Symbol, vec![last.to_string()])];
        if !matches!(parts[0], "self" | "this") {
            shaped.push((MentionKind::Word, vec![parts[0].to_string()]));
        }
        return Some(shaped);
    }
    None
}

/// `Path` for `src/store.ts` or `crates/helper/`, `FileName` for `store.ts`.
fn file_kind(word: &str) -> Option<MentionKind> {
    if word.contains("://") || word.starts_with('/') {
        return None;
    }
    let valid = word
        .chars()
        .all(|c| c.is_alphanumeric() || "_-./".contains(c));
    if !valid || word.contains("..") && !word.starts_with("../") {
        return None;
    }
    let extension = word
        .rsplit_once('.')
        .map(|(stem, extension)| (stem, extension.to_ascii_lowercase()))
        .filter(|(stem, extension)| {
            !stem.is_empty() && !stem.ends_with('/') && EXTENSIONS.contains(&extension.as_str())
        });
    if word.contains('/') {
        let parts = word.trim_end_matches('/').split('/').count();
        (extension.is_some() || parts >= 2 || word.ends_with('/')).then_some(MentionKind::Path)
    } else {
        extension.map(|_| MentionKind::FileName)
    }
}

/// `average` for `average()`, `average(xs)` or `store.average()`; every callee of nested
/// calls (`assertEqual(parse(x))` → `assertEqual`, `parse`).
fn call_names(word: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = word;
    while let Some(open) = rest.find('(') {
        let callee = &rest[..open];
        let start = callee
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |index| index + 1);
        let name = &callee[start..];
        if is_identifier(name) && !names.contains(&name) {
            names.push(name);
        }
        rest = &rest[open + 1..];
    }
    names
}

fn is_identifier(word: &str) -> bool {
    word.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && word.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// CamelCase (`ItemStore`, `cartTotal`), snake_case (`cart_total`) or SCREAMING_CASE.
fn looks_like_code(word: &str) -> bool {
    let inner_upper = word.char_indices().skip(1).any(|(_, c)| c.is_uppercase())
        && word.chars().any(char::is_lowercase);
    let snake = word.contains('_') && word.trim_matches('_').len() > 1;
    inner_upper || snake
}

/// Runs of plain lowercase words that are not stop words, clause by clause, across
/// articles (a capitalised word opening a sentence counts as lowercase: "Reversing the
/// words…").
fn phrases(tokens: &[Token]) -> Vec<Vec<String>> {
    let mut runs: Vec<Vec<String>> = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let mut sentence_start = true;
    for token in tokens {
        let word = token.word.as_str();
        let opening_capital = sentence_start
            && word.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && word.chars().skip(1).all(|c| c.is_ascii_lowercase());
        let word = if opening_capital {
            word.to_ascii_lowercase()
        } else {
            word.to_string()
        };
        // Short words stay in a run ("the user id" names `userId`), though never alone.
        let plain = word.len() > 1
            && word.chars().all(|c| c.is_ascii_lowercase())
            && !FUNCTION_WORDS.contains(&word.as_str())
            && !PROSE_WORDS.contains(&word.as_str());
        if plain {
            current.push(word);
        } else if ["a", "an", "the"].contains(&word.as_str()) {
            // Articles join what they stand between: "reversing the words".
        } else if !current.is_empty() {
            runs.push(std::mem::take(&mut current));
        }
        if token.ends_clause && !current.is_empty() {
            runs.push(std::mem::take(&mut current));
        }
        sentence_start = token.ends_clause;
    }
    if !current.is_empty() {
        runs.push(current);
    }
    runs
}

/// Base forms of an English word as identifiers use them: `reversing` → `reverse`,
/// `sorting` → `sort`, `running` → `run`, `words` → `word`, `entries` → `entry`,
/// `sorted` → `sort`; empty when the word has no such ending.
fn base_forms(word: &str) -> Vec<String> {
    let mut forms = Vec::new();
    if let Some(base) = word.strip_suffix("ing").filter(|base| base.len() >= 3) {
        forms.push(format!("{base}e"));
        forms.push(base.to_string());
        let mut chars = base.chars().rev();
        if let (Some(last), Some(before)) = (chars.next(), chars.next())
            && last == before
        {
            forms.push(base[..base.len() - 1].to_string());
        }
    } else if let Some(base) = word.strip_suffix("ies").filter(|base| base.len() >= 2) {
        forms.push(format!("{base}y"));
    } else if let Some(base) = word.strip_suffix("ed").filter(|base| base.len() >= 3) {
        forms.push(format!("{base}e"));
        forms.push(base.to_string());
    } else if let Some(base) = word
        .strip_suffix('s')
        .filter(|base| base.len() >= 3 && !base.ends_with('s'))
    {
        forms.push(base.to_string());
    }
    forms
}

/// The pair (`first`, `second`) with base forms in place of inflected words (the pair as
/// written is not repeated).
fn stemmed_pairs(first: &str, second: &str) -> Vec<(String, String)> {
    let with_base = |word: &str| {
        let mut forms = vec![word.to_string()];
        forms.extend(base_forms(word));
        forms
    };
    let mut pairs = Vec::new();
    for a in with_base(first) {
        for b in with_base(second) {
            if a != first || b != second {
                pairs.push((a.clone(), b));
            }
        }
    }
    pairs
}

/// Identifier spellings of `words`: camelCase, snake_case, PascalCase, then the last word
/// (the head noun: "the cart total" is often just `total`).
pub fn variants(words: &[&str]) -> Vec<String> {
    let Some(last) = words.last() else {
        return Vec::new();
    };
    let capitalised = |word: &str| {
        let mut chars = word.chars();
        chars.next().map_or_else(String::new, |first| {
            first.to_uppercase().chain(chars).collect::<String>()
        })
    };
    let camel: String = words
        .iter()
        .enumerate()
        .map(|(index, word)| {
            if index == 0 {
                (*word).to_string()
            } else {
                capitalised(word)
            }
        })
        .collect();
    let pascal: String = words.iter().map(|word| capitalised(word)).collect();
    let mut names = vec![camel, words.join("_"), pascal, (*last).to_string()];
    names.dedup();
    names
}

#[cfg(test)]
mod tests;
