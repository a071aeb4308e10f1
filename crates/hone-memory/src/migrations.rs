//! Schema versions. `PRAGMA user_version` counts the migrations applied; opening a database
//! applies the missing ones in order, in one transaction, and refuses a newer schema.

use std::path::Path;

use rusqlite::{Connection, TransactionBehavior};

use crate::error::MemoryError;

/// Migration `i` takes the schema from version `i` to `i + 1`. Append only: never edit a
/// migration that has shipped.
const MIGRATIONS: [&str; 2] = [
    include_str!("schema/001_initial.sql"),
    include_str!("schema/002_failed_runs.sql"),
];

/// The schema version this build writes (the number of migrations).
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Brings the database at `path` to [`SCHEMA_VERSION`].
pub(crate) fn migrate(connection: &mut Connection, path: &Path) -> Result<(), MemoryError> {
    let database = |error| MemoryError::database(path, error);
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
fn check_version(connection: &Connection, path: &Path) -> Result<i64, MemoryError> {
    let version: i64 = connection
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(|error| MemoryError::database(path, error))?;
    if version > SCHEMA_VERSION {
        return Err(MemoryError::NewerSchema {
            path: path.to_path_buf(),
            found: version,
            supported: SCHEMA_VERSION,
        });
    }
    if version < 0 {
        return Err(MemoryError::Corrupt {
            path: path.to_path_buf(),
            detail: format!("negative schema version {version}"),
        });
    }
    Ok(version)
}
