//! Finding the code in a reply: fenced blocks (with their language and path label),
//! SEARCH/REPLACE blocks and unified diffs, inside fences or not.

/// One piece of code a reply contains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Block {
    /// A fenced code block.
    Code {
        /// File extension for the block's language (`ts`, `py`…), from the info string or
        /// the path label.
        extension: Option<String>,
        /// The file the block is labelled with (info string, first-line comment or the
        /// line above the fence).
        path: Option<String>,
        /// The code, without the fences (and without a first-line path comment).
        body: String,
    },
    /// Aider's `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE`.
    SearchReplace {
        /// The file named above the block, if any.
        path: Option<String>,
        /// Text to find.
        search: String,
        /// Text to put in its place.
        replace: String,
    },
    /// A unified diff (`--- a/x`, `+++ b/x`, `@@` hunks).
    Diff {
        /// The diff text.
        text: String,
    },
}

/// The blocks of `reply`, in order.
pub(crate) fn blocks(reply: &str) -> Vec<Block> {
    let lines: Vec<&str> = reply.lines().collect();
    let mut found = Vec::new();
    let mut outside: Vec<&str> = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        let Some((fence, info)) = fence_open(lines[index]) else {
            outside.push(lines[index]);
            index += 1;
            continue;
        };
        let label = label_above(&lines[..index]);
        let start = index + 1;
        let mut end = start;
        while end < lines.len() && !is_fence_close(lines[end], &fence) {
            end += 1;
        }
        found.extend(unfenced(&outside));
        outside.clear();
        let body = without_line_numbers(&lines[start..end]);
        fenced(info, label, &body, &mut found);
        index = end + 1;
    }
    found.extend(unfenced(&outside));
    found
}

/// `body` without the line numbers `read_file` and localisation show (`  12│ text`) when
/// the model copied them onto every line (small models do, even when told not to).
fn without_line_numbers<'a>(body: &[&'a str]) -> Vec<&'a str> {
    let strip = |line: &'a str| -> Option<&'a str> {
        let rest = line.trim_start();
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            return None;
        }
        let rest = rest[digits..].strip_prefix('│')?;
        Some(rest.strip_prefix(' ').unwrap_or(rest))
    };
    let numbered = body
        .iter()
        .filter(|line| !line.trim().is_empty())
        .all(|line| strip(line).is_some());
    if numbered && body.iter().any(|line| !line.trim().is_empty()) {
        body.iter().map(|line| strip(line).unwrap_or("")).collect()
    } else {
        body.to_vec()
    }
}

/// The fence characters and info string of a fence-opening line.
fn fence_open(line: &str) -> Option<(String, &str)> {
    let trimmed = line.trim_start();
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let marker = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let count = trimmed.chars().take_while(|c| *c == marker).count();
    if count < 3 {
        return None;
    }
    let fence: String = std::iter::repeat_n(marker, count).collect();
    let info = trimmed[count..].trim();
    if marker == '`' && info.contains('`') {
        return None;
    }
    Some((fence, info))
}

fn is_fence_close(line: &str, fence: &str) -> bool {
    let trimmed = line.trim();
    trimmed.starts_with(fence) && trimmed.chars().all(|c| fence.starts_with(c))
}

/// Classifies one fenced block.
fn fenced(info: &str, label: Option<String>, body: &[&str], found: &mut Vec<Block>) {
    let (language, info_path) = parse_info(info);
    if body.iter().any(|line| is_search_start(line)) {
        found.extend(search_replace(body, info_path.or(label)));
        return;
    }
    let is_diff_language = matches!(language.as_deref(), Some("diff" | "patch" | "udiff"));
    if is_diff_language || looks_like_diff(body) {
        if looks_like_diff(body) {
            found.push(Block::Diff { text: join(body) });
        }
        return;
    }
    let first_line_path =
        |line: &&str| comment_label(line).or_else(|| bare_path_label(line, language.as_deref()));
    let (comment_path, body) = match body.first().and_then(first_line_path) {
        Some(path) => (Some(path), &body[1..]),
        None => (None, body),
    };
    let path = info_path.or(comment_path).or(label);
    let extension = path
        .as_deref()
        .and_then(extension_of)
        .or_else(|| language.as_deref().and_then(language_extension));
    found.push(Block::Code {
        extension,
        path,
        body: join(body),
    });
}

