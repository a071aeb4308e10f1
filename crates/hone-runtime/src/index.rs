//! The code index as `[index]` sets it up (database location, extra ignores), opened and
//! brought up to date for a session, and what a session gets from it: the index tools, the
//! repo map, the code mapper for answers written as code, and the localizer.

use std::path::Path;
use std::sync::Arc;

use hone_config::{IndexDatabase, IndexSettings};
use hone_core::PromptProfile;
use hone_index::scan::DEFAULT_IGNORES;
use hone_index::tools::{IndexLocalizer, SharedIndex, index_tools};
use hone_index::{IndexOptions, Indexer, LARGE_REPOSITORY_FILES};
use hone_protocol::HoneError;
use hone_tools::Tool;
use hone_tools::edit::natural::CodeMapper;

use crate::error::index_error;
pub use crate::index_build::IndexProgress;
use crate::index_build::{GatedLocalizer, GatedMapper, GatedTool, IndexBuild};
use crate::interaction::{IndexChoice, Interaction};

/// The indexer options for the project at `root` under `settings`.
pub fn index_options(root: &Path, settings: &IndexSettings) -> Result<IndexOptions, HoneError> {
    let db_path = match settings.database {
        IndexDatabase::Project => None,
        IndexDatabase::DataDir => Some(settings.database_path(root).ok_or_else(|| {
            HoneError::config(format!(
                "[index] database = \"data-dir\" needs hone's data directory, and there is none: \
                 set {} or HOME, or use database = \"project\"",
                hone_config::DATA_DIR_ENV
            ))
        })?),
    };
    let mut extra_ignores: Vec<String> = DEFAULT_IGNORES.iter().map(ToString::to_string).collect();
    extra_ignores.extend(settings.extra_ignores.iter().cloned());
    Ok(IndexOptions {
        db_path,
        extra_ignores,
        ..IndexOptions::default()
    })
}

/// Opens the index of the project at `root` as `settings` say (not updated yet), in the
/// store `[store]` chooses.
pub fn open_index(root: &Path, settings: &IndexSettings) -> Result<Indexer, HoneError> {
    let options = index_options(root, settings)?;
    crate::index_store::open_indexer(root, &options, &settings.store)
}

/// The warning about a large index, without the `hone:` prefix.
pub fn large_repository_warning(new_files: usize) -> String {
    format!(
        "{new_files} files to index (more than {LARGE_REPOSITORY_FILES}); the first index takes \
         a while and the database grows with it"
    )
}

/// What `hone index` does before an update that adds `new_files` files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LargeRepoAction {
    /// Index without a word: few enough files, or `--yes`.
    Proceed,
    /// Print the warning and index anyway (no terminal to ask on).
    Warn,
    /// Ask on the terminal.
    Ask,
}

/// Whether to ask before indexing `new_files` files not yet in the index: only above
/// [`LARGE_REPOSITORY_FILES`], so re-running on an indexed project never asks.
pub fn large_repository_action(
    new_files: usize,
    interactive: bool,
    assume_yes: bool,
) -> LargeRepoAction {
    if new_files <= LARGE_REPOSITORY_FILES || assume_yes {
        LargeRepoAction::Proceed
    } else if interactive {
        LargeRepoAction::Ask
    } else {
        LargeRepoAction::Warn
    }
}

/// The files an update of `indexer` would add: found in the project, not indexed yet.
pub fn files_to_add(indexer: &Indexer) -> usize {
    indexer
        .scanner()
        .scan()
        .files
        .iter()
        .filter(|file| !indexer.files().contains_key(&file.path))
        .count()
}

/// The warning before a large first index when a session starts and nobody was asked.
fn large_update_warning(files: usize, home: bool) -> String {
    let what = if home {
        format!("{files} files to index in your home directory")
    } else {
        large_repository_warning(files)
    };
    format!(
        "{what}; the index is built when the model first needs it (`hone index --scope DIR` \
         limits the index to one sub-directory, `[index] extra_ignores` leaves files out)"
    )
}

