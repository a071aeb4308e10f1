//! What a completion is asked with: the code before and after the cursor within a budget
//! (cut at line starts), and above it, as comments, the definitions of the names used
//! near the cursor, found in the code index (the line a function, type or field is
//! defined on: its signature). Definitions are read from the editor's unsaved buffer when
//! the file is open, else from disk, and only inside the project.

use std::path::Path;

use hone_api::Request;
use hone_server::Client;

use crate::documents::{Documents, floor_char_boundary};

/// How much code around the cursor a model is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Budget {
    /// Bytes before the cursor at most (the cursor's line beyond it aside).
    pub(crate) prefix: usize,
    /// Bytes after the cursor at most.
    pub(crate) suffix: usize,
    /// Bytes of other files (the ring of recent chunks) at most.
    pub(crate) files: usize,
    /// Whether the names on the cursor's line are looked up too (they change while the
    /// user types, and with them the definitions early in the prompt).
    pub(crate) cursor_line_names: bool,
}

/// For a model server: a GPU reads a long prompt quickly.
pub(crate) const SERVER_BUDGET: Budget = Budget {
    prefix: 6_000,
    suffix: 2_000,
    files: 3_000,
    cursor_line_names: true,
};
/// For the embedded engine on a laptop CPU (about 130 prompt tokens a second on two
/// cores for the 0.5B): what follows the cursor is read again on every keystroke (it
/// comes after the text typed), so it is kept to a few lines; the rest is read once per
/// place.
pub(crate) const EMBEDDED_BUDGET: Budget = Budget {
    prefix: 2_000,
    suffix: 150,
    files: 1_500,
    cursor_line_names: false,
};
/// The prompt starts on a line whose number is a multiple of this, so moving the cursor
/// a few lines keeps the start the engine has cached.
const ANCHOR_LINES: usize = 16;
/// Lines around the cursor whose names are looked up.
const NEAR_LINES: usize = 12;
/// At most this many names are looked up.
const MAX_NAMES: usize = 6;
/// Names too common to be worth a lookup.
const COMMON: [&str; 24] = [
    "self", "Self", "let", "mut", "pub", "impl", "return", "match", "else", "true", "false",
    "None", "Some", "Ok", "Err", "String", "def", "for", "while", "const", "function", "this",
    "import", "from",
];

/// The text before and after byte `offset` of `text`: before it, whole lines above the
/// cursor's line within `budget.prefix`, starting on a line numbered a multiple of
/// [`ANCHOR_LINES`], and that line up to the cursor (so the prompt starts at the same
/// place while the user types, or moves a few lines); after it, at most `budget.suffix`
/// bytes, cut at a line end when it had to be shortened.
pub(crate) fn around(text: &str, offset: usize, budget: Budget) -> (String, String) {
    let offset = floor_char_boundary(text, offset);
    let line_start = text[..offset].rfind('\n').map_or(0, |newline| newline + 1);
    let mut start = floor_char_boundary(text, line_start.saturating_sub(budget.prefix));
    if start > 0 {
        start = text[start..line_start]
            .find('\n')
            .map_or(line_start, |newline| start + newline + 1);
        let mut line = text[..start].matches('\n').count();
        while !line.is_multiple_of(ANCHOR_LINES) && start < line_start {
            start += text[start..].find('\n').map_or(0, |newline| newline + 1);
            line += 1;
        }
    }
    if offset - line_start > budget.prefix {
        // One very long line: its last bytes.
        start = floor_char_boundary(text, offset - budget.prefix);
    }
    let mut end = floor_char_boundary(text, (offset + budget.suffix).min(text.len()));
    if end < text.len() {
        end = text[offset..end]
            .rfind('\n')
            .map_or(offset, |newline| offset + newline + 1);
    }
    (
        text[start..offset].to_string(),
        text[offset..end].to_string(),
    )
}

