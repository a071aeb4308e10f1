//! Project-wide analysis over all outlines: imports resolved to project files ([`Edge`]s),
//! dependencies and dependents, hub files, entry points, per-file facts and the
//! [`SymbolTable`].
//!
//! [`analyze`] runs after every incremental update, so resolution works on lookup maps
//! built once per call from the outline keys; only project configuration
//! ([`ProjectConfig`]: tsconfig paths, `go.mod`, crate names) is read from disk, and
//! [`analyze_with`] skips even that when the caller keeps the configuration.
//!
//! ```
//! use std::collections::BTreeMap;
//! use hone_index::analysis::{analyze_with, ProjectConfig};
//! use hone_index::{FileOutline, Import, ImportOrigin, Language};
//!
//! let mut app = FileOutline::empty(Language::TypeScript);
//! app.imports.push(Import {
//!     source: "./store".into(),
//!     names: Vec::new(),
//!     line: 1,
//!     origin: ImportOrigin::Internal,
//! });
//! let files = BTreeMap::from([
//!     ("src/app.ts".to_string(), app),
//!     ("src/store.ts".to_string(), FileOutline::empty(Language::TypeScript)),
//! ]);
//! let analysis = analyze_with(&ProjectConfig::default(), &files);
//! assert_eq!(analysis.dependents("src/store.ts"), ["src/app.ts"]);
//! ```

mod config;
mod graph;
mod hash;
mod jsonc;
mod paths;
mod resolve;
mod resolve_js;
mod resolve_other;
mod resolve_python;
mod resolve_rust;
mod symbols;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

pub use config::ProjectConfig;
pub use graph::{EntryPoint, EntryReason, FileFacts};
pub(crate) use symbols::SymbolTableBuilder;
pub use symbols::{SymbolSite, SymbolTable};

use crate::model::{FileOutline, Import, ImportOrigin};
use resolve::Resolver;

/// How many hub files an analysis lists.
pub const HUB_COUNT: usize = 10;

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
    /// Every resolved internal import, sorted, without self-imports. One import can yield
    /// several edges (a Go package, Python `from pkg import a, b` of submodules).
    pub edges: Vec<Edge>,
    /// File → the import sources written there that resolved to project files. Their
    /// origin is [`ImportOrigin::Internal`] whatever the syntax suggested; see
    /// [`Analysis::origin_of`] and [`Analysis::upgrade_origins`].
    pub internal_sources: BTreeMap<String, BTreeSet<String>>,
    /// Per-file graph position and measures, for every analysed file.
    pub files: BTreeMap<String, FileFacts>,
    /// Up to [`HUB_COUNT`] files with the most dependents, most first.
    pub hubs: Vec<String>,
    /// Entry points, sorted by path.
    pub entry_points: Vec<EntryPoint>,
    /// Definition and reference sites per name.
    pub symbols: SymbolTable,
}

impl Analysis {
    /// Project files `file` imports, sorted (empty for unknown files).
    pub fn dependencies(&self, file: &str) -> &[String] {
        self.files
            .get(file)
            .map_or(&[], |facts| &facts.dependencies)
    }

    /// Project files importing `file`, sorted (empty for unknown files).
    pub fn dependents(&self, file: &str) -> &[String] {
        self.files.get(file).map_or(&[], |facts| &facts.dependents)
    }

    /// The origin of `import` written in `file`: internal when it resolved to a project
    /// file, else what the syntax said.
    pub fn origin_of(&self, file: &str, import: &Import) -> ImportOrigin {
        let resolved = self
            .internal_sources
            .get(file)
            .is_some_and(|sources| sources.contains(&import.source));
        if resolved {
            ImportOrigin::Internal
        } else {
            import.origin
        }
    }

