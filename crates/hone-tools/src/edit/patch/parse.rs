//! Parsing unified diffs as models write them: hunk counts are ignored (they are often
//! wrong), `a/`/`b/` prefixes are optional, blank context lines may lack their space, the
//! patch may sit in a Markdown fence, and git's extended headers mark creations, deletions
//! and renames.

use crate::ToolError;

/// One line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HunkLine {
    /// Unchanged (` `), present before and after.
    Context(String),
    /// Removed (`-`).
    Remove(String),
    /// Added (`+`).
    Add(String),
}

/// One `@@` hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hunk {
    /// The header as written (`@@ -12,5 +12,7 @@ fn main`), for messages.
    pub(crate) header: String,
    /// The old start line, a hint of where the hunk goes.
    pub(crate) old_start: Option<usize>,
    /// The old line count; `Some(0)` means the hunk inserts after line `old_start`.
    pub(crate) old_count: Option<usize>,
    /// The lines.
    pub(crate) lines: Vec<HunkLine>,
    /// `\ No newline at end of file` followed the old side's last line.
    pub(crate) old_missing_newline: bool,
    /// `\ No newline at end of file` followed the new side's last line.
    pub(crate) new_missing_newline: bool,
}

impl Hunk {
    fn new(header: &str) -> Self {
        let ranges = header
            .trim_start_matches('@')
            .split("@@")
            .next()
            .unwrap_or_default();
        let old = ranges
            .split_whitespace()
            .find_map(|token| token.strip_prefix('-'));
        let mut numbers = old.unwrap_or_default().splitn(2, ',');
        let old_start = numbers.next().and_then(|start| start.trim().parse().ok());
        let old_count = numbers.next().and_then(|count| count.trim().parse().ok());
        Self {
            header: header.trim().to_string(),
            old_start,
            old_count,
            lines: Vec::new(),
            old_missing_newline: false,
            new_missing_newline: false,
        }
    }

    /// The lines the file has before the hunk (context and removed), in order.
    pub(crate) fn old_lines(&self) -> Vec<String> {
        self.lines
            .iter()
            .filter_map(|line| match line {
                HunkLine::Context(text) | HunkLine::Remove(text) => Some(text.clone()),
                HunkLine::Add(_) => None,
            })
            .collect()
    }

    /// The lines the file has after the hunk (context and added), in order.
    pub(crate) fn new_lines(&self) -> Vec<String> {
        self.lines
            .iter()
            .filter_map(|line| match line {
                HunkLine::Context(text) | HunkLine::Add(text) => Some(text.clone()),
                HunkLine::Remove(_) => None,
            })
            .collect()
    }
}

/// The changes to one file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct FilePatch {
    /// The path before (`None`: `/dev/null`, the file is created).
    pub(crate) old_path: Option<String>,
    /// The path after (`None`: `/dev/null`, the file is deleted).
    pub(crate) new_path: Option<String>,
    /// The hunks, in order.
    pub(crate) hunks: Vec<Hunk>,
}

/// Where the parser is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between files, or after text that is not part of a hunk.
    Outside,
    /// After `diff --git`, before `---`/`+++`: extended headers may follow.
    GitHeader,
    /// After `---`/`+++`: a hunk (with or without `@@`) follows.
    FileHeader,
    /// Inside a hunk.
    Hunk,
}

