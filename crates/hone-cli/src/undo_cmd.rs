//! `hone undo [N] [--list]`: the project's persistent undo journal, without a model.

use std::process::ExitCode;

use clap::Args;
use hone_memory::UndoError;
use hone_protocol::{ErrorCategory, HoneError};
use hone_runtime::sessions::open_store_to_read;
use hone_runtime::store_error;
use hone_tools::ToolContext;

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
    let depth = crate::load_config(global)?.undo_depth();
    let context = ToolContext::new(&root).map_err(|error| {
        HoneError::config(format!(
            "cannot use {} as the project root: {error}",
            root.display()
        ))
    })?;
    let project = hone_memory::project_key(context.root());
    let mut store = open_store_to_read()?;
    if args.list {
        let stack = store.undo_stack(&project, depth).map_err(store_error)?;
        if stack.is_empty() {
            eprintln!("nothing to undo in {project}");
        } else {
            print!("{}", undo_list(&stack, now_ms()));
        }
        return Ok(ExitCode::SUCCESS);
    }
    if args.count == 0 {
        return Err(HoneError::validation("N must be at least 1"));
    }
    match hone_memory::undo_latest(&mut store, &context, args.count, depth) {
        Ok(report) if report.undone.is_empty() => {
            eprintln!("nothing to undo in {project}");
            Ok(ExitCode::FAILURE)
        }
        Ok(report) => {
            for entry in &report.undone {
                println!("undone: {}", entry.summary);
            }
            if report.undone.len() < args.count {
                eprintln!(
                    "hone: only {} edit(s) could be undone (the undo stack keeps {depth}; `[memory] undo_depth` changes it)",
                    report.undone.len()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(UndoError::Revert(error)) => {
            Err(HoneError::new(ErrorCategory::Tool, error.to_string()))
        }
        Err(UndoError::Store(error)) => Err(store_error(error)),
    }
}
