//! The index as agent tools: read-only, automatic code navigation for the model.
//!
//! [`index_tools`] returns `get_structure`, `get_outline`, `get_function`, `get_class`,
//! `find_definition`, `find_references`, `get_dependencies`, `get_dependents`,
//! `get_complexity` and `get_todos` over one [`SharedIndex`]. Every call first brings the
//! index up to date ([`Indexer::update`]): with nothing changed that is one metadata walk of
//! the project (about 10 ms for this repository's ~300 files, measured with a release build), so answers always
//! reflect the edits the agent just made. [`repo_map`] renders the ranked project outline
//! for the system prompt.

mod callees;
mod code;
mod graph;
mod localize;
mod map_tool;
mod structure;

pub use localize::IndexLocalizer;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use hone_tools::{Tool, ToolContext, ToolError, ToolErrorKind};

pub use map_tool::RepoMapTool;

use crate::analysis;
use crate::error::IndexError;
use crate::indexer::Indexer;
use crate::model::{FileOutline, Function};
use crate::repomap::{self, RankGraph, RenderedMap, RepoMapRequest};
#[cfg(doc)]
use crate::store::IndexStore;

/// One project's index, shared by the index tools (and whoever else holds a clone).
#[derive(Clone, Debug)]
pub struct SharedIndex(Arc<Mutex<Indexer>>);

impl SharedIndex {
    /// Shares `indexer`.
    pub fn new(indexer: Indexer) -> Self {
        Self(Arc::new(Mutex::new(indexer)))
    }

    /// The indexer as it is, without updating it (e.g. for a file watcher, or to query it).
    pub fn lock(&self) -> MutexGuard<'_, Indexer> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The indexer, brought up to date with the project first.
    pub(crate) fn fresh(&self) -> Result<MutexGuard<'_, Indexer>, ToolError> {
        let mut indexer = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        indexer.update(&mut |_| {}).map_err(|error| {
            ToolError::io(format!(
                "the code index could not be updated ({error}); use search_files and read_file \
                 instead"
            ))
        })?;
        Ok(indexer)
    }
}

/// The ten index tools over `index`.
pub fn index_tools(index: SharedIndex) -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(structure::GetStructure(index.clone())),
        Arc::new(code::GetOutline(index.clone())),
        Arc::new(code::GetFunction(index.clone())),
        Arc::new(code::GetClass(index.clone())),
        Arc::new(code::FindDefinition(index.clone())),
        Arc::new(code::FindReferences(index.clone())),
        Arc::new(graph::GetDependencies(index.clone())),
        Arc::new(graph::GetDependents(index.clone())),
        Arc::new(structure::GetComplexity(index.clone())),
        Arc::new(structure::GetTodos(index)),
    ]
}

/// The repo map of the indexed project within `budget_tokens`, focused on the file paths and
/// identifiers mentioned in `focus_text` (e.g. the user's request). Empty projects give an
/// empty string.
pub fn repo_map(
    indexer: &Indexer,
    focus_text: &str,
    budget_tokens: usize,
) -> Result<String, IndexError> {
    let mut request = RepoMapRequest {
        budget_tokens,
        ..RepoMapRequest::default()
    };
    for word in focus_text
        .split(|c: char| c.is_whitespace() || "`'\"(),;:<>[]{}!?".contains(c))
        .map(|word| word.trim_end_matches('.'))
    {
        if indexer.files().contains_key(word) {
            request.focus_files.push(word.to_string());
        } else if is_identifier(word) && !request.focus_identifiers.iter().any(|w| w == word) {
            request.focus_identifiers.push(word.to_string());
        }
    }
    Ok(repo_map_for(indexer, &request)?.text)
}

/// The repo map of the indexed project for `request`, from what the index stores: the
/// symbol table and the resolved edges rank the files, and only the outlines that get a
/// section are read.
///
/// The ranking graph built from them is cached in the index ([`IndexStore::rank_cache`])
/// until the next change to outlines or edges, so a map of an unchanged index reads neither.
pub fn repo_map_for(
    indexer: &Indexer,
    request: &RepoMapRequest,
) -> Result<RenderedMap, IndexError> {
    let store = indexer.store();
    let graph = rank_graph(indexer)?;
    let mut failure = None;
    let mut files_defining = |name: &str| match store.definitions(name) {
        Ok(sites) => {
            let mut files: Vec<String> = sites.into_iter().map(|site| site.path).collect();
            files.dedup();
            files
        }
        Err(error) => {
            failure.get_or_insert(error);
            Vec::new()
        }
    };
    let mut outline_failure = None;
    let map = repomap::render_with_graph(
        &graph,
        &mut files_defining,
        &mut |path| match store.outline(path) {
            Ok(outline) => outline,
            Err(error) => {
                outline_failure.get_or_insert(error);
                None
            }
        },
        request,
    );
    failure.or(outline_failure).map_or(Ok(map), Err)
}

