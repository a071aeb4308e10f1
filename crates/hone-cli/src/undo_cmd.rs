//! `hone undo [N] [--list]`: the project's persistent undo journal, without a model.

use std::process::ExitCode;

use clap::Args;
use hone_protocol::HoneError;
use hone_runtime::undo::ProjectJournal;

use crate::cli::GlobalArgs;
use hone_runtime::report::sessions::{now_ms, undo_list};

/// `hone undo`.
#[derive(Debug, Args)]
pub struct UndoArgs {
    /// How many of the latest edits to take back (all of them or none).
    #[arg(value_name = "N", default_value_t = 1)]
    pub count: usize,

    /// List the edits that can be undone instead, newest first.
    #[arg(long)]
    pub list: bool,
}

/// Runs `hone undo`: exit 0 when undone (or listed), 1 when there is nothing to undo, 3 when
/// a file changed after the edit (nothing is changed then).
pub(crate) fn run(global: &GlobalArgs, args: &UndoArgs) -> Result<ExitCode, HoneError> {
    let root = crate::project_dir(global)?;
    let config = crate::load_config(global)?;
    let depth = config.undo_depth();
    let mut journal = ProjectJournal::open(&root, depth, &config.index_settings().store)?;
    let project = journal.project();
    if args.list {
        let stack = journal.stack()?;
        if stack.is_empty() {
            eprintln!("nothing to undo in {project}");
        } else {
            print!("{}", undo_list(&stack, now_ms()));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let undone = journal.undo(args.count)?;
    if undone.is_empty() {
        eprintln!("nothing to undo in {project}");
        return Ok(ExitCode::FAILURE);
    }
    for entry in &undone {
        println!("undone: {}", entry.summary);
    }
    if undone.len() < args.count {
        eprintln!(
            "hone: only {} edit(s) could be undone (the undo stack keeps {depth}; `[memory] undo_depth` changes it)",
            undone.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}
