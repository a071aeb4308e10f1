//! hone's code index.
//!
//! [`parse::outline`] turns a source file into a [`FileOutline`]: imports, exports,
//! functions, classes with their members, symbol definitions and references, TODO comments
//! and metrics. Files with syntax errors still yield whatever could be extracted.
//!
//! [`Indexer`] keeps a persistent index of a project up to date: [`scan`] walks it honouring
//! ignore rules, changed files are re-parsed on all cores, and the [`store`] keeps files,
//! outlines, symbols and import edges in SQLite behind the [`IndexStore`] trait.
//!
//! [`analysis::analyze`] resolves imports to project files and derives the dependency graph,
//! hubs, entry points and the symbol table; [`repomap::RepoMap`] ranks files with PageRank
//! and renders a compact outline of the project within a token budget. [`tools`] offers all
//! of it to the agent as read-only tools.

pub mod analysis;
pub mod error;
pub mod indexer;
pub mod mapper;
pub mod model;
pub mod parse;
pub mod repomap;
pub mod scan;
pub mod store;
pub mod syntax;
pub mod tools;
pub mod watch;

pub use model::{
    Class, ClassKind, Export, FileMetrics, FileOutline, Function, Import, ImportOrigin,
    ImportedName, Language, Property, SymbolKind, SymbolOccurrence, SymbolRole, Todo, Visibility,
};

pub use error::IndexError;
pub use indexer::{IndexOptions, IndexReport, Indexer, Progress};
pub use scan::{
    FileKind, LARGE_REPOSITORY_FILES, ScanOptions, ScanReport, ScannedFile, Scanner,
    normalize_scope,
};
pub use store::{
    EdgeUpdate, FileRecord, FileUpdate, IndexBatch, IndexStats, IndexStore, IndexWrite,
    OutlineChange, SqliteStore, SymbolLocation,
};
pub use watch::{DEFAULT_WATCH_DEBOUNCE, IndexWatcher, UpdateCallback};