/// The ranking graph of the indexed project: the cached one when it is current and covers
/// exactly the indexed source files, else built from the symbol table and the edges (and
/// cached, best effort).
fn rank_graph(indexer: &Indexer) -> Result<RankGraph, IndexError> {
    let store = indexer.store();
    // The generation is read before what the graph is built from (see `rank_cache`).
    let (generation, cached) = store.rank_cache()?;
    let files: Vec<(String, crate::model::Language)> = indexer
        .files()
        .iter()
        .filter_map(|(path, record)| Some((path.clone(), record.language()?)))
        .collect();
    let covers_files = |graph: &RankGraph| {
        graph.nodes.len() == files.len()
            && graph
                .nodes
                .iter()
                .zip(&files)
                .all(|(node, (path, _))| node == path)
    };
    if let Some(graph) = cached
        .and_then(|bytes| RankGraph::decode(&bytes))
        .filter(covers_files)
    {
        return Ok(graph);
    }
    let analysis = analysis::for_ranking(&files, store.all_edges()?, store.defined_symbols()?);
    let graph = RankGraph::build(&analysis);
    if let Err(error) = store.store_rank_cache(generation, &graph.encode()) {
        tracing::debug!("repo map graph not cached: {error}");
    }
    Ok(graph)
}

fn is_identifier(word: &str) -> bool {
    word.len() >= 3
        && word
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The root-relative path of `given` (`""` for the root), through the path guard.
pub(crate) fn relative(context: &ToolContext, given: Option<&str>) -> Result<String, ToolError> {
    match given.map(str::trim) {
        None | Some("" | "." | "./" | "/") => Ok(String::new()),
        Some(path) => Ok(context.guard().resolve_read(path)?.relative),
    }
}

/// Whether `path` is `prefix` or lies under it (`""` is the root).
pub(crate) fn under(path: &str, prefix: &str) -> bool {
    prefix.is_empty()
        || path == prefix
        || path
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// The outline of the indexed source file `given`; errors say what to use instead.
pub(crate) fn source_file(
    context: &ToolContext,
    indexer: &Indexer,
    given: &str,
) -> Result<(String, FileOutline), ToolError> {
    let path = relative(context, Some(given))?;
    let Some(record) = indexer.files().get(&path) else {
        let absolute = context.root().join(&path);
        if path.is_empty() || absolute.is_dir() {
            return Err(ToolError::invalid(format!(
                "`{given}` is a directory; give a source file (get_structure {{\"path\": \
                 \"{path}\"}} lists its files)"
            )));
        }
        if absolute.exists() {
            return Err(ToolError::new(
                ToolErrorKind::NotFound,
                format!("`{path}` is not in the code index (ignored file); use read_file"),
            ));
        }
        return Err(hone_tools::files::not_found(
            context,
            given,
            "get_structure shows the indexed files.",
        ));
    };
    let outline = indexer.store().outline(&path).map_err(index_error)?;
    match outline {
        Some(outline) => Ok((path, outline)),
        None => Err(ToolError::invalid(format!(
            "`{path}` is not parsed source ({:?}); read it with read_file",
            record.kind
        ))),
    }
}

pub(crate) fn index_error(error: IndexError) -> ToolError {
    ToolError::io(format!(
        "the code index failed ({error}); use search_files and read_file instead"
    ))
}

/// `name(params): return` of a function.
pub(crate) fn signature(function: &Function) -> String {
    let prefix = if function.is_async { "async " } else { "" };
    let returns = function
        .return_type
        .as_deref()
        .map_or_else(String::new, |ty| format!(" -> {ty}"));
    format!(
        "{prefix}{}({}){returns}",
        function.name,
        function.params.join(", ")
    )
}

/// `start–end` of a line range.
pub(crate) fn lines(start: u32, end: u32) -> String {
    if start == end {
        format!("line {start}")
    } else {
        format!("lines {start}–{end}")
    }
}

/// At most `limit` items, then `… N more` in a final line.
pub(crate) fn capped(items: Vec<String>, limit: usize, more_hint: &str) -> String {
    let total = items.len();
    let mut out: String = items
        .into_iter()
        .take(limit)
        .map(|line| line + "\n")
        .collect();
    if total > limit {
        out.push_str(&format!("… {} more{more_hint}\n", total - limit));
    }
    out
}

/// Files' source lines, read once each.
#[derive(Default)]
pub(crate) struct Sources(BTreeMap<String, Option<Vec<String>>>);

impl Sources {
    /// Line `line` (1-based) of `path`, trimmed, if readable.
    pub(crate) fn line(&mut self, context: &ToolContext, path: &str, line: u32) -> Option<String> {
        let lines = self.0.entry(path.to_string()).or_insert_with(|| {
            let bytes = std::fs::read(context.root().join(path)).ok()?;
            let (text, _) = hone_tools::files::decode(&bytes);
            Some(text.lines().map(str::to_string).collect())
        });
        let text = lines
            .as_ref()?
            .get(usize::try_from(line).ok()?.checked_sub(1)?)?;
        let text = text.trim();
        Some(if text.chars().count() > 120 {
            format!("{}…", text.chars().take(120).collect::<String>())
        } else {
            text.to_string()
        })
    }
}
