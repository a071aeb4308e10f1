//! Project-wide analysis over all outlines: the import graph resolved to project files,
//! the symbol table, hub files and entry points. (Placeholder until the analysis lands.)

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::model::FileOutline;

/// An import resolved to a project file.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Edge {
    /// The importing file (root-relative, `/` separators).
    pub from: String,
    /// The imported project file.
    pub to: String,
    /// The import as written.
    pub source: String,
    /// Line of the import in `from`.
    pub line: u32,
}

/// The result of analysing a project's outlines.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Analysis {
    /// Every resolved internal import.
    pub edges: Vec<Edge>,
}

/// Analyses every file's outline (root-relative path → outline). `root` gives access to
/// project configuration such as `tsconfig.json` paths or `go.mod`.
pub fn analyze(_root: &Path, _files: &BTreeMap<String, FileOutline>) -> Analysis {
    Analysis::default()
}
