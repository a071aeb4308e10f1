//! The syntax check run after edits: a trait the core calls and the code index implements
//! (tree-sitter grammars live in `hone-index`, which the core does not depend on).

use std::path::Path;

/// One syntax error in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong, e.g. `missing ")"` or `unexpected "}"`.
    pub message: String,
}

/// Finds syntax errors in source files.
pub trait SyntaxChecker: Send + Sync {
    /// The syntax errors in `source`, the contents of `path` (root-relative or absolute;
    /// only its extension is used to pick the language); `None` when the language is not
    /// supported, an empty list when the file parses cleanly.
    fn syntax_errors(&self, path: &Path, source: &str) -> Option<Vec<SyntaxError>>;
}
