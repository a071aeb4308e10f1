//! `git_diff {path?, staged?}`: unstaged (or staged) changes as a unified diff.

use hone_protocol::ToolSpec;
use serde_json::{Value, json};

use super::{git_ok, project_prefix};
use crate::command::{fits_whole, truncate_output};
use crate::{Args, Plan, Tool, ToolContext, ToolError, ToolKind, ToolOutput};

/// The `git_diff` tool.
pub(crate) struct GitDiff;

impl Tool for GitDiff {
    fn name(&self) -> &'static str {
        "git_diff"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: "Show uncommitted changes to tracked files as a unified diff: the \
                          changes not yet staged, or with staged: true the staged ones. Narrow \
                          it with path. Long diffs start with a per-file summary."
                .to_string(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {
                        "type": "string",
                        "description": "File or directory to diff, relative to the project root; default everything."
                    },
                    "staged": {
                        "type": "boolean",
                        "description": "Show staged changes (what git_commit without files would commit) instead of unstaged ones."
                    }
                }
            }),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{path?, staged?}", arguments)?;
        let path = match args.opt_string("path")? {
            Some(path) => Some(context.guard().resolve_read(&path)?.relative),
            None => None,
        };
        let staged = args.opt_bool("staged")?.unwrap_or(false);
        let root = context.root();
        project_prefix(root)?;
        // `--relative` limits the diff to the project and shows project-relative paths.
        let mut base = vec![
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--relative",
        ];
        if staged {
            base.push("--cached");
        }
        let mut pathspec: Vec<String> = match path.as_deref() {
            Some("") | None => Vec::new(),
            Some(path) => vec!["--".to_string(), path.to_string()],
        };
        // Files hidden by `.honeignore` are left out, like every other tool leaves them out.
        let hidden = hidden_files(context, &base, &pathspec)?;
        if !hidden.is_empty() {
            if pathspec.is_empty() {
                pathspec = vec!["--".to_string(), ".".to_string()];
            }
            pathspec.extend(
                hidden
                    .iter()
                    .map(|file| format!(":(exclude,literal){file}")),
            );
        }
        let pathspec: Vec<&str> = pathspec.iter().map(String::as_str).collect();
        let diff = git_ok(root, &[base.as_slice(), &pathspec].concat())?;
        if diff.trim().is_empty() {
            return Ok(Plan::Done(ToolOutput::ok(no_changes(
                path.as_deref(),
                staged,
            ))));
        }
        if fits_whole(&diff) {
            return Ok(Plan::Done(ToolOutput::ok(diff)));
        }
        let stat = git_ok(
            root,
            &[base.as_slice(), &["--stat=120"], &pathspec].concat(),
        )?;
        Ok(Plan::Done(ToolOutput::ok(format!(
            "The diff is long; files changed:\n{stat}\nNarrow it with git_diff {{\"path\": ...}} \
             to see one file whole.\n\n{}",
            truncate_output(&diff)
        ))))
    }
}

/// The changed files of the diff `base … pathspec` that `.honeignore` hides.
fn hidden_files(
    context: &ToolContext,
    base: &[&str],
    pathspec: &[String],
) -> Result<Vec<String>, ToolError> {
    let pathspec: Vec<&str> = pathspec.iter().map(String::as_str).collect();
    let names = git_ok(
        context.root(),
        &[base, &["--name-only", "-z"], pathspec.as_slice()].concat(),
    )?;
    Ok(names
        .split('\0')
        .filter(|name| !name.is_empty() && context.guard().is_ignored(name, false))
        .map(String::from)
        .collect())
}

fn no_changes(path: Option<&str>, staged: bool) -> String {
    let place = match path {
        Some(path) if !path.is_empty() => format!(" in `{path}`"),
        _ => String::new(),
    };
    if staged {
        format!("no staged changes{place}; git_diff without staged shows changes not yet staged")
    } else {
        format!(
            "no unstaged changes to tracked files{place}; new files have no diff until they are \
             committed (git_status lists them), and staged changes show with staged: true"
        )
    }
}
