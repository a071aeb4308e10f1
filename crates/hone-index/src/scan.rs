//! Walking the project: which files the index covers, honouring ignore rules.
//!
//! A scan reads metadata only (path, size, modification time, symlink target), so re-scanning
//! an unchanged project costs one directory walk. Contents are read by the indexer, and only
//! for files whose size or mtime changed; [`classify`] then decides what the contents are.
//!
//! Ignore rules, in the `ignore` crate's precedence order: the extra patterns of
//! [`ScanOptions`], `.honeignore` files, `.gitignore` files (also outside git repositories, and
//! inside nested repositories of a monorepo), `.git/info/exclude` and the user's global git
//! excludes. Hidden files are indexed (`.github/workflows/ci.yml` is code); `.git` is excluded by
//! the default patterns and the index's own `.hone/` directory always is. Symlinks are recorded,
//! never followed.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{SystemTime, UNIX_EPOCH};

use ignore::overrides::{Override, OverrideBuilder};
use ignore::{DirEntry, WalkBuilder, WalkState};

use crate::error::IndexError;
use crate::model::Language;

/// Above this many files a front end should ask before indexing (continue, choose a
/// sub-directory, or cancel); see [`ScanReport::is_large`].
pub const LARGE_REPOSITORY_FILES: usize = 10_000;

/// Extra ignore patterns used when none are configured (gitignore syntax).
pub const DEFAULT_IGNORES: [&str; 6] = [
    "node_modules",
    "dist",
    "build",
    "target",
    ".git",
    "*.min.js",
];

/// The project directory holding hone's own state (the index database among it); never indexed.
pub const HONE_DIR: &str = ".hone";

/// The project's ignore file (gitignore syntax), honoured in every directory; the same name
/// hone's path guard uses to hide files from tools.
pub const HONE_IGNORE_FILE: &str = ".honeignore";

/// How many leading bytes are searched for a NUL byte to call a file binary (as git does).
const BINARY_SNIFF_BYTES: usize = 8 * 1024;

/// What a file is, as recorded in the index.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// UTF-8 text in a language the index parses.
    Source(Language),
    /// UTF-8 text without a grammar (README, Makefile, …): metadata only.
    Text,
    /// Binary contents (a NUL byte near the start): metadata only.
    Binary,
    /// Text that is not valid UTF-8: metadata only.
    NonUtf8,
    /// Larger than the indexer's size limit, so never read: metadata only.
    TooLarge,
    /// A symbolic link, recorded and never followed.
    Symlink {
        /// The link's target as written (may point outside the project).
        target: String,
    },
}

impl FileKind {
    /// The language, for source files.
    pub fn language(&self) -> Option<Language> {
        match self {
            FileKind::Source(language) => Some(*language),
            FileKind::Text
            | FileKind::Binary
            | FileKind::NonUtf8
            | FileKind::TooLarge
            | FileKind::Symlink { .. } => None,
        }
    }
}

/// What the contents of the file at `path` (root-relative) are.
pub fn classify(path: &str, contents: &[u8]) -> FileKind {
    classify_checked(path, contents, std::str::from_utf8(contents).is_ok())
}

/// [`classify`] when the caller already knows whether `contents` are UTF-8.
pub(crate) fn classify_checked(path: &str, contents: &[u8], utf8: bool) -> FileKind {
    let head = contents.get(..BINARY_SNIFF_BYTES).unwrap_or(contents);
    if head.contains(&0) {
        FileKind::Binary
    } else if !utf8 {
        FileKind::NonUtf8
    } else {
        Language::from_path(path).map_or(FileKind::Text, FileKind::Source)
    }
}

/// What to leave out of a scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanOptions {
    /// Extra ignore patterns in gitignore syntax, matched against root-relative paths
    /// (defaults: [`DEFAULT_IGNORES`]). Re-including patterns (`!…`) are refused; use
    /// `.honeignore` for those.
    pub extra_ignores: Vec<String>,
    /// Files never indexed, such as an index database kept inside the project under a custom
    /// path (absolute, or relative to the root).
    pub excluded_files: Vec<PathBuf>,
}