/// Whether `root` is the user's home directory (indexed only when asked for).
fn is_home(root: &Path) -> bool {
    dirs::home_dir()
        .and_then(|home| home.canonicalize().ok())
        .is_some_and(|home| root.canonicalize().is_ok_and(|root| root == home))
}

/// New files indexed before a session starts (a second or so); an update adding more runs
/// in the background while the session already works.
pub const FOREGROUND_FILES: usize = 1_000;

/// Repo-map tokens at most under the compact prompt profile: a small model on a CPU pays
/// for every prompt token, and the whole first request should stay near 2,000 tokens.
pub const COMPACT_MAP_BUDGET: usize = 1_000;

/// The repo map's token budget: `[index] map_budget`, capped for the compact profile.
pub fn map_budget(settings: &IndexSettings, profile: PromptProfile) -> usize {
    match profile {
        PromptProfile::Compact => settings.map_budget.min(COMPACT_MAP_BUDGET),
        PromptProfile::Full => settings.map_budget,
    }
}

/// The project's code index for sessions: built on a thread of its own while sessions
/// run ([`CodeIndex::progress`], [`CodeIndex::skip`]), or why there is none.
#[derive(Clone)]
pub struct CodeIndex {
    build: Option<IndexBuild>,
    problem: Option<String>,
}

/// What the code index gives one session.
pub(crate) struct IndexParts {
    pub(crate) tools: Vec<Arc<dyn Tool>>,
    pub(crate) repo_map: Option<String>,
    pub(crate) mapper: Arc<dyn CodeMapper>,
    pub(crate) localizer: Option<Arc<dyn hone_core::Localizer>>,
    /// Why there is no repo map, as a warning.
    pub(crate) map_warning: Option<String>,
}

impl CodeIndex {
    /// Opens the index of the project at `root` as `settings` say and brings it up to date:
    /// at once when it adds at most [`FOREGROUND_FILES`] files, else in the background. A
    /// first index of more than [`LARGE_REPOSITORY_FILES`]
    /// files, or of the home directory, is put to `interaction` (index now, when first
    /// needed, or not in this session). Without an index sessions run without the index
    /// tools, the map and the localizer.
    pub fn open(root: &Path, settings: &IndexSettings, interaction: &dyn Interaction) -> Self {
        let indexer = match open_index(root, settings) {
            Ok(indexer) => indexer,
            Err(error) => match crate::index_store::fall_back(root, settings, &error) {
                Some((indexer, warning)) => {
                    interaction.warn(&warning);
                    indexer
                }
                None => return Self::none(error.message),
            },
        };
        let home = is_home(root);
        let new_files = files_to_add(&indexer);
        let choice = if new_files > LARGE_REPOSITORY_FILES || (home && new_files > 0) {
            interaction.large_index(new_files, home)
        } else {
            IndexChoice::Now
        };
        let initial = match choice {
            IndexChoice::Now | IndexChoice::Later => IndexProgress::Deferred,
            IndexChoice::Skip => IndexProgress::Skipped,
        };
        let build = IndexBuild::new(SharedIndex::new(indexer), initial);
        match choice {
            // A few files are indexed before the session starts, so its first request has
            // the repo map; more are indexed while it runs.
            IndexChoice::Now if new_files <= FOREGROUND_FILES => build.run_here(),
            IndexChoice::Now => build.start(),
            IndexChoice::Later => interaction.warn(&large_update_warning(new_files, home)),
            IndexChoice::Skip => {}
        }
        Self {
            build: Some(build),
            problem: None,
        }
    }

    /// No index, for `reason`.
    pub fn none(reason: impl Into<String>) -> Self {
        Self {
            build: None,
            problem: Some(reason.into()),
        }
    }

    /// How far the index is.
    pub fn progress(&self) -> IndexProgress {
        match (&self.build, &self.problem) {
            (Some(build), _) => build.progress(),
            (None, problem) => IndexProgress::Unavailable(problem.clone().unwrap_or_default()),
        }
    }

    /// Stops waiting for the index in this session (Esc or Ctrl+C while it is built): its
    /// tools say so from now on. `true` when it was being built.
    pub fn skip(&self) -> bool {
        self.build.as_ref().is_some_and(IndexBuild::skip)
    }

