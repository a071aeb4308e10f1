//! What can go wrong while scanning, indexing or querying, with messages that say what to do.

use std::path::{Path, PathBuf};

use hone_protocol::{ErrorCategory, HoneError};
use hone_sqlite::SqliteError;

/// An indexing or index-query failure.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// The project root is missing or not a directory.
    #[error("cannot index {root}: {source}")]
    Root {
        /// The root as given.
        root: PathBuf,
        /// Why it cannot be used.
        source: std::io::Error,
    },
    /// An extra ignore pattern is not valid gitignore syntax.
    #[error(
        "invalid ignore pattern `{pattern}`: {reason} (patterns use .gitignore syntax, e.g. `dist` or `*.min.js`)"
    )]
    Pattern {
        /// The pattern as given.
        pattern: String,
        /// Why it was refused.
        reason: String,
    },
    /// A sub-directory to limit the index to cannot be used.
    #[error(
        "cannot limit the index to `{scope}`: {reason} (give a directory relative to the project root)"
    )]
    Scope {
        /// The sub-directory as given.
        scope: String,
        /// Why it was refused.
        reason: String,
    },
    /// The directory holding the index database cannot be created.
    #[error("cannot create {dir} for the index database: {source}")]
    CreateDir {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Another process holds a lock on the database for longer than the busy timeout.
    #[error(
        "the index database {path} is locked by another process (is another hone indexing this project?); wait for it to finish and retry"
    )]
    Locked {
        /// The database file.
        path: PathBuf,
    },
    /// The database file is damaged or is not a hone index.
    #[error(
        "the index database {path} is corrupt or not a hone index ({detail}); delete it to rebuild the index from scratch: rm {path}"
    )]
    Corrupt {
        /// The database file.
        path: PathBuf,
        /// What was wrong.
        detail: String,
    },
    /// The database was written by a newer hone with a schema this version does not know.
    #[error(
        "the index database {path} has schema version {found}, newer than the {supported} this hone understands; upgrade hone, or delete the file to rebuild the index: rm {path}"
    )]
    NewerSchema {
        /// The database file.
        path: PathBuf,
        /// The schema version found in the file.
        found: i64,
        /// The newest schema version this build knows.
        supported: i64,
    },
    /// Any other database failure.
    #[error("the index database {path} failed: {source}")]
    Database {
        /// The database file.
        path: PathBuf,
        /// The underlying error.
        source: rusqlite::Error,
    },
    /// A record handed to the store cannot be stored as given.
    #[error("cannot store the index entry for `{path}`: {reason}")]
    InvalidRecord {
        /// The root-relative path of the entry.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A store on a server (`[store] backend = "redis"`) cannot be reached.
    #[error(
        "cannot reach the index store at {store}: {reason} (is the server running? check `[store] url`, or use `hone index --store`)"
    )]
    Unreachable {
        /// The server's address, without its password.
        store: String,
        /// Why.
        reason: String,
    },
    /// A store on a server failed or holds what this hone cannot use.
    #[error("the index store at {store} failed: {reason}")]
    Store {
        /// The server's address, without its password.
        store: String,
        /// What went wrong.
        reason: String,
    },
    /// The file watcher could not be started on the project.
    #[error("cannot watch {root} for changes: {reason}")]
    Watch {
        /// The project root.
        root: PathBuf,
        /// Why.
        reason: String,
    },
}

impl IndexError {
    /// The category a front end reports: a bad root, ignore pattern or scope is the user's
    /// to fix ([`ErrorCategory::Config`]); a store server out of reach is
    /// [`ErrorCategory::Network`]; everything else is the index's ([`ErrorCategory::Storage`]).
    pub fn category(&self) -> ErrorCategory {
        match self {
            Self::Root { .. } | Self::Pattern { .. } | Self::Scope { .. } => ErrorCategory::Config,
            Self::Unreachable { .. } => ErrorCategory::Network,
            Self::CreateDir { .. }
            | Self::Locked { .. }
            | Self::Corrupt { .. }
            | Self::NewerSchema { .. }
            | Self::Database { .. }
            | Self::InvalidRecord { .. }
            | Self::Store { .. }
            | Self::Watch { .. } => ErrorCategory::Storage,
        }
    }

    /// Classifies a SQLite error on the database at `path`.
    pub(crate) fn database(path: &Path, source: rusqlite::Error) -> Self {
        SqliteError::classify(path, source).into()
    }
}

hone_sqlite::impl_from_sqlite_error!(IndexError);

impl From<IndexError> for HoneError {
    fn from(error: IndexError) -> Self {
        HoneError::new(error.category(), error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_failures_are_storage_errors_and_bad_scopes_are_the_users() {
        let corrupt = IndexError::Corrupt {
            path: PathBuf::from("index.db"),
            detail: "not a database".into(),
        };
        let error = HoneError::from(corrupt);
        assert_eq!(error.category, ErrorCategory::Storage);
        assert!(error.message.contains("rm index.db"), "{}", error.message);
        let scope = IndexError::Scope {
            scope: "..".into(),
            reason: "outside".into(),
        };
        assert_eq!(HoneError::from(scope).category, ErrorCategory::Config);
    }
}
