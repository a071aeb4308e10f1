//! Write tools: `write_file`, `edit_file`, `edit_lines`, `apply_patch`, `delete_file`,
//! `move_file`, `rename_symbol`. Planning has no side effects; [`apply`] writes a plan all-or-nothing,
//! [`undo`] takes it back, [`unified_diff`] shows it.

mod across_lines;
mod apply;
mod diff;
mod edit_file;
mod edit_lines;
mod lines;
mod matching;
pub mod natural;
mod patch;
mod rename;
mod target;
mod transaction;
mod write;

use std::sync::Arc;

use crate::Tool;

pub use apply::{AppliedEdit, accept_current_files, apply, rebase, undo};
pub use diff::{diff_stats, unified_diff};
pub use rename::is_identifier;

/// The write tools.
pub fn tools() -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(write::WriteFile),
        Arc::new(edit_file::EditFile),
        Arc::new(edit_lines::EditLines),
        Arc::new(patch::ApplyPatch),
        Arc::new(write::DeleteFile),
        Arc::new(write::MoveFile),
        Arc::new(rename::RenameSymbol),
    ]
}
