//! The project's symbol table: definition and reference sites per name, from the outlines.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::hash::FastMap;
use crate::model::{FileOutline, SymbolKind, SymbolRole};

/// One definition or use of a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SymbolSite<'a> {
    /// The file (root-relative).
    pub file: &'a str,
    /// Line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// What the name is (for references: what it is used as).
    pub kind: SymbolKind,
}

/// Definition and reference sites of every name in the project.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SymbolTable {
    /// Every analysed file, sorted; sites refer to files by position here.
    files: Vec<String>,
    /// Name → where its sites are in `sites`.
    names: BTreeMap<String, SiteRange>,
    /// Every site, grouped by name: definitions, then references, each in file order. One
    /// flat list keeps building the table to a handful of allocations.
    sites: Vec<Site>,
}

/// Builds a [`SymbolTable`] from occurrences pushed in any file order (within one file, in
/// the file's order); names are copied once each.
#[derive(Debug, Default)]
pub(crate) struct SymbolTableBuilder {
    slots: FastMap<String, usize>,
    /// Per name: [definitions, references].
    counts: Vec<[u32; 2]>,
    placed: Vec<(usize, usize, Site)>,
}

impl SymbolTableBuilder {
    /// Adds an occurrence of `name` at `line` and `column` of `file` (the file's position in
    /// the final list).
    pub(crate) fn push(
        &mut self,
        file: u32,
        name: &str,
        role: SymbolRole,
        (line, column): (u32, u32),
        kind: SymbolKind,
    ) {
        let slot = match self.slots.get(name) {
            Some(slot) => *slot,
            None => {
                self.counts.push([0, 0]);
                self.slots.insert(name.to_string(), self.counts.len() - 1);
                self.counts.len() - 1
            }
        };
        let role = match role {
            SymbolRole::Definition => 0,
            SymbolRole::Reference => 1,
        };
        self.counts[slot][role] += 1;
        let site = Site {
            file,
            line,
            column,
            kind,
        };
        self.placed.push((slot, role, site));
    }

    /// Whether an occurrence of `name` has been pushed (after every definition: whether the
    /// project defines it).
    pub(crate) fn defines(&self, name: &str) -> bool {
        self.slots.contains_key(name)
    }

    /// The table over `files` (sorted paths; sites name them by position).
    pub(crate) fn finish(mut self, files: Vec<String>) -> SymbolTable {
        // Stable, and linear when the occurrences came in file order already.
        self.placed.sort_by_key(|(_, _, site)| site.file);
        // Counting sort by name and role; stable, so each group stays in file order.
        let mut ranges = Vec::with_capacity(self.counts.len());
        let mut next: Vec<[usize; 2]> = Vec::with_capacity(self.counts.len());
        let mut offset = 0u32;
        for [definitions, references] in self.counts {
            let range = SiteRange {
                start: offset,
                middle: offset + definitions,
                end: offset + definitions + references,
            };
            next.push([range.start as usize, range.middle as usize]);
            ranges.push(range);
            offset = range.end;
        }
        let mut sites = vec![
            Site {
                file: 0,
                line: 0,
                column: 0,
                kind: SymbolKind::Variable
            };
            self.placed.len()
        ];
        for (slot, role, site) in self.placed {
            let position = &mut next[slot][role];
            sites[*position] = site;
            *position += 1;
        }
        SymbolTable {
            files,
            names: self
                .slots
                .into_iter()
                .map(|(name, slot)| (name, ranges[slot]))
                .collect(),
            sites,
        }
    }
}

/// A name's sites: definitions at `start..middle`, references at `middle..end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
struct SiteRange {
    start: u32,
    middle: u32,
    end: u32,
}

/// The sites of one name.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Occurrences<'t> {
    /// Definition sites, in file order.
    pub(crate) definitions: &'t [Site],
    /// Reference sites, in file order.
    pub(crate) references: &'t [Site],
}

/// A site with its file as a position in [`SymbolTable::files`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) struct Site {
    /// Position of the file.
    pub(crate) file: u32,
    line: u32,
    column: u32,
    /// What the name is (for references: what it is used as).
    pub(crate) kind: SymbolKind,
}

