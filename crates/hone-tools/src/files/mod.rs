//! Placeholder until the files tools land.

use std::sync::Arc;

use crate::Tool;

/// The files tools.
pub fn tools() -> Vec<Arc<dyn Tool>> {
    Vec::new()
}