/// Parses `text` into file patches.
pub(crate) fn parse(text: &str) -> Result<Vec<FilePatch>, ToolError> {
    let text = text.replace("\r\n", "\n");
    // A hunk line always starts with ` `, `+` or `-`, so a fence line is never patch content.
    let lines: Vec<&str> = text
        .split('\n')
        .filter(|line| !line.starts_with("```"))
        .collect();
    let mut files: Vec<FilePatch> = Vec::new();
    let mut state = State::Outside;
    // Bare empty lines at the end of the current hunk (a blank line after a patch is not
    // context, but one inside is).
    let mut bare_tail = 0usize;
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index];
        index += 1;
        if let Some(rest) = line.strip_prefix("diff --git ") {
            close_hunk(&mut files, &mut bare_tail);
            let (old, new) = split_git_paths(rest);
            let (old_path, new_path) = strip_prefixes(Some(old), Some(new));
            files.push(FilePatch {
                old_path,
                new_path,
                hunks: Vec::new(),
            });
            state = State::GitHeader;
            continue;
        }
        let next_is_new_header = lines
            .get(index)
            .is_some_and(|next| next.starts_with("+++ "));
        if let (Some(old), true) = (line.strip_prefix("--- "), next_is_new_header) {
            close_hunk(&mut files, &mut bare_tail);
            let new = &lines[index][4..];
            index += 1;
            let (old_path, new_path) = strip_prefixes(header_path(old), header_path(new));
            match (state, files.last_mut()) {
                (State::GitHeader, Some(file)) => {
                    file.old_path = old_path;
                    file.new_path = new_path;
                }
                _ => files.push(FilePatch {
                    old_path,
                    new_path,
                    hunks: Vec::new(),
                }),
            }
            state = State::FileHeader;
            continue;
        }
        if let Some(directive) = line.strip_prefix("*** ") {
            close_hunk(&mut files, &mut bare_tail);
            state = codex_directive(directive.trim(), &mut files);
            continue;
        }
        if line.starts_with("@@") {
            close_hunk(&mut files, &mut bare_tail);
            let Some(file) = files.last_mut() else {
                return Err(no_file_header(index));
            };
            file.hunks.push(Hunk::new(line));
            state = State::Hunk;
            continue;
        }
        match state {
            State::GitHeader => git_header(line, files.last_mut()),
            State::FileHeader if line.starts_with([' ', '+', '-']) => {
                // A hunk without an `@@` header: its position comes from its context.
                if let Some(file) = files.last_mut() {
                    file.hunks.push(Hunk::new("@@"));
                }
                state = State::Hunk;
                index -= 1;
            }
            State::Hunk => {
                if !hunk_line(line, files.last_mut(), &mut bare_tail) {
                    close_hunk(&mut files, &mut bare_tail);
                    state = State::Outside;
                }
            }
            State::FileHeader | State::Outside => {}
        }
    }
    close_hunk(&mut files, &mut bare_tail);
    if files.is_empty() {
        return Err(ToolError::invalid(
            "the patch has no file headers. Give a unified diff: for each file a `--- a/path` \
             line, a `+++ b/path` line, then `@@ -12,3 +12,4 @@` hunks whose lines start with \
             ` ` (unchanged), `-` (removed) or `+` (added). Use `--- /dev/null` to create a file \
             and `+++ /dev/null` to delete one.",
        ));
    }
    if let Some(file) = files
        .iter()
        .find(|file| file.old_path.is_none() && file.new_path.is_none())
    {
        let hunk = file.hunks.first().map_or("", |hunk| hunk.header.as_str());
        return Err(ToolError::invalid(format!(
            "a file in the patch has /dev/null as both its old and new path (before `{hunk}`); \
             name the file in its `---` or `+++` line"
        )));
    }
    Ok(files)
}

/// Adds one hunk line; `false` when `line` is not part of a hunk.
fn hunk_line(line: &str, file: Option<&mut FilePatch>, bare_tail: &mut usize) -> bool {
    let Some(hunk) = file.and_then(|file| file.hunks.last_mut()) else {
        return false;
    };
    let (kind, text) = match line.chars().next() {
        None => {
            hunk.lines.push(HunkLine::Context(String::new()));
            *bare_tail += 1;
            return true;
        }
        Some('\\') => {
            match hunk.lines.last() {
                Some(HunkLine::Remove(_)) => hunk.old_missing_newline = true,
                Some(HunkLine::Add(_)) => hunk.new_missing_newline = true,
                Some(HunkLine::Context(_)) => {
                    hunk.old_missing_newline = true;
                    hunk.new_missing_newline = true;
                }
                None => {}
            }
            return true;
        }
        Some(first) => (first, line[first.len_utf8()..].to_string()),
    };
    let parsed = match kind {
        ' ' => HunkLine::Context(text),
        '-' => HunkLine::Remove(text),
        '+' => HunkLine::Add(text),
        _ => return false,
    };
    hunk.lines.push(parsed);
    *bare_tail = 0;
    true
}

