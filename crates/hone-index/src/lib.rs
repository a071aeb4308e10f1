//! hone's code index.
//!
//! [`parse::outline`] turns a source file into a [`FileOutline`]: imports, exports,
//! functions, classes with their members, symbol definitions and references, TODO comments
//! and metrics. Files with syntax errors still yield whatever could be extracted.

pub mod analysis;
pub mod model;
pub mod parse;

pub use model::{
    Class, ClassKind, Export, FileMetrics, FileOutline, Function, Import, ImportOrigin,
    ImportedName, Language, Property, SymbolKind, SymbolOccurrence, SymbolRole, Todo, Visibility,
};
