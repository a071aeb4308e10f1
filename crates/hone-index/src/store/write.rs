//! Writing to the SQLite store: one IMMEDIATE transaction per update, fed file by file.

use std::path::Path;
use std::time::SystemTime;

use rusqlite::{OptionalExtension, Row, Transaction, params};

use super::PreparedOutline;
use super::codec::{
    SYMBOLS_PER_FILE, file_kind_columns, role_name, symbol_kind_name, symbol_range,
};
use super::references;
use super::sqlite::{CACHE_KIB, GENERATION};
use super::{EdgeUpdate, FileUpdate, IndexWrite, OutlineChange};
use crate::error::IndexError;
use crate::model::SymbolOccurrence;
use crate::scan::nanos_since_epoch;

/// An open write transaction on a [`super::SqliteStore`]; rolled back when dropped uncommitted.
pub(super) struct SqliteWrite<'c> {
    pub(super) transaction: Transaction<'c>,
    /// The database file, for error messages.
    pub(super) path: &'c Path,
    /// Whether outlines, symbols or edges changed: the commit then moves the generation on
    /// and drops the cached ranking graph.
    pub(super) graph_changed: bool,
    /// Whether the symbols and reference names were empty when the write began: their name
    /// indexes are then dropped and built once by the commit ([`defer_name_index`]).
    pub(super) bulk: bool,
}

/// The name indexes of definitions and of reference names, as the migrations create them.
const NAME_INDEXES: [(&str, &str); 2] = [
    (
        "symbols_by_name",
        "CREATE INDEX symbols_by_name ON symbols(name, role)",
    ),
    (
        "reference_names_by_name",
        "CREATE INDEX reference_names_by_name ON reference_names(name)",
    ),
];

/// The page cache (KiB) of a write that builds the name index at its commit: rows are only
/// appended, so pages once full are not needed again and may go to the WAL early.
const BULK_CACHE_KIB: i64 = 4 * 1024;

/// Drops the name indexes when the symbols and reference names are empty (a first index),
/// so the write appends rows without maintaining them and the commit builds each with one
/// sort ([`build_name_index`]) instead of one B-tree insert at a random place per row; the
/// write then runs with a small page cache. Returns whether it did. Both happen inside the
/// write's transaction, so a write rolled back keeps the indexes; the cache size is set by
/// every write, so one rolled back does not leave the small cache behind.
pub(super) fn defer_name_index(transaction: &Transaction<'_>) -> rusqlite::Result<bool> {
    let empty: bool = transaction.query_row(
        "SELECT NOT EXISTS (SELECT 1 FROM symbols) AND NOT EXISTS (SELECT 1 FROM reference_names)",
        [],
        |row| row.get(0),
    )?;
    if empty {
        for (name, _) in NAME_INDEXES {
            transaction.execute(&format!("DROP INDEX {name}"), [])?;
        }
    }
    let cache_kib = if empty { BULK_CACHE_KIB } else { CACHE_KIB };
    transaction.pragma_update(None, "cache_size", -cache_kib)?;
    Ok(empty)
}

/// Builds the name indexes [`defer_name_index`] dropped, with the small cache (SQLite's sort
/// keeps at most a cache's worth of keys in memory and merges the rest from temporary
/// files), then gives the connection its usual cache back.
fn build_name_index(transaction: &Transaction<'_>) -> rusqlite::Result<()> {
    for (_, sql) in NAME_INDEXES {
        transaction.execute(sql, [])?;
    }
    transaction.pragma_update(None, "cache_size", -CACHE_KIB)
}

impl SqliteWrite<'_> {
    fn database(&self, error: rusqlite::Error) -> IndexError {
        IndexError::database(self.path, error)
    }
}

