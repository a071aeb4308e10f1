//! One update: examine the candidates on all cores while the calling thread writes each
//! change as it arrives, then re-resolve imports, all in one transaction.
//!
//! Writing as results arrive keeps memory flat (an outline lives from its parse to its
//! write, not until the end of a cold index) and overlaps the database work with parsing.
//! The transaction opens at the first change, so an update that changes nothing writes
//! nothing; changes that keep every outline are held back until one that does not (or the
//! end), so the resolution cache can be loaded from the store before the write starts.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

use super::examine::{Examined, ReadLimits, spawn_examiners};
use super::timings::{UpdateTimings, WorkerTimings};
use super::{IndexReport, Indexer, Progress};
use crate::analysis::{self, ProjectConfig};
use crate::error::IndexError;
use crate::model::FileOutline;
use crate::scan::{ScannedFile, nanos_since_epoch};
use crate::store::{EdgeUpdate, FileRecord, FileUpdate, IndexStore, OutlineChange};

/// What the outline changes of one update add up to.
#[derive(Default)]
struct Changes {
    /// Files whose outline was replaced.
    edited: Vec<String>,
    /// A parsed file appeared or disappeared: every import may resolve differently.
    paths_changed: bool,
    /// A file steering import resolution (`tsconfig.json`, `go.mod`, …) changed.
    config_changed: bool,
}

impl Changes {
    /// Applies one file's change to the resolution cache.
    fn record(&mut self, update: &FileUpdate, cache: &mut BTreeMap<String, FileOutline>) {
        let path = &update.record.path;
        let resolution = match &update.outline {
            OutlineChange::Keep => return,
            OutlineChange::Remove => None,
            OutlineChange::Replace(outline) => Some(for_resolution(outline)),
            OutlineChange::Prepared(prepared) => Some(prepared.resolution.clone()),
        };
        match resolution {
            None => self.paths_changed |= cache.remove(path).is_some(),
            Some(resolution) => {
                self.paths_changed |= cache.insert(path.clone(), resolution).is_none();
                self.edited.push(path.clone());
            }
        }
        // `go.mod` or `Cargo.toml` have no outline but steer import resolution.
        self.config_changed |= ProjectConfig::is_config_file(path);
    }

    /// Applies a deletion to the resolution cache.
    fn delete(&mut self, path: &str, cache: &mut BTreeMap<String, FileOutline>) {
        self.paths_changed |= cache.remove(path).is_some();
        self.config_changed |= ProjectConfig::is_config_file(path);
    }
}

/// What import resolution needs of an outline (its language and imports), so the cache of
/// every parsed file stays small.
fn for_resolution(outline: &FileOutline) -> FileOutline {
    let mut kept = FileOutline::empty(outline.language);
    kept.imports.clone_from(&outline.imports);
    kept
}

/// The resolution cache: `cache` if loaded, else loaded from `store` into it.
fn cache<'c>(
    cache: &'c mut Option<BTreeMap<String, FileOutline>>,
    store: &dyn IndexStore,
) -> Result<&'c mut BTreeMap<String, FileOutline>, IndexError> {
    if let Some(cache) = cache {
        return Ok(cache);
    }
    let loaded = store
        .outlines()?
        .iter()
        .map(|(path, outline)| (path.clone(), for_resolution(outline)))
        .collect();
    Ok(cache.insert(loaded))
}

/// Counts results as they arrive: progress, parsed files, warnings.
struct Tally<'p> {
    progress: &'p mut dyn FnMut(Progress),
    done: usize,
    total: usize,
    step: usize,
    files_parsed: usize,
    warnings: Vec<String>,
}

impl Tally<'_> {
    /// The update in `result`, if any, after counting it.
    fn take(&mut self, result: Examined) -> Option<FileUpdate> {
        self.done += 1;
        if self.done.is_multiple_of(self.step) || self.done == self.total {
            (self.progress)(Progress {
                done: self.done,
                total: self.total,
            });
        }
        match result {
            Ok(Some(update)) => {
                self.files_parsed += usize::from(matches!(
                    update.outline,
                    OutlineChange::Replace(_) | OutlineChange::Prepared(_)
                ));
                Some(update)
            }
            Ok(None) => None,
            Err(warning) => {
                self.warnings.push(warning);
                None
            }
        }
    }
}

