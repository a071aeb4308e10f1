//! Walking the project the way ripgrep does: `.gitignore`, `.ignore` and `.honeignore`
//! are respected, hidden files are shown, `.git/` never is.

use std::path::Path;

use ignore::WalkBuilder;

use crate::ToolContext;

/// Per-directory ignore file of hone (gitignore syntax); the path guard reads the root one.
const HONE_IGNORE_FILE: &str = ".honeignore";

/// A walker over `start` (inside the project) that skips ignored paths and never follows
/// symlinks (a link could lead outside the project).
pub(crate) fn project_walker(context: &ToolContext, start: &Path) -> WalkBuilder {
    let mut builder = WalkBuilder::new(start);
    builder
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .add_custom_ignore_filename(HONE_IGNORE_FILE);
    let guard = context.guard().clone();
    builder.filter_entry(move |entry| {
        if entry.depth() == 0 {
            return true;
        }
        if entry.file_name() == ".git" {
            return false;
        }
        let is_dir = entry.file_type().is_some_and(|kind| kind.is_dir());
        !guard.is_ignored(&relative_path(guard.root(), entry.path()), is_dir)
    });
    builder
}

/// `path` relative to `root` with `/` separators (empty for the root itself).
pub(crate) fn relative_path(root: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(root).unwrap_or(path);
    // Built in one buffer: this runs for every entry of every walk.
    let mut text = String::with_capacity(relative.as_os_str().len());
    for (index, part) in relative.components().enumerate() {
        if index > 0 {
            text.push('/');
        }
        text.push_str(&part.as_os_str().to_string_lossy());
    }
    text
}
