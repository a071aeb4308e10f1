//! Keeping the index in step with the project.
//!
//! An update scans the project (metadata only), re-reads a file only when its size or mtime
//! changed, re-parses it only when its SHA-256 changed, re-resolves imports only when an
//! outline changed (only the edited files' imports when the set of parsed files and the
//! project configuration stayed the same), and writes everything in one transaction, each
//! change as soon as it is ready ([`refresh`]). With nothing changed an update is one
//! directory walk: no reads, no parsing, no resolution, no write.
//!
//! SHA-256 (sha2, which uses the CPU's SHA extensions where present) hashes hundreds of MB/s,
//! far faster than tree-sitter parses, and only changed files are hashed; a faster
//! non-cryptographic hash would not be measurable in an update.

mod examine;
mod refresh;
mod timings;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant};

use crate::analysis::ProjectConfig;
use crate::error::IndexError;
use crate::model::{FileOutline, Language};
#[cfg(doc)]
use crate::scan::FileKind;
use crate::scan::{HONE_IGNORE_FILE, ScanOptions, Scanner};
use crate::store::{FileRecord, IndexStats, IndexStore, SqliteStore};
pub use timings::UpdateTimings;

/// Where the database lives by default, relative to the project root.
pub const DEFAULT_DB_PATH: &str = ".hone/index.db";

/// Files larger than this are recorded without being read ([`FileKind::TooLarge`]): above it
/// source is almost always generated (bundles, amalgamations, fixtures).
pub const DEFAULT_MAX_FILE_BYTES: u64 = 1024 * 1024;

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
    /// Where that time went.
    pub timings: UpdateTimings,
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
    /// The language and imports of every parsed file, loaded on the
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
    if std::fs::symlink_metadata(&ignore_file).is_err() {
        let _ = hone_fs::replace_regular(&ignore_file, b"index.db*\n.gitignore\n");
    }
}

/// Creates the directory of the project's database through real directories only, and
/// refuses a database (or its journal files) that is a symlink: a repository could point
/// `.hone` or `.hone/index.db` anywhere.
fn project_database_dir(root: &Path, db_path: &Path) -> Result<(), IndexError> {
    let refuse = |dir: &Path, source: std::io::Error| IndexError::CreateDir {
        dir: dir.to_path_buf(),
        source,
    };
    hone_fs::hone_dir(root).map_err(|source| refuse(&root.join(".hone"), source))?;
    let relative = db_path
        .parent()
        .and_then(|dir| dir.strip_prefix(root).ok())
        .unwrap_or(Path::new(".hone"));
    hone_fs::create_dir_inside(root, relative).map_err(|source| refuse(relative, source))?;
    for file in database_files(db_path) {
        let special = std::fs::symlink_metadata(&file).is_ok_and(|meta| !meta.is_file());
        if special {
            return Err(refuse(
                &file,
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "it is a symbolic link or not a regular file; hone does not follow it",
                ),
            ));
        }
    }
    Ok(())
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
        if options.db_path.is_none() {
            project_database_dir(&canonical, &db_path)?;
        }
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
        let scanned = started.elapsed();
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
        self.refresh(
            candidates,
            deletions,
            scan.warnings,
            (started, scanned),
            progress,
        )
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
        let scanned = started.elapsed();
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
            (started, scanned),
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