impl Default for ScanOptions {
    fn default() -> Self {
        Self {
            extra_ignores: DEFAULT_IGNORES.iter().map(|p| (*p).to_string()).collect(),
            excluded_files: Vec::new(),
        }
    }
}

/// One file found by a scan (regular file or symlink; directories are not listed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScannedFile {
    /// Root-relative path with `/` separators.
    pub path: String,
    /// Size in bytes (of the link itself, for symlinks).
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch (0 when unknown or earlier).
    pub mtime_ns: i64,
    /// The target, when this is a symbolic link.
    pub symlink_target: Option<String>,
}

/// The result of a scan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanReport {
    /// Files found, sorted by path.
    pub files: Vec<ScannedFile>,
    /// Entries that could not be read (permissions, broken ignore files, non-UTF-8 names).
    pub warnings: Vec<String>,
}

impl ScanReport {
    /// Whether the project has more than [`LARGE_REPOSITORY_FILES`] files.
    pub fn is_large(&self) -> bool {
        self.files.len() > LARGE_REPOSITORY_FILES
    }
}

/// Walks one project with fixed ignore settings, optionally only one sub-directory of it
/// (its scope; paths stay relative to the project root).
#[derive(Debug, Clone)]
pub struct Scanner {
    root: PathBuf,
    overrides: Override,
    scope: Option<String>,
}

