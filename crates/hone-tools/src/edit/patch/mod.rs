//! `apply_patch`: a unified diff over several files, all-or-nothing.

mod parse;
mod place;

use hone_protocol::ToolSpec;
use serde_json::{Value, json};

use crate::edit::lines::LineBuffer;
use crate::edit::target::{ReadRule, existing_any, existing_text, plural, resolve};
use crate::files::{encode, not_found, read_text_in};
use crate::{
    Args, EditPlan, FileChange, Plan, TextEncoding, Tool, ToolContext, ToolError, ToolErrorKind,
    ToolKind,
};

use parse::{FilePatch, Hunk, parse};
use place::apply_hunks;

/// `apply_patch`: applies a unified diff.
pub(crate) struct ApplyPatch;

impl Tool for ApplyPatch {
    fn name(&self) -> &'static str {
        "apply_patch"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: "Apply a unified diff to one or more files, all-or-nothing. Each file: \
                          `--- a/path` and `+++ b/path` lines, then `@@ -12,3 +12,4 @@` hunks \
                          with lines starting ` ` (unchanged), `-` (removed), `+` (added). Give \
                          2–3 unchanged lines of context around each change: hunks are placed by \
                          their context (line numbers are hints). `--- /dev/null` creates a file, \
                          `+++ /dev/null` deletes one, different paths (or git's `rename from`/ \
                          `rename to`) move one. Codex's `*** Begin Patch` format is accepted \
                          too."
                .to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "patch": {"type": "string", "description": "The unified diff."}
                },
                "required": ["patch"]
            }),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Write
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{patch}", arguments)?;
        let patch = args.string("patch")?;
        let files = parse(&patch)?;
        let mut planned = Planned::default();
        for file in &files {
            planned
                .add(context, file)
                .map_err(|error| rejected(error, files.len()))?;
        }
        let changes = planned.changes;
        for change in &changes {
            if let Some(after) = &change.after {
                let encoding = change
                    .before
                    .as_ref()
                    .map_or(TextEncoding::Utf8, |before| before.encoding);
                encode(&change.path, after, encoding)?;
            }
        }
        let summary = format!("apply patch: {}", planned.actions.join(", "));
        Ok(Plan::Edit(EditPlan {
            summary,
            changes,
            destructive: None,
        }))
    }
}

/// The changes planned so far, one per file, and what each does (for the summary).
#[derive(Default)]
struct Planned {
    changes: Vec<FileChange>,
    actions: Vec<String>,
}

impl Planned {
    fn add(&mut self, context: &ToolContext, file: &FilePatch) -> Result<(), ToolError> {
        match (&file.old_path, &file.new_path) {
            (None, Some(new)) => self.create(context, new, &file.hunks),
            (Some(old), None) => self.delete(context, old),
            (Some(old), Some(new)) => self.modify(context, old, new, &file.hunks),
            (None, None) => Err(ToolError::invalid(
                "a file in the patch names no path; give it `--- a/path` and `+++ b/path` lines",
            )),
        }
    }

    /// The change already planned for `relative` (a file patched twice).
    fn pending(&mut self, relative: &str) -> Option<&mut FileChange> {
        self.changes
            .iter_mut()
            .find(|change| change.rename_to.as_deref().unwrap_or(&change.path) == relative)
    }

    fn create(
        &mut self,
        context: &ToolContext,
        given: &str,
        hunks: &[Hunk],
    ) -> Result<(), ToolError> {
        let path = resolve(context, given)?;
        let content = created_content(hunks);
        let lines = content.lines().count();
        let before = if path.absolute.exists() {
            // Creating a file that exists but is empty is harmless; anything else would
            // silently overwrite content.
            let state = read_text_in(context, &path)?;
            if !state.content.is_empty() || self.pending(&path.relative).is_some() {
                return Err(ToolError::new(
                    ToolErrorKind::EditFailed,
                    format!(
                        "{} already exists, so the patch cannot create it (`--- /dev/null`); \
                         read it and diff against its current content instead",
                        path.relative
                    ),
                ));
            }
            Some(state)
        } else {
            None
        };
        self.actions.push(format!(
            "create {} ({})",
            path.relative,
            plural(lines, "line")
        ));
        self.changes.push(FileChange {
            path: path.relative,
            before,
            after: Some(content),
            rename_to: None,
            written: None,
        });
        Ok(())
    }

