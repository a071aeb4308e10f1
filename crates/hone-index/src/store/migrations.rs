//! Schema versions. `PRAGMA user_version` counts the migrations applied; opening a database
//! applies the missing ones in order, in one transaction, and refuses a newer schema.

use std::path::Path;

use rusqlite::{Connection, TransactionBehavior};

use crate::error::IndexError;

/// Migration `i` takes the schema from version `i` to `i + 1`. Append only: never edit a
/// migration that has shipped.
const MIGRATIONS: [&str; 4] = [
    include_str!("schema/001_initial.sql"),
    include_str!("schema/002_symbol_counts.sql"),
    include_str!("schema/003_outlines_without_symbols.sql"),
    include_str!("schema/004_rank_cache.sql"),
];

/// The schema version this build writes (the number of migrations).
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Brings the database at `path` to [`SCHEMA_VERSION`].
pub(crate) fn migrate(connection: &mut Connection, path: &Path) -> Result<(), IndexError> {
    let database = |error| IndexError::database(path, error);
    // Read first without a write lock: the common case is an up-to-date schema, and readers
    // must not queue behind a long-running indexer.
    if check_version(connection, path)? == SCHEMA_VERSION {
        return Ok(());
    }
    let transaction = connection
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(database)?;
    // Another process may have migrated while we waited for the lock.
    let current = check_version(&transaction, path)?;
    let pending = MIGRATIONS
        .iter()
        .zip(1_i64..)
        .filter(|(_, version)| *version > current);
    for (sql, version) in pending {
        transaction.execute_batch(sql).map_err(database)?;
        transaction
            .pragma_update(None, "user_version", version)
            .map_err(database)?;
    }
    transaction.commit().map_err(database)
}

/// The stored schema version, refusing versions this build cannot read.
fn check_version(connection: &Connection, path: &Path) -> Result<i64, IndexError> {
    let version: i64 = connection
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(|error| IndexError::database(path, error))?;
    if version > SCHEMA_VERSION {
        return Err(IndexError::NewerSchema {
            path: path.to_path_buf(),
            found: version,
            supported: SCHEMA_VERSION,
        });
    }
    if version < 0 {
        return Err(IndexError::Corrupt {
            path: path.to_path_buf(),
            detail: format!("negative schema version {version}"),
        });
    }
    Ok(version)
}