impl Scanner {
    /// A scanner for the project at `root` (canonicalised).
    pub fn new(root: &Path, options: &ScanOptions) -> Result<Self, IndexError> {
        let root_error = |source| IndexError::Root {
            root: root.to_path_buf(),
            source,
        };
        let canonical = root.canonicalize().map_err(root_error)?;
        if !canonical.is_dir() {
            return Err(root_error(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                "not a directory",
            )));
        }
        let mut builder = OverrideBuilder::new(&canonical);
        // Override globs whitelist by default; a leading `!` turns them into ignores.
        let mut add = |glob: String, pattern: &str| {
            builder
                .add(&glob)
                .map(|_| ())
                .map_err(|error| IndexError::Pattern {
                    pattern: pattern.to_string(),
                    reason: error.to_string(),
                })
        };
        add(format!("!/{HONE_DIR}/"), HONE_DIR)?;
        for pattern in &options.extra_ignores {
            let trimmed = pattern.trim();
            if trimmed.starts_with('!') {
                return Err(IndexError::Pattern {
                    pattern: pattern.clone(),
                    reason: "re-including patterns are not supported here; put them in .honeignore"
                        .to_string(),
                });
            }
            if !trimmed.is_empty() {
                add(format!("!{trimmed}"), pattern)?;
            }
        }
        for excluded in &options.excluded_files {
            if let Some(relative) = relative_to(&canonical, &canonical.join(excluded)) {
                add(format!("!/{relative}"), &relative)?;
            }
        }
        let overrides = builder.build().map_err(|error| IndexError::Pattern {
            pattern: options.extra_ignores.join(", "),
            reason: error.to_string(),
        })?;
        Ok(Self {
            root: canonical,
            overrides,
            scope: None,
        })
    }

    /// The canonical project root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The sub-directory scans are limited to (root-relative), if any.
    pub fn scope(&self) -> Option<&str> {
        self.scope.as_deref()
    }

    /// Limits scans to the sub-directory `scope` (see [`normalize_scope`]; `None`, `""` or
    /// `"."`: the whole project). Fails when it is not a directory inside the root.
    pub fn set_scope(&mut self, scope: Option<&str>) -> Result<(), IndexError> {
        self.scope = match scope {
            Some(scope) => normalize_scope(&self.root, scope)?,
            None => None,
        };
        Ok(())
    }

    /// Limits scans to `scope` as previously recorded, without checking that it still
    /// exists (a scan then finds nothing and says so).
    pub(crate) fn restore_scope(&mut self, scope: Option<String>) {
        self.scope = scope.filter(|scope| !scope.is_empty());
    }

    /// `path` (root-relative) as far as the scope is concerned: itself when at or under the
    /// scope, the scope when `path` is one of its parent directories, `None` when outside.
    pub fn within_scope(&self, path: &str) -> Option<String> {
        let Some(scope) = &self.scope else {
            return Some(path.to_string());
        };
        if is_at_or_under(path, scope) {
            Some(path.to_string())
        } else if path.is_empty() || is_at_or_under(scope, path) {
            Some(scope.clone())
        } else {
            None
        }
    }

    /// Every indexable file of the project, or of its scope.
    pub fn scan(&self) -> ScanReport {
        let mut report = ScanReport::default();
        match &self.scope {
            None => self.walk(std::slice::from_ref(&self.root), &mut report),
            Some(scope) => {
                let start = self.root.join(scope);
                if start.is_dir() {
                    self.walk(&[start], &mut report);
                } else {
                    report.warnings.push(format!(
                        "{scope}: the indexed sub-directory is gone; run `hone index --scope .` \
                         to index the whole project"
                    ));
                }
            }
        }
        finish(report)
    }

    /// The indexable files at or under the given root-relative paths (files or directories),
    /// within the scope (a parent directory of the scope stands for the scope). Paths that no
    /// longer exist, are ignored or lie outside the scope contribute nothing, so a caller can
    /// drop every indexed file at or under them that is not in the result.
    pub fn scan_paths(&self, paths: &[String]) -> ScanReport {
        let mut report = ScanReport::default();
        let mut matchers = self.walk_builder(&self.root).build_matchers();
        let Some(matcher) = matchers.first_mut() else {
            return report;
        };
        let mut directories = Vec::new();
        let scoped: Vec<String> = paths
            .iter()
            .filter_map(|path| self.within_scope(path))
            .collect();
        for relative in &scoped {
            let absolute = self.root.join(relative);
            let Ok(metadata) = absolute.symlink_metadata() else {
                continue;
            };
            if matcher.matched(relative, metadata.is_dir()).is_ignore() {
                continue;
            }
            if metadata.is_dir() {
                directories.push(absolute);
            } else {
                match scanned_file(relative.clone(), &absolute, &metadata) {
                    Ok(Some(file)) => report.files.push(file),
                    Ok(None) => {}
                    Err(warning) => report.warnings.push(warning),
                }
            }
        }
        if !directories.is_empty() {
            self.walk(&directories, &mut report);
        }
        finish(report)
    }

    fn walk_builder(&self, start: &Path) -> WalkBuilder {
        let mut builder = WalkBuilder::new(start);
        builder
            .hidden(false)
            .parents(true)
            .ignore(false)
            .git_ignore(true)
            .git_exclude(true)
            .git_global(true)
            .require_git(false)
            .follow_links(false)
            .overrides(self.overrides.clone());
        builder.add_custom_ignore_filename(HONE_IGNORE_FILE);
        builder
    }

    fn walk(&self, starts: &[PathBuf], report: &mut ScanReport) {
        let Some((first, rest)) = starts.split_first() else {
            return;
        };
        let mut builder = self.walk_builder(first);
        for start in rest {
            builder.add(start);
        }
        let (sender, receiver) = mpsc::channel();
        builder.build_parallel().run(|| {
            let sender = sender.clone();
            let root = self.root.as_path();
            Box::new(move |entry| {
                let item = match entry {
                    Ok(entry) => visit(root, &entry),
                    Err(error) => Some(Err(error.to_string())),
                };
                if let Some(item) = item
                    && sender.send(item).is_err()
                {
                    return WalkState::Quit;
                }
                WalkState::Continue
            })
        });
        drop(sender);
        for item in receiver {
            match item {
                Ok(file) => report.files.push(file),
                Err(warning) => report.warnings.push(warning),
            }
        }
    }
}

