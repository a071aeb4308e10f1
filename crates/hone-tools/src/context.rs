//! Per-session state shared by the tools.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use hone_policy::PathGuard;

use crate::ToolError;
use crate::command::{BackgroundJobs, CommandSetup, Launcher};
use crate::edit::natural::CodeMapper;
use crate::files::WorkspaceFiles;

/// What the model has seen: root-relative path → SHA-256 of the content it last read
/// (or wrote). A write to a file whose current hash differs is a conflict.
#[derive(Debug, Default)]
pub struct ReadTracker {
    seen: Mutex<HashMap<String, String>>,
}

impl ReadTracker {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, String>> {
        self.seen.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records that the model saw `path` with content hash `hash`.
    pub fn record(&self, path: &str, hash: &str) {
        self.lock().insert(path.to_string(), hash.to_string());
    }

    /// The hash of `path` the model last saw, if it read it.
    pub fn seen(&self, path: &str) -> Option<String> {
        self.lock().get(path).cloned()
    }

    /// Every path the model has seen.
    pub fn paths(&self) -> Vec<String> {
        self.lock().keys().cloned().collect()
    }

    /// Forgets `path` (after it was deleted or moved).
    pub fn forget(&self, path: &str) {
        self.lock().remove(path);
    }
}

/// Everything a tool needs: the path guard, what the model has read, background jobs.
#[derive(Debug)]
pub struct ToolContext {
    guard: PathGuard,
    reads: ReadTracker,
    jobs: BackgroundJobs,
    launcher: Launcher,
    mapper: Option<Arc<dyn CodeMapper>>,
    files: Option<Arc<dyn WorkspaceFiles>>,
}

impl ToolContext {
    /// A context for the project at `root`.
    pub fn new(root: &Path) -> Result<Self, ToolError> {
        Ok(Self {
            guard: PathGuard::new(root)?,
            reads: ReadTracker::default(),
            jobs: BackgroundJobs::default(),
            launcher: Launcher::default(),
            mapper: None,
            files: None,
        })
    }

    /// Uses `secrets` as the rule for files that may hold secrets (the built-in rule by
    /// default): reading one asks, searches leave their lines out.
    #[must_use]
    pub fn with_secret_files(mut self, secrets: hone_policy::SecretFiles) -> Self {
        self.guard = self.guard.with_secret_files(secrets);
        self
    }

    /// Starts the commands the model runs as `setup` says (sandbox helper, environment);
    /// by default they run directly with hone's environment.
    pub fn with_commands(mut self, setup: CommandSetup) -> Result<Self, ToolError> {
        self.launcher = Launcher::new(setup)?;
        Ok(self)
    }

    /// How commands are started.
    pub(crate) fn launcher(&self) -> &Launcher {
        &self.launcher
    }

    /// The sandbox policy the model's commands run under; `None` when they are not
    /// sandboxed.
    pub fn command_sandbox(&self) -> Option<&hone_sandbox::SandboxPolicy> {
        self.launcher.policy()
    }

    /// This context with language knowledge for edits written as code blocks and for
    /// `write_file` on unread files (tree-sitter, from `hone-index`).
    #[must_use]
    pub fn with_code_mapper(mut self, mapper: Option<Arc<dyn CodeMapper>>) -> Self {
        self.mapper = mapper;
        self
    }

    /// The language knowledge set with [`ToolContext::with_code_mapper`].
    pub fn code_mapper(&self) -> Option<&dyn CodeMapper> {
        self.mapper.as_deref()
    }

    /// This context reading and writing the project's text files through `files` (an
    /// editor's buffers) instead of the disk.
    #[must_use]
    pub fn with_workspace_files(mut self, files: Option<Arc<dyn WorkspaceFiles>>) -> Self {
        self.files = files;
        self
    }

    /// The face's access to the files set with [`ToolContext::with_workspace_files`];
    /// `None`: the disk.
    pub fn workspace_files(&self) -> Option<&Arc<dyn WorkspaceFiles>> {
        self.files.as_ref()
    }

    /// The path guard of the project.
    pub fn guard(&self) -> &PathGuard {
        &self.guard
    }

    /// The canonical project root.
    pub fn root(&self) -> &Path {
        self.guard.root()
    }

    /// What the model has read.
    pub fn reads(&self) -> &ReadTracker {
        &self.reads
    }

    /// Commands running in the background.
    pub fn jobs(&self) -> &BackgroundJobs {
        &self.jobs
    }
}