/// Blocks written without fences: SEARCH/REPLACE blocks and diffs.
fn unfenced(lines: &[&str]) -> Vec<Block> {
    let mut found = Vec::new();
    if lines.iter().any(|line| is_search_start(line)) {
        found.extend(search_replace(lines, None));
        return found;
    }
    let mut index = 0;
    while index + 1 < lines.len() {
        if lines[index].starts_with("--- ") && lines[index + 1].starts_with("+++ ") {
            let start = index;
            index += 2;
            while index < lines.len() && is_diff_line(lines[index]) {
                index += 1;
            }
            let mut end = index;
            while end > start && lines[end - 1].is_empty() {
                end -= 1;
            }
            let part = &lines[start..end];
            if part.iter().any(|line| line.starts_with("@@")) {
                found.push(Block::Diff { text: join(part) });
            }
        } else {
            index += 1;
        }
    }
    found
}

fn is_diff_line(line: &str) -> bool {
    line.is_empty()
        || [' ', '+', '-', '@', '\\']
            .iter()
            .any(|c| line.starts_with(*c))
        || line.starts_with("diff ")
        || line.starts_with("index ")
}

fn looks_like_diff(body: &[&str]) -> bool {
    body.windows(2)
        .any(|pair| pair[0].starts_with("--- ") && pair[1].starts_with("+++ "))
        && body.iter().any(|line| line.starts_with("@@"))
}

fn is_search_start(line: &str) -> bool {
    let trimmed = line.trim();
    trimmed.starts_with("<<<<<<<") && trimmed.trim_start_matches('<').trim() == "SEARCH"
}

fn is_divider(line: &str) -> bool {
    let trimmed = line.trim();
    trimmed.len() >= 7 && trimmed.chars().all(|c| c == '=')
}

fn is_replace_end(line: &str) -> bool {
    let trimmed = line.trim();
    trimmed.starts_with(">>>>>>>") && trimmed.trim_start_matches('>').trim() == "REPLACE"
}

/// SEARCH/REPLACE blocks in `lines`; each takes the path on a line above it (else `path`).
fn search_replace(lines: &[&str], path: Option<String>) -> Vec<Block> {
    let mut found = Vec::new();
    let mut current_path = path;
    let mut index = 0;
    while index < lines.len() {
        if !is_search_start(lines[index]) {
            if let Some(named) = path_line(lines[index]) {
                current_path = Some(named);
            }
            index += 1;
            continue;
        }
        let search_start = index + 1;
        let Some(divider) = (search_start..lines.len()).find(|&i| is_divider(lines[i])) else {
            break;
        };
        let Some(end) = (divider + 1..lines.len()).find(|&i| is_replace_end(lines[i])) else {
            break;
        };
        found.push(Block::SearchReplace {
            path: current_path.clone(),
            search: join(&lines[search_start..divider]),
            replace: join(&lines[divider + 1..end]),
        });
        index = end + 1;
    }
    found
}

/// Lines joined with a final newline (empty for no lines).
fn join(lines: &[&str]) -> String {
    let mut text = lines.join("\n");
    if !lines.is_empty() {
        text.push('\n');
    }
    text
}

/// The language and path of an info string (```` ```python src/x.py ````,
/// ```` ```src/x.py ````, ```` ```ts title="src/x.ts" ````).
fn parse_info(info: &str) -> (Option<String>, Option<String>) {
    let mut language = None;
    let mut path = None;
    for (position, word) in info.split_whitespace().enumerate() {
        let value = word
            .split_once('=')
            .map_or(word, |(_, value)| value)
            .trim_matches(|c| c == '"' || c == '\'' || c == '{' || c == '}');
        if looks_like_path(value) {
            path.get_or_insert_with(|| value.to_string());
        } else if position == 0 {
            language = Some(word.to_ascii_lowercase());
        }
    }
    (language, path)
}

/// A path alone on the line above a fence (`src/x.py`, `**src/x.py**`, `File: src/x.py:`).
fn label_above(before: &[&str]) -> Option<String> {
    before
        .iter()
        .rev()
        .find(|line| !line.trim().is_empty())
        .and_then(|line| path_line(line))
}

/// The path a line consists of, once decorations are removed.
pub(crate) fn path_line(line: &str) -> Option<String> {
    let mut text = line.trim().trim_start_matches('#').trim();
    for prefix in ["file:", "filename:", "path:", "in "] {
        if text.len() > prefix.len() && text[..prefix.len()].eq_ignore_ascii_case(prefix) {
            text = text[prefix.len()..].trim();
        }
    }
    let text = text
        .trim_end_matches(':')
        .trim_matches(|c| c == '*' || c == '`' || c == '_' || c == '"')
        .trim_end_matches(':');
    looks_like_path(text).then(|| text.trim_start_matches("./").to_string())
}

