//! The repo map: a compact, ranked outline of the project for the model's context.
//!
//! Files are ranked by PageRank over the reference graph — an edge from each file using a
//! name to the files defining it (weighted after Aider), plus import edges — personalised
//! toward the files and names of the conversation. The best files are then shown with their
//! signatures until the token budget is reached:
//!
//! ```text
//! src/store.ts:
//!   class Store extends Base
//!     async get(key: string): Promise<Value>
//!   function createStore(opts: Options): Store
//! ```
//!
//! [`RepoMap`] caches the graph and the rankings between calls, so asking again after a
//! small change or with another focus costs little; rendering only visits the files that
//! fit the budget.

mod rank;
mod render;
mod stored;

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};

pub use hone_protocol::estimate_tokens;
pub use render::{MAX_SECTION_LINES, render_file};

use crate::analysis::Analysis;
use crate::model::FileOutline;
pub(crate) use rank::RankGraph;

/// The budget of a [`RepoMapRequest`] by default, in estimated tokens.
pub const DEFAULT_BUDGET_TOKENS: usize = 8000;

/// Rankings kept for different focuses.
const CACHED_RANKINGS: usize = 8;

/// When not every outline fits, `1 / PATH_SHARE` of the budget goes to bare paths.
const PATH_SHARE: usize = 4;

/// What to build a map for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RepoMapRequest {
    /// Files the conversation is about (root-relative); they and their neighbours rank higher.
    pub focus_files: Vec<String>,
    /// Names mentioned in the conversation; files defining them (or named so) rank higher.
    pub focus_identifiers: Vec<String>,
    /// Upper bound of the map's size, in [`estimate_tokens`] tokens.
    pub budget_tokens: usize,
}

impl Default for RepoMapRequest {
    fn default() -> Self {
        Self {
            focus_files: Vec::new(),
            focus_identifiers: Vec::new(),
            budget_tokens: DEFAULT_BUDGET_TOKENS,
        }
    }
}

/// A file and its importance.
#[derive(Debug, Clone, PartialEq)]
pub struct RankedFile {
    /// The file (root-relative).
    pub path: String,
    /// Its PageRank (all scores sum to 1).
    pub score: f64,
}

/// A rendered map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedMap {
    /// The map: outlines and bare paths in path order, then `… N more files` when some
    /// were left out.
    pub text: String,
    /// The files shown with their outlines, most important first.
    pub files: Vec<String>,
    /// The files shown as bare paths, most important first.
    pub listed: Vec<String>,
    /// Files left out for lack of budget.
    pub omitted: usize,
    /// [`estimate_tokens`] of `text`; never above the request's budget.
    pub tokens: usize,
}

/// Builds repo maps, caching the reference graph and rankings between calls.
#[derive(Debug, Default)]
pub struct RepoMap {
    /// The graph and the fingerprint of the analysis it was built from; the rankings
    /// belong to it.
    graph: Option<(u64, RankGraph)>,
    /// Recent rankings, oldest first.
    rankings: Vec<Ranking>,
}

/// A ranking for one graph and focus.
#[derive(Debug)]
struct Ranking {
    focus_files: Vec<String>,
    focus_identifiers: Vec<String>,
    scores: Vec<f64>,
    /// Nodes by descending score, ties by path.
    order: Vec<usize>,
}

impl Ranking {
    /// PageRank over `graph` personalised for `request`.
    fn new(
        graph: &RankGraph,
        files_defining: &mut dyn FnMut(&str) -> Vec<String>,
        request: &RepoMapRequest,
    ) -> Self {
        let jump = graph.personalization(
            files_defining,
            &request.focus_files,
            &request.focus_identifiers,
        );
        let scores = graph.pagerank(&jump);
        let mut order: Vec<usize> = (0..scores.len()).collect();
        order.sort_by(|a, b| scores[*b].total_cmp(&scores[*a]).then_with(|| a.cmp(b)));
        Self {
            focus_files: request.focus_files.clone(),
            focus_identifiers: request.focus_identifiers.clone(),
            scores,
            order,
        }
    }
}

impl RepoMap {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every analysed file with its score, most important first (ties by path).
    pub fn rank(&mut self, analysis: &Analysis, request: &RepoMapRequest) -> Vec<RankedFile> {
        let (graph, ranking) = self.ranking(analysis, request);
        ranking
            .order
            .iter()
            .map(|node| RankedFile {
                path: graph.nodes[*node].clone(),
                score: ranking.scores[*node],
            })
            .collect()
    }

    /// The map of the best-ranked files that fit `request.budget_tokens`. `files` supplies
    /// the outlines (files missing there are shown as bare paths).
    ///
    /// When not every outline fits, the best files get their outlines within three quarters
    /// of the budget and the rest goes to the paths of the next files, so the map also shows
    /// the structure around them.
    pub fn render(
        &mut self,
        files: &BTreeMap<String, FileOutline>,
        analysis: &Analysis,
        request: &RepoMapRequest,
    ) -> RenderedMap {
        self.render_sections(analysis, request, &mut |path| {
            files.get(path).map(|outline| render_file(path, outline))
        })
    }

    /// [`RepoMap::render`] with outlines fetched by `outline` as needed, so only the files
    /// that get a section are loaded (a few dozen, against every file of the project).
    pub fn render_loading(
        &mut self,
        outline: &mut dyn FnMut(&str) -> Option<FileOutline>,
        analysis: &Analysis,
        request: &RepoMapRequest,
    ) -> RenderedMap {
        self.render_sections(analysis, request, &mut |path| {
            outline(path).map(|outline| render_file(path, &outline))
        })
    }

