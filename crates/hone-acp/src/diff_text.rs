//! The old and new text of each file in a unified diff (hone's `diff.proposed`), for ACP's
//! diff content: built from the diff itself, so it shows what the edit changed in the text
//! it was planned on (an editor's unsaved buffer), never the disk. Each file's text is its
//! hunks, context included, one after the other, as agents' snippet diffs are.

/// One file's part of a diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileText {
    /// The file's path as the diff names it (relative to the project).
    pub(crate) path: String,
    /// The hunks' text before the change; `None` for a new file.
    pub(crate) old: Option<String>,
    /// The hunks' text after the change.
    pub(crate) new: String,
}

/// Every file `diff` changes (deleted files left out), with its hunks' old and new text.
/// A hunk's line counts say where it ends, so a removed `-- x` line followed by an added
/// `++ y` line is never taken for the next file's header.
pub(crate) fn file_texts(diff: &str) -> Vec<FileText> {
    let lines: Vec<&str> = diff.lines().collect();
    let mut files: Vec<FileText> = Vec::new();
    // Old and new lines left in the hunk being read.
    let mut left = (0_usize, 0_usize);
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index];
        index += 1;
        if left == (0, 0) {
            let next = lines.get(index).copied().unwrap_or_default();
            if let (Some(old), Some(new)) = (line.strip_prefix("--- "), next.strip_prefix("+++ ")) {
                files.push(FileText {
                    path: new.trim().trim_start_matches("b/").to_string(),
                    old: (old.trim() != "/dev/null").then(String::new),
                    new: String::new(),
                });
                index += 1;
            } else if let Some(counts) = hunk_counts(line) {
                left = counts;
            }
            continue;
        }
        let Some(file) = files.last_mut() else {
            continue;
        };
        let (in_old, in_new) = match line.chars().next() {
            Some('-') => (true, false),
            Some('+') => (false, true),
            // `\ No newline at end of file` belongs to no side.
            Some('\\') => continue,
            _ => (true, true),
        };
        let text = line.get(1..).unwrap_or_default();
        if in_old {
            left.0 = left.0.saturating_sub(1);
            if let Some(old) = file.old.as_mut() {
                old.push_str(text);
                old.push('\n');
            }
        }
        if in_new {
            left.1 = left.1.saturating_sub(1);
            file.new.push_str(text);
            file.new.push('\n');
        }
    }
    files.retain(|file| file.path != "/dev/null");
    files
}

/// The old and new line counts of a hunk header (`@@ -1,3 +1,4 @@`; a missing count is 1).
fn hunk_counts(line: &str) -> Option<(usize, usize)> {
    let mut ranges = line.strip_prefix("@@ ")?.split_whitespace();
    let count = |range: &str| -> Option<usize> {
        match range.split_once(',') {
            Some((_, count)) => count.parse().ok(),
            None => Some(1),
        }
    };
    let old = count(ranges.next()?.strip_prefix('-')?)?;
    let new = count(ranges.next()?.strip_prefix('+')?)?;
    Some((old, new))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_file_gets_its_hunks_old_and_new_text() {
        let diff = "--- a/greet.txt\n+++ b/greet.txt\n@@ -1 +1 @@\n-hello from the buffer\n+hello from hone\n\
                    --- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n\
                    --- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n\
                    --- a/list.txt\n+++ b/list.txt\n@@ -1,3 +1,3 @@\n one\n--- two\n+++ 2\n three\n";
        let files = file_texts(diff);
        assert_eq!(
            files,
            [
                FileText {
                    path: "greet.txt".into(),
                    old: Some("hello from the buffer\n".into()),
                    new: "hello from hone\n".into(),
                },
                FileText {
                    path: "new.txt".into(),
                    old: None,
                    new: "a\nb\n".into(),
                },
                FileText {
                    path: "list.txt".into(),
                    old: Some("one\n-- two\nthree\n".into()),
                    new: "one\n++ 2\nthree\n".into(),
                },
            ]
        );
        assert!(file_texts("").is_empty());
    }
}