/// A path named by a first-line comment (`# src/x.py`, `// file: src/x.ts`, `/* x.c */`).
fn comment_label(line: &str) -> Option<String> {
    let trimmed = line.trim();
    let rest = ["//", "#", "--", "/*", "<!--", ";"]
        .iter()
        .find_map(|leader| trimmed.strip_prefix(leader))?;
    let rest = rest.trim().trim_end_matches("*/").trim_end_matches("-->");
    path_line(rest)
}

/// A first line that is nothing but a path (```` ```rs ```` then `src/lib.rs`): one with a
/// directory, or whose extension is the block's language (`x.py` opening a `python`
/// block), so code such as `math.pi` is not taken for a label.
fn bare_path_label(line: &str, language: Option<&str>) -> Option<String> {
    let trimmed = line.trim();
    if !looks_like_path(trimmed) {
        return None;
    }
    let extension = extension_of(trimmed);
    let of_language = language
        .and_then(language_extension)
        .is_some_and(|language| extension == Some(language));
    (trimmed.contains('/') || of_language).then(|| trimmed.trim_start_matches("./").to_string())
}

/// Whether `text` is a relative file path with an extension.
pub(crate) fn looks_like_path(text: &str) -> bool {
    if text.is_empty() || text.len() > 200 || text.contains("://") || text.starts_with('/') {
        return false;
    }
    if !text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "._-/@+".contains(c))
    {
        return false;
    }
    let name = text.rsplit('/').next().unwrap_or(text);
    match name.rsplit_once('.') {
        Some((stem, extension)) => {
            !stem.is_empty()
                && !extension.is_empty()
                && extension.len() <= 10
                && extension.starts_with(|c: char| c.is_ascii_alphabetic())
                && extension.chars().all(|c| c.is_ascii_alphanumeric())
        }
        None => false,
    }
}

/// The extension of a path.
pub(crate) fn extension_of(path: &str) -> Option<String> {
    let name = path.rsplit('/').next()?;
    name.rsplit_once('.')
        .map(|(_, extension)| extension.to_ascii_lowercase())
}

