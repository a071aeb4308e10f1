//! `list_dir`: a directory tree, breadth first when it has to be cut.

use std::cmp::Ordering;
use std::path::Path;

use hone_protocol::ToolSpec;
use serde_json::{Value, json};

use crate::files::suggest::not_found;
use crate::files::walk::{project_walker, relative_path};
use crate::{Args, Plan, Tool, ToolContext, ToolError, ToolKind, ToolOutput};

const DEFAULT_DEPTH: usize = 2;
const MAX_DEPTH: usize = 5;
/// Entries shown at most; shallower entries win when the tree is larger.
const MAX_ENTRIES: usize = 400;
/// Entries walked at most before counting stops.
const MAX_WALKED: usize = 20_000;

/// `list_dir`: the files and directories under a path.
pub(crate) struct ListDir;

impl Tool for ListDir {
    fn name(&self) -> &'static str {
        "list_dir"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: format!(
                "List a directory as an indented tree (directories end with `/`). Files ignored \
                 by .gitignore, .ignore or .honeignore are left out. depth defaults to \
                 {DEFAULT_DEPTH} (max {MAX_DEPTH}); at most {MAX_ENTRIES} entries are shown."
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Directory relative to the project root; default: the root."},
                    "depth": {"type": "integer", "description": "How many levels to descend (1 = direct children)."}
                }
            }),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{path?, depth?}", arguments)?;
        let given = args.opt_string("path")?.unwrap_or_else(|| ".".to_string());
        let depth = args
            .opt_integer("depth")?
            .map_or(DEFAULT_DEPTH, |depth| {
                usize::try_from(depth).unwrap_or(MAX_DEPTH)
            })
            .clamp(1, MAX_DEPTH);
        let resolved = context.guard().resolve_read(&given)?;
        if !resolved.absolute.exists() {
            return Err(not_found(context, &given, ""));
        }
        if !resolved.absolute.is_dir() {
            return Err(ToolError::invalid(format!(
                "`{given}` is a file, not a directory; use read_file to read it"
            )));
        }
        let shown = if resolved.relative.is_empty() {
            ".".to_string()
        } else {
            resolved.relative.clone()
        };
        let listing = list(context, &resolved.absolute, depth);
        Ok(Plan::Done(ToolOutput::ok(listing.render(&shown, depth))))
    }
}

/// One listed entry.
struct Entry {
    /// Path components below the listed directory.
    parts: Vec<String>,
    is_dir: bool,
    /// Target of a symbolic link.
    link: Option<String>,
}

impl Entry {
    /// Tree order: parents before children, directories before files, then by name.
    fn tree_order(&self, other: &Self) -> Ordering {
        let key = |entry: &Self, index: usize| {
            let is_last = index + 1 == entry.parts.len();
            (is_last && !entry.is_dir, entry.parts[index].to_lowercase())
        };
        for index in 0..self.parts.len().min(other.parts.len()) {
            let order = key(self, index).cmp(&key(other, index));
            if order != Ordering::Equal {
                return order;
            }
        }
        self.parts.len().cmp(&other.parts.len())
    }
}

struct Listing {
    entries: Vec<Entry>,
    /// Entries found but not shown.
    hidden: usize,
    /// The walk stopped before the end.
    truncated: bool,
}

fn list(context: &ToolContext, directory: &Path, depth: usize) -> Listing {
    let mut walker = project_walker(context, directory);
    walker.max_depth(Some(depth));
    let mut entries = Vec::new();
    let mut truncated = false;
    for entry in walker.build().filter_map(Result::ok) {
        if entry.depth() == 0 {
            continue;
        }
        if entries.len() == MAX_WALKED {
            truncated = true;
            break;
        }
        let kind = entry.file_type();
        let link = kind
            .is_some_and(|kind| kind.is_symlink())
            .then(|| std::fs::read_link(entry.path()).ok())
            .flatten()
            .map(|target| target.to_string_lossy().into_owned());
        let relative = relative_path(directory, entry.path());
        entries.push(Entry {
            parts: relative.split('/').map(str::to_string).collect(),
            is_dir: kind.is_some_and(|kind| kind.is_dir()),
            link,
        });
    }
    // Breadth first: when the tree is too large, every shallow entry is still shown.
    entries.sort_by(|a, b| a.parts.len().cmp(&b.parts.len()).then(a.tree_order(b)));
    let hidden = entries.len().saturating_sub(MAX_ENTRIES);
    entries.truncate(MAX_ENTRIES);
    entries.sort_by(Entry::tree_order);
    Listing {
        entries,
        hidden,
        truncated,
    }
}

impl Listing {
    fn render(&self, shown: &str, depth: usize) -> String {
        let mut out = format!("{shown}/ (depth {depth})\n");
        if self.entries.is_empty() {
            out.push_str("[empty directory, or every entry is ignored]\n");
            return out;
        }
        for entry in &self.entries {
            let indent = "  ".repeat(entry.parts.len());
            let name = entry.parts.last().map(String::as_str).unwrap_or_default();
            let suffix = match (&entry.link, entry.is_dir) {
                (Some(target), _) => format!(" -> {target}"),
                (None, true) => "/".to_string(),
                (None, false) => String::new(),
            };
            out.push_str(&format!("{indent}{name}{suffix}\n"));
        }
        if self.hidden > 0 || self.truncated {
            let at_least = if self.truncated { "at least " } else { "" };
            out.push_str(&format!(
                "[... {at_least}{} more entries not shown; list a subdirectory or use a smaller \
                 depth ...]\n",
                self.hidden
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, is_dir: bool) -> Entry {
        Entry {
            parts: path.split('/').map(str::to_string).collect(),
            is_dir,
            link: None,
        }
    }

    #[test]
    fn directories_come_before_files_and_children_follow_parents() {
        let mut entries = [
            entry("b.txt", false),
            entry("src/main.rs", false),
            entry("src", true),
            entry("a.txt", false),
            entry("src/bin", true),
        ];
        entries.sort_by(Entry::tree_order);
        let order: Vec<String> = entries.iter().map(|entry| entry.parts.join("/")).collect();
        assert_eq!(order, ["src", "src/bin", "src/main.rs", "a.txt", "b.txt"]);
    }
}
