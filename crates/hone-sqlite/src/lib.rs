//! How hone opens its SQLite databases (the session store and the code index): the
//! directory is created, the connection waits for other writers, uses WAL with
//! `synchronous = NORMAL` and foreign keys, and the schema is brought up to date by
//! [`migrate`]. Failures come back as a [`SqliteError`] whose lock and corruption cases
//! the caller turns into messages for its own database.
//!
//! ```
//! use hone_sqlite::{Setup, open_in_memory};
//!
//! const MIGRATIONS: &[&str] = &["CREATE TABLE notes (text TEXT NOT NULL);"];
//! let connection = open_in_memory(&Setup::new(MIGRATIONS))?;
//! let version: i64 = connection.query_row("PRAGMA user_version", [], |row| row.get(0))?;
//! assert_eq!(version, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod migrate;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode};

pub use migrate::{migrate, schema_version};

/// How long a statement waits for another process's lock before failing with
/// [`SqliteError::Locked`].
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// A SQLite failure, classified so the user can act on it.
#[derive(Debug, thiserror::Error)]
pub enum SqliteError {
    /// The directory holding the database cannot be created.
    #[error("cannot create {dir}: {source}")]
    CreateDir {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Another process holds a lock on the database for longer than the busy timeout.
    #[error("{path} is locked by another process")]
    Locked {
        /// The database file.
        path: PathBuf,
    },
    /// The database file is damaged or is not a database.
    #[error("{path} is corrupt ({detail})")]
    Corrupt {
        /// The database file.
        path: PathBuf,
        /// What was wrong.
        detail: String,
    },
    /// The database was written by a newer build with a schema this one does not know.
    #[error("{path} has schema version {found}, newer than {supported}")]
    NewerSchema {
        /// The database file.
        path: PathBuf,
        /// The schema version found in the file.
        found: i64,
        /// The newest schema version this build knows.
        supported: i64,
    },
    /// Any other database failure.
    #[error("{path} failed: {source}")]
    Database {
        /// The database file.
        path: PathBuf,
        /// The underlying error.
        source: rusqlite::Error,
    },
}

impl SqliteError {
    /// Classifies `source`, an error on the database at `path`: lock contention and
    /// corruption get their own variants.
    pub fn classify(path: &Path, source: rusqlite::Error) -> Self {
        let path = path.to_path_buf();
        match source.sqlite_error_code() {
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => Self::Locked { path },
            Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => Self::Corrupt {
                path,
                detail: source.to_string(),
            },
            _ => Self::Database { path, source },
        }
    }
}

/// Implements `From<SqliteError>` for a crate's error enum that words the five failures
/// for its own database: variants `CreateDir { dir, source }`, `Locked { path }`,
/// `Corrupt { path, detail }`, `NewerSchema { path, found, supported }` and
/// `Database { path, source }`.
#[macro_export]
macro_rules! impl_from_sqlite_error {
    ($error:ty) => {
        impl From<$crate::SqliteError> for $error {
            fn from(error: $crate::SqliteError) -> Self {
                match error {
                    $crate::SqliteError::CreateDir { dir, source } => {
                        Self::CreateDir { dir, source }
                    }
                    $crate::SqliteError::Locked { path } => Self::Locked { path },
                    $crate::SqliteError::Corrupt { path, detail } => Self::Corrupt { path, detail },
                    $crate::SqliteError::NewerSchema {
                        path,
                        found,
                        supported,
                    } => Self::NewerSchema {
                        path,
                        found,
                        supported,
                    },
                    $crate::SqliteError::Database { path, source } => {
                        Self::Database { path, source }
                    }
                }
            }
        }
    };
}

/// How a database is set up: its migrations and tuning.
#[derive(Debug, Clone, Copy)]
pub struct Setup<'a> {
    /// Migration `i` takes the schema from version `i` to `i + 1`. Append only: never edit
    /// a migration that has shipped.
    pub migrations: &'a [&'a str],
    /// SQLite's `cache_size` (negative: KiB), when the default is too small.
    pub cache_size: Option<i64>,
    /// The page size (bytes, a power of two from 512 to 65536) of a database [`open`]
    /// creates; existing databases keep theirs. `None`: SQLite's default (4096).
    pub page_size: Option<u32>,
}

