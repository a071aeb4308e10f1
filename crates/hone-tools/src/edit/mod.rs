//! Placeholder until the edit tools land.

use std::sync::Arc;

use crate::Tool;

/// The edit tools.
pub fn tools() -> Vec<Arc<dyn Tool>> {
    Vec::new()
}
