//! `[index]`: where the code index lives, the repo map's token budget, extra ignore patterns
//! and the watcher's debounce.
//!
//! ```toml
//! [index]
//! database = "project"          # or "data-dir"
//! map_budget = 8000             # tokens
//! extra_ignores = ["*.gen.ts"]  # added to node_modules, dist, build, target, .git, *.min.js
//! watch_debounce_ms = 500
//! ```
//!
//! The user and project files layer like the other settings: the project file's values win,
//! and the two files' `extra_ignores` are concatenated, user patterns first. Nothing here can
//! reach outside the project or the user's data directory, so a project file needs no trust
//! to set it.

use std::fmt;
use std::ops::{Range, RangeInclusive};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use crate::error::ConfigError;
use crate::load::Config;
use crate::show::ShownValue;
use crate::source::{Source, Sourced};
use crate::suggest::closest;

/// `map_budget` when nothing sets it, in tokens.
pub const DEFAULT_MAP_BUDGET: usize = 8000;

/// The values `map_budget` accepts, in tokens.
pub const MAP_BUDGET_RANGE: RangeInclusive<usize> = 256..=1_000_000;

/// `watch_debounce_ms` when nothing sets it.
pub const DEFAULT_WATCH_DEBOUNCE_MS: u64 = 500;

/// The values `watch_debounce_ms` accepts, in milliseconds.
pub const WATCH_DEBOUNCE_RANGE_MS: RangeInclusive<u64> = 10..=60_000;

/// Where the code index database lives: `database = "project"` or `"data-dir"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum IndexDatabase {
    /// `project` (the default): `<project>/.hone/index.db`, kept out of git by a
    /// `.hone/.gitignore`.
    #[default]
    Project,
    /// `data-dir`: under hone's data directory ([`crate::data_dir`]), in a directory of its
    /// own per project (named after the project and a hash of its canonical path), so the
    /// project tree stays untouched.
    DataDir,
}

impl IndexDatabase {
    /// Every choice, the default first.
    pub const ALL: [Self; 2] = [Self::Project, Self::DataDir];

    /// The name used in files: `project` or `data-dir`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Project => "project",
            Self::DataDir => "data-dir",
        }
    }

    /// The choice called `name` exactly, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|choice| choice.as_str() == name)
    }
}

