//! What a session's context manager is configured with.

use std::fmt;
use std::sync::Arc;

use crate::instructions::{DEFAULT_INSTRUCTIONS_MAX_BYTES, Instructions};
use crate::outline::Outliner;

/// Default share of the window at which compaction starts.
pub const DEFAULT_COMPACT_THRESHOLD: f64 = 0.8;
/// Default number of recent turns kept whole by compaction.
pub const DEFAULT_RECENT_TURNS: usize = 4;
/// Default number of turns after which unmentioned file contents count as stale.
pub const DEFAULT_STALE_AFTER_TURNS: usize = 5;

/// Tunables of the context manager (the `[context]` configuration section).
#[derive(Debug, Clone, PartialEq)]
pub struct ContextSettings {
    /// Compact when the estimated request passes this share of the window (0 disables
    /// automatic compaction; manual compaction still works).
    pub compact_threshold: f64,
    /// Turns kept whole (not summarised) by compaction.
    pub recent_turns: usize,
    /// Model used for summaries (default: the session's model).
    pub compaction_model: Option<String>,
    /// Cap on the project instructions' total size.
    pub instructions_max_bytes: usize,
    /// Turns after which file contents nobody mentioned are stubbed by compaction.
    pub stale_after_turns: usize,
}

impl Default for ContextSettings {
    fn default() -> Self {
        Self {
            compact_threshold: DEFAULT_COMPACT_THRESHOLD,
            recent_turns: DEFAULT_RECENT_TURNS,
            compaction_model: None,
            instructions_max_bytes: DEFAULT_INSTRUCTIONS_MAX_BYTES,
            stale_after_turns: DEFAULT_STALE_AFTER_TURNS,
        }
    }
}

/// Everything a session's context manager starts from.
#[derive(Clone, Default)]
pub struct ContextConfig {
    /// The model's context window in tokens; `None` (unknown) disables compaction and
    /// trimming.
    pub window: Option<u32>,
    /// Tunables.
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