    /// Waits until the index is no longer being built (for `hone mcp serve`).
    pub fn wait(&self) -> IndexProgress {
        match &self.build {
            Some(build) => build.wait(),
            None => self.progress(),
        }
    }

    /// The tools that answer from the index for an MCP client: the repo map (within
    /// `map_budget` tokens) and the ten index tools; none without an index.
    pub fn serve_tools(&self, map_budget: usize) -> Vec<Arc<dyn Tool>> {
        let Some(build) = &self.build else {
            return Vec::new();
        };
        let index = build.index();
        let mut tools: Vec<Arc<dyn Tool>> = vec![Arc::new(hone_index::tools::RepoMapTool::new(
            index.clone(),
            map_budget,
        ))];
        tools.extend(hone_index::tools::index_tools(index.clone()));
        tools
            .into_iter()
            .map(|tool| GatedTool::wrap(tool, build))
            .collect()
    }

    /// One line for `/status`: the files indexed, how far the build is, or why there is no
    /// index.
    pub fn status(&self) -> String {
        match self.progress() {
            IndexProgress::Ready => {
                let files = self
                    .build
                    .as_ref()
                    .map_or(0, |build| build.index().lock().files().len());
                format!("{files} file{} indexed", if files == 1 { "" } else { "s" })
            }
            progress @ IndexProgress::Indexing { .. } => progress.line().unwrap_or_default(),
            IndexProgress::Deferred => {
                "code index left for later (built when the model first needs it)".to_string()
            }
            IndexProgress::Skipped => "code index skipped for this session".to_string(),
            IndexProgress::Unavailable(reason) => format!("no code index: {reason}"),
        }
    }

    /// Why there is no index, when there is none.
    pub fn problem(&self) -> Option<String> {
        match self.progress() {
            IndexProgress::Unavailable(reason) => Some(reason),
            _ => None,
        }
    }

    /// Brings the index up to date; the text says what changed.
    pub fn reindex(&self) -> Result<String, HoneError> {
        let Some(build) = &self.build else {
            return Err(HoneError::config(format!(
                "there is no code index ({}); run `hone index` to see why",
                self.status()
            )));
        };
        let mut indexer = build.index().lock();
        let report = indexer.update(&mut |_| {}).map_err(index_error)?;
        drop(indexer);
        build.mark_ready();
        Ok(format!(
            "index up to date: {} files ({} parsed, {} removed), {} symbols, in {} ms",
            report.files_total,
            report.files_parsed,
            report.files_deleted,
            report.symbols,
            report.duration.as_millis()
        ))
    }

    /// Symbols whose names start with `prefix`, one per name, as `(name, "kind path:line")`.
    pub fn symbols(&self, prefix: &str, limit: usize) -> Vec<(String, String)> {
        let Some(index) = self.build.as_ref().and_then(IndexBuild::ready) else {
            return Vec::new();
        };
        let indexer = index.lock();
        let Ok(found) = indexer.store().search_symbols(prefix, limit * 4) else {
            return Vec::new();
        };
        let mut out: Vec<(String, String)> = Vec::new();
        for site in found {
            if !site.name.starts_with(prefix) || out.iter().any(|(name, _)| *name == site.name) {
                continue;
            }
            let detail = format!("{:?} {}:{}", site.kind, site.path, site.line).to_lowercase();
            out.push((site.name, detail));
            if out.len() == limit {
                break;
            }
        }
        out
    }

