//! Showing an edit plan as a unified diff, and counting its changed lines.

use similar::{ChangeTag, TextDiff};

use crate::{EditPlan, FileChange};

/// The plan as a unified diff (3 lines of context; `--- a/path` / `+++ b/path` headers,
/// `/dev/null` for created and deleted files, `rename from`/`rename to` for moves).
/// Line endings are shown as `\n`; binary files are named, not shown.
pub fn unified_diff(plan: &EditPlan) -> String {
    let mut out = String::new();
    for change in &plan.changes {
        let (old, new) = sides(change);
        let old_name = change
            .before
            .as_ref()
            .map_or("/dev/null".to_string(), |_| format!("a/{}", change.path));
        let new_path = change.rename_to.as_deref().unwrap_or(&change.path);
        let new_name = change
            .after
            .as_ref()
            .map_or("/dev/null".to_string(), |_| format!("b/{new_path}"));
        if let Some(to) = &change.rename_to {
            out.push_str(&format!("rename from {}\nrename to {to}\n", change.path));
        }
        out.push_str(&mode_lines(change));
        if old.contains('\0') || new.contains('\0') {
            if old != new {
                out.push_str(&format!(
                    "Binary files {old_name} and {new_name} differ ({} → {})\n",
                    short_hash(change.before.as_ref().map(|before| before.hash.clone())),
                    short_hash(after_hash(change)),
                ));
            }
            continue;
        }
        let diff = TextDiff::from_lines(old, new);
        let text = diff
            .unified_diff()
            .context_radius(3)
            .header(&old_name, &new_name)
            .to_string();
        out.push_str(&text.replace("\r\n", "\n"));
    }
    out
}

/// Lines added and removed by the plan.
pub fn diff_stats(plan: &EditPlan) -> (usize, usize) {
    plan.changes
        .iter()
        .map(|change| {
            let (old, new) = sides(change);
            TextDiff::from_lines(old, new).iter_all_changes().fold(
                (0, 0),
                |(added, removed), line| match line.tag() {
                    ChangeTag::Insert => (added + 1, removed),
                    ChangeTag::Delete => (added, removed + 1),
                    ChangeTag::Equal => (added, removed),
                },
            )
        })
        .fold((0, 0), |(added, removed), (more_added, more_removed)| {
            (added + more_added, removed + more_removed)
        })
}

/// Git's lines for a change of permissions by a command (`old mode` / `new mode`, or
/// `new file mode` for an executable file it created).
fn mode_lines(change: &FileChange) -> String {
    let Some(written) = change.written else {
        return String::new();
    };
    let new = written.mode & 0o777;
    match change.before.as_ref().map(|before| before.mode) {
        Some(Some(old)) if old & 0o777 != new => {
            format!("old mode 100{:o}\nnew mode 100{new:o}\n", old & 0o777)
        }
        None if change.after.is_some() && new & 0o111 != 0 => {
            format!("new file mode 100{new:o}\n")
        }
        _ => String::new(),
    }
}

/// The SHA-256 of what `change` writes, when it writes.
fn after_hash(change: &FileChange) -> Option<String> {
    let after = change.after.as_ref()?;
    crate::files::encode(&change.path, after, change.after_encoding())
        .ok()
        .map(|bytes| crate::files::hash_bytes(&bytes))
}

/// The first 12 hex digits of a hash, `none` for an absent file.
fn short_hash(hash: Option<String>) -> String {
    hash.map_or_else(
        || "none".to_string(),
        |hash| format!("sha256 {}", &hash[..hash.len().min(12)]),
    )
}

fn sides(change: &FileChange) -> (&str, &str) {
    (
        change
            .before
            .as_ref()
            .map_or("", |before| before.content.as_str()),
        change.after.as_deref().unwrap_or(""),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::file_state;

    fn plan(changes: Vec<FileChange>) -> EditPlan {
        EditPlan {
            summary: String::new(),
            changes,
            destructive: None,
        }
    }

    #[test]
    fn edits_show_git_style_headers_and_three_lines_of_context() {
        let before = "1\n2\n3\n4\n5\n6\n7\n8\n";
        let plan = plan(vec![FileChange {
            path: "src/a.rs".into(),
            before: Some(file_state(before.as_bytes())),
            after: Some(before.replace("5\n", "five\n")),
            rename_to: None,
            written: None,
        }]);
        assert_eq!(
            unified_diff(&plan),
            "--- a/src/a.rs\n+++ b/src/a.rs\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
        );
        assert_eq!(diff_stats(&plan), (1, 1));
    }

    #[test]
    fn created_and_deleted_files_use_dev_null() {
        let plan = plan(vec![
            FileChange {
                path: "new.txt".into(),
                before: None,
                after: Some("hi".into()),
                rename_to: None,
                written: None,
            },
            FileChange {
                path: "old.txt".into(),
                before: Some(file_state(b"bye\n")),
                after: None,
                rename_to: None,
                written: None,
            },
        ]);
        let diff = unified_diff(&plan);
        assert!(
            diff.starts_with(
                "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hi\n\\ No newline at end of file\n"
            ),
            "{diff}"
        );
        assert!(
            diff.ends_with("--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"),
            "{diff}"
        );
        assert_eq!(diff_stats(&plan), (1, 1));
    }

    #[test]
    fn moves_name_both_paths() {
        let plan = plan(vec![FileChange {
            path: "a.txt".into(),
            before: Some(file_state(b"x\n")),
            after: Some("x\n".into()),
            rename_to: Some("b/a.txt".into()),
            written: None,
        }]);
        assert_eq!(
            unified_diff(&plan),
            "rename from a.txt\nrename to b/a.txt\n"
        );
    }
}
