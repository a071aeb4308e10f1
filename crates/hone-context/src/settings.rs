//! What a session's context manager is configured with.

use std::fmt;
use std::sync::Arc;

use hone_config::ContextSettings;

use crate::instructions::Instructions;
use crate::outline::Outliner;

/// Turns after which file contents nobody mentioned are stubbed by compaction.
pub const STALE_AFTER_TURNS: usize = 5;

/// Everything a session's context manager starts from.
#[derive(Clone, Default)]
pub struct ContextConfig {
    /// The model's context window in tokens; `None` (unknown) disables compaction and
    /// trimming.
    pub window: Option<u32>,
    /// Tunables (the `[context]` configuration section).
    pub settings: ContextSettings,
    /// The project instructions (see [`Instructions::discover`]).
    pub instructions: Instructions,
    /// Outlines for tracked files in summary mode (the code index's, when available).
    pub outliner: Option<Arc<dyn Outliner>>,
}

impl fmt::Debug for ContextConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ContextConfig")
            .field("window", &self.window)
            .field("settings", &self.settings)
            .field("instructions", &self.instructions.files.len())
            .field("outliner", &self.outliner.is_some())
            .finish()
    }
}