impl Indexer {
    /// Examines the candidates, writes their changes and the deletions, re-resolves imports
    /// as needed, and commits it all at once.
    pub(super) fn refresh(
        &mut self,
        candidates: Vec<ScannedFile>,
        deletions: Vec<String>,
        warnings: Vec<String>,
        (started, scanned): (Instant, Duration),
        progress: &mut dyn FnMut(Progress),
    ) -> Result<IndexReport, IndexError> {
        let mut timings = UpdateTimings {
            scan: scanned,
            ..UpdateTimings::default()
        };
        let worker_timings = WorkerTimings::default();
        let limits = ReadLimits {
            max_file_bytes: self.max_file_bytes,
            read_started_ns: nanos_since_epoch(SystemTime::now()),
        };
        let root = self.scanner.root().to_path_buf();
        let total = candidates.len();
        let mut tally = Tally {
            progress,
            done: 0,
            total,
            step: (total / 100).max(1),
            files_parsed: 0,
            warnings,
        };
        let mut written: Vec<FileRecord> = Vec::new();
        let stop = AtomicBool::new(false);
        let Self {
            store,
            records,
            outlines,
            config,
            ..
        } = &mut *self;
        let records: &BTreeMap<String, FileRecord> = records;
        let result = std::thread::scope(|scope| {
            let mut results = (total > 0)
                .then(|| {
                    (tally.progress)(Progress { done: 0, total });
                    spawn_examiners(
                        scope,
                        &root,
                        &candidates,
                        records,
                        limits,
                        &stop,
                        &worker_timings,
                    )
                })
                .into_iter()
                .flatten();
            // Until the first change to an outline, hold back changes that keep theirs.
            let mut held_back: Vec<FileUpdate> = Vec::new();
            let mut first = None;
            let waiting = Instant::now();
            for result in results.by_ref() {
                match tally.take(result) {
                    Some(update) if matches!(update.outline, OutlineChange::Keep) => {
                        held_back.push(update);
                    }
                    Some(update) => {
                        first = Some(update);
                        break;
                    }
                    None => {}
                }
            }
            timings.wait = waiting.elapsed();
            if first.is_none() && held_back.is_empty() && deletions.is_empty() {
                return Ok(false);
            }
            // Only changes to outlines (and deletions) need the resolution cache.
            let touches_outlines = first.is_some() || !deletions.is_empty();
            let outcome = write_all(
                store.as_mut(),
                (outlines, touches_outlines),
                config,
                &root,
                held_back
                    .into_iter()
                    .chain(first)
                    .chain(results.filter_map(|result| tally.take(result))),
                &deletions,
                (&mut written, &mut timings),
            );
            if outcome.is_err() {
                stop.store(true, Ordering::Relaxed);
            }
            outcome.map(|()| true)
        });
        worker_timings.fill(&mut timings);
        let wrote = match result {
            Ok(wrote) => wrote,
            Err(error) => {
                // The cache may hold outlines that were never committed; reload it next time.
                self.outlines = None;
                return Err(error);
            }
        };
        for deleted in &deletions {
            self.records.remove(deleted);
        }
        for record in written {
            self.records.insert(record.path.clone(), record);
        }
        if wrote || self.stats.is_none() {
            self.stats = Some(self.store.stats()?);
        }
        let stats = self.stats.clone().unwrap_or_default();
        if tally.files_parsed > 0 {
            tracing::debug!(
                "index update: {} files parsed in {:.0} ms: {timings}",
                tally.files_parsed,
                started.elapsed().as_secs_f64() * 1000.0
            );
        }
        Ok(IndexReport {
            files_total: self.records.len(),
            files_parsed: tally.files_parsed,
            files_deleted: deletions.len(),
            by_language: stats.by_language,
            symbols: stats.definitions,
            edges: stats.edges,
            parse_errors: stats.parse_errors,
            warnings: tally.warnings,
            duration: started.elapsed(),
            timings,
        })
    }
}

/// Writes `updates` as they come and `deletions`, then the edges they call for, in one
/// transaction; the written records go to `written`. The resolution cache is loaded first
/// when missing (the write holds the store until it ends).
fn write_all(
    store: &mut dyn IndexStore,
    (outlines, touches_outlines): (&mut Option<BTreeMap<String, FileOutline>>, bool),
    config: &mut Option<ProjectConfig>,
    root: &Path,
    updates: impl Iterator<Item = FileUpdate>,
    deletions: &[String],
    (written, timings): (&mut Vec<FileRecord>, &mut UpdateTimings),
) -> Result<(), IndexError> {
    let mut cache = if touches_outlines {
        Some(cache(outlines, store)?)
    } else {
        None
    };
    let mut write = store.begin()?;
    let mut changes = Changes::default();
    let mut clock = Instant::now();
    for update in updates {
        let arrived = Instant::now();
        timings.wait += arrived - clock;
        if let Some(cache) = cache.as_deref_mut() {
            changes.record(&update, cache);
        }
        write.upsert(&update)?;
        written.push(update.record);
        clock = Instant::now();
        timings.write += clock - arrived;
    }
    if let Some(cache) = cache {
        for deleted in deletions {
            write.delete(deleted)?;
            changes.delete(deleted, cache);
        }
        if let Some(edges) = resolve(&changes, cache, config, root) {
            write.edges(&edges)?;
        }
    }
    let committing = Instant::now();
    timings.resolve = committing - clock;
    let committed = write.commit();
    timings.commit = committing.elapsed();
    committed
}

/// The edge update `changes` call for: the edited files' edges when the set of parsed files
/// and the configuration stayed the same, else every edge; `None` when no outline changed.
fn resolve(
    changes: &Changes,
    cache: &BTreeMap<String, FileOutline>,
    slot: &mut Option<ProjectConfig>,
    root: &Path,
) -> Option<EdgeUpdate> {
    let everything = changes.config_changed || changes.paths_changed;
    if !everything && changes.edited.is_empty() {
        return None;
    }
    let config = match slot.take() {
        Some(config) if !everything => config,
        _ => ProjectConfig::load(root, cache),
    };
    let config = slot.insert(config);
    Some(if everything {
        EdgeUpdate::All(analysis::resolve_edges(config, cache, None))
    } else {
        EdgeUpdate::From {
            files: changes.edited.clone(),
            edges: analysis::resolve_edges(config, cache, Some(&changes.edited)),
        }
    })
}
