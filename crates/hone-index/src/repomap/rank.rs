//! File importance: PageRank over the reference graph (files referencing a name → files
//! defining it, plus import edges), optionally personalised toward focus files and names.

use crate::analysis::Analysis;
use crate::model::SymbolKind;

/// Probability of following an edge rather than jumping.
const DAMPING: f64 = 0.85;
/// Iteration limit.
const MAX_ITERATIONS: usize = 50;
/// Converged when the ranks moved less than this in total (L1).
const TOLERANCE: f64 = 1e-9;
/// Weight of one import edge (per importing/imported file pair).
const IMPORT_WEIGHT: f64 = 1.0;
/// Names defined in more files than this carry no signal (`new`, `get`, `fmt`) and are skipped.
const MAX_DEFINING_FILES: usize = 20;
/// Factor for references that are method calls: the receiver's type is unknown, so
/// `x.len()` says little about which `len` it calls.
const METHOD_WEIGHT: f64 = 0.2;
/// Share of the jump probability spread over every file when there is a focus.
const UNFOCUSED_SHARE: f64 = 0.2;

/// The weighted file graph, as index-based adjacency (compressed rows).
#[derive(Debug, Clone)]
pub(crate) struct RankGraph {
    /// File paths, sorted; a node is a position here.
    pub(crate) nodes: Vec<String>,
    /// Node `i`'s edges are `targets[offsets[i]..offsets[i + 1]]` with `weights` alongside.
    pub(super) offsets: Vec<usize>,
    pub(super) targets: Vec<u32>,
    pub(super) weights: Vec<f64>,
    /// Sum of each node's outgoing weights.
    out_weight: Vec<f64>,
}

impl RankGraph {
    /// Builds the graph from an analysis.
    pub(crate) fn build(analysis: &Analysis) -> Self {
        let nodes: Vec<String> = analysis.files.keys().cloned().collect();
        let id = |path: &str| nodes.binary_search_by(|node| node.as_str().cmp(path)).ok();
        let mut pairs: Vec<(u32, u32, f64)> = Vec::new();
        for (from, facts) in &analysis.files {
            let Some(from) = id(from) else { continue };
            for to in facts.dependencies.iter().filter_map(|to| id(to)) {
                pairs.push((node_id(from), node_id(to), IMPORT_WEIGHT));
            }
        }
        // Symbol sites name files by their position in the table's own file list.
        let table_files: Vec<Option<usize>> = analysis
            .symbols
            .files()
            .iter()
            .map(|file| id(file))
            .collect();
        let node_of = |file: u32| {
            table_files
                .get(usize::try_from(file).ok()?)
                .copied()
                .flatten()
        };
        let node_count = nodes.len() as f64;
        let mut definers: Vec<usize> = Vec::new();
        for (name, occurrences) in analysis.symbols.entries() {
            if occurrences.definitions.is_empty() || occurrences.references.is_empty() {
                continue;
            }
            definers.clear();
            definers.extend(
                occurrences
                    .definitions
                    .iter()
                    .filter_map(|site| node_of(site.file)),
            );
            definers.dedup();
            if definers.is_empty() || definers.len() > MAX_DEFINING_FILES {
                continue;
            }
            let weight = name_weight(name, definers.len());
            let references = occurrences
                .references
                .iter()
                .filter_map(|site| Some((node_of(site.file)?, site.kind == SymbolKind::Method)));
            let referrers = reference_counts(references);
            // Names used all over the project (`is_empty`, `get`) say less than rare ones.
            let rarity = (1.0 + node_count / referrers.len() as f64).ln();
            for (referrer, plain, method) in referrers {
                let edge_weight = weight * rarity * (plain.sqrt() + METHOD_WEIGHT * method.sqrt());
                for definer in definers.iter().filter(|definer| **definer != referrer) {
                    pairs.push((node_id(referrer), node_id(*definer), edge_weight));
                }
            }
        }
        // A stable sort keeps the summation order, and so the scores, deterministic.
        pairs.sort_by_key(|(from, to, _)| (*from, *to));
        let mut graph = Self {
            offsets: Vec::with_capacity(nodes.len() + 1),
            targets: Vec::new(),
            weights: Vec::new(),
            out_weight: vec![0.0; nodes.len()],
            nodes,
        };
        let mut pairs = pairs.into_iter().peekable();
        for node in 0..graph.nodes.len() {
            graph.offsets.push(graph.targets.len());
            while let Some((_, to, mut weight)) =
                pairs.next_if(|(from, _, _)| *from as usize == node)
            {
                while let Some((_, _, more)) =
                    pairs.next_if(|(from, next, _)| *from as usize == node && *next == to)
                {
                    weight += more;
                }
                graph.targets.push(to);
                graph.weights.push(weight);
                graph.out_weight[node] += weight;
            }
        }
        graph.offsets.push(graph.targets.len());
        graph
    }