/// The names used in the lines around `offset` (its own line only when `cursor_line`),
/// nearest first, without repeats and without keywords and very short names.
pub(crate) fn names_near(text: &str, offset: usize, cursor_line: bool) -> Vec<String> {
    let offset = floor_char_boundary(text, offset);
    let line_of = text[..offset].matches('\n').count();
    let lines: Vec<&str> = text.lines().collect();
    let from = line_of.saturating_sub(NEAR_LINES);
    let to = (line_of + 3).min(lines.len());
    let mut ordered: Vec<(usize, String)> = Vec::new();
    for (number, line) in lines.iter().enumerate().take(to).skip(from) {
        if number == line_of && !cursor_line {
            continue;
        }
        for name in line
            .split(|character: char| !(character.is_alphanumeric() || character == '_'))
            .filter(|name| name.len() >= 3)
            .filter(|name| !name.starts_with(|character: char| character.is_ascii_digit()))
            .filter(|name| !COMMON.contains(name))
        {
            ordered.push((line_of.abs_diff(number), name.to_string()));
        }
    }
    ordered.sort_by_key(|(distance, _)| *distance);
    let mut names: Vec<String> = Vec::new();
    for (_, name) in ordered {
        if !names.contains(&name) {
            names.push(name);
        }
        if names.len() == MAX_NAMES {
            break;
        }
    }
    names
}

/// The definition lines of `names` from the index (through hone-server), as
/// `(path:line, text)`; the lines of `skip_path` within the prompt are left out by the
/// caller.
pub(crate) async fn definitions(
    client: &Client,
    documents: &Documents,
    root: &Path,
    names: &[String],
) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for name in names {
        let request = Request::Symbols {
            prefix: name.clone(),
            limit: Some(5),
        };
        let Ok(answer) = client.call(None, request).await else {
            continue;
        };
        let Some(symbols) = answer["symbols"].as_array() else {
            continue;
        };
        for symbol in symbols.iter().filter(|symbol| symbol["name"] == **name) {
            let location = symbol["location"].as_str().unwrap_or_default();
            if let Some(line) = definition_line(documents, root, location) {
                found.push(line);
            }
        }
    }
    found
}

/// The line a location `kind path:line` points at, read from the open buffer or the file
/// (inside `root` only).
fn definition_line(documents: &Documents, root: &Path, location: &str) -> Option<(String, String)> {
    let place = location.split_whitespace().last()?;
    let (path, line) = place.rsplit_once(':')?;
    let number: usize = line.parse().ok()?;
    let text = match documents.text_of(path) {
        Some(text) => text,
        None => {
            let resolved = root.join(path).canonicalize().ok()?;
            if !resolved.starts_with(root) {
                return None;
            }
            std::fs::read_to_string(resolved).ok()?
        }
    };
    let line = text.lines().nth(number.checked_sub(1)?)?.trim();
    (!line.is_empty()).then(|| (place.to_string(), line.to_string()))
}

/// The line comment marker of `language`.
fn comment_of(language: &str) -> &'static str {
    match language {
        "python" | "ruby" | "shellscript" | "bash" | "sh" | "toml" | "yaml" | "perl" | "r"
        | "elixir" => "#",
        "lua" | "sql" | "haskell" => "--",
        _ => "//",
    }
}

/// The definitions as comment lines of `language`, to put above the prefix.
pub(crate) fn header(language: &str, definitions: &[(String, String)]) -> String {
    if definitions.is_empty() {
        return String::new();
    }
    let comment = comment_of(language);
    let mut text = format!("{comment} Definitions used below:\n");
    for (place, line) in definitions {
        text.push_str(&format!("{comment} {line}  ({place})\n"));
    }
    text.push('\n');
    text
}

