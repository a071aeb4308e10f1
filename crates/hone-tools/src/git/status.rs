//! `git_status`: the branch and the changed files, grouped the way the model acts on them.

use hone_protocol::ToolSpec;
use serde_json::{Value, json};

use super::{git_ok, project_path, project_prefix};
use crate::{Args, Plan, Tool, ToolContext, ToolError, ToolKind, ToolOutput};

/// Entries listed per section before the rest is only counted.
const MAX_ENTRIES_PER_SECTION: usize = 100;

/// The `git_status` tool.
pub(crate) struct GitStatus;

impl Tool for GitStatus {
    fn name(&self) -> &'static str {
        "git_status"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: "Show the current git branch and the project's changed files: staged, \
                          not staged, untracked and conflicted."
                .to_string(),
            parameters: json!({"type": "object", "properties": {}}),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        Args::new(self.name(), "{}", arguments)?;
        let root = context.root();
        let prefix = project_prefix(root)?;
        let porcelain = git_ok(root, &["status", "--porcelain=v1", "-b", "-z", "--", "."])?;
        Ok(Plan::Done(ToolOutput::ok(format_status(
            &porcelain, &prefix,
        ))))
    }
}

/// The changed files, sorted into what the model can do with them.
#[derive(Debug, Default)]
struct Sections {
    staged: Vec<String>,
    unstaged: Vec<String>,
    untracked: Vec<String>,
    conflicts: Vec<String>,
}

/// Formats `git status --porcelain=v1 -b -z` output; `prefix` is stripped from paths.
fn format_status(porcelain: &str, prefix: &str) -> String {
    let mut fields = porcelain.split('\0').filter(|field| !field.is_empty());
    let mut text = String::new();
    let mut sections = Sections::default();
    while let Some(field) = fields.next() {
        if let Some(branch) = field.strip_prefix("## ") {
            text.push_str(&describe_branch(branch));
            text.push('\n');
            continue;
        }
        let (Some(code), Some(path)) = (field.get(..2), field.get(3..)) else {
            continue;
        };
        let mut codes = code.chars();
        let (index, worktree) = (codes.next().unwrap_or(' '), codes.next().unwrap_or(' '));
        let path = project_path(path, prefix);
        // Renames and copies are followed by the original path.
        let shown = if matches!(index, 'R' | 'C') || matches!(worktree, 'R' | 'C') {
            let from = fields.next().map_or("?", |from| project_path(from, prefix));
            format!("{from} -> {path}")
        } else {
            path.to_string()
        };
        if code == "??" {
            sections.untracked.push(shown);
        } else if let Some(conflict) = conflict(code) {
            sections.conflicts.push(format!("{conflict}: {shown}"));
        } else {
            if let Some(change) = change(index) {
                sections.staged.push(format!("{change}: {shown}"));
            }
            if let Some(change) = change(worktree) {
                sections.unstaged.push(format!("{change}: {shown}"));
            }
        }
    }
    let Sections {
        staged,
        unstaged,
        untracked,
        conflicts,
    } = sections;
    if staged.is_empty() && unstaged.is_empty() && untracked.is_empty() && conflicts.is_empty() {
        text.push_str("nothing to commit, working tree clean\n");
        return text;
    }
    push_section(&mut text, "conflicts (resolve, then commit)", &conflicts);
    push_section(&mut text, "staged", &staged);
    push_section(&mut text, "not staged", &unstaged);
    push_section(&mut text, "untracked", &untracked);
    text.push_str(
        "Next: git_diff shows unstaged changes (staged: true for staged ones); git_commit \
         {message, files?} commits.\n",
    );
    text
}

/// `main...origin/main [ahead 1]` → `branch main, tracking origin/main [ahead 1]`.
fn describe_branch(branch: &str) -> String {
    if let Some(name) = branch.strip_prefix("No commits yet on ") {
        format!("branch {name} (no commits yet)")
    } else if branch.starts_with("HEAD (no branch)") {
        "detached HEAD (not on a branch)".to_string()
    } else if let Some((name, upstream)) = branch.split_once("...") {
        format!("branch {name}, tracking {upstream}")
    } else {
        format!("branch {branch}")
    }
}

fn change(code: char) -> Option<&'static str> {
    match code {
        'M' => Some("modified"),
        'T' => Some("type changed"),
        'A' => Some("added"),
        'D' => Some("deleted"),
        'R' => Some("renamed"),
        'C' => Some("copied"),
        _ => None,
    }
}

fn conflict(code: &str) -> Option<&'static str> {
    match code {
        "DD" => Some("both deleted"),
        "AU" => Some("added by us"),
        "UD" => Some("deleted by them"),
        "UA" => Some("added by them"),
        "DU" => Some("deleted by us"),
        "AA" => Some("both added"),
        "UU" => Some("both modified"),
        _ => None,
    }
}

fn push_section(text: &mut String, title: &str, entries: &[String]) {
    if entries.is_empty() {
        return;
    }
    text.push_str(&format!("{title}:\n"));
    for entry in entries.iter().take(MAX_ENTRIES_PER_SECTION) {
        text.push_str(&format!("  {entry}\n"));
    }
    if entries.len() > MAX_ENTRIES_PER_SECTION {
        text.push_str(&format!(
            "  ... and {} more\n",
            entries.len() - MAX_ENTRIES_PER_SECTION
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_grouped_by_what_to_do_with_them() {
        let porcelain = "## main...origin/main [ahead 1]\0M  src/a.rs\0 M src/b.rs\0MM c.rs\0\
                         R  new.rs\0old.rs\0?? notes.md\0UU merge.rs\0";
        let text = format_status(porcelain, "");
        assert_eq!(
            text,
            "branch main, tracking origin/main [ahead 1]\n\
             conflicts (resolve, then commit):\n  both modified: merge.rs\n\
             staged:\n  modified: src/a.rs\n  modified: c.rs\n  renamed: old.rs -> new.rs\n\
             not staged:\n  modified: src/b.rs\n  modified: c.rs\n\
             untracked:\n  notes.md\n\
             Next: git_diff shows unstaged changes (staged: true for staged ones); git_commit \
             {message, files?} commits.\n"
        );
    }

    #[test]
    fn a_clean_tree_says_so() {
        assert_eq!(
            format_status("## No commits yet on main\0", ""),
            "branch main (no commits yet)\nnothing to commit, working tree clean\n"
        );
    }

    #[test]
    fn paths_are_shown_relative_to_the_project() {
        let text = format_status("## main\0 M web/src/a.ts\0", "web/");
        assert!(text.contains("  modified: src/a.ts\n"), "{text}");
    }

    #[test]
    fn long_sections_are_capped() {
        let porcelain: String = (0..150).map(|n| format!("?? f{n}\0")).collect();
        let text = format_status(&porcelain, "");
        assert!(text.contains("  ... and 50 more\n"), "{text}");
    }
}