impl fmt::Display for IndexDatabase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The `[index]` settings in effect ([`Config::index_settings`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexSettings {
    /// Where the database lives.
    pub database: IndexDatabase,
    /// The repo map's budget in tokens, for `hone map` and the agent's context.
    pub map_budget: usize,
    /// Ignore patterns (gitignore syntax) added to the index's defaults: the user file's,
    /// then the project file's.
    pub extra_ignores: Vec<String>,
    /// How long `hone index --watch` lets changes settle before re-indexing.
    pub watch_debounce: Duration,
    /// Which store keeps the index (`[store]`, see [`Config::store_settings`]).
    pub store: crate::StoreSettings,
}

impl Default for IndexSettings {
    fn default() -> Self {
        Self {
            database: IndexDatabase::default(),
            map_budget: DEFAULT_MAP_BUDGET,
            extra_ignores: Vec::new(),
            watch_debounce: Duration::from_millis(DEFAULT_WATCH_DEBOUNCE_MS),
            store: crate::StoreSettings::default(),
        }
    }
}

impl IndexSettings {
    /// The database file of the project at `root` when it lives outside the project:
    /// `None` for [`IndexDatabase::Project`] (the index's own default path), and for
    /// [`IndexDatabase::DataDir`] `<data dir>/index/<name>-<hash>/index.db`, or `None` when
    /// there is no data directory ([`crate::data_dir`]).
    pub fn database_path(&self, root: &Path) -> Option<PathBuf> {
        match self.database {
            IndexDatabase::Project => None,
            IndexDatabase::DataDir => {
                crate::data_dir().map(|data_dir| data_dir_database(&data_dir, root))
            }
        }
    }
}

/// `<data_dir>/index/<name>-<hash>/index.db` for the project at `root`: the name keeps the
/// directory recognisable, the hash of the canonical path (FNV-1a, stable across builds)
/// keeps projects with the same name apart.
pub fn data_dir_database(data_dir: &Path, root: &Path) -> PathBuf {
    let canonical = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in canonical.as_os_str().as_encoded_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    let name: String = canonical
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    let name = if name.is_empty() { "root" } else { &name };
    data_dir
        .join("index")
        .join(format!("{name}-{hash:016x}"))
        .join("index.db")
}

/// `[index]` as written in a file; spans locate values for error messages.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct IndexSection {
    database: Option<Spanned<String>>,
    map_budget: Option<Spanned<i64>>,
    #[serde(default)]
    extra_ignores: Vec<Spanned<String>>,
    watch_debounce_ms: Option<Spanned<i64>>,
    /// The values above, checked; filled in by [`validate`].
    #[serde(skip)]
    checked: CheckedIndex,
}

/// One file's `[index]` values after [`validate`].
#[derive(Debug, Default, Clone)]
struct CheckedIndex {
    database: Option<IndexDatabase>,
    map_budget: Option<usize>,
    watch_debounce_ms: Option<u64>,
}

/// Checks the `[index]` values of `section`, from the contents `text` of `path`. Errors
/// name the file, line and column of the value.
pub(crate) fn validate(
    path: &Path,
    text: &str,
    section: &mut IndexSection,
) -> Result<(), ConfigError> {
    let error = |span: Range<usize>, message: String| {
        crate::file::error_at(path, text, span.start, message)
    };
    if let Some(value) = &section.database {
        let name = value.get_ref();
        let choice = IndexDatabase::from_name(name).ok_or_else(|| {
            let hint = closest(name, IndexDatabase::ALL.map(IndexDatabase::as_str))
                .map(|name| format!(". Did you mean `{name}`?"))
                .unwrap_or_default();
            let message = format!(
                "invalid `index.database` {name:?}: expected `project` (<project>/.hone/index.db) \
                 or `data-dir` (under hone's data directory){hint}"
            );
            error(value.span(), message)
        })?;
        section.checked.database = Some(choice);
    }
    if let Some(value) = &section.map_budget {
        let budget = usize::try_from(*value.get_ref())
            .ok()
            .filter(|budget| MAP_BUDGET_RANGE.contains(budget))
            .ok_or_else(|| {
                let message = format!(
                    "invalid `index.map_budget` {}: expected a number of tokens from {} to {}",
                    value.get_ref(),
                    MAP_BUDGET_RANGE.start(),
                    MAP_BUDGET_RANGE.end()
                );
                error(value.span(), message)
            })?;
        section.checked.map_budget = Some(budget);
    }
    if let Some(value) = &section.watch_debounce_ms {
        let millis = u64::try_from(*value.get_ref())
            .ok()
            .filter(|millis| WATCH_DEBOUNCE_RANGE_MS.contains(millis))
            .ok_or_else(|| {
                let message = format!(
                    "invalid `index.watch_debounce_ms` {}: expected milliseconds from {} to {}",
                    value.get_ref(),
                    WATCH_DEBOUNCE_RANGE_MS.start(),
                    WATCH_DEBOUNCE_RANGE_MS.end()
                );
                error(value.span(), message)
            })?;
        section.checked.watch_debounce_ms = Some(millis);
    }
    for pattern in &section.extra_ignores {
        if let Err(reason) = check_ignore_pattern(pattern.get_ref()) {
            let message = format!(
                "invalid `index.extra_ignores` pattern {:?}: {reason}",
                pattern.get_ref()
            );
            return Err(error(pattern.span(), message));
        }
    }
    Ok(())
}

/// Whether `pattern` is an ignore pattern the index accepts (gitignore syntax, no `!`).
fn check_ignore_pattern(pattern: &str) -> Result<(), String> {
    let trimmed = pattern.trim();
    if trimmed.is_empty() {
        return Err("patterns must not be empty".to_string());
    }
    if trimmed.starts_with('!') {
        return Err(
            "re-including patterns are not supported here; put them in .honeignore".to_string(),
        );
    }
    let glob = trimmed.trim_start_matches('/').trim_end_matches('/');
    globset::GlobBuilder::new(glob)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map(|_| ())
        .map_err(|error| {
            format!("{error} (patterns use .gitignore syntax, e.g. `dist` or `*.gen.ts`)")
        })
}

/// `[index]` merged over the files, each value with its source.
#[derive(Debug, Clone, Default)]
pub(crate) struct IndexLayers {
    database: Option<Sourced<IndexDatabase>>,
    map_budget: Option<Sourced<usize>>,
    extra_ignores: Vec<Sourced<String>>,
    watch_debounce_ms: Option<Sourced<u64>>,
}

impl IndexSection {
    /// Drops a `map_budget` above `below`'s, which an untrusted project may not set.
    pub(crate) fn restrict_untrusted(&mut self, below: &IndexSettings, ignored: &mut Vec<String>) {
        crate::untrusted::cap(
            &mut self.checked.map_budget,
            below.map_budget,
            "[index] map_budget",
            ignored,
        );
    }
}

impl IndexLayers {
    /// Layers `section`, read from `source`, over the files merged so far.
    pub(crate) fn merge(&mut self, section: &IndexSection, source: &Source) {
        let checked = &section.checked;
        if let Some(database) = checked.database {
            self.database = Some(Sourced::new(database, source.clone()));
        }
        if let Some(budget) = checked.map_budget {
            self.map_budget = Some(Sourced::new(budget, source.clone()));
        }
        if let Some(millis) = checked.watch_debounce_ms {
            self.watch_debounce_ms = Some(Sourced::new(millis, source.clone()));
        }
        self.extra_ignores.extend(
            section
                .extra_ignores
                .iter()
                .map(|pattern| Sourced::new(pattern.get_ref().trim().to_string(), source.clone())),
        );
    }
}

impl Config {
    /// The `[index]` settings: the project file over the user file over the defaults
    /// (`extra_ignores` of both files, user patterns first).
    pub fn index_settings(&self) -> IndexSettings {
        let index = &self.index;
        let defaults = IndexSettings::default();
        IndexSettings {
            database: index
                .database
                .as_ref()
                .map_or(defaults.database, |value| value.value),
            map_budget: index
                .map_budget
                .as_ref()
                .map_or(defaults.map_budget, |value| value.value),
            extra_ignores: index
                .extra_ignores
                .iter()
                .map(|pattern| pattern.value.clone())
                .collect(),
            watch_debounce: index
                .watch_debounce_ms
                .as_ref()
                .map_or(defaults.watch_debounce, |value| {
                    Duration::from_millis(value.value)
                }),
            store: self.store_settings(),
        }
    }

    /// The `[index]` values as `hone config show` lists them.
    pub(crate) fn show_index(&self, values: &mut Vec<ShownValue>) {
        let index = &self.index;
        let mut push = |key: &str, value: String, source: Option<Source>| {
            values.push(ShownValue {
                section: "index".to_string(),
                key: key.to_string(),
                value,
                source,
            });
        };
        let or_default = |slot: Option<&Source>| Some(slot.cloned().unwrap_or(Source::Default));
        let settings = self.index_settings();
        push(
            "database",
            quote(settings.database.as_str()),
            or_default(index.database.as_ref().map(|value| &value.source)),
        );
        push(
            "map_budget",
            settings.map_budget.to_string(),
            or_default(index.map_budget.as_ref().map(|value| &value.source)),
        );
        if index.extra_ignores.is_empty() {
            push("extra_ignores", "[]".to_string(), None);
        }
        for pattern in &index.extra_ignores {
            push(
                "extra_ignores",
                quote(&pattern.value),
                Some(pattern.source.clone()),
            );
        }
        push(
            "watch_debounce_ms",
            settings.watch_debounce.as_millis().to_string(),
            or_default(index.watch_debounce_ms.as_ref().map(|value| &value.source)),
        );
    }
}

/// `text` as a TOML string.
fn quote(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<IndexSection, ConfigError> {
        let file = crate::file::parse(
            Path::new("/p/config.toml"),
            text,
            crate::file::FileRole::User,
        )?;
        Ok(file.index)
    }

    fn error_at(text: &str) -> (Option<usize>, String) {
        match parse(text) {
            Err(ConfigError::Parse { line, message, .. }) => (line, message),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn the_documented_example_sets_every_key() {
        let section = parse(crate::EXAMPLE_CONFIG).unwrap();
        assert_eq!(section.checked.database, Some(IndexDatabase::Project));
        assert_eq!(section.checked.map_budget, Some(8000));
        assert_eq!(section.checked.watch_debounce_ms, Some(500));
        assert!(!section.extra_ignores.is_empty());
    }

    #[test]
    fn bad_values_are_refused_with_their_line() {
        let (line, message) = error_at("model = \"m\"\n[index]\ndatabase = \"datadir\"\n");
        assert_eq!(line, Some(3));
        assert!(message.contains("Did you mean `data-dir`?"), "{message}");
        let (line, message) = error_at("[index]\n\nmap_budget = 10\n");
        assert_eq!(line, Some(3));
        assert!(message.contains("from 256 to 1000000"), "{message}");
        let (_, message) = error_at("[index]\nwatch_debounce_ms = -5\n");
        assert!(message.contains("watch_debounce_ms"), "{message}");
        let (line, message) = error_at("[index]\nextra_ignores = [\n  \"ok\",\n  \"!keep\",\n]\n");
        assert_eq!(line, Some(4));
        assert!(message.contains(".honeignore"), "{message}");
        let (_, message) = error_at("[index]\nextra_ignores = [\"src/[ab\"]\n");
        assert!(message.contains("src/[ab"), "{message}");
        let (_, message) = error_at("[index]\nextra_ignores = [\"  \"]\n");
        assert!(message.contains("empty"), "{message}");
        let (line, message) = error_at("[index]\nbudget = 5\n");
        assert_eq!(line, Some(2));
        assert!(message.contains("unknown field `budget`"), "{message}");
    }

    #[test]
    fn ignore_patterns_in_gitignore_syntax_are_accepted() {
        for pattern in [
            "dist/",
            "/generated",
            "**/*.gen.ts",
            "fixtures/large/*",
            "a\\[b",
        ] {
            assert_eq!(check_ignore_pattern(pattern), Ok(()), "{pattern}");
        }
    }

    #[test]
    fn data_dir_databases_are_per_project_and_stable() {
        let data = Path::new("/data/hone");
        let first = data_dir_database(data, Path::new("/nonexistent/work/my app"));
        let again = data_dir_database(data, Path::new("/nonexistent/work/my app"));
        let other = data_dir_database(data, Path::new("/nonexistent/play/my app"));
        assert_eq!(first, again);
        assert_ne!(first, other);
        assert!(first.starts_with("/data/hone/index"));
        assert_eq!(first.file_name().unwrap(), "index.db");
        let directory = first
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap();
        assert!(directory.starts_with("my_app-"), "{directory}");
        assert_eq!(directory.len(), "my_app-".len() + 16);
    }

    #[test]
    fn database_names_round_trip() {
        for choice in IndexDatabase::ALL {
            assert_eq!(IndexDatabase::from_name(choice.as_str()), Some(choice));
        }
        assert_eq!(IndexSettings::default().database, IndexDatabase::Project);
        assert_eq!(
            IndexSettings::default().database_path(Path::new("/p")),
            None
        );
    }
}