    fn delete(&mut self, context: &ToolContext, given: &str) -> Result<(), ToolError> {
        let target = existing_any(context, given, "")?;
        let path = target.path.relative;
        if self.pending(&path).is_some() {
            return Err(twice(&path));
        }
        self.actions.push(format!("delete {path}"));
        self.changes.push(FileChange {
            path,
            before: Some(target.state),
            after: None,
            rename_to: None,
            written: None,
        });
        Ok(())
    }

    fn modify(
        &mut self,
        context: &ToolContext,
        old: &str,
        new: &str,
        hunks: &[Hunk],
    ) -> Result<(), ToolError> {
        let old_path = resolve(context, old)?;
        let new_path = resolve(context, new)?;
        let renamed = old_path.relative != new_path.relative;
        if let Some(change) = self.pending(&old_path.relative) {
            let Some(content) = change.after.clone().filter(|_| !renamed) else {
                return Err(twice(&old_path.relative));
            };
            let mut buffer = LineBuffer::parse(&content);
            apply_hunks(&old_path.relative, &mut buffer, hunks).map_err(hunk_failed)?;
            change.after = Some(buffer.render());
            self.actions.push(format!(
                "edit {} ({})",
                old_path.relative,
                plural(hunks.len(), "hunk")
            ));
            return Ok(());
        }
        // Sloppy headers: a wrong old path next to an existing new one is an edit of the
        // new one; a hunk that only adds lines to a missing file creates it.
        let source = if old_path.absolute.exists() {
            old
        } else if new_path.absolute.exists() {
            new
        } else if hunks.iter().all(|hunk| hunk.old_lines().is_empty()) {
            return self.create(context, new, hunks);
        } else {
            let hint = "The patch can only change existing files; create new ones with \
                        `--- /dev/null`.";
            return Err(not_found(context, old, hint));
        };
        let target = existing_text(context, source, ReadRule::IfRead, "")?;
        let path = target.path.relative.clone();
        let mut buffer = LineBuffer::parse(&target.state.content);
        apply_hunks(&path, &mut buffer, hunks).map_err(hunk_failed)?;
        let after = buffer.render();
        let rename_to = (renamed && source == old).then(|| new_path.relative.clone());
        if let Some(to) = &rename_to {
            if new_path.absolute.exists() || self.pending(to).is_some() {
                return Err(ToolError::new(
                    ToolErrorKind::EditFailed,
                    format!(
                        "the patch moves {path} to {to}, which already exists; delete {to} \
                         first, or give both `---` and `+++` the same path to edit {path}"
                    ),
                ));
            }
            self.actions.push(format!("move {path} → {to}"));
        } else if after == target.state.content {
            return Err(ToolError::new(
                ToolErrorKind::EditFailed,
                format!("the patch for {path} changes nothing; check its `-` and `+` lines"),
            ));
        }
        if !hunks.is_empty() {
            self.actions
                .push(format!("edit {path} ({})", plural(hunks.len(), "hunk")));
        }
        self.changes.push(FileChange {
            path,
            before: Some(target.state),
            after: Some(after),
            rename_to,
            written: None,
        });
        Ok(())
    }
}

/// The content of a file created by `hunks` (their added and context lines).
fn created_content(hunks: &[Hunk]) -> String {
    let mut buffer = LineBuffer::parse("");
    for hunk in hunks {
        let end = buffer.len();
        buffer.splice(end..end, hunk.new_lines());
    }
    if hunks.last().is_some_and(|hunk| hunk.new_missing_newline) {
        buffer.set_final_newline(false);
    }
    buffer.render()
}

fn twice(path: &str) -> ToolError {
    ToolError::invalid(format!(
        "the patch deletes, moves or creates {path} and also changes it elsewhere; give each \
         file one section, or split the patch in two calls"
    ))
}

fn hunk_failed(reason: String) -> ToolError {
    ToolError::new(ToolErrorKind::EditFailed, reason)
}

/// Says that nothing was applied, so the model knows to resend the whole patch.
fn rejected(error: ToolError, files: usize) -> ToolError {
    let scope = if files > 1 {
        "The whole patch was rejected and no file was changed"
    } else {
        "The patch was rejected and the file was not changed"
    };
    ToolError::new(error.kind, format!("{scope}: {}", error.message))
}