    /// A graph from its rows (as [`RankGraph::encode`] stored them).
    pub(super) fn from_parts(
        nodes: Vec<String>,
        offsets: Vec<usize>,
        targets: Vec<u32>,
        weights: Vec<f64>,
    ) -> Self {
        let mut out_weight = vec![0.0; nodes.len()];
        for (node, out) in out_weight.iter_mut().enumerate() {
            // Summed in the order `build` summed them.
            for weight in &weights[offsets[node]..offsets[node + 1]] {
                *out += weight;
            }
        }
        Self {
            nodes,
            offsets,
            targets,
            weights,
            out_weight,
        }
    }

    /// The jump distribution: uniform, or concentrated on the focus files, the files defining
    /// a focus name (`files_defining`) and the files whose stem is one.
    pub(crate) fn personalization(
        &self,
        files_defining: &mut dyn FnMut(&str) -> Vec<String>,
        focus_files: &[String],
        focus_names: &[String],
    ) -> Vec<f64> {
        let count = self.nodes.len();
        let mut focus = vec![0.0; count];
        let id = |path: &str| {
            self.nodes
                .binary_search_by(|node| node.as_str().cmp(path))
                .ok()
        };
        for file in focus_files {
            if let Some(node) = id(file) {
                focus[node] += 1.0;
            }
        }
        for name in focus_names {
            for file in files_defining(name) {
                if let Some(node) = id(&file) {
                    focus[node] += 1.0;
                }
            }
            for (node, path) in self.nodes.iter().enumerate() {
                if file_stem(path).eq_ignore_ascii_case(name) {
                    focus[node] += 1.0;
                }
            }
        }
        let total: f64 = focus.iter().sum();
        let uniform = 1.0 / count.max(1) as f64;
        if total == 0.0 {
            return vec![uniform; count];
        }
        focus
            .iter()
            .map(|weight| UNFOCUSED_SHARE * uniform + (1.0 - UNFOCUSED_SHARE) * weight / total)
            .collect()
    }

    /// PageRank with jump distribution `jump` (which also receives dangling nodes' rank).
    pub(crate) fn pagerank(&self, jump: &[f64]) -> Vec<f64> {
        let mut rank = jump.to_vec();
        let mut next = vec![0.0; rank.len()];
        for _ in 0..MAX_ITERATIONS {
            next.iter_mut().for_each(|value| *value = 0.0);
            let mut dangling = 0.0;
            for (node, (value, out)) in rank.iter().zip(&self.out_weight).enumerate() {
                if *out <= 0.0 {
                    dangling += value;
                    continue;
                }
                let share = DAMPING * value / out;
                let edges = self.offsets[node]..self.offsets[node + 1];
                for (target, weight) in self.targets[edges.clone()].iter().zip(&self.weights[edges])
                {
                    next[*target as usize] += share * weight;
                }
            }
            let teleport = (1.0 - DAMPING) + DAMPING * dangling;
            let mut moved = 0.0;
            for ((next, current), jump) in next.iter_mut().zip(&rank).zip(jump) {
                *next += teleport * jump;
                moved += (*next - current).abs();
            }
            std::mem::swap(&mut rank, &mut next);
            if moved < TOLERANCE {
                break;
            }
        }
        rank
    }
}

/// How much references to `name` say about the defining files (after Aider): descriptive
/// multi-word names count more, private names and names defined in many places less.
fn name_weight(name: &str, defining_files: usize) -> f64 {
    let multi_word = name.contains('_') || name.chars().skip(1).any(|c| c.is_ascii_uppercase());
    let mut weight = 1.0;
    if multi_word && name.len() >= 8 {
        weight *= 10.0;
    }
    if name.starts_with('_') {
        weight *= 0.1;
    }
    if defining_files > 5 {
        weight *= 0.1;
    }
    weight
}

/// Per referring node (references come grouped by file): how many references are plain
/// and how many are method calls.
fn reference_counts(references: impl Iterator<Item = (usize, bool)>) -> Vec<(usize, f64, f64)> {
    let mut out: Vec<(usize, f64, f64)> = Vec::new();
    for (node, is_method) in references {
        if out.last().is_none_or(|(last, _, _)| *last != node) {
            out.push((node, 0.0, 0.0));
        }
        if let Some((_, plain, method)) = out.last_mut() {
            if is_method {
                *method += 1.0;
            } else {
                *plain += 1.0;
            }
        }
    }
    out
}

/// `src/store.test.ts` → `store`.
fn file_stem(path: &str) -> &str {
    let name = path.rsplit_once('/').map_or(path, |(_, name)| name);
    name.split('.').next().unwrap_or(name)
}

fn node_id(node: usize) -> u32 {
    u32::try_from(node).unwrap_or(u32::MAX)
}