impl IndexWrite for SqliteWrite<'_> {
    fn upsert(&mut self, update: &FileUpdate) -> Result<(), IndexError> {
        let changed = write_file(&self.transaction, update).map_err(|error| match error {
            WriteError::Database(error) => self.database(error),
            WriteError::Invalid(reason) => IndexError::InvalidRecord {
                path: update.record.path.clone(),
                reason,
            },
        })?;
        self.graph_changed |= changed;
        Ok(())
    }

    fn delete(&mut self, path: &str) -> Result<(), IndexError> {
        let transaction = &self.transaction;
        let delete = || -> rusqlite::Result<bool> {
            let id: Option<i64> = transaction
                .prepare_cached("SELECT id FROM files WHERE path = ?1")?
                .query_row([path], |row| row.get(0))
                .optional()?;
            let Some(id) = id else {
                return Ok(false);
            };
            // Outlines, metrics and references go with the file (foreign keys); symbols and
            // reference names have none.
            delete_symbols(transaction, id)?;
            transaction
                .prepare_cached("DELETE FROM files WHERE id = ?1")?
                .execute([id])?;
            Ok(true)
        };
        let deleted = delete().map_err(|error| self.database(error))?;
        self.graph_changed |= deleted;
        Ok(())
    }

    fn edges(&mut self, update: &EdgeUpdate) -> Result<(), IndexError> {
        self.graph_changed = true;
        write_edges(&self.transaction, update).map_err(|error| self.database(error))
    }

    fn commit(self: Box<Self>) -> Result<(), IndexError> {
        let now_ms = nanos_since_epoch(SystemTime::now()) / 1_000_000;
        let path = self.path;
        let outdate_graph = || -> rusqlite::Result<()> {
            if self.graph_changed {
                self.transaction.execute(
                    &format!(
                        "INSERT OR REPLACE INTO meta (key, value) \
                         VALUES ('generation', {GENERATION} + 1)"
                    ),
                    [],
                )?;
                self.transaction.execute("DELETE FROM rank_cache", [])?;
            }
            Ok(())
        };
        let name_index = if self.bulk {
            build_name_index(&self.transaction)
        } else {
            Ok(())
        };
        name_index
            .and_then(|()| outdate_graph())
            .and_then(|()| {
                self.transaction.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES ('last_indexed_ms', ?1)",
                    [now_ms.to_string()],
                )
            })
            .and_then(|_| self.transaction.commit())
            .map_err(|error| IndexError::database(path, error))
    }
}

/// Replaces all edges, or those from some files.
fn write_edges(transaction: &Transaction<'_>, update: &EdgeUpdate) -> rusqlite::Result<()> {
    let edges = match update {
        EdgeUpdate::All(edges) => {
            transaction.execute("DELETE FROM edges", [])?;
            edges
        }
        EdgeUpdate::From { files, edges } => {
            let mut delete =
                transaction.prepare_cached("DELETE FROM edges WHERE from_path = ?1")?;
            for file in files {
                delete.execute([file])?;
            }
            edges
        }
    };
    let mut insert = transaction.prepare_cached(
        "INSERT INTO edges (from_path, to_path, source, line) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for edge in edges {
        insert.execute(params![edge.from, edge.to, edge.source, edge.line])?;
    }
    Ok(())
}

/// Why one file could not be written.
enum WriteError {
    Database(rusqlite::Error),
    Invalid(String),
}

impl From<rusqlite::Error> for WriteError {
    fn from(error: rusqlite::Error) -> Self {
        Self::Database(error)
    }
}

