//! The file graph: dependencies and dependents, per-file facts, hubs and entry points.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Edge;
use super::hash::FastMap;
use super::paths::file_name;
use crate::model::{FileMetrics, FileOutline, Language};

/// What the analysis knows about one file: its place in the graph and its measures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileFacts {
    /// The language it was parsed as.
    pub language: Language,
    /// Project files it imports, sorted.
    pub dependencies: Vec<String>,
    /// Project files importing it, sorted.
    pub dependents: Vec<String>,
    /// Number of dependents.
    pub fan_in: u32,
    /// Number of dependencies.
    pub fan_out: u32,
    /// The outline's measures.
    pub metrics: FileMetrics,
    /// Free functions plus methods.
    pub function_count: u32,
    /// Classes, structs, interfaces, traits, enums and impl blocks.
    pub class_count: u32,
    /// Exported names.
    pub export_count: u32,
    /// TODO-style comments.
    pub todo_count: u32,
}

/// Why a file counts as an entry point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryReason {
    /// A conventional name: `main.rs`, `lib.rs`, `main.go`, `__main__.py`, or an `index.*`
    /// nothing imports.
    ConventionalName,
    /// Defines a `main` function (or a Java `static main` method).
    MainFunction,
    /// Nothing in the project imports it, but it imports project files.
    Unimported,
}

/// A file where execution or a library's surface starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryPoint {
    /// The file.
    pub file: String,
    /// Why it counts.
    pub reason: EntryReason,
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Facts for every file; `edges` must be sorted.
pub(crate) fn file_facts(
    files: &BTreeMap<String, FileOutline>,
    edges: &[Edge],
) -> BTreeMap<String, FileFacts> {
    let facts = files.values().map(outline_facts).collect();
    link(files.keys(), facts, edges)
}

/// Graph facts for files known by path and language only (outline counts left at zero);
/// `files` sorted by path, `edges` sorted.
pub(crate) fn graph_facts(
    files: &[(String, Language)],
    edges: &[Edge],
) -> BTreeMap<String, FileFacts> {
    let facts = files
        .iter()
        .map(|(_, language)| FileFacts {
            language: *language,
            dependencies: Vec::new(),
            dependents: Vec::new(),
            fan_in: 0,
            fan_out: 0,
            metrics: FileMetrics::default(),
            function_count: 0,
            class_count: 0,
            export_count: 0,
            todo_count: 0,
        })
        .collect();
    link(files.iter().map(|(path, _)| path), facts, edges)
}

/// Fills in dependencies, dependents and fan-in/out of `facts` (one per path of `paths`).
fn link<'p>(
    paths: impl Iterator<Item = &'p String> + Clone,
    mut facts: Vec<FileFacts>,
    edges: &[Edge],
) -> BTreeMap<String, FileFacts> {
    let positions: FastMap<&str, usize> = paths
        .clone()
        .enumerate()
        .map(|(position, path)| (path.as_str(), position))
        .collect();
    for edge in edges {
        let (Some(from), Some(to)) = (
            positions.get(edge.from.as_str()),
            positions.get(edge.to.as_str()),
        ) else {
            continue;
        };
        let dependencies = &mut facts[*from].dependencies;
        if dependencies.last() != Some(&edge.to) {
            dependencies.push(edge.to.clone());
        }
        let dependents = &mut facts[*to].dependents;
        if dependents.last() != Some(&edge.from) {
            dependents.push(edge.from.clone());
        }
    }
    for fact in &mut facts {
        // Edges come sorted by importer, so dependents arrive sorted; duplicates may remain
        // when another importer's edges came in between.
        fact.dependents.dedup();
        fact.fan_in = count(fact.dependents.len());
        fact.fan_out = count(fact.dependencies.len());
    }
    paths.cloned().zip(facts).collect()
}

fn outline_facts(outline: &FileOutline) -> FileFacts {
    let methods: usize = outline
        .classes
        .iter()
        .map(|class| class.methods.len())
        .sum();
    FileFacts {
        language: outline.language,
        dependencies: Vec::new(),
        dependents: Vec::new(),
        fan_in: 0,
        fan_out: 0,
        metrics: outline.metrics,
        function_count: count(outline.functions.len() + methods),
        class_count: count(outline.classes.len()),
        export_count: count(outline.exports.len()),
        todo_count: count(outline.todos.len()),
    }
}

/// Up to `limit` files with the most dependents (most first, then by path).
pub(crate) fn hubs(facts: &BTreeMap<String, FileFacts>, limit: usize) -> Vec<String> {
    let mut ranked: Vec<(&String, u32)> = facts
        .iter()
        .filter(|(_, fact)| fact.fan_in > 0)
        .map(|(path, fact)| (path, fact.fan_in))
        .collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    ranked
        .into_iter()
        .take(limit)
        .map(|(path, _)| path.clone())
        .collect()
}

/// Entry points, sorted by path.
pub(crate) fn entry_points(
    files: &BTreeMap<String, FileOutline>,
    facts: &BTreeMap<String, FileFacts>,
) -> Vec<EntryPoint> {
    facts
        .iter()
        .filter_map(|(path, fact)| {
            let outline = files.get(path)?;
            let reason = entry_reason(path, outline, fact)?;
            Some(EntryPoint {
                file: path.clone(),
                reason,
            })
        })
        .collect()
}

fn entry_reason(path: &str, outline: &FileOutline, fact: &FileFacts) -> Option<EntryReason> {
    let name = file_name(path);
    let stem = name.split('.').next().unwrap_or(name);
    let conventional = matches!(name, "main.rs" | "lib.rs" | "main.go" | "__main__.py")
        || (stem == "index"
            && fact.fan_in == 0
            && matches!(
                outline.language,
                Language::TypeScript | Language::Tsx | Language::JavaScript
            ));
    if conventional {
        return Some(EntryReason::ConventionalName);
    }
    let main_function = outline
        .functions
        .iter()
        .any(|function| function.name == "main")
        || (outline.language == Language::Java
            && outline
                .classes
                .iter()
                .flat_map(|class| &class.methods)
                .any(|method| method.name == "main" && method.is_static));
    if main_function {
        return Some(EntryReason::MainFunction);
    }
    (fact.fan_in == 0 && fact.fan_out > 0).then_some(EntryReason::Unimported)
}
