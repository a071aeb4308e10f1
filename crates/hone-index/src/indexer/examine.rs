//! Reading, hashing and parsing changed files on all cores.

use std::collections::BTreeMap;
use std::num::NonZero;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread::Scope;
use std::time::Instant;

use sha2::{Digest, Sha256};

use super::timings::{Phase, WorkerTimings};
use crate::model::{FileOutline, Language};
use crate::parse;
use crate::scan::{FileKind, ScannedFile, classify_checked};
use crate::store::{FileRecord, FileUpdate, OutlineChange, PreparedOutline};

/// A file modified this close to the moment it was read may change again within the same mtime
/// tick; its record gets an untrusted mtime so the next update re-hashes it.
const RACY_WINDOW_NS: i64 = 2_000_000_000;

/// The mtime stored for racily clean files (never equal to a scanned mtime).
const UNTRUSTED_MTIME: i64 = -1;

/// Results each worker may have waiting for the writer.
const QUEUED_PER_WORKER: usize = 8;

/// Limits applying to every file read in one update.
#[derive(Debug, Clone, Copy)]
pub(super) struct ReadLimits {
    /// Larger files are recorded without being read.
    pub(super) max_file_bytes: u64,
    /// When the update started reading (nanoseconds since the epoch).
    pub(super) read_started_ns: i64,
}

/// What examining one file gives: an update, `None` when its record is unchanged, or a
/// warning when it cannot be read.
pub(super) type Examined = Result<Option<FileUpdate>, String>;

/// Starts examining `candidates` on all cores within `scope`, largest files first; results
/// arrive on the returned channel in completion order. Workers stop early once `stop` is set.
///
/// Largest first: the last files handed out are then small ones, so no core is left idle
/// while another parses a large file (vendored bundles often sort last by path).
pub(super) fn spawn_examiners<'scope>(
    scope: &'scope Scope<'scope, '_>,
    root: &'scope Path,
    candidates: &'scope [ScannedFile],
    previous: &'scope BTreeMap<String, FileRecord>,
    limits: ReadLimits,
    stop: &'scope AtomicBool,
    timings: &'scope WorkerTimings,
) -> mpsc::Receiver<Examined> {
    let workers = std::thread::available_parallelism()
        .map_or(1, NonZero::get)
        .min(candidates.len());
    let order = std::sync::Arc::new(largest_first(candidates, limits));
    let next = std::sync::Arc::new(AtomicUsize::new(0));
    // Bounded: when the writer falls behind, parsers wait instead of piling up outlines.
    let (sender, receiver) = mpsc::sync_channel(workers * QUEUED_PER_WORKER);
    for _ in 0..workers {
        let sender = sender.clone();
        let next = std::sync::Arc::clone(&next);
        let order = std::sync::Arc::clone(&order);
        scope.spawn(move || {
            while !stop.load(Ordering::Relaxed)
                && let Some(file) = order.get(next.fetch_add(1, Ordering::Relaxed)).copied()
            {
                let result = examine(root, file, previous.get(&file.path), limits, timings);
                if sender.send(result).is_err() {
                    break;
                }
            }
        });
    }
    receiver
}

/// `candidates` in the order workers take them: by the bytes they read, most first, ties in
/// their given (path) order.
fn largest_first(candidates: &[ScannedFile], limits: ReadLimits) -> Vec<&ScannedFile> {
    let mut order: Vec<&ScannedFile> = candidates.iter().collect();
    order.sort_by_key(|file| std::cmp::Reverse(read_size(file, limits)));
    order
}

/// The bytes examining `file` reads: none for symlinks and files over the size limit.
fn read_size(file: &ScannedFile, limits: ReadLimits) -> u64 {
    if file.symlink_target.is_some() || file.size > limits.max_file_bytes {
        0
    } else {
        file.size
    }
}

/// The update for one scanned file: `None` when its record is unchanged, `Err` with a warning
/// when it cannot be read.
fn examine(
    root: &Path,
    file: &ScannedFile,
    previous: Option<&FileRecord>,
    limits: ReadLimits,
    timings: &WorkerTimings,
) -> Result<Option<FileUpdate>, String> {
    let unread = |kind: FileKind, hash: String| FileRecord {
        path: file.path.clone(),
        size: file.size,
        mtime_ns: file.mtime_ns,
        hash,
        kind,
        has_errors: false,
    };
    let record = if let Some(target) = &file.symlink_target {
        unread(
            FileKind::Symlink {
                target: target.clone(),
            },
            sha256_hex(target.as_bytes()),
        )
    } else if file.size > limits.max_file_bytes {
        unread(FileKind::TooLarge, String::new())
    } else {
        return examine_contents(root, file, previous, limits, timings);
    };
    Ok((previous != Some(&record)).then_some(FileUpdate {
        record,
        outline: OutlineChange::Remove,
    }))
}