/// Inserts or replaces one file's record and, as asked, its outline, metrics and symbols.
/// Returns whether an outline was written or removed.
fn write_file(transaction: &Transaction<'_>, update: &FileUpdate) -> Result<bool, WriteError> {
    let record = &update.record;
    let size = i64::try_from(record.size)
        .map_err(|_| WriteError::Invalid(format!("size {} is too large", record.size)))?;
    let (kind, language, target) = file_kind_columns(&record.kind);
    // A lookup, then a plain update or insert: an upsert with `RETURNING` costs SQLite a
    // statement journal (a temporary file written a page at a time) and a scratch table for
    // its result, on every file.
    let existing: Option<i64> = transaction
        .prepare_cached("SELECT id FROM files WHERE path = ?1")?
        .query_row([&record.path], |row: &Row<'_>| row.get(0))
        .optional()?;
    let id = if let Some(id) = existing {
        transaction
            .prepare_cached(
                "UPDATE files SET size = ?2, mtime_ns = ?3, hash = ?4, kind = ?5, language = ?6, \
                 symlink_target = ?7, has_errors = ?8 WHERE id = ?1",
            )?
            .execute(params![
                id,
                size,
                record.mtime_ns,
                record.hash,
                kind,
                language,
                target,
                record.has_errors
            ])?;
        id
    } else {
        transaction
            .prepare_cached(
                "INSERT INTO files (path, size, mtime_ns, hash, kind, language, symlink_target, has_errors) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?
            .execute(params![record.path, size, record.mtime_ns, record.hash, kind, language, target, record.has_errors])?;
        transaction.last_insert_rowid()
    };
    let prepared_here;
    let outline = match &update.outline {
        OutlineChange::Keep => return Ok(false),
        OutlineChange::Remove => None,
        OutlineChange::Replace(outline) => {
            prepared_here = PreparedOutline::new(outline).map_err(|error| {
                WriteError::Invalid(format!("outline cannot be serialised: {error}"))
            })?;
            Some(&prepared_here)
        }
        OutlineChange::Prepared(prepared) => Some(&**prepared),
    };
    let mut removed = delete_symbols(transaction, id)?;
    for table in ["outlines", "file_metrics", "file_references"] {
        removed += transaction
            .prepare_cached(&format!("DELETE FROM {table} WHERE file_id = ?1"))?
            .execute([id])?;
    }
    let Some(outline) = outline else {
        return Ok(removed > 0);
    };
    if !i64::try_from(outline.symbols).is_ok_and(|n| n <= SYMBOLS_PER_FILE) {
        return Err(WriteError::Invalid(format!(
            "{} symbols are more than a file can hold",
            outline.symbols
        )));
    }
    transaction
        .prepare_cached("INSERT INTO outlines (file_id, json) VALUES (?1, ?2)")?
        .execute(params![id, outline.json])?;
    let metrics = &outline.metrics;
    let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    transaction
        .prepare_cached(
            "INSERT INTO file_metrics (file_id, lines, loc, max_nesting, import_count, complexity, \
             todos, definition_count, reference_count) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?
        .execute(params![
            id,
            metrics.lines,
            metrics.loc,
            metrics.max_nesting,
            metrics.import_count,
            metrics.complexity,
            count(outline.todos),
            count(outline.definitions.len()),
            count(outline.reference_count())
        ])?;
    insert_definitions(transaction, id, &outline.definitions)?;
    let (first, _) = symbol_range(id);
    references::insert(transaction, id, first, outline)?;
    Ok(true)
}

/// Inserts the definitions of the file with id `file_id` into its id range, each at its
/// position among the file's symbols (the references go to [`references::insert`]). One
/// row per statement: an insert of several rows may fail half-way, so SQLite would keep a
/// statement journal for it (a temporary file written for every page the insert touches).
fn insert_definitions(
    transaction: &Transaction<'_>,
    file_id: i64,
    definitions: &[(usize, SymbolOccurrence)],
) -> rusqlite::Result<()> {
    let (first, _) = symbol_range(file_id);
    let mut insert = transaction.prepare_cached(
        "INSERT INTO symbols (id, file_id, name, kind, role, line, col) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for (position, symbol) in definitions {
        let position = i64::try_from(*position).unwrap_or(i64::MAX);
        insert.execute(params![
            first.saturating_add(position),
            file_id,
            symbol.name,
            symbol_kind_name(symbol.kind),
            role_name(symbol.role),
            symbol.line,
            symbol.column
        ])?;
    }
    Ok(())
}

/// Deletes the definitions and reference names of the file with id `file_id`; returns how
/// many rows there were.
fn delete_symbols(transaction: &Transaction<'_>, file_id: i64) -> rusqlite::Result<usize> {
    let (first, last) = symbol_range(file_id);
    let mut deleted = 0;
    for table in ["symbols", "reference_names"] {
        deleted += transaction
            .prepare_cached(&format!("DELETE FROM {table} WHERE id BETWEEN ?1 AND ?2"))?
            .execute([first, last])?;
    }
    Ok(deleted)
}
