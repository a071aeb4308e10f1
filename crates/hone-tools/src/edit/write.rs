//! `write_file`, `delete_file` and `move_file`: whole-file changes.

use hone_protocol::ToolSpec;
use serde_json::{Value, json};

use crate::edit::lines::LineBuffer;
use crate::edit::natural::lost_definitions;
use crate::edit::target::{ReadRule, Target, check_fresh, existing_any, modify, plural, resolve};
use crate::files::{line_count, not_found, read_text_in};
use crate::{
    Args, EditPlan, FileChange, Plan, Tool, ToolContext, ToolError, ToolErrorKind, ToolKind,
};

/// Files with fewer lines than this are never flagged as destructive rewrites.
const DESTRUCTIVE_MIN_LINES: usize = 10;

/// Phrases models write instead of code they did not want to repeat.
const PLACEHOLDERS: &[&str] = &[
    "rest of the code",
    "rest of the file",
    "existing code",
    "remains unchanged",
    "unchanged code",
    "code omitted",
];

/// `write_file`: create a file or replace its whole content.
pub(crate) struct WriteFile;

impl Tool for WriteFile {
    fn name(&self) -> &'static str {
        "write_file"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: "Create a file, or replace the whole content of an existing one (read \
                          it first). Write the complete content: nothing is merged. To change \
                          part of a file, use edit_file. Parent directories are created."
                .to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File path relative to the project root."},
                    "content": {"type": "string", "description": "The complete new content."}
                },
                "required": ["path", "content"]
            }),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Write
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{path, content}", arguments)?;
        let given = args.string("path")?;
        let content = args.string("content")?;
        let path = resolve(context, &given)?;
        if path.absolute.is_dir() {
            return Err(ToolError::invalid(format!(
                "`{given}` is a directory; give the path of a file inside it"
            )));
        }
        if !path.absolute.exists() {
            let summary = format!(
                "create {} ({})",
                path.relative,
                plural(line_count(&content), "line")
            );
            return Ok(Plan::Edit(EditPlan {
                summary,
                changes: vec![FileChange {
                    path: path.relative,
                    before: None,
                    after: Some(content),
                    rename_to: None,
                    written: None,
                }],
                destructive: None,
            }));
        }
        let state = read_text_in(context, &path)?;
        let content = LineBuffer::parse(&state.content).adapt_endings(&content);
        if context.reads().seen(&path.relative).is_some() {
            check_fresh(context, &path.relative, &state.hash, ReadRule::IfRead)?;
        } else {
            unread_keeps_everything(context, &path.relative, &state.content, &content)?;
        }
        if content == state.content {
            return Err(ToolError::new(
                ToolErrorKind::EditFailed,
                format!(
                    "{} already has exactly this content; nothing to write",
                    path.relative
                ),
            ));
        }
        let (old_lines, new_lines) = (line_count(&state.content), line_count(&content));
        let destructive = destructive(&path.relative, &state.content, &content);
        let summary = format!(
            "overwrite {} ({}, was {})",
            path.relative,
            plural(new_lines, "line"),
            old_lines
        );
        let target = Target { path, state };
        Ok(Plan::Edit(EditPlan {
            summary,
            changes: vec![modify(target, content)?],
            destructive,
        }))
    }
}

/// A whole-file write to a file the model never read is allowed when it only adds: every
/// definition of the file stays with the same text (lines, without a parser for the
/// language). Otherwise the refusal names what would be lost.
fn unread_keeps_everything(
    context: &ToolContext,
    relative: &str,
    before: &str,
    after: &str,
) -> Result<(), ToolError> {
    let lost = lost_definitions(context.code_mapper(), relative, before, after);
    if lost.is_empty() {
        return Ok(());
    }
    Err(ToolError::new(
        ToolErrorKind::NotRead,
        format!(
            "read {relative} with read_file first: write_file replaces the whole file, and \
             this content would lose or change what is in it ({}); to change part of it, use \
             edit_file",
            lost.join(", ")
        ),
    ))
}

