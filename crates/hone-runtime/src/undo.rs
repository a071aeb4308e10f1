//! `hone undo` without a model: a project's persistent undo journal, listed or taken back.

use std::path::Path;

use hone_memory::{JournalEntry, SessionStore, UndoEntry, UndoError};
use hone_protocol::{ErrorCategory, HoneError};
use hone_tools::ToolContext;

use crate::error::store_error;
use crate::sessions::open_project_store;

/// The undo journal of the project at a root, with the session store it lives in (in
/// memory when no store was ever written, so looking creates nothing).
pub struct ProjectJournal {
    context: ToolContext,
    store: SessionStore,
    depth: usize,
}

impl ProjectJournal {
    /// The journal of the project at `root`, keeping `depth` edits (`[memory] undo_depth`),
    /// in the session store `store` chooses. (On Redis too the journal is this clone's: its
    /// entries are filed under the clone's own root.)
    pub fn open(
        root: &Path,
        depth: usize,
        store: &hone_config::StoreSettings,
    ) -> Result<Self, HoneError> {
        let context = ToolContext::new(root).map_err(|error| {
            HoneError::config(format!(
                "cannot use {} as the project root: {error}",
                root.display()
            ))
        })?;
        Ok(Self {
            context,
            store: open_project_store(root, store, true)?.store,
            depth,
        })
    }

    /// The project's key in the store (its resolved root).
    pub fn project(&self) -> String {
        hone_memory::project_key(self.context.root())
    }

    /// The edits that can be undone, newest first.
    pub fn stack(&self) -> Result<Vec<JournalEntry>, HoneError> {
        self.store
            .undo_stack(&self.project(), self.depth)
            .map_err(store_error)
    }

    /// Takes back the latest `count` edits, all or none; returns those undone, newest first
    /// (fewer than `count` when the stack holds fewer). A file changed after its edit is a
    /// tool error and changes nothing.
    pub fn undo(&mut self, count: usize) -> Result<Vec<UndoEntry>, HoneError> {
        if count == 0 {
            return Err(HoneError::validation("N must be at least 1"));
        }
        match hone_memory::undo_latest(&mut self.store, &self.context, count, self.depth) {
            Ok(report) => Ok(report.undone),
            Err(UndoError::Revert(error)) => {
                Err(HoneError::new(ErrorCategory::Tool, error.to_string()))
            }
            Err(UndoError::Store(error)) => Err(store_error(error)),
        }
    }
}