    /// The tools, the repo map (focused on `focus`, within the configured budget, smaller
    /// for the compact profile; only when the index is ready), the code mapper (which asks
    /// the index where a name is defined, else searches the files) and the localizer. None
    /// of them waits: until the index is ready the tools say how far it is, the mapper and
    /// the localizer do without it.
    pub(crate) fn parts(
        &self,
        focus: &str,
        settings: &IndexSettings,
        profile: PromptProfile,
    ) -> IndexParts {
        let Some(build) = &self.build else {
            return IndexParts {
                tools: Vec::new(),
                repo_map: None,
                mapper: Arc::new(hone_index::mapper::TreeSitterMapper),
                localizer: None,
                map_warning: None,
            };
        };
        let budget = map_budget(settings, profile);
        let (repo_map, map_warning) = match build.ready() {
            Some(index) => match hone_index::tools::repo_map(&index.lock(), focus, budget) {
                Ok(map) => (Some(map).filter(|map| !map.trim().is_empty()), None),
                Err(error) => (None, Some(format!("no repository map ({error})"))),
            },
            None => (None, None),
        };
        let index = build.index();
        IndexParts {
            tools: index_tools(index.clone())
                .into_iter()
                .map(|tool| GatedTool::wrap(tool, build))
                .collect(),
            repo_map,
            mapper: GatedMapper::wrap(
                Arc::new(hone_index::mapper::IndexedMapper::new(index.clone())),
                build,
            ),
            localizer: Some(GatedLocalizer::wrap(
                Arc::new(IndexLocalizer::new(index.clone())),
                build,
            )),
            map_warning,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asks_only_above_the_threshold_and_on_a_terminal() {
        use LargeRepoAction::{Ask, Proceed, Warn};
        let large = LARGE_REPOSITORY_FILES + 1;
        assert_eq!(
            large_repository_action(LARGE_REPOSITORY_FILES, true, false),
            Proceed
        );
        assert_eq!(large_repository_action(large, true, false), Ask);
        assert_eq!(large_repository_action(large, false, false), Warn);
        assert_eq!(large_repository_action(large, true, true), Proceed);
        assert_eq!(large_repository_action(large, false, true), Proceed);
    }

    #[test]
    fn configured_ignores_come_after_the_defaults() {
        let settings = IndexSettings {
            extra_ignores: vec!["*.gen.ts".to_string()],
            ..IndexSettings::default()
        };
        let options = index_options(Path::new("/p"), &settings).unwrap();
        assert_eq!(options.db_path, None);
        assert_eq!(options.extra_ignores.len(), DEFAULT_IGNORES.len() + 1);
        assert_eq!(options.extra_ignores[0], DEFAULT_IGNORES[0]);
        assert_eq!(options.extra_ignores.last().unwrap(), "*.gen.ts");
    }

    #[test]
    fn the_large_update_warning_names_the_count_and_the_ways_out() {
        let warning = large_update_warning(12_345, false);
        assert!(warning.starts_with("12345 files to index"), "{warning}");
        assert!(
            warning.contains("when the model first needs it"),
            "{warning}"
        );
        let home = large_update_warning(3, true);
        assert!(home.contains("in your home directory"), "{home}");
        assert!(warning.contains("--scope DIR"), "{warning}");
        assert!(warning.contains("extra_ignores"), "{warning}");
    }

    #[test]
    fn the_compact_profile_caps_the_map_budget() {
        let settings = IndexSettings {
            map_budget: 4_000,
            ..IndexSettings::default()
        };
        assert_eq!(map_budget(&settings, PromptProfile::Full), 4_000);
        assert_eq!(
            map_budget(&settings, PromptProfile::Compact),
            COMPACT_MAP_BUDGET
        );
    }

    #[test]
    fn a_project_is_indexed_and_its_symbols_found() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("a.rs"),
            "pub fn alpha() {}\npub fn beta() {}\n",
        )
        .unwrap();
        let index = CodeIndex::open(dir.path(), &IndexSettings::default(), &crate::Unattended);
        assert_eq!(index.wait(), IndexProgress::Ready);
        assert_eq!(index.problem(), None);
        assert_eq!(index.status(), "1 file indexed");
        let found = index.symbols("al", 5);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, "alpha");
        assert!(
            index
                .reindex()
                .unwrap()
                .starts_with("index up to date: 1 files")
        );
    }

    #[test]
    fn without_an_index_reindexing_says_why() {
        let index = CodeIndex::none("broken");
        assert_eq!(index.status(), "no code index: broken");
        assert_eq!(index.problem().as_deref(), Some("broken"));
        assert!(index.symbols("a", 5).is_empty());
        let error = index.reindex().unwrap_err();
        assert!(error.message.contains("no code index: broken"), "{error:?}");
    }
}