    /// Sets the origin of every resolved import in `files` to internal. This is the only
    /// function of the analysis that changes outlines; call it before storing them when
    /// stored origins should reflect resolution.
    pub fn upgrade_origins(&self, files: &mut BTreeMap<String, FileOutline>) {
        for (file, sources) in &self.internal_sources {
            let Some(outline) = files.get_mut(file) else {
                continue;
            };
            for import in &mut outline.imports {
                if sources.contains(&import.source) {
                    import.origin = ImportOrigin::Internal;
                }
            }
        }
    }
}

/// Analyses every file's outline (root-relative path → outline). `root` gives access to
/// project configuration such as `tsconfig.json` paths or `go.mod`, read once per call.
pub fn analyze(root: &Path, files: &BTreeMap<String, FileOutline>) -> Analysis {
    analyze_with(&ProjectConfig::load(root, files), files)
}

/// [`analyze`] with configuration the caller already loaded; no file system access.
pub fn analyze_with(config: &ProjectConfig, files: &BTreeMap<String, FileOutline>) -> Analysis {
    let resolver = Resolver::new(config, files);
    let mut edges = Vec::new();
    let mut internal_sources: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, outline) in files {
        let start = edges.len();
        resolve_file(&resolver, from, outline, &mut edges);
        let sources = edges[start..].iter().map(|edge| edge.source.clone());
        let sources: BTreeSet<String> = sources.collect();
        if !sources.is_empty() {
            internal_sources.insert(from.clone(), sources);
        }
    }
    edges.sort_unstable();
    edges.dedup();
    let facts = graph::file_facts(files, &edges);
    Analysis {
        hubs: graph::hubs(&facts, HUB_COUNT),
        entry_points: graph::entry_points(files, &facts),
        symbols: SymbolTable::build(files),
        files: facts,
        internal_sources,
        edges,
    }
}

/// An analysis for ranking files (the repo map) from what an index stores: the parsed files
/// with their language (sorted by path), the resolved edges and the symbol table. Outline
/// counts in the facts are zero and entry points are not determined.
pub(crate) fn for_ranking(
    files: &[(String, crate::model::Language)],
    mut edges: Vec<Edge>,
    symbols: SymbolTable,
) -> Analysis {
    edges.sort_unstable();
    edges.dedup();
    let facts = graph::graph_facts(files, &edges);
    let mut internal_sources: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for edge in &edges {
        internal_sources
            .entry(edge.from.clone())
            .or_default()
            .insert(edge.source.clone());
    }
    Analysis {
        hubs: graph::hubs(&facts, HUB_COUNT),
        entry_points: Vec::new(),
        symbols,
        files: facts,
        internal_sources,
        edges,
    }
}

/// Just the import edges of [`analyze_with`], sorted: those of every file, or with `only`
/// those of the files listed there (resolved against all of `files`). Resolving one file's
/// imports depends only on the set of paths and the configuration, so after an edit that
/// keeps both, re-resolving the edited files updates the graph.
pub fn resolve_edges(
    config: &ProjectConfig,
    files: &BTreeMap<String, FileOutline>,
    only: Option<&[String]>,
) -> Vec<Edge> {
    let resolver = Resolver::new(config, files);
    let mut edges = Vec::new();
    match only {
        None => {
            for (from, outline) in files {
                resolve_file(&resolver, from, outline, &mut edges);
            }
        }
        Some(only) => {
            for (from, outline) in only.iter().filter_map(|from| files.get_key_value(from)) {
                resolve_file(&resolver, from, outline, &mut edges);
            }
        }
    }
    edges.sort_unstable();
    edges.dedup();
    edges
}

/// Appends the edges of the imports of `outline`, the file `from`, without self-imports.
fn resolve_file<'a>(
    resolver: &Resolver<'a>,
    from: &'a str,
    outline: &FileOutline,
    edges: &mut Vec<Edge>,
) {
    let mut targets = Vec::new();
    for import in &outline.imports {
        targets.clear();
        resolver.resolve(from, outline.language, import, &mut targets);
        targets.retain(|to| *to != from);
        edges.extend(targets.iter().map(|to| Edge {
            from: from.to_string(),
            to: (*to).to_string(),
            source: import.source.clone(),
            line: import.line,
        }));
    }
}