/// Why a rewrite looks like lost code: most lines gone, or placeholder comments.
fn destructive(path: &str, before: &str, after: &str) -> Option<String> {
    let (old_lines, new_lines) = (line_count(before), line_count(after));
    if old_lines < DESTRUCTIVE_MIN_LINES {
        return None;
    }
    if new_lines * 2 < old_lines {
        return Some(format!(
            "write_file would cut {path} from {old_lines} to {new_lines} lines, removing more \
             than half of it; write_file replaces the whole file, so to change only part of it \
             use edit_file instead"
        ));
    }
    let lower_before = before.to_lowercase();
    let lower_after = after.to_lowercase();
    PLACEHOLDERS
        .iter()
        .find(|phrase| lower_after.contains(*phrase) && !lower_before.contains(*phrase))
        .map(|phrase| {
            format!(
                "the new content of {path} contains \"{phrase}\", which looks like a placeholder \
                 for code that would be lost (write_file writes exactly what it is given); use \
                 edit_file to change only part of the file"
            )
        })
}

/// `delete_file`: remove one file.
pub(crate) struct DeleteFile;

impl Tool for DeleteFile {
    fn name(&self) -> &'static str {
        "delete_file"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: "Delete one file (not a directory).".to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File path relative to the project root."}
                },
                "required": ["path"]
            }),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Write
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{path}", arguments)?;
        let given = args.string("path")?;
        let target = existing_any(context, &given, "")?;
        let path = target.path.relative;
        Ok(Plan::Edit(EditPlan {
            summary: format!("delete {path}"),
            changes: vec![FileChange {
                path,
                before: Some(target.state),
                after: None,
                rename_to: None,
                written: None,
            }],
            destructive: None,
        }))
    }
}

/// `move_file`: rename or move one file.
pub(crate) struct MoveFile;

impl Tool for MoveFile {
    fn name(&self) -> &'static str {
        "move_file"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: "Move or rename one file. `to` must not exist yet; missing parent \
                          directories are created."
                .to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "from": {"type": "string", "description": "Current file path relative to the project root."},
                    "to": {"type": "string", "description": "New file path relative to the project root."}
                },
                "required": ["from", "to"]
            }),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Write
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{from, to}", arguments)?;
        let from = args.string("from")?;
        let to_given = args.string("to")?;
        let to = resolve(context, &to_given)?;
        let source = resolve(context, &from)?;
        if !source.absolute.exists() {
            return Err(not_found(context, &from, ""));
        }
        if source.relative == to.relative {
            return Err(ToolError::invalid(format!(
                "from and to are the same file ({}); give a different destination",
                to.relative
            )));
        }
        if to.absolute.exists() {
            let what = if to.absolute.is_dir() {
                "is a directory; give the full destination file path (directory plus file name)"
            } else {
                "already exists; delete it first or choose another name"
            };
            return Err(ToolError::new(
                ToolErrorKind::EditFailed,
                format!("`{}` {what}", to.relative),
            ));
        }
        let target = existing_any(context, &from, "")?;
        let content = target.state.content.clone();
        Ok(Plan::Edit(EditPlan {
            summary: format!("move {} → {}", target.path.relative, to.relative),
            changes: vec![FileChange {
                path: target.path.relative,
                before: Some(target.state),
                after: Some(content),
                rename_to: Some(to.relative),
                written: None,
            }],
            destructive: None,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cutting_most_of_a_file_is_destructive() {
        let before = "line\n".repeat(40);
        let reason = destructive("a.rs", &before, "line\n").unwrap();
        assert!(reason.contains("from 40 to 1 lines"), "{reason}");
        assert!(reason.contains("use edit_file"), "{reason}");
        assert!(destructive("a.rs", &before, &"other\n".repeat(30)).is_none());
    }

    #[test]
    fn placeholder_comments_are_destructive() {
        let before = "fn a() {}\n".repeat(12);
        let after = format!("{before}// ... rest of the code ...\n");
        assert!(destructive("a.rs", &before, &after).is_some());
    }

    #[test]
    fn small_files_are_never_destructive() {
        assert!(destructive("a.rs", "a\nb\nc\n", "").is_none());
    }
}
