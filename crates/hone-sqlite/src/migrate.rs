//! Schema versions. `PRAGMA user_version` counts the migrations applied; opening a database
//! applies the missing ones in order, in one transaction, and refuses a newer schema.

use std::path::Path;

use rusqlite::{Connection, TransactionBehavior};

use crate::SqliteError;

/// The schema version `migrations` lead to (their number).
pub const fn schema_version(migrations: &[&str]) -> i64 {
    migrations.len() as i64
}

/// Brings the database at `path` to [`schema_version`] of `migrations`.
pub fn migrate(
    connection: &mut Connection,
    path: &Path,
    migrations: &[&str],
) -> Result<(), SqliteError> {
    let database = |error| SqliteError::classify(path, error);
    let supported = schema_version(migrations);
    // Read first without a write lock: the common case is an up-to-date schema, and readers
    // must not queue behind a long-running writer.
    if check_version(connection, path, supported)? == supported {
        return Ok(());
    }
    let transaction = connection
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(database)?;
    // Another process may have migrated while we waited for the lock.
    let current = check_version(&transaction, path, supported)?;
    let pending = migrations
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

/// The stored schema version, refusing versions above `supported` and below zero.
fn check_version(connection: &Connection, path: &Path, supported: i64) -> Result<i64, SqliteError> {
    let version: i64 = connection
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(|error| SqliteError::classify(path, error))?;
    if version > supported {
        return Err(SqliteError::NewerSchema {
            path: path.to_path_buf(),
            found: version,
            supported,
        });
    }
    if version < 0 {
        return Err(SqliteError::Corrupt {
            path: path.to_path_buf(),
            detail: format!("negative schema version {version}"),
        });
    }
    Ok(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: &[&str] = &["CREATE TABLE a (id INTEGER);"];
    const TWO: &[&str] = &[
        "CREATE TABLE a (id INTEGER);",
        "ALTER TABLE a ADD COLUMN b TEXT;",
    ];

    #[test]
    fn later_migrations_are_applied_once_and_newer_schemas_refused() {
        let path = Path::new(":memory:");
        let mut connection = Connection::open_in_memory().unwrap();
        migrate(&mut connection, path, ONE).unwrap();
        migrate(&mut connection, path, TWO).unwrap();
        migrate(&mut connection, path, TWO).unwrap();
        connection
            .execute("INSERT INTO a (id, b) VALUES (1, 'x')", [])
            .unwrap();
        let error = migrate(&mut connection, path, ONE).unwrap_err();
        assert!(
            matches!(
                error,
                SqliteError::NewerSchema {
                    found: 2,
                    supported: 1,
                    ..
                }
            ),
            "{error:?}"
        );
    }

    #[test]
    fn a_negative_version_is_corruption() {
        let path = Path::new(":memory:");
        let mut connection = Connection::open_in_memory().unwrap();
        connection.pragma_update(None, "user_version", -1).unwrap();
        let error = migrate(&mut connection, path, ONE).unwrap_err();
        assert!(matches!(error, SqliteError::Corrupt { .. }), "{error:?}");
    }
}
