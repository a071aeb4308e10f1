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
use crate::interaction::Interaction;

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

/// Opens the index of the project at `root` as `settings` say (not updated yet).
pub fn open_index(root: &Path, settings: &IndexSettings) -> Result<Indexer, HoneError> {
    let options = index_options(root, settings)?;
    Indexer::open(root, &options).map_err(index_error)
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

/// The warning before indexing `files` files when a session starts.
fn large_update_warning(files: usize) -> String {
    format!(
        "{}; indexing all of them before the session starts (`hone index --scope DIR` \
         limits the index to one sub-directory, `[index] extra_ignores` leaves files out)",
        large_repository_warning(files)
    )
}

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

/// The project's code index for sessions, or why there is none.
#[derive(Clone)]
pub struct CodeIndex {
    index: Option<SharedIndex>,
    status: String,
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
    /// Opens the index of the project at `root` as `settings` say and brings it up to
    /// date. An update of more than [`LARGE_REPOSITORY_FILES`] files (a first index of a
    /// large project) is announced through `interaction`; it never waits for an answer.
    /// Without an index sessions run without the index tools, the map and the localizer.
    pub fn open(root: &Path, settings: &IndexSettings, interaction: &dyn Interaction) -> Self {
        match Self::update(root, settings, interaction) {
            Ok(index) => {
                let files = index.lock().files().len();
                Self {
                    index: Some(index),
                    status: format!("{files} file{} indexed", if files == 1 { "" } else { "s" }),
                    problem: None,
                }
            }
            Err(error) => Self::none(error.message),
        }
    }

    /// No index, for `reason`.
    pub fn none(reason: impl Into<String>) -> Self {
        let reason = reason.into();
        Self {
            index: None,
            status: format!("no code index: {reason}"),
            problem: Some(reason),
        }
    }

    fn update(
        root: &Path,
        settings: &IndexSettings,
        interaction: &dyn Interaction,
    ) -> Result<SharedIndex, HoneError> {
        let mut indexer = open_index(root, settings)?;
        let mut warned = false;
        indexer
            .update(&mut |progress| {
                if !warned && progress.total > LARGE_REPOSITORY_FILES {
                    warned = true;
                    interaction.warn(&large_update_warning(progress.total));
                }
            })
            .map_err(index_error)?;
        Ok(SharedIndex::new(indexer))
    }

    /// The tools that answer from the index for an MCP client: the repo map (within
    /// `map_budget` tokens) and the ten index tools; none without an index.
    pub fn serve_tools(&self, map_budget: usize) -> Vec<Arc<dyn Tool>> {
        let Some(index) = &self.index else {
            return Vec::new();
        };
        let mut tools: Vec<Arc<dyn Tool>> = vec![Arc::new(hone_index::tools::RepoMapTool::new(
            index.clone(),
            map_budget,
        ))];
        tools.extend(hone_index::tools::index_tools(index.clone()));
        tools
    }

    /// One line for `/status`: the files indexed, or why there is no index.
    pub fn status(&self) -> &str {
        &self.status
    }

    /// Why the index could not be opened, when it could not.
    pub fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
    }

    /// Brings the index up to date; the text says what changed.
    pub fn reindex(&self) -> Result<String, HoneError> {
        let Some(index) = &self.index else {
            return Err(HoneError::config(format!(
                "there is no code index ({}); run `hone index` to see why",
                self.status
            )));
        };
        let mut indexer = index.lock();
        let report = indexer.update(&mut |_| {}).map_err(index_error)?;
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
        let Some(index) = &self.index else {
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
    /// for the compact profile), the code mapper (which asks the index where a name is
    /// defined, else searches the files) and the localizer.
    pub(crate) fn parts(
        &self,
        focus: &str,
        settings: &IndexSettings,
        profile: PromptProfile,
    ) -> IndexParts {
        let Some(index) = &self.index else {
            return IndexParts {
                tools: Vec::new(),
                repo_map: None,
                mapper: Arc::new(hone_index::mapper::TreeSitterMapper),
                localizer: None,
                map_warning: None,
            };
        };
        let budget = map_budget(settings, profile);
        let (repo_map, map_warning) =
            match hone_index::tools::repo_map(&index.lock(), focus, budget) {
                Ok(map) => (Some(map).filter(|map| !map.trim().is_empty()), None),
                Err(error) => (None, Some(format!("no repository map ({error})"))),
            };
        IndexParts {
            tools: index_tools(index.clone()),
            repo_map,
            mapper: Arc::new(hone_index::mapper::IndexedMapper::new(index.clone())),
            localizer: Some(Arc::new(IndexLocalizer::new(index.clone()))),
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
        let warning = large_update_warning(12_345);
        assert!(warning.starts_with("12345 files to index"), "{warning}");
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
        assert_eq!(index.problem(), Some("broken"));
        assert!(index.symbols("a", 5).is_empty());
        let error = index.reindex().unwrap_err();
        assert!(error.message.contains("no code index: broken"), "{error:?}");
    }
}
