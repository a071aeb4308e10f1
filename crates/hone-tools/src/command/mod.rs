//! Placeholder until the command tools land.

use std::sync::Arc;

use crate::Tool;

/// Commands started with `run_background`.
#[derive(Debug, Default)]
pub struct BackgroundJobs {}

/// The command tools.
pub fn tools() -> Vec<Arc<dyn Tool>> {
    Vec::new()
}
