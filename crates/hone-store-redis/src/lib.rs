//! hone's code index on a Redis server a team shares (`[store] backend = "redis"`).
//!
//! [`RedisStore`] implements [`IndexStore`] over a handful of hashes and sets per namespace
//! (see the key layout in `keys.rs`): every clone of a repository pointed at the same server
//! and namespace reads and writes one index. A file's record carries its content hash, and
//! each clone keeps its own modification times apart (`stamps:CLONE`), so a second clone
//! re-reads its files once to compare hashes and parses none whose contents the namespace
//! already holds.
//!
//! Each update is one MULTI/EXEC transaction, run under WATCH of the namespace's `meta`
//! hash (which every write changes): readers never see half an update, and two writers
//! never interleave (the later one sees the conflict and redoes its transaction on the new
//! state). The schema version is checked when the store opens.
//!
//! ```no_run
//! use hone_index::IndexStore;
//! use hone_store_redis::{RedisStore, RedisTarget};
//!
//! let target = RedisTarget {
//!     url: "redis://127.0.0.1:6379/0".to_string(),
//!     password: None,
//!     namespace: "acme-web".to_string(),
//!     clone_id: "laptop-1".to_string(),
//! };
//! let store = RedisStore::open(&target)?;
//! println!("{} files indexed", store.files()?.len());
//! # Ok::<(), hone_index::IndexError>(())
//! ```

mod codec;
mod keys;
mod read;
mod sessions;
#[cfg(feature = "test-server")]
pub mod test_server;
mod write;

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use hone_index::IndexError;
#[cfg(doc)]
use hone_index::IndexStore;
use redis::{Client, Connection, IntoConnectionInfo, RedisError};

use keys::Keys;
pub use sessions::{RedisSessions, SESSIONS_SCHEMA_VERSION};

/// The layout version of a namespace this build reads and writes.
pub const SCHEMA_VERSION: i64 = 1;

/// How long opening a connection may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// How long one command may wait for its reply (a first index of a large project sends its
/// whole transaction at once).
const IO_TIMEOUT: Duration = Duration::from_secs(120);

/// Where a [`RedisStore`] lives and who is using it.
#[derive(Clone, PartialEq, Eq)]
pub struct RedisTarget {
    /// `redis://host[:port][/db]` or `redis+unix:///path`, without a password.
    pub url: String,
    /// The server's password (from the variable `[store] password_env` names).
    pub password: Option<String>,
    /// The namespace shared by every clone of the project.
    pub namespace: String,
    /// This clone's name within the namespace (its modification times are kept apart).
    pub clone_id: String,
}

impl std::fmt::Debug for RedisTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTarget")
            .field("url", &self.url)
            .field("password", &self.password.as_ref().map(|_| "<hidden>"))
            .field("namespace", &self.namespace)
            .field("clone_id", &self.clone_id)
            .finish()
    }
}

/// An [`IndexStore`] on a Redis server. See the crate documentation.
pub struct RedisStore {
    client: Client,
    connection: Mutex<Connection>,
    keys: Keys,
    /// The URL and namespace, for messages (never the password).
    shown: String,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("store", &self.shown)
            .finish_non_exhaustive()
    }
}

/// What `hone doctor` reports about the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerReport {
    /// `redis_version` from `INFO server`.
    pub version: String,
    /// Whether the append-only file is on (`aof_enabled`).
    pub append_only: bool,
    /// Files indexed in the namespace.
    pub files: usize,
}

impl RedisStore {
    /// Connects to `target`, creating the namespace's schema mark if it has none and
    /// refusing a namespace written with another schema.
    pub fn open(target: &RedisTarget) -> Result<Self, IndexError> {
        let shown = format!("{} (namespace `{}`)", target.url, target.namespace);
        let invalid = |error: RedisError| IndexError::Store {
            store: shown.clone(),
            reason: format!("the URL cannot be used: {error}"),
        };
        let client = client_for(target).map_err(invalid)?;
        let connection = connect(&client).map_err(|error| unreachable(&shown, &error))?;
        let store = Self {
            client,
            connection: Mutex::new(connection),
            keys: Keys::new(&target.namespace, &target.clone_id),
            shown,
        };
        store.check_schema()?;
        Ok(store)
    }

    /// The server and namespace, as messages name them.
    pub fn describe(&self) -> &str {
        &self.shown
    }

