//! The persistent index: file records, outlines, symbols, per-file metrics and import edges.
//!
//! Storage sits behind the object-safe [`IndexStore`] trait so another backend can be added;
//! [`SqliteStore`] is the default. Writes come as one [`IndexBatch`] per update and are
//! all-or-nothing: a failure or a crash part-way leaves the previous state.

mod codec;
mod migrations;
mod outlines;
mod prepared;
mod references;
mod sqlite;
mod write;

use std::collections::BTreeMap;

pub use migrations::SCHEMA_VERSION;
pub use prepared::PreparedOutline;
pub use sqlite::SqliteStore;

#[cfg(doc)]
use crate::analysis::Analysis;
use crate::analysis::{Edge, SymbolTable};
use crate::error::IndexError;
use crate::model::{FileMetrics, FileOutline, Language, SymbolKind, SymbolRole};
use crate::scan::FileKind;

/// The index's record of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRecord {
    /// Root-relative path with `/` separators.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch, as scanned. The indexer stores
    /// `-1` for a file modified too close to when it was read to trust the time, so the next
    /// update re-hashes it (git's "racily clean" rule).
    pub mtime_ns: i64,
    /// Hex SHA-256 of the contents (of the target path for symlinks; empty for
    /// [`FileKind::TooLarge`], which is never read).
    pub hash: String,
    /// What the file is.
    pub kind: FileKind,
    /// Whether parsing reported syntax errors.
    pub has_errors: bool,
}

impl FileRecord {
    /// The language, for source files.
    pub fn language(&self) -> Option<Language> {
        self.kind.language()
    }
}

/// What an update does to a file's outline (and with it its symbols and metrics).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutlineChange {
    /// Keep the stored outline: only the record's metadata changed.
    Keep,
    /// Store this outline, replacing any previous one.
    Replace(Box<FileOutline>),
    /// Store this outline, prepared for the store on the thread that built it (as
    /// [`OutlineChange::Replace`] does, without the writing thread freeing the outline).
    Prepared(Box<PreparedOutline>),
    /// Drop the outline: the file is no longer parsed source.
    Remove,
}

/// A new or changed file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileUpdate {
    /// The file's record, inserted or replacing the one with the same path.
    pub record: FileRecord,
    /// What happens to its outline.
    pub outline: OutlineChange,
}

/// Everything one index update writes, applied in a single transaction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexBatch {
    /// New and changed files.
    pub upserts: Vec<FileUpdate>,
    /// Root-relative paths of files that are gone (with their outlines and symbols).
    pub deletions: Vec<String>,
    /// New import edges (`None`: unchanged).
    pub edges: Option<EdgeUpdate>,
}

impl IndexBatch {
    /// Whether applying the batch would change nothing.
    pub fn is_empty(&self) -> bool {
        self.upserts.is_empty() && self.deletions.is_empty() && self.edges.is_none()
    }
}

/// How an update changes the stored import edges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EdgeUpdate {
    /// Every edge of the project (e.g. [`Analysis::edges`]), replacing all stored ones.
    All(Vec<Edge>),
    /// The edges from `files`, replacing the stored edges from those files only; the others
    /// stay (an edit that kept the set of files and the project configuration).
    From {
        /// Root-relative paths of the importing files.
        files: Vec<String>,
        /// Their edges.
        edges: Vec<Edge>,
    },
}

/// Where a symbol occurs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolLocation {
    /// The name.
    pub name: String,
    /// What it is.
    pub kind: SymbolKind,
    /// Definition or reference.
    pub role: SymbolRole,
    /// Root-relative path of the file.
    pub path: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

/// Totals over the whole index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexStats {
    /// Indexed files of every kind.
    pub files: usize,
    /// Source files per language.
    pub by_language: BTreeMap<Language, usize>,
    /// Symbol definitions.
    pub definitions: usize,
    /// Symbol references.
    pub references: usize,
    /// Resolved import edges.
    pub edges: usize,
    /// Source files with syntax errors.
    pub parse_errors: usize,
    /// When the last non-empty batch was applied, in milliseconds since the Unix epoch.
    pub last_indexed_ms: Option<i64>,
}

/// One atomic write to an [`IndexStore`], fed change by change so an update need not hold
/// every new outline in memory: nothing is visible to readers until
/// [`IndexWrite::commit`], and dropping it uncommitted discards every change.
pub trait IndexWrite {
    /// Inserts or replaces one file's record and, as `update.outline` says, its outline,
    /// symbols and metrics.
    fn upsert(&mut self, update: &FileUpdate) -> Result<(), IndexError>;