/// Ends the current hunk: drops bare empty lines that trail it.
fn close_hunk(files: &mut [FilePatch], bare_tail: &mut usize) {
    if let Some(hunk) = files.last_mut().and_then(|file| file.hunks.last_mut()) {
        let keep = hunk.lines.len().saturating_sub(*bare_tail);
        hunk.lines.truncate(keep);
    }
    *bare_tail = 0;
}

/// The file lines of Codex's patch format (`*** Update File: path`, `*** Add File: path`,
/// `*** Delete File: path`, `*** Move to: path`), which models trained on it send to any
/// tool called apply_patch; its hunks are unified-diff lines. Returns the state after it.
fn codex_directive(directive: &str, files: &mut Vec<FilePatch>) -> State {
    let file = |old: Option<&str>, new: Option<&str>| FilePatch {
        old_path: old.map(|path| unquote(path.trim())),
        new_path: new.map(|path| unquote(path.trim())),
        hunks: Vec::new(),
    };
    if let Some(path) = directive.strip_prefix("Update File:") {
        files.push(file(Some(path), Some(path)));
        State::FileHeader
    } else if let Some(path) = directive.strip_prefix("Add File:") {
        let mut created = file(None, Some(path));
        created.hunks.push(Hunk::new("@@"));
        files.push(created);
        State::Hunk
    } else if let Some(path) = directive.strip_prefix("Delete File:") {
        files.push(file(Some(path), None));
        State::Outside
    } else if let (Some(path), Some(last)) = (directive.strip_prefix("Move to:"), files.last_mut())
    {
        last.new_path = Some(unquote(path.trim()));
        State::FileHeader
    } else {
        // `Begin Patch`, `End Patch`, `End of File`.
        State::Outside
    }
}

/// git's extended headers: creation, deletion, rename.
fn git_header(line: &str, file: Option<&mut FilePatch>) {
    let Some(file) = file else {
        return;
    };
    if line.starts_with("new file mode") {
        file.old_path = None;
    } else if line.starts_with("deleted file mode") {
        file.new_path = None;
    } else if let Some(from) = line.strip_prefix("rename from ") {
        file.old_path = Some(unquote(from.trim()));
    } else if let Some(to) = line.strip_prefix("rename to ") {
        file.new_path = Some(unquote(to.trim()));
    }
}

/// The path of a `---`/`+++` line: no timestamp, unquoted; `None` for `/dev/null`.
fn header_path(rest: &str) -> Option<String> {
    let path = rest.split('\t').next().unwrap_or_default().trim();
    let path = unquote(path);
    (path != "/dev/null" && !path.is_empty()).then_some(path)
}

/// `a/x b/y` of a `diff --git` line.
fn split_git_paths(rest: &str) -> (String, String) {
    let rest = rest.trim();
    match rest.find(" b/") {
        Some(split) => (unquote(&rest[..split]), unquote(&rest[split + 1..])),
        None => {
            let mut parts = rest.splitn(2, ' ');
            let old = parts.next().unwrap_or_default();
            let new = parts.next().unwrap_or(old);
            (unquote(old), unquote(new))
        }
    }
}

/// Strips git's `a/` and `b/` prefixes when the patch uses them.
fn strip_prefixes(old: Option<String>, new: Option<String>) -> (Option<String>, Option<String>) {
    let strip = |path: Option<String>, prefix: &str| {
        path.map(|path| {
            path.strip_prefix(prefix)
                .map_or(path.clone(), str::to_string)
        })
    };
    let old_prefixed = old.as_ref().is_some_and(|path| path.starts_with("a/"));
    let new_prefixed = new.as_ref().is_some_and(|path| path.starts_with("b/"));
    let git_style = match (&old, &new) {
        (Some(_), Some(_)) => old_prefixed && new_prefixed,
        (Some(_), None) => old_prefixed,
        (None, Some(_)) => new_prefixed,
        (None, None) => false,
    };
    if git_style {
        (strip(old, "a/"), strip(new, "b/"))
    } else {
        (old, new)
    }
}