impl<'a> Setup<'a> {
    /// `migrations` with SQLite's default page cache.
    pub fn new(migrations: &'a [&'a str]) -> Self {
        Self {
            migrations,
            cache_size: None,
            page_size: None,
        }
    }
}

/// Opens (creating it and its directory if needed) the database at `path`, sets the
/// connection up and brings its schema up to date.
pub fn open(path: &Path, setup: &Setup<'_>) -> Result<Connection, SqliteError> {
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| SqliteError::CreateDir {
            dir: dir.to_path_buf(),
            source,
        })?;
    }
    let connection = Connection::open(path).map_err(|error| SqliteError::classify(path, error))?;
    init(connection, path, setup)
}

/// A fresh database in memory (path `:memory:` in errors), set up like [`open`].
pub fn open_in_memory(setup: &Setup<'_>) -> Result<Connection, SqliteError> {
    let path = Path::new(":memory:");
    let connection =
        Connection::open_in_memory().map_err(|error| SqliteError::classify(path, error))?;
    init(connection, path, setup)
}

fn init(
    mut connection: Connection,
    path: &Path,
    setup: &Setup<'_>,
) -> Result<Connection, SqliteError> {
    let database = |error| SqliteError::classify(path, error);
    connection.busy_timeout(BUSY_TIMEOUT).map_err(database)?;
    // Only takes effect on a database without tables yet (and before it enters WAL mode).
    if let Some(page_size) = setup.page_size {
        connection
            .pragma_update(None, "page_size", page_size)
            .map_err(database)?;
    }
    // The first statement reads the file header: a file that is not a database fails here.
    connection
        .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get::<_, String>(0))
        .map_err(database)?;
    // In WAL mode NORMAL keeps every committed write across a killed process; only a power
    // loss may drop the latest commits (never corrupting the file).
    connection
        .pragma_update(None, "synchronous", "NORMAL")
        .map_err(database)?;
    if let Some(cache_size) = setup.cache_size {
        connection
            .pragma_update(None, "cache_size", cache_size)
            .map_err(database)?;
    }
    connection
        .pragma_update(None, "foreign_keys", true)
        .map_err(database)?;
    migrate(&mut connection, path, setup.migrations)?;
    Ok(connection)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIGRATIONS: &[&str] = &[
        "CREATE TABLE a (id INTEGER PRIMARY KEY);",
        "CREATE TABLE b (a INTEGER NOT NULL REFERENCES a(id));",
    ];

    #[test]
    fn a_new_database_gets_every_migration_and_foreign_keys() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("deep/dir/test.db");
        let connection = open(&path, &Setup::new(MIGRATIONS)).unwrap();
        let version: i64 = connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .unwrap();
        assert_eq!(version, 2);
        let orphan = connection.execute("INSERT INTO b (a) VALUES (7)", []);
        assert!(orphan.is_err(), "foreign keys are enforced");
        let mode: String = connection
            .query_row("PRAGMA journal_mode", [], |row| row.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }

    #[test]
    fn a_page_size_applies_to_new_databases_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("test.db");
        let page_size = |connection: &Connection| -> i64 {
            connection
                .query_row("PRAGMA page_size", [], |row| row.get(0))
                .unwrap()
        };
        let old = open(&path, &Setup::new(MIGRATIONS)).unwrap();
        assert_eq!(page_size(&old), 4096);
        drop(old);
        let larger = Setup {
            page_size: Some(16384),
            ..Setup::new(MIGRATIONS)
        };
        let reopened = open(&path, &larger).unwrap();
        assert_eq!(
            page_size(&reopened),
            4096,
            "an existing database keeps its pages"
        );
        let created = open(&dir.path().join("new.db"), &larger).unwrap();
        assert_eq!(page_size(&created), 16384);
        let mode: String = created
            .query_row("PRAGMA journal_mode", [], |row| row.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }

    #[test]
    fn a_file_that_is_not_a_database_is_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("junk.db");
        std::fs::write(&path, "this is not a database, just some text ".repeat(50)).unwrap();
        let error = open(&path, &Setup::new(MIGRATIONS)).unwrap_err();
        assert!(matches!(error, SqliteError::Corrupt { .. }), "{error:?}");
    }

    #[test]
    fn a_directory_that_cannot_be_created_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let error = open(&file.join("sub/test.db"), &Setup::new(MIGRATIONS)).unwrap_err();
        assert!(matches!(error, SqliteError::CreateDir { .. }), "{error:?}");
    }
}
