//! Keeps an index up to date while the project changes: [`IndexWatcher`] watches the project
//! root with `notify`, debounces the events and re-indexes just the paths that changed
//! ([`Indexer::update_paths`]).
//!
//! ```no_run
//! use std::time::Duration;
//! use hone_index::tools::SharedIndex;
//! use hone_index::{DEFAULT_WATCH_DEBOUNCE, IndexOptions, IndexWatcher, Indexer};
//!
//! let mut indexer = Indexer::open(std::path::Path::new("."), &IndexOptions::default())?;
//! indexer.update(&mut |_| {})?;
//! let index = SharedIndex::new(indexer);
//! let watcher = IndexWatcher::start(index.clone(), DEFAULT_WATCH_DEBOUNCE)?;
//! // … query `index` while the watcher keeps it current; dropping `watcher` stops it.
//! # drop(watcher);
//! # Ok::<(), hone_index::IndexError>(())
//! ```

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use notify::RecursiveMode;
use notify_debouncer_full::{
    DebounceEventResult, Debouncer, RecommendedCache, new_debouncer, notify,
};

use crate::error::IndexError;
use crate::indexer::{IndexReport, Indexer};
use crate::tools::SharedIndex;

/// How long the watcher waits for a burst of changes to settle before re-indexing.
pub const DEFAULT_WATCH_DEBOUNCE: Duration = Duration::from_millis(500);

/// Called after every re-index with the root-relative paths that changed (empty for a full
/// update after lost events) and the outcome.
pub type UpdateCallback =
    Box<dyn FnMut(&[String], Result<&IndexReport, &IndexError>) + Send + 'static>;

/// Directories whose changes never concern the index: hone's own data (the database lives
/// there, so indexing would otherwise trigger itself) and git's.
const IGNORED_TOP_DIRS: [&str; 2] = [".hone", ".git"];

/// Watches a project and keeps its [`SharedIndex`] up to date. Dropping it stops watching
/// (waiting for an update in progress to finish).
pub struct IndexWatcher {
    debouncer: Option<Debouncer<notify::RecommendedWatcher, RecommendedCache>>,
    root: PathBuf,
}

impl std::fmt::Debug for IndexWatcher {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("IndexWatcher")
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

impl IndexWatcher {
    /// Starts watching the root of `index` recursively; changes are applied `debounce` after
    /// they settle. Update failures are logged (`tracing::warn!`), never fatal.
    pub fn start(index: SharedIndex, debounce: Duration) -> Result<Self, IndexError> {
        Self::start_with_callback(index, debounce, None)
    }

    /// Like [`IndexWatcher::start`], calling `on_update` after every re-index.
    pub fn start_with_callback(
        index: SharedIndex,
        debounce: Duration,
        mut on_update: Option<UpdateCallback>,
    ) -> Result<Self, IndexError> {
        let root = index.lock().root().to_path_buf();
        let watch_error = |error: notify::Error| IndexError::Watch {
            root: root.clone(),
            reason: error.to_string(),
        };
        let handler_root = root.clone();
        let handler = move |result: DebounceEventResult| {
            let events = match result {
                Ok(events) => events,
                Err(errors) => {
                    for error in errors {
                        tracing::warn!(%error, "file watcher error");
                    }
                    return;
                }
            };
            let mut rescan = false;
            let mut paths = BTreeSet::new();
            for event in &events {
                rescan |= event.need_rescan();
                // Reads (the indexer's own included) change nothing; following them would
                // make every update trigger the next.
                if event.kind.is_access() {
                    continue;
                }
                paths.extend(
                    event
                        .paths
                        .iter()
                        .filter_map(|path| relevant_path(&handler_root, path)),
                );
            }
            if !rescan && paths.is_empty() {
                return;
            }
            let paths: Vec<String> = if rescan {
                Vec::new()
            } else {
                paths.into_iter().collect()
            };
            let mut indexer = index.lock();
            let result = reindex(&mut indexer, &paths, rescan);
            drop(indexer);
            if let Err(error) = &result {
                tracing::warn!(%error, "the index could not be updated after file changes");
            }
            if let Some(callback) = on_update.as_mut() {
                callback(&paths, result.as_ref());
            }
        };
        // Ticks well below the debounce keep the latency close to it.
        let tick = (debounce / 4).max(Duration::from_millis(10)).min(debounce);
        let mut debouncer = new_debouncer(debounce, Some(tick), handler).map_err(watch_error)?;
        debouncer
            .watch(&root, RecursiveMode::Recursive)
            .map_err(watch_error)?;
        Ok(Self {
            debouncer: Some(debouncer),
            root,
        })
    }

    /// The watched project root.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl Drop for IndexWatcher {
    fn drop(&mut self) {
        if let Some(debouncer) = self.debouncer.take() {
            debouncer.stop();
        }
    }
}

fn reindex(
    indexer: &mut Indexer,
    paths: &[String],
    rescan: bool,
) -> Result<IndexReport, IndexError> {
    if rescan {
        indexer.update(&mut |_| {})
    } else {
        indexer.update_paths(paths)
    }
}

/// `path` relative to `root` with `/` separators, unless it is outside the root or under an
/// ignored directory.
fn relevant_path(root: &Path, path: &Path) -> Option<String> {
    let relative = path.strip_prefix(root).ok()?;
    let mut parts = Vec::new();
    for component in relative.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_str()?),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if parts
        .first()
        .is_some_and(|first| IGNORED_TOP_DIRS.contains(first))
    {
        return None;
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::relevant_path;
    use std::path::Path;

    #[test]
    fn paths_are_made_relative_and_hone_and_git_are_skipped() {
        let root = Path::new("/p");
        assert_eq!(
            relevant_path(root, Path::new("/p/src/a.rs")).as_deref(),
            Some("src/a.rs")
        );
        assert_eq!(relevant_path(root, Path::new("/p")).as_deref(), Some(""));
        assert_eq!(relevant_path(root, Path::new("/p/.hone/index.db")), None);
        assert_eq!(relevant_path(root, Path::new("/p/.git/HEAD")), None);
        assert_eq!(relevant_path(root, Path::new("/other/a.rs")), None);
        assert_eq!(
            relevant_path(root, Path::new("/p/.github/ci.yml")).as_deref(),
            Some(".github/ci.yml")
        );
    }
}