    /// Removes a file with its outline, symbols and metrics.
    fn delete(&mut self, path: &str) -> Result<(), IndexError>;

    /// Changes the import edges.
    fn edges(&mut self, update: &EdgeUpdate) -> Result<(), IndexError>;

    /// Makes every change visible at once (and records when).
    fn commit(self: Box<Self>) -> Result<(), IndexError>;
}

/// A persistent code index. Object-safe: front ends hold a `Box<dyn IndexStore>`.
pub trait IndexStore: Send {
    /// Every file record, by path.
    fn files(&self) -> Result<BTreeMap<String, FileRecord>, IndexError>;

    /// Starts an atomic write (taking the database's write lock until it ends).
    fn begin(&mut self) -> Result<Box<dyn IndexWrite + '_>, IndexError>;

    /// Applies a batch atomically: either all of it is stored or, on error, none of it. An
    /// empty batch writes nothing.
    fn apply(&mut self, batch: &IndexBatch) -> Result<(), IndexError> {
        if batch.is_empty() {
            return Ok(());
        }
        let mut write = self.begin()?;
        for deleted in &batch.deletions {
            write.delete(deleted)?;
        }
        for update in &batch.upserts {
            write.upsert(update)?;
        }
        if let Some(edges) = &batch.edges {
            write.edges(edges)?;
        }
        write.commit()
    }

    /// The outline of one file (`None` when unknown or not parsed source).
    fn outline(&self, path: &str) -> Result<Option<FileOutline>, IndexError>;

    /// Every stored outline, by path.
    fn outlines(&self) -> Result<BTreeMap<String, FileOutline>, IndexError>;

    /// The symbol table of the names defined in the project: their definitions and
    /// references, over every parsed file, without loading outlines. References to names
    /// defined nowhere in the project (library and built-in names) are left out; what ranks
    /// files (the repo map) is which files use which project names.
    fn defined_symbols(&self) -> Result<SymbolTable, IndexError>;

    /// Every import edge, sorted.
    fn all_edges(&self) -> Result<Vec<Edge>, IndexError>;

    /// The metrics of every parsed file, by path, without loading outlines.
    fn metrics(&self) -> Result<BTreeMap<String, FileMetrics>, IndexError>;

    /// Where `name` is defined (exact, case-sensitive), by path and line.
    fn definitions(&self, name: &str) -> Result<Vec<SymbolLocation>, IndexError>;

    /// Where `name` is used (exact, case-sensitive), by path and line.
    fn references(&self, name: &str) -> Result<Vec<SymbolLocation>, IndexError>;

    /// Definitions whose name contains `query`, case-insensitively: exact matches first, then
    /// prefixes, then other substrings, shorter names first; at most `limit`.
    fn search_symbols(&self, query: &str, limit: usize) -> Result<Vec<SymbolLocation>, IndexError>;

    /// The project files `path` imports, in line order.
    fn dependencies(&self, path: &str) -> Result<Vec<Edge>, IndexError>;

    /// The project files importing `path`, by path and line.
    fn dependents(&self, path: &str) -> Result<Vec<Edge>, IndexError>;

    /// Totals over the whole index.
    fn stats(&self) -> Result<IndexStats, IndexError>;

    /// The sub-directory (root-relative) the index is limited to; `None`: the whole project.
    fn scope(&self) -> Result<Option<String>, IndexError>;

    /// Records the sub-directory the index is limited to (`None`: the whole project).
    fn set_scope(&mut self, scope: Option<&str>) -> Result<(), IndexError>;

    /// The repo map's cached ranking graph: the index's current generation (which every
    /// write changing outlines, symbols or edges moves on) and the graph stored for it, if
    /// any. Read the generation before what the graph is built from, so a graph built while
    /// another process wrote is never stored as current. A store without a cache has none.
    fn rank_cache(&self) -> Result<(i64, Option<Vec<u8>>), IndexError> {
        Ok((0, None))
    }

    /// Stores `graph`, built from the index as it was at `generation`, unless a write has
    /// changed it since (then nothing is stored and `false` comes back). A cache: callers
    /// may ignore failures, and this never waits for another process's write lock.
    fn store_rank_cache(&self, generation: i64, graph: &[u8]) -> Result<bool, IndexError> {
        let _ = (generation, graph);
        Ok(false)
    }
}
