//! The code index outside a session, as `hone index`, `hone symbols`, `hone deps` and
//! `hone map` use it: opened where `[index]` says, updated with progress lines, the
//! large-first-index question, `--watch`, and the repo map with its one-line account. The
//! front end prints what these return and says where questions are asked.

use std::io::{BufRead, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use hone_config::IndexSettings;
use hone_index::repomap::RenderedMap;
use hone_index::tools::SharedIndex;
use hone_index::{IndexReport, IndexWatcher, Indexer, UpdateCallback, normalize_scope};
use hone_protocol::HoneError;
use serde_json::Value;

use crate::dialog::{LargeRepoChoice, ask_large_repository};
use crate::index::{
    LargeRepoAction, files_to_add, large_repository_action, large_repository_warning, open_index,
};
use crate::report::index as report;

/// `hone index status`: what the index holds, `None` for a project never indexed (looking
/// creates nothing: no `.hone/` and no database).
pub fn status(root: &Path, settings: &IndexSettings) -> Result<Option<Value>, HoneError> {
    if !report::index_exists(root, settings)? {
        return Ok(None);
    }
    let indexer = open_index(root, settings)?;
    let stats = indexer.store().stats().map_err(HoneError::from)?;
    Ok(Some(report::status(&stats, indexer.scope())))
}

/// The project's index brought up to date (`hone symbols`, `deps`, `map`).
pub fn open_updated(root: &Path, settings: &IndexSettings) -> Result<Indexer, HoneError> {
    let mut indexer = open_index(root, settings)?;
    indexer.update(&mut |_| {}).map_err(HoneError::from)?;
    Ok(indexer)
}

/// Updates `indexer`; `progress`, when given, receives a [`progress_line`] each time the
/// share done changes.
pub fn update(
    indexer: &mut Indexer,
    mut progress: Option<&mut dyn FnMut(&str)>,
) -> Result<IndexReport, HoneError> {
    let mut last_percent = usize::MAX;
    let started = Instant::now();
    indexer
        .update(&mut |step| {
            let Some(show) = progress.as_mut().filter(|_| step.total > 0) else {
                return;
            };
            let percent = step.done * 100 / step.total;
            if percent != last_percent {
                last_percent = percent;
                show(&progress_line(step.done, step.total, started.elapsed()));
            }
        })
        .map_err(HoneError::from)
}

/// `indexing 120/480 files (25%, 310 files/s)` after `elapsed`.
pub fn progress_line(done: usize, total: usize, elapsed: Duration) -> String {
    let percent = done * 100 / total.max(1);
    let seconds = elapsed.as_secs_f64();
    let rate = if seconds > 0.0 {
        done as f64 / seconds
    } else {
        0.0
    };
    format!("indexing {done}/{total} files ({percent}%, {rate:.0} files/s)")
}

/// Before an update that would add more than [`hone_index::LARGE_REPOSITORY_FILES`] files:
/// asks on `output`, reading `input`, when `interactive` (continue, one sub-directory, which
/// then becomes the index's scope, or cancel), otherwise warns on `output`. Returns `false`
/// when the user cancelled.
pub fn confirm_large_index(
    indexer: &mut Indexer,
    interactive: bool,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> Result<bool, HoneError> {
    let new_files = files_to_add(indexer);
    let written = |error: std::io::Error| HoneError::config(format!("cannot ask: {error}"));
    match large_repository_action(new_files, interactive, false) {
        LargeRepoAction::Proceed => Ok(true),
        LargeRepoAction::Warn => {
            writeln!(
                output,
                "hone: warning: {}; indexing all of them (`hone index --scope DIR` indexes one \
                 sub-directory, --yes skips this warning)",
                large_repository_warning(new_files)
            )
            .map_err(written)?;
            Ok(true)
        }
        LargeRepoAction::Ask => {
            let root = indexer.root().to_path_buf();
            let mut check = |typed: &str| normalize_scope(&root, typed).map_err(|e| e.to_string());
            let choice = ask_large_repository(input, output, new_files, &mut check)
                .map_err(|error| HoneError::config(format!("cannot read the answer: {error}")))?;
            match choice {
                LargeRepoChoice::Continue => Ok(true),
                LargeRepoChoice::Cancel => Ok(false),
                LargeRepoChoice::Subdirectory(directory) => {
                    indexer
                        .set_scope(Some(&directory))
                        .map_err(HoneError::from)?;
                    writeln!(
                        output,
                        "hone: indexing {directory} only; later updates keep to it (`hone index \
                         --scope .` indexes the whole project)"
                    )
                    .map_err(written)?;
                    Ok(true)
                }
            }
        }
    }
}

/// What `--watch` reports after each update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchReport {
    /// The update's line ([`report::watch_line`]), for stdout.
    Updated(String),
    /// A warning of the update.
    Warning(String),
    /// The update failed.
    Failed(String),
}

/// Keeps `indexer` up to date from file-system events `debounce` after they settle, calling
/// `report` after each update, while the returned watcher lives.
pub fn watch(
    indexer: Indexer,
    debounce: Duration,
    as_json: bool,
    report: impl Fn(WatchReport) + Send + 'static,
) -> Result<IndexWatcher, HoneError> {
    let on_update: UpdateCallback = Box::new(move |paths, result| match result {
        Ok(done) => {
            report(WatchReport::Updated(report::watch_line(
                paths, done, as_json,
            )));
            for warning in &done.warnings {
                report(WatchReport::Warning(warning.clone()));
            }
        }
        Err(error) => report(WatchReport::Failed(format!(
            "the index could not be updated: {error}"
        ))),
    });
    IndexWatcher::start_with_callback(SharedIndex::new(indexer), debounce, Some(on_update))
        .map_err(HoneError::from)
}

/// `hone map`: the repo map of `indexer` for `focus` within `budget` tokens, and the line
/// that accounts for it (files with outlines, listed, omitted, tokens).
pub fn repo_map(
    indexer: &Indexer,
    focus: &[String],
    budget: usize,
) -> Result<(RenderedMap, String), HoneError> {
    let request = report::map_request(focus, budget);
    let map = hone_index::tools::repo_map_for(indexer, &request).map_err(HoneError::from)?;
    let account = format!(
        "{} files with outlines, {} listed, {} omitted, ~{} tokens (budget {budget})",
        map.files.len(),
        map.listed.len(),
        map.omitted,
        map.tokens,
    );
    Ok((map, account))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_shows_count_share_and_rate() {
        assert_eq!(
            progress_line(120, 480, Duration::from_secs(2)),
            "indexing 120/480 files (25%, 60 files/s)"
        );
        assert_eq!(
            progress_line(0, 0, Duration::ZERO),
            "indexing 0/0 files (0%, 0 files/s)"
        );
    }

    fn project(files: usize) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for n in 0..files {
            std::fs::write(dir.path().join(format!("f{n}.rs")), "fn f() {}\n").unwrap();
        }
        dir
    }

    #[test]
    fn a_small_project_is_indexed_without_a_question_and_reports_progress() {
        let dir = project(3);
        let settings = IndexSettings::default();
        assert_eq!(status(dir.path(), &settings).unwrap(), None);
        let mut indexer = open_index(dir.path(), &settings).unwrap();
        let mut output = Vec::new();
        assert!(
            confirm_large_index(&mut indexer, true, &mut "q\n".as_bytes(), &mut output).unwrap()
        );
        assert!(output.is_empty());
        let mut lines = Vec::new();
        let report = update(
            &mut indexer,
            Some(&mut |line: &str| lines.push(line.to_string())),
        )
        .unwrap();
        assert_eq!(report.files_total, 3);
        assert!(
            lines
                .last()
                .unwrap()
                .starts_with("indexing 3/3 files (100%"),
            "{lines:?}"
        );
        let summary = status(dir.path(), &settings).unwrap().unwrap();
        assert_eq!(summary["files"], 3);
    }
}