    /// The map, with `section` rendering a file's outline (`None`: shown as a bare path).
    fn render_sections(
        &mut self,
        analysis: &Analysis,
        request: &RepoMapRequest,
        section: &mut dyn FnMut(&str) -> Option<String>,
    ) -> RenderedMap {
        let (graph, ranking) = self.ranking(analysis, request);
        render_ranked(graph, ranking, request, section)
    }

    /// The graph for `analysis` and the ranking for `request`, from the cache when possible.
    fn ranking(&mut self, analysis: &Analysis, request: &RepoMapRequest) -> (&RankGraph, &Ranking) {
        let fingerprint = fingerprint(analysis);
        let graph = match self.graph.take() {
            Some((cached, graph)) if cached == fingerprint => graph,
            _ => {
                self.rankings.clear();
                RankGraph::build(analysis)
            }
        };
        let cached = self.rankings.iter().position(|ranking| {
            ranking.focus_files == request.focus_files
                && ranking.focus_identifiers == request.focus_identifiers
        });
        let position = match cached {
            Some(position) => position,
            None => {
                let mut files_defining = |name: &str| {
                    let files = analysis.symbols.files_defining(name);
                    files.into_iter().map(str::to_string).collect()
                };
                let ranking = Ranking::new(&graph, &mut files_defining, request);
                if self.rankings.len() == CACHED_RANKINGS {
                    self.rankings.remove(0);
                }
                self.rankings.push(ranking);
                self.rankings.len() - 1
            }
        };
        let (_, graph) = self.graph.insert((fingerprint, graph));
        (graph, &self.rankings[position])
    }
}

/// The map of `graph` ranked as `ranking`, with `section` rendering a file's outline
/// (`None`: shown as a bare path).
fn render_ranked(
    graph: &RankGraph,
    ranking: &Ranking,
    request: &RepoMapRequest,
    section: &mut dyn FnMut(&str) -> Option<String>,
) -> RenderedMap {
    let total = ranking.order.len();
    // The footer only shrinks as more files are shown, so reserving its largest form
    // keeps every cut within budget.
    let footer_reserve = if total == 0 {
        0
    } else {
        estimate_tokens(&footer(total))
    };
    let available = request.budget_tokens.saturating_sub(footer_reserve);
    let paths: Vec<&str> = ranking
        .order
        .iter()
        .map(|node| graph.nodes[*node].as_str())
        .collect();
    let mut sections: Vec<String> = Vec::new();
    let mut section_tokens: Vec<usize> = Vec::new();
    let mut used = 0;
    for path in &paths {
        let section = section(path).unwrap_or_else(|| format!("{path}\n"));
        used += estimate_tokens(&section);
        sections.push(section);
        section_tokens.push(used);
        if used > available {
            break;
        }
    }
    // Prefix sums grow with the number of files: binary search for the largest cut.
    let mut outlined = section_tokens.partition_point(|tokens| *tokens <= available);
    let mut listed = 0;
    if outlined < total {
        let outline_budget = available - available / PATH_SHARE;
        outlined = section_tokens.partition_point(|tokens| *tokens <= outline_budget);
        let spent = outlined
            .checked_sub(1)
            .map_or(0, |last| section_tokens[last]);
        let mut path_tokens = 0;
        listed = paths[outlined..]
            .iter()
            .take_while(|path| {
                path_tokens += estimate_tokens(&format!("{path}\n"));
                spent + path_tokens <= available
            })
            .count();
    }
    sections.truncate(outlined);
    let mut lines: Vec<(&str, String)> = paths.iter().copied().zip(sections).collect();
    lines.extend(
        paths[outlined..outlined + listed]
            .iter()
            .map(|path| (*path, format!("{path}\n"))),
    );
    lines.sort_by(|a, b| a.0.cmp(b.0));
    let mut text: String = lines.into_iter().map(|(_, line)| line).collect();
    let omitted = total - outlined - listed;
    if omitted > 0
        && estimate_tokens(&text) + estimate_tokens(&footer(omitted)) <= request.budget_tokens
    {
        text.push_str(&footer(omitted));
    }
    RenderedMap {
        tokens: estimate_tokens(&text),
        text,
        files: paths[..outlined]
            .iter()
            .map(|path| (*path).to_string())
            .collect(),
        listed: paths[outlined..outlined + listed]
            .iter()
            .map(|path| (*path).to_string())
            .collect(),
        omitted,
    }
}

/// The map for `request` ranked over `graph`, a graph built (or cached) from the index rather
/// than from an [`Analysis`]: `files_defining` names the files defining a focus name,
/// `outline` loads the outlines of the files that get a section.
pub(crate) fn render_with_graph(
    graph: &RankGraph,
    files_defining: &mut dyn FnMut(&str) -> Vec<String>,
    outline: &mut dyn FnMut(&str) -> Option<FileOutline>,
    request: &RepoMapRequest,
) -> RenderedMap {
    let ranking = Ranking::new(graph, files_defining, request);
    render_ranked(graph, &ranking, request, &mut |path| {
        outline(path).map(|outline| render_file(path, &outline))
    })
}

/// The last line of a map that leaves files out.
fn footer(omitted: usize) -> String {
    format!("… {omitted} more files\n")
}

/// Identifies everything the graph is built from: files, their dependencies, the symbols.
fn fingerprint(analysis: &Analysis) -> u64 {
    let mut hasher = DefaultHasher::new();
    for (path, facts) in &analysis.files {
        path.hash(&mut hasher);
        facts.dependencies.hash(&mut hasher);
    }
    analysis.symbols.hash(&mut hasher);
    hasher.finish()
}
