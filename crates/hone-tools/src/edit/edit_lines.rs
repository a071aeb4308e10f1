//! `edit_lines`: replace, delete or insert lines by the numbers read_file showed.

use hone_protocol::ToolSpec;
use serde_json::{Value, json};

use crate::edit::lines::{LineBuffer, split_lines};
use crate::edit::target::{ReadRule, existing_text, modify, plural};
use crate::{Args, EditPlan, Plan, Tool, ToolContext, ToolError, ToolErrorKind, ToolKind};

const USAGE: &str = "{path, start_line, end_line, content}";

/// `edit_lines`: line-range replacement.
pub(crate) struct EditLines;

impl Tool for EditLines {
    fn name(&self) -> &'static str {
        "edit_lines"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: "Replace lines start_line..end_line (1-based, inclusive, as read_file \
                          numbered them) with content. content \"\" deletes the lines. To insert \
                          without replacing, set start_line = end_line + 1: the content goes \
                          before line start_line (start_line = line count + 1 appends). The file \
                          must have been read first, and line numbers shift after each edit: \
                          read it again before another edit_lines."
                .to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File path relative to the project root."},
                    "start_line": {"type": "integer", "description": "First line to replace (1-based)."},
                    "end_line": {"type": "integer", "description": "Last line to replace (inclusive); start_line - 1 to insert."},
                    "content": {"type": "string", "description": "The new lines (without line numbers)."}
                },
                "required": ["path", "start_line", "end_line", "content"]
            }),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Write
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), USAGE, arguments)?;
        let given = args.string("path")?;
        let start = to_usize(args.integer("start_line")?);
        let end = to_usize(args.integer("end_line")?);
        let content = args.string("content")?;
        let rule = ReadRule::Required(
            "edit_lines uses line numbers, which must come from the file's current content",
        );
        let target = existing_text(context, &given, rule, "")?;
        let path = target.path.relative.clone();
        let mut buffer = LineBuffer::parse(&target.state.content);
        let total = buffer.len();
        check_range(&path, start, end, total)?;
        let new_lines = split_lines(&content);
        let inserting = start == end + 1;
        if inserting && new_lines.is_empty() {
            return Err(ToolError::invalid(format!(
                "start_line {start} = end_line + 1 inserts content, but content is empty; give \
                 the lines to insert, or an end_line >= start_line to replace or delete lines"
            )));
        }
        let removed = end + 1 - start;
        let added = new_lines.len();
        buffer.splice(start - 1..end, new_lines);
        let after = buffer.render();
        if after == target.state.content {
            return Err(ToolError::new(
                ToolErrorKind::EditFailed,
                format!(
                    "content is identical to lines {start}–{end} of {path}; nothing would change"
                ),
            ));
        }
        let summary = summary(&path, start, end, removed, added);
        Ok(Plan::Edit(EditPlan {
            summary,
            changes: vec![modify(target, after)?],
            destructive: None,
        }))
    }
}

fn to_usize(value: u64) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}

fn check_range(path: &str, start: usize, end: usize, total: usize) -> Result<(), ToolError> {
    let problem = if start == 0 {
        Some("line numbers start at 1".to_string())
    } else if start > total + 1 {
        Some(format!("start_line {start} is past the end"))
    } else if end > total {
        Some(format!("end_line {end} is past the end"))
    } else if end + 1 < start {
        Some(format!(
            "end_line {end} is before start_line {start} (only end_line = start_line - 1, \
             which inserts, may be smaller)"
        ))
    } else {
        None
    };
    match problem {
        None => Ok(()),
        Some(problem) => Err(ToolError::invalid(format!(
            "{problem}: {path} has {}. Replace lines with 1 <= start_line <= end_line <= {total}, \
             or insert with start_line = end_line + 1 (start_line {} appends).",
            plural(total, "line"),
            total + 1
        ))),
    }
}

/// One line for the user and the model, including how later line numbers move.
fn summary(path: &str, start: usize, end: usize, removed: usize, added: usize) -> String {
    let action = if start == end + 1 {
        format!(
            "insert {} before line {start} of {path}",
            plural(added, "line")
        )
    } else if added == 0 {
        format!("delete lines {start}–{end} of {path}")
    } else {
        format!(
            "replace lines {start}–{end} of {path} with {}",
            plural(added, "line")
        )
    };
    let shift = added as i64 - removed as i64;
    if shift == 0 {
        action
    } else {
        format!("{action} (lines after {end} move by {shift:+})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_outside_the_file_state_its_line_count() {
        let error = check_range("a.rs", 5, 9, 7).unwrap_err();
        assert!(
            error
                .message
                .contains("end_line 9 is past the end: a.rs has 7 lines"),
            "{}",
            error.message
        );
        assert!(check_range("a.rs", 8, 7, 7).is_ok());
        assert!(check_range("a.rs", 0, 1, 7).is_err());
        assert!(check_range("a.rs", 5, 3, 7).is_err());
    }

    #[test]
    fn summaries_say_how_later_lines_move() {
        assert_eq!(
            summary("a.rs", 3, 4, 2, 5),
            "replace lines 3–4 of a.rs with 5 lines (lines after 4 move by +3)"
        );
        assert_eq!(
            summary("a.rs", 3, 2, 0, 1),
            "insert 1 line before line 3 of a.rs (lines after 2 move by +1)"
        );
        assert_eq!(
            summary("a.rs", 1, 2, 2, 0),
            "delete lines 1–2 of a.rs (lines after 2 move by -2)"
        );
    }
}