    /// The server's version, whether it persists writes to an append-only file, and how
    /// many files the namespace holds.
    pub fn server_report(&self) -> Result<ServerReport, IndexError> {
        let (server, persistence, files): (String, String, usize) = self.run(|connection| {
            redis::pipe()
                .cmd("INFO")
                .arg("server")
                .cmd("INFO")
                .arg("persistence")
                .cmd("HLEN")
                .arg(&self.keys.files)
                .query(connection)
        })?;
        let field = |text: &str, name: &str| {
            text.lines()
                .find_map(|line| line.strip_prefix(name)?.strip_prefix(':'))
                .map(|value| value.trim().to_string())
        };
        Ok(ServerReport {
            version: field(&server, "redis_version").unwrap_or_else(|| "unknown".to_string()),
            append_only: field(&persistence, "aof_enabled").as_deref() == Some("1"),
            files,
        })
    }

    fn check_schema(&self) -> Result<(), IndexError> {
        let (_, found): (i64, Option<String>) = self.run(|connection| {
            redis::pipe()
                .cmd("HSETNX")
                .arg(&self.keys.meta)
                .arg("schema")
                .arg(SCHEMA_VERSION)
                .cmd("HGET")
                .arg(&self.keys.meta)
                .arg("schema")
                .query(connection)
        })?;
        let found = found.unwrap_or_default();
        if found == SCHEMA_VERSION.to_string() {
            return Ok(());
        }
        Err(self.failure(format!(
            "the namespace holds an index of schema version {found:?}, and this hone reads \
             version {SCHEMA_VERSION}: choose another `[store] namespace`, or delete the \
             namespace's keys (hone:{{NAMESPACE}}:*) to rebuild it"
        )))
    }

    /// Runs `query` on the connection; a connection found closed is opened again and the
    /// query retried once (a query is either all applied or not at all, so this is safe).
    pub(crate) fn run<T>(
        &self,
        mut query: impl FnMut(&mut Connection) -> redis::RedisResult<T>,
    ) -> Result<T, IndexError> {
        let mut connection = self.lock()?;
        match query(&mut connection) {
            Ok(value) => Ok(value),
            Err(error) if lost(&error) => {
                *connection =
                    connect(&self.client).map_err(|error| unreachable(&self.shown, &error))?;
                query(&mut connection).map_err(|error| self.redis_error(&error))
            }
            Err(error) => Err(self.redis_error(&error)),
        }
    }

    fn lock(&self) -> Result<MutexGuard<'_, Connection>, IndexError> {
        self.connection
            .lock()
            .map_err(|_| self.failure("a previous query panicked".to_string()))
    }

    /// An error of this store.
    pub(crate) fn failure(&self, reason: String) -> IndexError {
        IndexError::Store {
            store: self.shown.clone(),
            reason,
        }
    }

    fn redis_error(&self, error: &RedisError) -> IndexError {
        if lost(error) {
            unreachable(&self.shown, error)
        } else {
            self.failure(error.to_string())
        }
    }

    /// A value the store holds that cannot be decoded.
    pub(crate) fn corrupt(&self, what: &str, error: impl std::fmt::Display) -> IndexError {
        self.failure(format!("unreadable {what}: {error}"))
    }
}

/// A client for `target`'s URL with its password.
pub(crate) fn client_for(target: &RedisTarget) -> redis::RedisResult<Client> {
    if target.url.starts_with("rediss:") {
        // rustls needs one process-wide crypto provider; another part of hone (or an earlier
        // store) may have installed it already, which is as good.
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    }
    let mut info = target.url.as_str().into_connection_info()?;
    if let Some(password) = &target.password {
        let settings = info.redis_settings().clone().set_password(password);
        info = info.set_redis_settings(settings);
    }
    Client::open(info)
}

/// Opens a connection with hone's timeouts.
pub(crate) fn connect(client: &Client) -> redis::RedisResult<Connection> {
    let connection = client.get_connection_with_timeout(CONNECT_TIMEOUT)?;
    connection.set_read_timeout(Some(IO_TIMEOUT))?;
    connection.set_write_timeout(Some(IO_TIMEOUT))?;
    Ok(connection)
}

/// Whether `error` means the server is out of reach (refused, dropped, timed out).
pub(crate) fn lost(error: &RedisError) -> bool {
    error.is_io_error()
        || error.is_connection_refusal()
        || error.is_connection_dropped()
        || error.is_timeout()
}

fn unreachable(shown: &str, error: &RedisError) -> IndexError {
    IndexError::Unreachable {
        store: shown.to_string(),
        reason: error.to_string(),
    }
}
