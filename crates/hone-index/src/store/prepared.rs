//! An outline in the shape the store writes it, made on the thread that parsed the file.
//!
//! An outline is tens of thousands of small allocations (every symbol's name). Freed on the
//! writing thread, each goes back to the parsing thread's allocator arena, which the two then
//! contend for; a [`PreparedOutline`] is a handful of buffers, and the parsing thread frees
//! the outline itself.

use super::outlines::outline_json;
use super::references;
use crate::model::{FileMetrics, FileOutline, SymbolOccurrence, SymbolRole};

/// What the store writes for one outline: its JSON, metrics, definitions with their
/// positions, its references' JSON and the names they refer to, and what import resolution
/// needs of it. Made by [`PreparedOutline::new`]; written through
/// [`super::OutlineChange::Prepared`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedOutline {
    /// The outline without its symbols, as stored.
    pub(crate) json: String,
    pub(crate) metrics: FileMetrics,
    pub(crate) todos: usize,
    /// How many symbols the outline has.
    pub(crate) symbols: usize,
    /// The definitions, each with its position among the symbols.
    pub(crate) definitions: Vec<(usize, SymbolOccurrence)>,
    /// The references' JSON ([`references::encode`]); `None` when there are none.
    pub(crate) references: Option<String>,
    /// The distinct names referred to, sorted, one after the other; each ends where
    /// `name_ends` says.
    pub(crate) names: String,
    pub(crate) name_ends: Vec<usize>,
    /// The outline's language and imports (import resolution's cache keeps these).
    pub(crate) resolution: FileOutline,
}

impl PreparedOutline {
    /// `outline` prepared for the store.
    ///
    /// # Errors
    /// When the outline cannot be serialised.
    pub fn new(outline: &FileOutline) -> Result<Self, serde_json::Error> {
        let mut distinct: Vec<&str> = outline
            .symbols
            .iter()
            .filter(|symbol| symbol.role == SymbolRole::Reference)
            .map(|symbol| symbol.name.as_str())
            .collect();
        distinct.sort_unstable();
        distinct.dedup();
        let mut names = String::with_capacity(distinct.iter().map(|name| name.len()).sum());
        let name_ends = distinct
            .iter()
            .map(|name| {
                names.push_str(name);
                names.len()
            })
            .collect();
        let mut resolution = FileOutline::empty(outline.language);
        resolution.imports.clone_from(&outline.imports);
        Ok(Self {
            json: outline_json(outline)?,
            metrics: outline.metrics,
            todos: outline.todos.len(),
            symbols: outline.symbols.len(),
            definitions: outline
                .symbols
                .iter()
                .enumerate()
                .filter(|(_, symbol)| symbol.role == SymbolRole::Definition)
                .map(|(position, symbol)| (position, symbol.clone()))
                .collect(),
            references: references::encode(&outline.symbols)?,
            names,
            name_ends,
            resolution,
        })
    }

    /// The whole outline back, symbols in their original order (for stores that keep
    /// outlines whole).
    ///
    /// # Errors
    /// When the stored parts cannot be read back (they were made by [`PreparedOutline::new`],
    /// so only a bug makes this fail).
    pub fn to_outline(&self) -> Result<FileOutline, String> {
        let mut outline: FileOutline =
            serde_json::from_str(&self.json).map_err(|error| error.to_string())?;
        let definitions = self
            .definitions
            .iter()
            .map(|(position, symbol)| references::Positioned {
                position: u32::try_from(*position).unwrap_or(u32::MAX),
                symbol: symbol.clone(),
            })
            .collect();
        let references = match &self.references {
            Some(json) => {
                references::decode_occurrences(json).map_err(|error| format!("{error:?}"))?
            }
            None => Vec::new(),
        };
        outline.symbols = references::merge(definitions, references);
        Ok(outline)
    }

    /// The distinct names referred to, sorted.
    pub(crate) fn reference_names(&self) -> impl Iterator<Item = &str> {
        let starts = std::iter::once(0).chain(self.name_ends.iter().copied());
        starts
            .zip(self.name_ends.iter().copied())
            .map(|(start, end)| self.names.get(start..end).unwrap_or(""))
    }

    /// How many references the outline has.
    pub(crate) fn reference_count(&self) -> usize {
        self.symbols - self.definitions.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Language, SymbolKind};

    #[test]
    fn names_are_distinct_and_sorted_and_definitions_keep_their_positions() {
        let mut outline = FileOutline::empty(Language::Python);
        for (name, role) in [
            ("zeta", SymbolRole::Reference),
            ("f", SymbolRole::Definition),
            ("alpha", SymbolRole::Reference),
            ("zeta", SymbolRole::Reference),
            ("é", SymbolRole::Reference),
        ] {
            outline.symbols.push(SymbolOccurrence {
                name: name.to_string(),
                kind: SymbolKind::Function,
                role,
                line: 1,
                column: 1,
            });
        }
        let prepared = PreparedOutline::new(&outline).unwrap();
        assert_eq!(
            prepared.reference_names().collect::<Vec<_>>(),
            ["alpha", "zeta", "é"]
        );
        assert_eq!(prepared.definitions.len(), 1);
        assert_eq!(prepared.definitions[0].0, 1);
        assert_eq!(prepared.reference_count(), 4);
        assert_eq!(prepared.to_outline().unwrap(), outline);
        let none = PreparedOutline::new(&FileOutline::empty(Language::Python)).unwrap();
        assert_eq!(
            none.to_outline().unwrap(),
            FileOutline::empty(Language::Python)
        );
        assert_eq!(none.reference_names().count(), 0);
        assert_eq!(none.references, None);
    }
}
