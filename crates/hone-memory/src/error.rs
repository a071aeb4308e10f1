//! What can go wrong with the session store, with messages that say what to do.

use std::path::{Path, PathBuf};

use hone_protocol::{ErrorCategory, HoneError};
use hone_sqlite::SqliteError;

/// A session-store failure.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    /// Neither `HONE_DATA_DIR` nor a platform data directory is available.
    #[error("no data directory for the session store: set HONE_DATA_DIR to a writable directory")]
    NoDataDir,
    /// The directory holding the database cannot be created.
    #[error("cannot create {dir} for the session store: {source}")]
    CreateDir {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Another process holds a lock on the database for longer than the busy timeout.
    #[error("the session store {path} is locked by another process; wait a moment and retry")]
    Locked {
        /// The database file.
        path: PathBuf,
    },
    /// The database file is damaged or is not a hone session store.
    #[error(
        "the session store {path} is corrupt or not a hone session store ({detail}); move it away to start afresh (saved sessions and the undo journal are then lost): mv {path} {path}.bad"
    )]
    Corrupt {
        /// The database file.
        path: PathBuf,
        /// What was wrong.
        detail: String,
    },
    /// The database was written by a newer hone with a schema this version does not know.
    #[error(
        "the session store {path} has schema version {found}, newer than the {supported} this hone understands; upgrade hone"
    )]
    NewerSchema {
        /// The database file.
        path: PathBuf,
        /// The schema version found in the file.
        found: i64,
        /// The newest schema version this build knows.
        supported: i64,
    },
    /// No session has this id (or id prefix).
    #[error("no session `{id}`; `hone sessions list --all` shows the saved sessions")]
    NotFound {
        /// The id as given.
        id: String,
    },
    /// An id prefix matches several sessions.
    #[error("`{prefix}` matches several sessions ({}); give more of the id", matches.join(", "))]
    Ambiguous {
        /// The prefix as given.
        prefix: String,
        /// Some of the matching ids.
        matches: Vec<String>,
    },
    /// A stored value cannot be decoded (JSON written by a buggy or newer hone).
    #[error("the session store {path} holds an unreadable {what}: {detail}")]
    Decode {
        /// The database file.
        path: PathBuf,
        /// What could not be read, e.g. `message 3 of session 01J…`.
        what: String,
        /// The decoder's message.
        detail: String,
    },
    /// A store on a server (such as Redis) failed or holds something this hone cannot use.
    #[error("the session store {store} failed: {reason}")]
    Remote {
        /// The server and namespace (never a password).
        store: String,
        /// What went wrong.
        reason: String,
    },
    /// A store on a server cannot be reached (refused, dropped or timed out).
    #[error("the session store {store} cannot be reached: {reason}")]
    Unreachable {
        /// The server and namespace (never a password).
        store: String,
        /// The connection's error.
        reason: String,
    },
    /// Any other database failure.
    #[error("the session store {path} failed: {source}")]
    Database {
        /// The database file.
        path: PathBuf,
        /// The underlying error.
        source: rusqlite::Error,
    },
}

impl MemoryError {
    /// The category a front end reports: an unknown or ambiguous session id is the user's
    /// to fix ([`ErrorCategory::Config`]); everything else is the store's
    /// ([`ErrorCategory::Storage`]), except a server out of reach ([`ErrorCategory::Network`]).
    pub fn category(&self) -> ErrorCategory {
        match self {
            Self::NotFound { .. } | Self::Ambiguous { .. } => ErrorCategory::Config,
            Self::Unreachable { .. } => ErrorCategory::Network,
            Self::NoDataDir
            | Self::CreateDir { .. }
            | Self::Locked { .. }
            | Self::Corrupt { .. }
            | Self::NewerSchema { .. }
            | Self::Decode { .. }
            | Self::Remote { .. }
            | Self::Database { .. } => ErrorCategory::Storage,
        }
    }

    /// Classifies a SQLite error on the database at `path`.
    pub(crate) fn database(path: &Path, source: rusqlite::Error) -> Self {
        SqliteError::classify(path, source).into()
    }
}

hone_sqlite::impl_from_sqlite_error!(MemoryError);

impl From<MemoryError> for HoneError {
    fn from(error: MemoryError) -> Self {
        HoneError::new(error.category(), error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_failures_are_storage_errors_and_bad_ids_are_the_users() {
        let locked = MemoryError::Locked {
            path: PathBuf::from("sessions.db"),
        };
        let error = HoneError::from(locked);
        assert_eq!(error.category, ErrorCategory::Storage);
        assert!(error.message.contains("sessions.db"), "{}", error.message);
        let missing = MemoryError::NotFound { id: "01J".into() };
        assert_eq!(HoneError::from(missing).category, ErrorCategory::Config);
    }
}
