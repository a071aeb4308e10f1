//! The files a reply's blocks change, loaded once and changed in memory, so several blocks
//! can touch one file and the result is one all-or-nothing plan.

use std::collections::BTreeMap;

use hone_policy::ResolvedPath;

use crate::edit::lines::LineBuffer;
use crate::edit::target::{ReadRule, Target, check_fresh, modify, resolve};
use crate::files::read_text_in;
use crate::{FileChange, FileState, ToolContext};

/// One file as the blocks so far left it.
#[derive(Debug, Clone)]
pub(crate) struct Working {
    path: ResolvedPath,
    /// The file on disk; `None` when it does not exist.
    pub(crate) before: Option<FileState>,
    /// Its content after the blocks so far.
    pub(crate) content: String,
    /// Whether a block created it.
    pub(crate) created: bool,
}

impl Working {
    /// Whether the file exists (on disk or created by an earlier block).
    pub(crate) fn exists(&self) -> bool {
        self.before.is_some() || self.created
    }

    /// Whether an earlier block changed it.
    pub(crate) fn changed(&self) -> bool {
        self.created
            || self
                .before
                .as_ref()
                .is_some_and(|before| before.content != self.content)
    }
}

/// The files touched so far.
#[derive(Debug)]
pub(crate) struct Workspace<'a> {
    context: &'a ToolContext,
    files: BTreeMap<String, Working>,
}

impl<'a> Workspace<'a> {
    pub(crate) fn new(context: &'a ToolContext) -> Self {
        Self {
            context,
            files: BTreeMap::new(),
        }
    }

    /// The file at `given` (a project path), loaded on first use; the error says why it
    /// cannot be changed.
    pub(crate) fn open(&mut self, given: &str) -> Result<(String, &mut Working), String> {
        let path = resolve(self.context, given).map_err(|error| error.message)?;
        let relative = path.relative.clone();
        if !self.files.contains_key(&relative) {
            if path.absolute.is_dir() {
                return Err(format!("`{given}` is a directory, not a file"));
            }
            let before = if path.absolute.exists() {
                let state = read_text_in(self.context, &path).map_err(|error| error.message)?;
                check_fresh(self.context, &relative, &state.hash, ReadRule::IfRead)
                    .map_err(|error| error.message)?;
                Some(state)
            } else {
                None
            };
            let content = before
                .as_ref()
                .map(|state| state.content.clone())
                .unwrap_or_default();
            self.files.insert(
                relative.clone(),
                Working {
                    path,
                    before,
                    content,
                    created: false,
                },
            );
        }
        match self.files.get_mut(&relative) {
            Some(working) => Ok((relative, working)),
            None => Err(format!("`{given}` could not be loaded")),
        }
    }

    /// The changes made, in path order, with each file's line endings.
    pub(crate) fn changes(self) -> Result<Vec<FileChange>, String> {
        let mut changes = Vec::new();
        for (_, working) in self.files {
            if !working.changed() {
                continue;
            }
            match working.before {
                Some(state) => {
                    let content = LineBuffer::parse(&state.content).adapt_endings(&working.content);
                    if content == state.content {
                        continue;
                    }
                    let target = Target {
                        path: working.path,
                        state,
                    };
                    changes.push(modify(target, content).map_err(|error| error.message)?);
                }
                None => changes.push(FileChange {
                    path: working.path.relative,
                    before: None,
                    after: Some(working.content),
                    rename_to: None,
                    written: None,
                }),
            }
        }
        Ok(changes)
    }
}
