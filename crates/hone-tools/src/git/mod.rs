//! Placeholder until the git tools land.

use std::sync::Arc;

use crate::Tool;

/// The git tools.
pub fn tools() -> Vec<Arc<dyn Tool>> {
    Vec::new()
}