/// Whether `path` is `directory` or inside it (both root-relative; `""` is the root).
pub(crate) fn is_at_or_under(path: &str, directory: &str) -> bool {
    directory.is_empty()
        || path
            .strip_prefix(directory)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// `scope` (relative to `root`, or absolute inside it) as a root-relative directory with `/`
/// separators; `None` for the whole project (`""`, `"."`, the root itself). Fails when it is
/// not a directory inside the root (`..` and symlinks leading out included).
pub fn normalize_scope(root: &Path, scope: &str) -> Result<Option<String>, IndexError> {
    let refuse = |reason: &str| IndexError::Scope {
        scope: scope.to_string(),
        reason: reason.to_string(),
    };
    let trimmed = scope.trim();
    let given = Path::new(trimmed);
    let absolute = if given.is_absolute() {
        given.to_path_buf()
    } else {
        root.join(given)
    };
    let canonical_root = root
        .canonicalize()
        .map_err(|_| refuse("the project root cannot be read"))?;
    let canonical = absolute
        .canonicalize()
        .map_err(|_| refuse("no such directory"))?;
    if !canonical.is_dir() {
        return Err(refuse("not a directory"));
    }
    let relative = relative_to(&canonical_root, &canonical)
        .ok_or_else(|| refuse("it is outside the project"))?;
    Ok(Some(relative).filter(|relative| !relative.is_empty()))
}

fn finish(mut report: ScanReport) -> ScanReport {
    report.files.sort_by(|a, b| a.path.cmp(&b.path));
    report.files.dedup_by(|a, b| a.path == b.path);
    report
}

/// The walk result for one entry: a file, a warning, or nothing (directories).
fn visit(root: &Path, entry: &DirEntry) -> Option<Result<ScannedFile, String>> {
    if entry.file_type().is_none_or(|kind| kind.is_dir()) {
        return None;
    }
    let Some(relative) = relative_to(root, entry.path()) else {
        return Some(Err(format!(
            "{}: skipped, the name is not valid UTF-8",
            entry.path().display()
        )));
    };
    let metadata = match entry.metadata() {
        Ok(metadata) => metadata,
        Err(error) => return Some(Err(format!("{relative}: {error}"))),
    };
    scanned_file(relative, entry.path(), &metadata).transpose()
}

/// The scan entry for a regular file or symlink (`None` for sockets, FIFOs, devices).
fn scanned_file(
    relative: String,
    absolute: &Path,
    metadata: &std::fs::Metadata,
) -> Result<Option<ScannedFile>, String> {
    let kind = metadata.file_type();
    let symlink_target = if kind.is_symlink() {
        let target =
            std::fs::read_link(absolute).map_err(|error| format!("{relative}: {error}"))?;
        Some(target.to_string_lossy().into_owned())
    } else if kind.is_file() {
        None
    } else {
        return Ok(None);
    };
    Ok(Some(ScannedFile {
        path: relative,
        size: metadata.len(),
        mtime_ns: metadata.modified().map_or(0, nanos_since_epoch),
        symlink_target,
    }))
}

/// `path` relative to `root` with `/` separators, if it is inside and valid UTF-8.
fn relative_to(root: &Path, path: &Path) -> Option<String> {
    let relative = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = relative
        .components()
        .map(|c| c.as_os_str().to_str())
        .collect();
    Some(parts?.join("/"))
}

/// Nanoseconds since the Unix epoch (0 before it, saturating far in the future).
pub(crate) fn nanos_since_epoch(time: SystemTime) -> i64 {
    time.duration_since(UNIX_EPOCH).map_or(0, |since| {
        i64::try_from(since.as_nanos()).unwrap_or(i64::MAX)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contents_decide_between_source_text_binary_and_non_utf8() {
        assert_eq!(
            classify("src/app.ts", b"export {};\n"),
            FileKind::Source(Language::TypeScript)
        );
        assert_eq!(classify("Makefile", b"all:\n\ttrue\n"), FileKind::Text);
        assert_eq!(classify("app.py", b"x = 1\0\x01"), FileKind::Binary);
        assert_eq!(classify("notes.txt", b"caf\xe9"), FileKind::NonUtf8);
        // A NUL byte past the sniffed prefix does not make a file binary.
        let mut late_nul = vec![b'a'; BINARY_SNIFF_BYTES];
        late_nul.push(0);
        assert_eq!(classify("data.txt", &late_nul), FileKind::Text);
        assert_eq!(
            classify("empty.py", b""),
            FileKind::Source(Language::Python)
        );
    }

    #[test]
    fn relative_paths_use_forward_slashes_and_stay_inside() {
        let root = Path::new("/project");
        assert_eq!(
            relative_to(root, Path::new("/project/src/app.ts")).as_deref(),
            Some("src/app.ts")
        );
        assert_eq!(relative_to(root, Path::new("/elsewhere/app.ts")), None);
    }
}