fn unquote(path: &str) -> String {
    match path
        .strip_prefix('"')
        .and_then(|inner| inner.strip_suffix('"'))
    {
        Some(inner) => inner.replace("\\\"", "\"").replace("\\\\", "\\"),
        None => path.to_string(),
    }
}

fn no_file_header(line: usize) -> ToolError {
    ToolError::invalid(format!(
        "line {line} of the patch starts a hunk (`@@`) before any file header; put `--- a/path` \
         and `+++ b/path` lines before the hunks of each file"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_diffs_parse_with_prefixes_stripped() {
        let files = parse(
            "diff --git a/src/a.rs b/src/a.rs\nindex 1..2 100644\n--- a/src/a.rs\n+++ b/src/a.rs\n\
             @@ -1,2 +1,2 @@ fn main\n a\n-b\n+c\n",
        )
        .unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].old_path.as_deref(), Some("src/a.rs"));
        let hunk = &files[0].hunks[0];
        assert_eq!((hunk.old_start, hunk.old_count), (Some(1), Some(2)));
        assert_eq!(hunk.old_lines(), vec!["a", "b"]);
        assert_eq!(hunk.new_lines(), vec!["a", "c"]);
    }

    #[test]
    fn sloppy_patches_are_understood() {
        let patch = "```diff\n--- src/a.rs\n+++ src/a.rs\n@@\n a\n\n-b\n+c\n```\n\n";
        let files = parse(patch).unwrap();
        assert_eq!(files[0].new_path.as_deref(), Some("src/a.rs"));
        let hunk = &files[0].hunks[0];
        assert_eq!(hunk.old_start, None);
        assert_eq!(hunk.old_lines(), vec!["a", "", "b"]);
    }

    #[test]
    fn a_removed_line_starting_with_dashes_is_not_a_header() {
        let files =
            parse("--- a/x.md\n+++ b/x.md\n@@ -1 +1 @@\n--- old rule\n+--- new rule\n").unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].hunks[0].old_lines(), vec!["-- old rule"]);
    }

    #[test]
    fn creation_deletion_and_rename_headers_are_read() {
        let patch = "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n\\ No newline at end of file\n\
                     --- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n\
                     diff --git a/x.rs b/y.rs\nsimilarity index 100%\nrename from x.rs\nrename to y.rs\n";
        let files = parse(patch).unwrap();
        assert_eq!(files.len(), 3);
        assert_eq!(
            (files[0].old_path.as_deref(), files[0].new_path.as_deref()),
            (None, Some("new.txt"))
        );
        assert!(files[0].hunks[0].new_missing_newline);
        assert_eq!(files[1].new_path, None);
        assert_eq!(
            (files[2].old_path.as_deref(), files[2].new_path.as_deref()),
            (Some("x.rs"), Some("y.rs"))
        );
        assert!(files[2].hunks.is_empty());
    }

    #[test]
    fn codex_style_patches_are_understood() {
        let patch = "*** Begin Patch\n*** Update File: src/a.py\n@@ def run():\n     x = 1\n-    return x\n\
                     +    return x + 1\n*** Add File: notes.md\n+# Notes\n*** Delete File: old.py\n\
                     *** Update File: b.py\n*** Move to: lib/b.py\n@@\n-a\n+b\n*** End Patch\n";
        let files = parse(patch).unwrap();
        assert_eq!(files.len(), 4);
        assert_eq!(files[0].new_path.as_deref(), Some("src/a.py"));
        assert_eq!(files[0].hunks[0].old_start, None);
        assert_eq!(
            files[0].hunks[0].new_lines(),
            vec!["    x = 1", "    return x + 1"]
        );
        assert_eq!(files[1].old_path, None);
        assert_eq!(files[1].hunks[0].new_lines(), vec!["# Notes"]);
        assert_eq!(files[2].new_path, None);
        assert_eq!(files[3].new_path.as_deref(), Some("lib/b.py"));
    }

    #[test]
    fn a_hunk_without_a_file_header_is_explained() {
        let error = parse("@@ -1 +1 @@\n-a\n+b\n").unwrap_err();
        assert!(
            error.message.contains("before any file header"),
            "{}",
            error.message
        );
        assert!(parse("just some text\n").is_err());
    }
}
