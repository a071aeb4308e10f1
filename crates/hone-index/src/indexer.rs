//! Keeping the index in step with the project.
//!
//! An update scans the project (metadata only), re-reads a file only when its size or mtime
//! changed, re-parses it only when its SHA-256 changed, re-resolves imports only when an
//! outline changed (only the edited files' imports when the set of parsed files and the
//! project configuration stayed the same), and writes everything as one batch. With nothing
//! changed an update is one directory walk: no reads, no parsing, no resolution, no write.
//!
//! SHA-256 (sha2, which uses the CPU's SHA extensions where present) hashes hundreds of MB/s,
//! far faster than tree-sitter parses, and only changed files are hashed; a faster
//! non-cryptographic hash would not be measurable in an update.

use std::collections::{BTreeMap, BTreeSet};
use std::num::NonZero;
use std::ops::Bound;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

use sha2::{Digest, Sha256};

use crate::analysis::{self, ProjectConfig};
use crate::error::IndexError;
use crate::model::{FileOutline, Language};
use crate::parse;
use crate::scan::{
    FileKind, HONE_IGNORE_FILE, ScanOptions, ScannedFile, Scanner, classify, nanos_since_epoch,
};
use crate::store::{
    EdgeUpdate, FileRecord, FileUpdate, IndexBatch, IndexStats, IndexStore, OutlineChange,
    SqliteStore,
};

/// Where the database lives by default, relative to the project root.
pub const DEFAULT_DB_PATH: &str = ".hone/index.db";

/// Files larger than this are recorded without being read ([`FileKind::TooLarge`]): above it
/// source is almost always generated (bundles, amalgamations, fixtures).
pub const DEFAULT_MAX_FILE_BYTES: u64 = 1024 * 1024;

/// A file modified this close to the moment it was read may change again within the same mtime
/// tick; its record gets an untrusted mtime so the next update re-hashes it.
const RACY_WINDOW_NS: i64 = 2_000_000_000;

/// The mtime stored for racily clean files (never equal to a scanned mtime).
const UNTRUSTED_MTIME: i64 = -1;

/// How an [`Indexer`] is set up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexOptions {
    /// The database file; `None` means [`DEFAULT_DB_PATH`]. A relative path is relative to the
    /// project root.
    pub db_path: Option<PathBuf>,
    /// Extra ignore patterns, gitignore syntax (default [`crate::scan::DEFAULT_IGNORES`]).
    pub extra_ignores: Vec<String>,
    /// Size limit for reading files (default [`DEFAULT_MAX_FILE_BYTES`]).
    pub max_file_bytes: u64,
}

impl Default for IndexOptions {
    fn default() -> Self {
        Self {
            db_path: None,
            extra_ignores: ScanOptions::default().extra_ignores,
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
        }
    }
}

/// How far reading and parsing changed files has got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Files examined so far.
    pub done: usize,
    /// Files to examine in this update.
    pub total: usize,
}

/// What an update did, and the size of the index after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexReport {
    /// Files in the index.
    pub files_total: usize,
    /// Files parsed in this update.
    pub files_parsed: usize,
    /// Files removed from the index in this update.
    pub files_deleted: usize,
    /// Source files per language.
    pub by_language: BTreeMap<Language, usize>,
    /// Symbol definitions in the index.
    pub symbols: usize,
    /// Resolved import edges in the index.
    pub edges: usize,
    /// Source files with syntax errors.
    pub parse_errors: usize,
    /// Files that could not be scanned or read (they keep their previous entries).
    pub warnings: Vec<String>,
    /// Wall-clock time of the update.
    pub duration: Duration,
}