/// Chunks of other files `(path, text)` as comment lines of `language`, each under its
/// path, for models that take only text before the cursor.
pub(crate) fn files_as_comments(language: &str, files: &[(String, String)]) -> String {
    let comment = comment_of(language);
    let mut text = String::new();
    for (path, chunk) in files {
        text.push_str(&format!("{comment} {path}:\n"));
        for line in chunk.lines() {
            text.push_str(&format!("{comment} {line}\n"));
        }
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_cut_at_line_boundaries() {
        let text = format!(
            "{}cursor{}",
            "line\n".repeat(3_000),
            "\nafter".repeat(1_000)
        );
        let budget = SERVER_BUDGET;
        let offset = text.find("cursor").unwrap() + 3;
        let (prefix, suffix) = around(&text, offset, budget);
        assert!(
            prefix.len() <= budget.prefix + 3 && prefix.starts_with("line\n"),
            "{prefix:.20}"
        );
        assert!(prefix.ends_with("\ncur"));
        // The prompt starts on an anchor line.
        let first_line = text[..offset - prefix.len()].matches('\n').count();
        assert!(first_line.is_multiple_of(ANCHOR_LINES));
        assert!(
            prefix.len() + 5 * ANCHOR_LINES > budget.prefix,
            "{}",
            prefix.len()
        );
        // Typing on the line: the prompt starts at the same line.
        let (later, _) = around(&text, offset + 2, budget);
        assert_eq!(later.len(), prefix.len() + 2);
        // Moving up a line: still the same start.
        let (above, _) = around(&text, offset - 8, budget);
        assert!(prefix.starts_with(&above), "{above:.20}");
        // One huge line: its end.
        let long = "x".repeat(3 * budget.prefix);
        assert_eq!(around(&long, long.len(), budget).0.len(), budget.prefix);
        assert!(suffix.len() <= budget.suffix && suffix.starts_with("sor\n"));
        assert!(suffix.ends_with('\n'));
        let (_, short) = around(&text, offset, EMBEDDED_BUDGET);
        assert!(short.len() <= EMBEDDED_BUDGET.suffix && short.starts_with("sor\n"));
        assert_eq!(around("ab", 1, budget), ("a".into(), "b".into()));
        assert_eq!(around("ab", 99, budget), ("ab".into(), String::new()));
    }

    #[test]
    fn nearest_names_come_first() {
        let text = "fn far_away() {}\nlet total = compute_sum(items);\n";
        let names = names_near(text, text.len() - 3, true);
        assert_eq!(names[0], "total");
        assert!(names.contains(&"compute_sum".to_string()));
        assert!(names.contains(&"far_away".to_string()));
        assert!(!names.contains(&"let".to_string()));
        // Without the cursor's line: only the line above.
        assert_eq!(names_near(text, text.len() - 3, false), ["far_away"]);
    }

    #[test]
    fn definitions_are_comments_of_the_language() {
        let definitions = vec![("src/a.py:3".to_string(), "def area(r):".to_string())];
        assert!(header("python", &definitions).starts_with("# Definitions"));
        assert!(header("rust", &definitions).contains("// def area(r):  (src/a.py:3)"));
        assert_eq!(header("rust", &[]), "");
    }

    #[test]
    fn definition_lines_come_from_open_buffers_first() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.rs"), "\npub fn disk() {}\n").unwrap();
        let documents = Documents::default();
        assert_eq!(
            definition_line(&documents, &root, "function a.rs:2"),
            Some(("a.rs:2".into(), "pub fn disk() {}".into()))
        );
        let uri = tower_lsp_server::ls_types::Uri::from_file_path(root.join("a.rs")).unwrap();
        documents.open(
            &root,
            uri,
            "\npub fn buffer() {}\n".into(),
            1,
            "rust".into(),
        );
        assert_eq!(
            definition_line(&documents, &root, "function a.rs:2").map(|(_, line)| line),
            Some("pub fn buffer() {}".into())
        );
        assert_eq!(
            definition_line(&documents, &root, "function ../x.rs:1"),
            None
        );
    }
}