/// The file extension for a fence's language name.
fn language_extension(language: &str) -> Option<String> {
    let extension = match language {
        "ts" | "typescript" => "ts",
        "tsx" => "tsx",
        "js" | "javascript" | "node" | "mjs" | "cjs" => "js",
        "jsx" => "jsx",
        "py" | "python" | "python3" => "py",
        "rs" | "rust" => "rs",
        "go" | "golang" => "go",
        "java" => "java",
        "c" | "h" => "c",
        "cpp" | "c++" | "cc" | "cxx" | "hpp" => "cpp",
        _ => return None,
    };
    Some(extension.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(extension: &str, path: Option<&str>, body: &str) -> Block {
        Block::Code {
            extension: Some(extension.to_string()),
            path: path.map(str::to_string),
            body: body.to_string(),
        }
    }

    #[test]
    fn line_numbers_copied_onto_every_line_are_dropped() {
        let reply = "```py src/a.py\n 1│ def a():\n 2│     return 1\n 3│\n```";
        assert_eq!(
            blocks(reply),
            vec![code("py", Some("src/a.py"), "def a():\n    return 1\n\n")]
        );
        // A block where only some lines look numbered is code as written.
        let mixed = "```py src/a.py\n1│ x = 1\ny = 2\n```";
        assert_eq!(
            blocks(mixed),
            vec![code("py", Some("src/a.py"), "1│ x = 1\ny = 2\n")]
        );
    }

    #[test]
    fn a_fenced_block_keeps_its_language() {
        let reply =
            "Here is the fix:\n\n```ts\nfunction add(a, b) {\n  return a + b;\n}\n```\nDone.";
        assert_eq!(
            blocks(reply),
            vec![code(
                "ts",
                None,
                "function add(a, b) {\n  return a + b;\n}\n"
            )]
        );
    }

    #[test]
    fn paths_come_from_the_info_string_a_comment_or_the_line_above() {
        let info = "```python src/x.py\nx = 1\n```";
        assert_eq!(blocks(info), vec![code("py", Some("src/x.py"), "x = 1\n")]);
        let bare = "```src/x.py\nx = 1\n```";
        assert_eq!(blocks(bare), vec![code("py", Some("src/x.py"), "x = 1\n")]);
        let titled = "```ts title=\"src/a.ts\"\nlet a = 1;\n```";
        assert_eq!(
            blocks(titled),
            vec![code("ts", Some("src/a.ts"), "let a = 1;\n")]
        );
        let comment = "```python\n# src/x.py\nx = 1\n```";
        assert_eq!(
            blocks(comment),
            vec![code("py", Some("src/x.py"), "x = 1\n")]
        );
        let file_comment = "```go\n// file: cmd/main.go\npackage main\n```";
        assert_eq!(
            blocks(file_comment),
            vec![code("go", Some("cmd/main.go"), "package main\n")]
        );
        let above = "**src/lib.rs**\n```rust\nfn a() {}\n```";
        assert_eq!(
            blocks(above),
            vec![code("rs", Some("src/lib.rs"), "fn a() {}\n")]
        );
        let colon = "`src/app.js`:\n\n```js\nlet a;\n```";
        assert_eq!(
            blocks(colon),
            vec![code("js", Some("src/app.js"), "let a;\n")]
        );
        let first_line = "```rs\nsrc/lib.rs\nfn a() {}\n```";
        assert_eq!(
            blocks(first_line),
            vec![code("rs", Some("src/lib.rs"), "fn a() {}\n")]
        );
        let same_language = "```python\nshop.py\nx = 1\n```";
        assert_eq!(
            blocks(same_language),
            vec![code("py", Some("shop.py"), "x = 1\n")]
        );
        // Code that merely looks like a file name stays code.
        let code_line = "```python\nmath.pi\n```";
        assert_eq!(blocks(code_line), vec![code("py", None, "math.pi\n")]);
    }

    #[test]
    fn prose_above_a_fence_is_not_a_path() {
        let reply = "Here is the fixed version of math.ts:\n```ts\nlet a = 1;\n```";
        assert_eq!(blocks(reply), vec![code("ts", None, "let a = 1;\n")]);
        let comment = "```python\n# add the numbers\nx = 1\n```";
        assert_eq!(
            blocks(comment),
            vec![code("py", None, "# add the numbers\nx = 1\n")]
        );
    }

    #[test]
    fn search_replace_blocks_take_the_path_above() {
        let reply = "src/math.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n";
        assert_eq!(
            blocks(reply),
            vec![Block::SearchReplace {
                path: Some("src/math.py".to_string()),
                search: "    return a - b\n".to_string(),
                replace: "    return a + b\n".to_string(),
            }]
        );
        let unfenced = "a.txt\n<<<<<<< SEARCH\n=======\nnew\n>>>>>>> REPLACE\nb.txt\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE";
        let found = blocks(unfenced);
        assert_eq!(found.len(), 2);
        assert!(matches!(
            &found[0],
            Block::SearchReplace { path: Some(p), search, .. } if p == "a.txt" && search.is_empty()
        ));
        assert!(matches!(&found[1], Block::SearchReplace { path: Some(p), .. } if p == "b.txt"));
    }

    #[test]
    fn an_unfinished_search_block_is_ignored() {
        assert!(blocks("x.py\n<<<<<<< SEARCH\na\n=======\nb\n").is_empty());
    }

    #[test]
    fn diffs_are_found_in_fences_and_in_text() {
        let diff = "--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-a\n+b\n";
        let fenced_reply = format!("```diff\n{diff}```");
        assert_eq!(
            blocks(&fenced_reply),
            vec![Block::Diff {
                text: diff.to_string()
            }]
        );
        let text = format!("Apply this:\n{diff}\nThat's all.");
        assert_eq!(
            blocks(&text),
            vec![Block::Diff {
                text: diff.to_string()
            }]
        );
        assert!(blocks("```diff\n-a\n+b\n```").is_empty());
    }

    #[test]
    fn unknown_languages_have_no_extension() {
        assert_eq!(
            blocks("```\nls -la\n```"),
            vec![Block::Code {
                extension: None,
                path: None,
                body: "ls -la\n".to_string()
            }]
        );
    }

    #[test]
    fn paths_need_an_extension_and_no_spaces() {
        assert!(looks_like_path("src/math.ts"));
        assert!(looks_like_path("Makefile.am"));
        assert!(!looks_like_path("version 1.5"));
        assert!(!looks_like_path("1.5"));
        assert!(!looks_like_path("http://x.com/a.js"));
        assert!(!looks_like_path("/etc/passwd.conf"));
        assert!(!looks_like_path("README"));
        assert_eq!(path_line("File: `src/a.rs`:"), Some("src/a.rs".to_string()));
        assert_eq!(path_line("### ./pkg/a.go"), Some("pkg/a.go".to_string()));
    }
}