/// Keeps one project's index up to date.
///
/// ```no_run
/// use hone_index::{IndexOptions, IndexStore, Indexer};
///
/// let mut indexer = Indexer::open(std::path::Path::new("."), &IndexOptions::default())?;
/// let report = indexer.update(&mut |p| eprintln!("{}/{} files", p.done, p.total))?;
/// println!("{} files, {} symbols", report.files_total, report.symbols);
/// for site in indexer.store().definitions("main")? {
///     println!("{}:{}", site.path, site.line);
/// }
/// # Ok::<(), hone_index::IndexError>(())
/// ```
pub struct Indexer {
    scanner: Scanner,
    store: Box<dyn IndexStore>,
    max_file_bytes: u64,
    records: BTreeMap<String, FileRecord>,
    /// The language and imports of every parsed file ([`for_resolution`]), loaded on the
    /// first update that changes an outline, so import resolution never re-reads the database.
    outlines: Option<BTreeMap<String, FileOutline>>,
    /// The project configuration import resolution uses, reloaded when a configuration file
    /// or the set of parsed files changes.
    config: Option<ProjectConfig>,
    /// Totals after the last write, so an update that writes nothing does not count again.
    stats: Option<IndexStats>,
}

impl std::fmt::Debug for Indexer {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Indexer")
            .field("root", &self.scanner.root())
            .field("files", &self.records.len())
            .finish_non_exhaustive()
    }
}

/// Writes `.hone/.gitignore` (once) so the database never shows up in `git status`: it ignores
/// the database and itself, so opening the index leaves a clean work tree; the rest of
/// `.hone/` (the project configuration) stays committable. Best effort.
fn keep_database_out_of_git(root: &Path) {
    let ignore_file = root.join(".hone").join(".gitignore");
    if !ignore_file.exists() {
        let _ = std::fs::write(ignore_file, "index.db*\n.gitignore\n");
    }
}

impl Indexer {
    /// Opens the index of the project at `root` in its SQLite database (created if missing).
    pub fn open(root: &Path, options: &IndexOptions) -> Result<Self, IndexError> {
        let canonical = root.canonicalize().map_err(|source| IndexError::Root {
            root: root.to_path_buf(),
            source,
        })?;
        let db_path = canonical.join(
            options
                .db_path
                .as_deref()
                .unwrap_or(Path::new(DEFAULT_DB_PATH)),
        );
        let store = SqliteStore::open(&db_path)?;
        if options.db_path.is_none() {
            keep_database_out_of_git(&canonical);
        }
        Self::with_store(&canonical, options, Box::new(store))
    }

    /// The index of the project at `root` kept in `store` (another backend, or an in-memory
    /// store). `options.db_path`, if set, is still kept out of scans.
    pub fn with_store(
        root: &Path,
        options: &IndexOptions,
        store: Box<dyn IndexStore>,
    ) -> Result<Self, IndexError> {
        let excluded_files = options
            .db_path
            .as_deref()
            .map(database_files)
            .unwrap_or_default();
        let scan_options = ScanOptions {
            extra_ignores: options.extra_ignores.clone(),
            excluded_files,
        };
        let mut scanner = Scanner::new(root, &scan_options)?;
        scanner.restore_scope(store.scope()?);
        let records = store.files()?;
        Ok(Self {
            scanner,
            store,
            max_file_bytes: options.max_file_bytes,
            records,
            outlines: None,
            config: None,
            stats: None,
        })
    }

    /// The canonical project root.
    pub fn root(&self) -> &Path {
        self.scanner.root()
    }

    /// The scanner, e.g. to count files before a first, possibly long, update.
    pub fn scanner(&self) -> &Scanner {
        &self.scanner
    }

    /// The sub-directory (root-relative) the index is limited to; `None`: the whole project.
    pub fn scope(&self) -> Option<&str> {
        self.scanner.scope()
    }

    /// Limits the index to the sub-directory `scope` (relative to the root, or absolute
    /// inside it; `None`, `""` or `"."` for the whole project) and records the choice in the
    /// store, so later updates, by any front end, keep to it. The next update drops the files
    /// outside it and adds the ones inside. The database stays where it is.
    pub fn set_scope(&mut self, scope: Option<&str>) -> Result<(), IndexError> {
        self.scanner.set_scope(scope)?;
        self.store.set_scope(self.scanner.scope())
    }

    /// The index, for queries.
    pub fn store(&self) -> &dyn IndexStore {
        self.store.as_ref()
    }

