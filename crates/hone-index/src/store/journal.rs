//! The journal of a first index: a rollback journal instead of the WAL.
//!
//! In WAL mode every page of a new database is written twice: to the WAL during the write,
//! then into the database file by the checkpoint at the commit, each copy followed by an
//! fsync, and the WAL (as large as the database) is deleted when the connection closes. A
//! first index writes every page of a database that was empty, so a rollback journal holds
//! next to nothing (it keeps only the pages that existed before the write) and each page is
//! written once: the end of a first index of a large project is about 30 ms shorter. The
//! commit stays atomic: a write interrupted half-way is rolled back from the journal the
//! next time the database is opened. The WAL comes back as soon as the write ends.

use std::time::Duration;

use rusqlite::Connection;

/// Puts the database back in WAL mode when dropped, if [`first_index_journal`] took it out.
/// Declared after the transaction in a write, so it runs once the transaction has committed
/// or rolled back.
pub(super) struct WalRestore<'c> {
    connection: &'c Connection,
    active: bool,
}

impl Drop for WalRestore<'_> {
    fn drop(&mut self) {
        if !self.active {
            return;
        }
        // Best effort: every connection hone opens asks for WAL again, so a database left in
        // rollback mode (another process reading it just now) only waits for the next open.
        match set_journal_mode(self.connection, "WAL") {
            Ok(mode) if mode.eq_ignore_ascii_case("wal") => {}
            Ok(mode) => tracing::warn!("the index database stayed in `{mode}` journal mode"),
            Err(error) => {
                tracing::warn!("could not put the index database back in WAL mode: {error}");
            }
        }
    }
}

/// Before a write on `connection` (outside any transaction): when the database holds no file
/// yet, switches it to a rollback journal for the write. The switch needs the database to
/// itself: while another connection has it open, and for an in-memory database (its journal
/// is in memory), the write runs in the mode it had. The returned guard switches back.
pub(super) fn first_index_journal(connection: &Connection) -> rusqlite::Result<WalRestore<'_>> {
    let empty: bool =
        connection.query_row("SELECT NOT EXISTS (SELECT 1 FROM files)", [], |row| {
            row.get(0)
        })?;
    let mut active = false;
    if empty && current_journal_mode(connection)?.eq_ignore_ascii_case("wal") {
        // Leaving WAL needs the database to itself: when another connection has it open,
        // fail at once (no busy wait) and keep the WAL.
        connection.busy_timeout(Duration::ZERO)?;
        let switched = set_journal_mode(connection, "DELETE");
        connection.busy_timeout(hone_sqlite::BUSY_TIMEOUT)?;
        active = match switched {
            Ok(mode) => mode.eq_ignore_ascii_case("delete"),
            Err(rusqlite::Error::SqliteFailure(error, _))
                if error.code == rusqlite::ErrorCode::DatabaseBusy =>
            {
                false
            }
            Err(error) => return Err(error),
        };
    }
    Ok(WalRestore { connection, active })
}

fn current_journal_mode(connection: &Connection) -> rusqlite::Result<String> {
    connection.query_row("PRAGMA journal_mode", [], |row| row.get(0))
}

/// Asks for journal `mode`; returns the mode the database is in afterwards.
fn set_journal_mode(connection: &Connection, mode: &str) -> rusqlite::Result<String> {
    connection.pragma_update_and_check(None, "journal_mode", mode, |row| row.get(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wal_database(path: &std::path::Path) -> Connection {
        let connection = Connection::open(path).unwrap();
        assert_eq!(set_journal_mode(&connection, "WAL").unwrap(), "wal");
        connection
            .execute_batch("CREATE TABLE files (path TEXT)")
            .unwrap();
        connection
    }

    #[test]
    fn an_empty_database_writes_with_a_rollback_journal_and_returns_to_wal() {
        let dir = tempfile::tempdir().unwrap();
        let connection = wal_database(&dir.path().join("index.db"));
        let guard = first_index_journal(&connection).unwrap();
        assert!(guard.active);
        assert_eq!(current_journal_mode(&connection).unwrap(), "delete");
        drop(guard);
        assert_eq!(current_journal_mode(&connection).unwrap(), "wal");
    }

    #[test]
    fn a_database_with_files_keeps_its_wal() {
        let dir = tempfile::tempdir().unwrap();
        let connection = wal_database(&dir.path().join("index.db"));
        connection
            .execute("INSERT INTO files VALUES ('a.rs')", [])
            .unwrap();
        let guard = first_index_journal(&connection).unwrap();
        assert!(!guard.active);
        assert_eq!(current_journal_mode(&connection).unwrap(), "wal");
    }

    #[test]
    fn another_open_connection_keeps_the_wal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.db");
        let connection = wal_database(&path);
        let reader = Connection::open(&path).unwrap();
        let _: i64 = reader
            .query_row("SELECT count(*) FROM files", [], |row| row.get(0))
            .unwrap();
        let guard = first_index_journal(&connection).unwrap();
        assert!(!guard.active, "leaving WAL needs the database to itself");
        assert_eq!(current_journal_mode(&connection).unwrap(), "wal");
    }

    #[test]
    fn a_first_write_of_the_store_ends_in_wal_whether_committed_or_not() {
        use crate::store::{IndexStore, SqliteStore};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.db");
        let mut store = SqliteStore::open(&path).unwrap();
        let journal_mode = || {
            let other = Connection::open(&path).unwrap();
            current_journal_mode(&other).unwrap()
        };
        drop(store.begin().unwrap());
        assert_eq!(journal_mode(), "wal");
        store.begin().unwrap().commit().unwrap();
        assert_eq!(journal_mode(), "wal");
        assert!(!dir.path().join("index.db-journal").exists());
    }

    #[test]
    fn an_in_memory_database_keeps_its_journal() {
        let connection = Connection::open_in_memory().unwrap();
        connection
            .execute_batch("CREATE TABLE files (path TEXT)")
            .unwrap();
        let guard = first_index_journal(&connection).unwrap();
        assert!(!guard.active);
        assert_eq!(current_journal_mode(&connection).unwrap(), "memory");
    }
}