/// Reads, hashes and (if its contents changed) parses a regular file.
fn examine_contents(
    root: &Path,
    file: &ScannedFile,
    previous: Option<&FileRecord>,
    limits: ReadLimits,
    timings: &WorkerTimings,
) -> Result<Option<FileUpdate>, String> {
    let started = Instant::now();
    let contents =
        std::fs::read(root.join(&file.path)).map_err(|error| format!("{}: {error}", file.path))?;
    let hash = sha256_hex(&contents);
    let size = u64::try_from(contents.len()).unwrap_or(u64::MAX);
    let mtime_ns = if file.mtime_ns > limits.read_started_ns - RACY_WINDOW_NS {
        UNTRUSTED_MTIME
    } else {
        file.mtime_ns
    };
    if let Some(previous) = previous
        && previous.hash == hash
        && !matches!(previous.kind, FileKind::TooLarge | FileKind::Symlink { .. })
    {
        let record = FileRecord {
            size,
            mtime_ns,
            ..previous.clone()
        };
        timings.add(Phase::Read, started);
        return Ok((record != *previous).then_some(FileUpdate {
            record,
            outline: OutlineChange::Keep,
        }));
    }
    let text = std::str::from_utf8(&contents);
    let kind = classify_checked(&file.path, &contents, text.is_ok());
    let outline = match (&kind, text) {
        (FileKind::Source(language), Ok(text)) => {
            let parsing = timings.add(Phase::Read, started);
            Some(parse_guarded(*language, text, timings, parsing))
        }
        _ => {
            timings.add(Phase::Read, started);
            None
        }
    };
    let record = FileRecord {
        path: file.path.clone(),
        size,
        mtime_ns,
        hash,
        kind,
        has_errors: outline.as_ref().is_some_and(|outline| outline.has_errors),
    };
    // Prepared here, so this thread frees the outline's many small allocations (an outline
    // that cannot be serialised goes as it is, for the writer to report).
    let outline = outline.map_or(OutlineChange::Remove, |outline| match PreparedOutline::new(
        &outline,
    ) {
        Ok(prepared) => OutlineChange::Prepared(Box::new(prepared)),
        Err(_) => OutlineChange::Replace(Box::new(outline)),
    });
    Ok(Some(FileUpdate { record, outline }))
}

/// Parses one file (timed from `started`); a panicking extractor costs that file's outline,
/// not the whole update.
fn parse_guarded(
    language: Language,
    text: &str,
    timings: &WorkerTimings,
    started: Instant,
) -> FileOutline {
    std::panic::catch_unwind(|| {
        let tree = parse::syntax_tree(language, text);
        let extracting = timings.add(Phase::Parse, started);
        let outline = tree.map_or_else(
            || parse::unparsed(language),
            |tree| parse::outline_of_tree(language, &tree, text),
        );
        timings.add(Phase::Extract, extracting);
        outline
    })
    .unwrap_or_else(|_| parse::unparsed(language))
}

/// Lower-case hex SHA-256 of `bytes`.
fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, size: u64, symlink: bool) -> ScannedFile {
        ScannedFile {
            path: path.to_string(),
            size,
            mtime_ns: 0,
            symlink_target: symlink.then(|| "elsewhere".to_string()),
        }
    }

    #[test]
    fn workers_take_the_largest_reads_first_and_ties_in_path_order() {
        let limits = ReadLimits {
            max_file_bytes: 1000,
            read_started_ns: 0,
        };
        let candidates = [
            file("a.ts", 10, false),
            file("b.ts", 500, false),
            file("big.js", 5000, false),
            file("c.ts", 10, false),
            file("link.ts", 700, true),
            file("d.ts", 900, false),
        ];
        let order: Vec<&str> = largest_first(&candidates, limits)
            .iter()
            .map(|file| file.path.as_str())
            .collect();
        // Files over the limit and symlinks are not read: they go last.
        assert_eq!(order, ["d.ts", "b.ts", "a.ts", "c.ts", "big.js", "link.ts"]);
    }
}