impl SymbolTable {
    /// Collects the symbol occurrences of every outline.
    pub(crate) fn build(files: &BTreeMap<String, FileOutline>) -> Self {
        let mut builder = SymbolTableBuilder::default();
        for (position, outline) in files.values().enumerate() {
            let file = u32::try_from(position).unwrap_or(u32::MAX);
            for symbol in &outline.symbols {
                builder.push(
                    file,
                    &symbol.name,
                    symbol.role,
                    (symbol.line, symbol.column),
                    symbol.kind,
                );
            }
        }
        builder.finish(files.keys().cloned().collect())
    }

    /// The table of the names `files` define: their definitions and the references to
    /// them (references to names defined nowhere in `files` are left out), as
    /// [`crate::IndexStore::defined_symbols`] returns it. For stores that keep whole outlines.
    pub fn of_defined(files: &BTreeMap<String, FileOutline>) -> Self {
        let mut builder = SymbolTableBuilder::default();
        let positions = (0u32..).zip(files.values());
        for (file, outline) in positions.clone() {
            for symbol in &outline.symbols {
                if symbol.role == SymbolRole::Definition {
                    builder.push(
                        file,
                        &symbol.name,
                        symbol.role,
                        (symbol.line, symbol.column),
                        symbol.kind,
                    );
                }
            }
        }
        for (file, outline) in positions {
            for symbol in &outline.symbols {
                if symbol.role == SymbolRole::Reference && builder.defines(&symbol.name) {
                    builder.push(
                        file,
                        &symbol.name,
                        symbol.role,
                        (symbol.line, symbol.column),
                        symbol.kind,
                    );
                }
            }
        }
        builder.finish(files.keys().cloned().collect())
    }

    /// Where `name` is defined, in path order.
    pub fn definitions(&self, name: &str) -> impl Iterator<Item = SymbolSite<'_>> {
        self.sites(name, |occurrences| occurrences.definitions)
    }

    /// Where `name` is used, in path order.
    pub fn references(&self, name: &str) -> impl Iterator<Item = SymbolSite<'_>> {
        self.sites(name, |occurrences| occurrences.references)
    }

    /// The files defining `name`, sorted, each once.
    pub fn files_defining(&self, name: &str) -> Vec<&str> {
        self.distinct_files(self.definitions(name))
    }

    /// The files using `name`, sorted, each once.
    pub fn files_referencing(&self, name: &str) -> Vec<&str> {
        self.distinct_files(self.references(name))
    }

    /// Every name with at least one site, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.keys().map(String::as_str)
    }

    /// Defined names containing `query`, ignoring case, sorted.
    pub fn defined_names_matching(&self, query: &str) -> Vec<&str> {
        let query = query.to_lowercase();
        self.names
            .iter()
            .filter(|(name, range)| {
                range.middle > range.start && name.to_lowercase().contains(&query)
            })
            .map(|(name, _)| name.as_str())
            .collect()
    }

    /// How many distinct names the table holds.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the table holds no names.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Every analysed file; [`Site::file`] is a position in this list.
    pub(crate) fn files(&self) -> &[String] {
        &self.files
    }

    /// Every name with its sites.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (&str, Occurrences<'_>)> {
        self.names
            .iter()
            .map(|(name, range)| (name.as_str(), self.occurrences(*range)))
    }

    fn occurrences(&self, range: SiteRange) -> Occurrences<'_> {
        let slice = |from: u32, to: u32| self.sites.get(from as usize..to as usize).unwrap_or(&[]);
        Occurrences {
            definitions: slice(range.start, range.middle),
            references: slice(range.middle, range.end),
        }
    }

    fn sites<'t>(
        &'t self,
        name: &str,
        pick: impl Fn(Occurrences<'t>) -> &'t [Site],
    ) -> impl Iterator<Item = SymbolSite<'t>> {
        let sites = self
            .names
            .get(name)
            .map_or(&[][..], |range| pick(self.occurrences(*range)));
        sites.iter().filter_map(|site| {
            let file = self.files.get(usize::try_from(site.file).ok()?)?;
            Some(SymbolSite {
                file,
                line: site.line,
                column: site.column,
                kind: site.kind,
            })
        })
    }

    fn distinct_files<'t>(&self, sites: impl Iterator<Item = SymbolSite<'t>>) -> Vec<&'t str> {
        let mut files: Vec<&str> = sites.map(|site| site.file).collect();
        files.dedup();
        files
    }
}
