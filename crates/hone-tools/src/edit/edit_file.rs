//! `edit_file`: replace a piece of text, found exactly or ignoring whitespace.

use hone_protocol::ToolSpec;
use serde_json::{Value, json};

use crate::edit::matching::{Occurrences, replace};
use crate::edit::target::{ReadRule, existing_text, modify, plural};
use crate::{Args, EditPlan, Plan, Tool, ToolContext, ToolError, ToolErrorKind, ToolKind};

const USAGE: &str = "{path, old_text, new_text, replace_all?}";

/// `edit_file`: search-and-replace in one file.
pub(crate) struct EditFile;

impl Tool for EditFile {
    fn name(&self) -> &'static str {
        "edit_file"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: "Replace old_text with new_text in an existing file. old_text must \
                          match exactly one place (copy it from the file, without read_file's \
                          line numbers, with enough surrounding lines to be unique); if no exact \
                          match exists, lines are matched ignoring indentation and whitespace \
                          and new_text is re-indented to fit. Set replace_all=true to change \
                          every occurrence. To create a file or rewrite it whole, use write_file."
                .to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File path relative to the project root."},
                    "old_text": {"type": "string", "description": "The exact text to replace."},
                    "new_text": {"type": "string", "description": "The text to put in its place."},
                    "replace_all": {"type": "boolean", "description": "Replace every occurrence. Default false."}
                },
                "required": ["path", "old_text", "new_text"]
            }),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Write
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), USAGE, arguments)?;
        let given = args.string("path")?;
        let old_text = args.string("old_text")?;
        let new_text = args.string("new_text")?;
        let occurrences = if args.opt_bool("replace_all")?.unwrap_or(false) {
            Occurrences::All
        } else {
            Occurrences::One
        };
        let hint = "edit_file only changes existing files; to create a file, use write_file \
                    {path, content}.";
        let target = existing_text(context, &given, ReadRule::IfRead, hint)?;
        let path = target.path.relative.clone();
        if old_text.is_empty() {
            return Err(empty_old_text(&path, &target.state.content));
        }
        if old_text == new_text {
            return Err(ToolError::new(
                ToolErrorKind::EditFailed,
                "old_text and new_text are identical, so nothing would change; put the changed \
                 version in new_text",
            ));
        }
        let replaced = replace(
            &path,
            &target.state.content,
            &old_text,
            &new_text,
            occurrences,
        )?;
        if replaced.content == target.state.content {
            return Err(ToolError::new(
                ToolErrorKind::EditFailed,
                format!(
                    "the replacement leaves {path} unchanged (old_text and new_text differ only \
                     in whitespace that the match ignored); copy old_text exactly from the file"
                ),
            ));
        }
        let mut summary = format!(
            "edit {path} ({} at line{} {}",
            plural(replaced.lines.len(), "replacement"),
            if replaced.lines.len() == 1 { "" } else { "s" },
            replaced
                .lines
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
        if replaced.tolerant {
            summary.push_str(", matched ignoring whitespace");
        }
        summary.push(')');
        Ok(Plan::Edit(EditPlan {
            summary,
            changes: vec![modify(target, replaced.content)?],
            destructive: None,
        }))
    }
}

fn empty_old_text(path: &str, content: &str) -> ToolError {
    let message = if content.is_empty() {
        format!(
            "old_text is empty and {path} is an empty file; give it content with write_file \
             {{path, content}}"
        )
    } else {
        "old_text is empty, so there is nothing to find; copy the exact text to replace from \
         the file. To add text, put the line it follows in old_text and repeat that line \
         followed by the addition in new_text."
            .to_string()
    };
    ToolError::new(ToolErrorKind::EditFailed, message)
}