    /// The indexed files, by path (kept in memory; no database access).
    pub fn files(&self) -> &BTreeMap<String, FileRecord> {
        &self.records
    }

    /// Brings the whole index up to date with the project.
    pub fn update(
        &mut self,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<IndexReport, IndexError> {
        let started = Instant::now();
        let scan = self.scanner.scan();
        let present: BTreeSet<&str> = scan.files.iter().map(|file| file.path.as_str()).collect();
        let deletions = self
            .records
            .keys()
            .filter(|path| !present.contains(path.as_str()))
            .cloned()
            .collect();
        let candidates = scan
            .files
            .iter()
            .filter(|file| {
                self.records.get(&file.path).is_none_or(|record| {
                    // Symlinks are re-checked every time: comparing targets needs no read.
                    file.symlink_target.is_some()
                        || record.size != file.size
                        || record.mtime_ns != file.mtime_ns
                })
            })
            .cloned()
            .collect();
        self.refresh(candidates, deletions, scan.warnings, started, progress)
    }

    /// Re-indexes the given paths (root-relative or absolute under the root; files or
    /// directories), for a file watcher: each is re-hashed whatever its mtime, paths that are
    /// gone or now ignored are dropped with everything under them, paths outside the scope
    /// ([`Indexer::set_scope`]) are skipped. A changed ignore file (`.gitignore`,
    /// `.honeignore`) or the root itself triggers a full [`Indexer::update`].
    pub fn update_paths(&mut self, paths: &[String]) -> Result<IndexReport, IndexError> {
        let started = Instant::now();
        let mut relative = Vec::new();
        for path in paths {
            let Some(path) = self.relative_path(path) else {
                continue;
            };
            let file_name = path.rsplit('/').next().unwrap_or_default();
            if path.is_empty() || file_name == ".gitignore" || file_name == HONE_IGNORE_FILE {
                return self.update(&mut |_| {});
            }
            // A parent directory of the scope stands for the scope; paths outside it are not
            // indexed.
            if let Some(path) = self.scanner.within_scope(&path) {
                relative.push(path);
            }
        }
        let scan = self.scanner.scan_paths(&relative);
        let present: BTreeSet<&str> = scan.files.iter().map(|file| file.path.as_str()).collect();
        let mut deletions = BTreeSet::new();
        for path in &relative {
            let under = self
                .records
                .range::<str, _>((Bound::Included(path.as_str()), Bound::Unbounded))
                .map(|(indexed, _)| indexed)
                .take_while(|indexed| indexed.starts_with(path.as_str()))
                .filter(|indexed| {
                    is_at_or_under(indexed, path) && !present.contains(indexed.as_str())
                });
            deletions.extend(under.cloned());
        }
        self.refresh(
            scan.files,
            deletions.into_iter().collect(),
            scan.warnings,
            started,
            &mut |_| {},
        )
    }

    /// `path` relative to the root with `/` separators, or `None` if it is outside.
    fn relative_path(&self, path: &str) -> Option<String> {
        let path = Path::new(path);
        let relative = if path.is_absolute() {
            path.strip_prefix(self.root()).ok()?
        } else {
            path
        };
        let mut parts = Vec::new();
        for component in relative.components() {
            match component {
                Component::Normal(part) => parts.push(part.to_str()?),
                Component::CurDir => {}
                Component::ParentDir | Component::RootDir | Component::Prefix(_) => return None,
            }
        }
        Some(parts.join("/"))
    }

    /// Examines the candidates, updates outlines and analysis, writes one batch.
    fn refresh(
        &mut self,
        candidates: Vec<ScannedFile>,
        deletions: Vec<String>,
        mut warnings: Vec<String>,
        started: Instant,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<IndexReport, IndexError> {
        let limits = ReadLimits {
            max_file_bytes: self.max_file_bytes,
            read_started_ns: nanos_since_epoch(SystemTime::now()),
        };
        let root = self.scanner.root().to_path_buf();
        let mut upserts = Vec::new();
        let mut files_parsed = 0;
        for result in examine_all(&root, &candidates, &self.records, limits, progress) {
            match result {
                Ok(Some(update)) => {
                    files_parsed +=
                        usize::from(matches!(update.outline, OutlineChange::Replace(_)));
                    upserts.push(update);
                }
                Ok(None) => {}
                Err(warning) => warnings.push(warning),
            }
        }
        eprintln!("PHASE examine {:?}", started.elapsed());
        upserts.sort_by(|a, b| a.record.path.cmp(&b.record.path));
        let edges = self.update_outlines(&upserts, &deletions)?;
        let batch = IndexBatch {
            upserts,
            deletions,
            edges,
        };
        eprintln!("PHASE edges {:?}", started.elapsed());
        let batch_was_empty = batch.is_empty();
        if let Err(error) = self.store.apply(&batch) {
            // The cache already holds the new outlines; reload it from the store next time.
            self.outlines = None;
            return Err(error);
        }
        eprintln!("PHASE apply {:?}", started.elapsed());
        for deleted in &batch.deletions {
            self.records.remove(deleted);
        }
        let files_deleted = batch.deletions.len();
        for update in batch.upserts {
            self.records
                .insert(update.record.path.clone(), update.record);
        }
        if !batch_was_empty || self.stats.is_none() {
            self.stats = Some(self.store.stats()?);
        }
        eprintln!("PHASE stats {:?}", started.elapsed());
        let stats = self.stats.clone().unwrap_or_default();
        Ok(IndexReport {
            files_total: self.records.len(),
            files_parsed,
            files_deleted,
            by_language: stats.by_language,
            symbols: stats.definitions,
            edges: stats.edges,
            parse_errors: stats.parse_errors,
            warnings,
            duration: started.elapsed(),
        })
    }

    /// Applies outline changes to the in-memory resolution cache and returns the edge update
    /// they call for, if any: the edited files' edges when the set of parsed files and the
    /// project configuration stayed the same, else every edge.
    fn update_outlines(
        &mut self,
        upserts: &[FileUpdate],
        deletions: &[String],
    ) -> Result<Option<EdgeUpdate>, IndexError> {
        let touches_outlines = !deletions.is_empty()
            || upserts
                .iter()
                .any(|update| !matches!(update.outline, OutlineChange::Keep));
        if !touches_outlines {
            return Ok(None);
        }
        // `go.mod` or `Cargo.toml` have no outline but steer import resolution.
        let config_changed = deletions
            .iter()
            .chain(
                upserts
                    .iter()
                    .filter(|update| !matches!(update.outline, OutlineChange::Keep))
                    .map(|update| &update.record.path),
            )
            .any(|path| ProjectConfig::is_config_file(path));
        let outlines = match self.outlines.take() {
            Some(outlines) => outlines,
            None => self
                .store
                .outlines()?
                .iter()
                .map(|(path, outline)| (path.clone(), for_resolution(outline)))
                .collect(),
        };
        let outlines = self.outlines.insert(outlines);
        let mut paths_changed = false;
        let mut edited = Vec::new();
        for deleted in deletions {
            paths_changed |= outlines.remove(deleted).is_some();
        }
        for update in upserts {
            let path = &update.record.path;
            match &update.outline {
                OutlineChange::Keep => {}
                OutlineChange::Remove => paths_changed |= outlines.remove(path).is_some(),
                OutlineChange::Replace(outline) => {
                    paths_changed |= outlines
                        .insert(path.clone(), for_resolution(outline))
                        .is_none();
                    edited.push(path.clone());
                }
            }
        }
        if !config_changed && !paths_changed && edited.is_empty() {
            return Ok(None);
        }
        let config = match self.config.take() {
            Some(config) if !config_changed && !paths_changed => config,
            _ => ProjectConfig::load(self.scanner.root(), outlines),
        };
        let config = self.config.insert(config);
        Ok(Some(if config_changed || paths_changed {
            EdgeUpdate::All(analysis::resolve_edges(config, outlines, None))
        } else {
            let edges = analysis::resolve_edges(config, outlines, Some(&edited));
            EdgeUpdate::From {
                files: edited,
                edges,
            }
        }))
    }
}

/// What import resolution needs of an outline (its language and imports), so the cache of
/// every parsed file stays small.
fn for_resolution(outline: &FileOutline) -> FileOutline {
    let mut kept = FileOutline::empty(outline.language);
    kept.imports.clone_from(&outline.imports);
    kept
}

/// Whether `indexed` is `path` or inside the directory `path`.
fn is_at_or_under(indexed: &str, path: &str) -> bool {
    indexed
        .strip_prefix(path)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The database file and its journal side files, with a canonical directory, so scans of a
/// project holding its database outside `.hone/` skip them.
fn database_files(db_path: &Path) -> Vec<PathBuf> {
    let canonical = match (
        db_path.parent().map(Path::canonicalize),
        db_path.file_name(),
    ) {
        (Some(Ok(dir)), Some(name)) => dir.join(name),
        _ => db_path.to_path_buf(),
    };
    ["", "-wal", "-shm", "-journal"]
        .into_iter()
        .map(|suffix| {
            let mut name = canonical.clone().into_os_string();
            name.push(suffix);
            PathBuf::from(name)
        })
        .collect()
}

/// Limits applying to every file read in one update.
#[derive(Debug, Clone, Copy)]
struct ReadLimits {
    max_file_bytes: u64,
    read_started_ns: i64,
}

/// Examines `candidates` on all cores; results come back in completion order.
fn examine_all(
    root: &Path,
    candidates: &[ScannedFile],
    previous: &BTreeMap<String, FileRecord>,
    limits: ReadLimits,
    progress: &mut dyn FnMut(Progress),
) -> Vec<Result<Option<FileUpdate>, String>> {
    let total = candidates.len();
    if total == 0 {
        return Vec::new();
    }
    progress(Progress { done: 0, total });
    let workers = std::thread::available_parallelism()
        .map_or(1, NonZero::get)
        .min(total);
    let step = (total / 100).max(1);
    let next = AtomicUsize::new(0);
    let (sender, receiver) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let sender = sender.clone();
            let next = &next;
            scope.spawn(move || {
                while let Some(file) = candidates.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let result = examine(root, file, previous.get(&file.path), limits);
                    if sender.send(result).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut results = Vec::with_capacity(total);
        for result in receiver {
            results.push(result);
            let done = results.len();
            if done % step == 0 || done == total {
                progress(Progress { done, total });
            }
        }
        results
    })
}

/// The update for one scanned file: `None` when its record is unchanged, `Err` with a warning
/// when it cannot be read.
fn examine(
    root: &Path,
    file: &ScannedFile,
    previous: Option<&FileRecord>,
    limits: ReadLimits,
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
        return examine_contents(root, file, previous, limits);
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
) -> Result<Option<FileUpdate>, String> {
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
        return Ok((record != *previous).then_some(FileUpdate {
            record,
            outline: OutlineChange::Keep,
        }));
    }
    let kind = classify(&file.path, &contents);
    let outline = match (&kind, std::str::from_utf8(&contents)) {
        (FileKind::Source(language), Ok(text)) => Some(parse_guarded(*language, text)),
        _ => None,
    };
    let record = FileRecord {
        path: file.path.clone(),
        size,
        mtime_ns,
        hash,
        kind,
        has_errors: outline.as_ref().is_some_and(|outline| outline.has_errors),
    };
    let outline = outline.map_or(OutlineChange::Remove, |outline| {
        OutlineChange::Replace(Box::new(outline))
    });
    Ok(Some(FileUpdate { record, outline }))
}

/// Parses one file; a panicking extractor costs that file's outline, not the whole update.
fn parse_guarded(language: Language, text: &str) -> FileOutline {
    std::panic::catch_unwind(|| parse::outline(language, text)).unwrap_or_else(|_| {
        let mut outline = FileOutline::empty(language);
        outline.has_errors = true;
        outline
    })
}

/// Lower-case hex SHA-256 of `bytes`.
fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}
