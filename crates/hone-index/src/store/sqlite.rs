//! The SQLite backend: one embedded database file, WAL journal, one transaction per batch.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hone_sqlite::Setup;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::codec::{escape_like, file_kind, role_from_name, symbol_kind_from_name};
use super::migrations::MIGRATIONS;
use super::outlines::{self, ReadError};
use super::write::SqliteWrite;
use super::{FileRecord, IndexStats, IndexStore, IndexWrite, SymbolLocation};
use crate::analysis::{Edge, SymbolTable};
use crate::error::IndexError;
use crate::model::{FileMetrics, FileOutline};

/// The page cache (KiB) of the index database. An update of many files inserts thousands of
/// symbols in one transaction; a larger cache keeps the name index from spilling while it
/// grows (a first index builds that index at its commit instead: see
/// [`super::write::defer_name_index`]).
pub(super) const CACHE_KIB: i64 = 32 * 1024;

/// The page size of a new index database. A first index writes every page twice (to the
/// WAL, then into the file at the checkpoint) and sorts every symbol name into the name
/// index; with 16 KiB pages the tables and indexes have a quarter of the pages (fewer
/// B-tree levels, splits and checkpoint writes), which makes the end of a first index of a
/// large project (the name index, the commit and its checkpoint) about a quarter faster.
/// An edit rewrites a few more bytes per changed page; existing databases keep 4 KiB pages.
pub(super) const PAGE_SIZE: u32 = 16 * 1024;

/// The index database's migrations and tuning (a negative `cache_size` is in KiB).
const SETUP: Setup<'static> = Setup {
    migrations: MIGRATIONS,
    cache_size: Some(-CACHE_KIB),
    page_size: Some(PAGE_SIZE),
};

/// The index's generation (see [`IndexStore::rank_cache`]), as an SQL expression.
pub(super) const GENERATION: &str =
    "coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'generation'), 0)";

/// Columns of a symbol query, in the order [`SqliteStore::symbol_query`] decodes them.
const SYMBOL_COLUMNS: &str = "SELECT s.name, s.kind, s.role, f.path, s.line, s.col \
     FROM symbols s JOIN files f ON f.id = s.file_id";

/// An [`IndexStore`] in an embedded SQLite database.
///
/// WAL journaling keeps readers unblocked while an update writes. A killed process loses only
/// the batch it was writing (`synchronous = NORMAL` trades durability of the latest batches on
/// power loss, never consistency, for fewer fsyncs).
#[derive(Debug)]
pub struct SqliteStore {
    connection: Connection,
    path: PathBuf,
}

impl SqliteStore {
    /// Opens (creating it and its directory if needed) the database at `path` and brings its
    /// schema up to date.
    pub fn open(path: &Path) -> Result<Self, IndexError> {
        let connection = hone_sqlite::open(path, &SETUP)?;
        Ok(Self {
            connection,
            path: path.to_path_buf(),
        })
    }

    /// A fresh database in memory (for tests and throw-away indexes).
    pub fn open_in_memory() -> Result<Self, IndexError> {
        let connection = hone_sqlite::open_in_memory(&SETUP)?;
        Ok(Self {
            connection,
            path: PathBuf::from(":memory:"),
        })
    }

    /// The database file (`:memory:` for an in-memory store).
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn database(&self, error: rusqlite::Error) -> IndexError {
        IndexError::database(&self.path, error)
    }

    fn corrupt(&self, detail: String) -> IndexError {
        IndexError::Corrupt {
            path: self.path.clone(),
            detail,
        }
    }

    fn read_error(&self, error: ReadError) -> IndexError {
        match error {
            ReadError::Database(error) => self.database(error),
            ReadError::Corrupt(detail) => self.corrupt(detail),
        }
    }

    /// Runs a symbol query (`SYMBOL_COLUMNS` + conditions) and decodes its rows.
    fn symbol_query(
        &self,
        sql: &str,
        parameters: impl rusqlite::Params,
    ) -> Result<Vec<SymbolLocation>, IndexError> {
        type RawSymbol = (String, String, String, String, u32, u32);
        let mut statement = self
            .connection
            .prepare_cached(sql)
            .map_err(|error| self.database(error))?;
        let rows: Vec<RawSymbol> = statement
            .query_map(parameters, |row| {
                Ok((
                    row.get(0)?,
                    row.get(1)?,
                    row.get(2)?,
                    row.get(3)?,
                    row.get(4)?,
                    row.get(5)?,
                ))
            })
            .and_then(Iterator::collect)
            .map_err(|error| self.database(error))?;
        rows.into_iter()
            .map(|(name, kind, role, path, line, column)| {
                let (Some(kind), Some(role)) =
                    (symbol_kind_from_name(&kind), role_from_name(&role))
                else {
                    return Err(self.corrupt(format!("bad symbol kind `{kind}` or role `{role}`")));
                };
                Ok(SymbolLocation {
                    name,
                    kind,
                    role,
                    path,
                    line,
                    column,
                })
            })
            .collect()
    }

    fn edge_query(&self, sql: &str, path: &str) -> Result<Vec<Edge>, IndexError> {
        let mut statement = self
            .connection
            .prepare_cached(sql)
            .map_err(|error| self.database(error))?;
        statement
            .query_map([path], |row| {
                Ok(Edge {
                    from: row.get(0)?,
                    to: row.get(1)?,
                    source: row.get(2)?,
                    line: row.get(3)?,
                })
            })
            .and_then(Iterator::collect)
            .map_err(|error| self.database(error))
    }

    fn count(&self, sql: &str) -> Result<usize, IndexError> {
        let count: i64 = self
            .connection
            .query_row(sql, [], |row| row.get(0))
            .map_err(|error| self.database(error))?;
        Ok(usize::try_from(count).unwrap_or(0))
    }
}

impl IndexStore for SqliteStore {
    fn files(&self) -> Result<BTreeMap<String, FileRecord>, IndexError> {
        type RawFile = (
            String,
            i64,
            i64,
            String,
            String,
            Option<String>,
            Option<String>,
            bool,
        );
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT path, size, mtime_ns, hash, kind, language, symlink_target, has_errors \
                 FROM files",
            )
            .map_err(|error| self.database(error))?;
        let rows: Vec<RawFile> = statement
            .query_map([], |row| {
                Ok((
                    row.get(0)?,
                    row.get(1)?,
                    row.get(2)?,
                    row.get(3)?,
                    row.get(4)?,
                    row.get(5)?,
                    row.get(6)?,
                    row.get(7)?,
                ))
            })
            .and_then(Iterator::collect)
            .map_err(|error| self.database(error))?;
        let mut files = BTreeMap::new();
        for (path, size, mtime_ns, hash, kind, language, target, has_errors) in rows {
            let (Ok(size), Some(kind)) = (
                u64::try_from(size),
                file_kind(&kind, language.as_deref(), target),
            ) else {
                return Err(self.corrupt(format!("bad size or kind stored for `{path}`")));
            };
            let record = FileRecord {
                path: path.clone(),
                size,
                mtime_ns,
                hash,
                kind,
                has_errors,
            };
            files.insert(path, record);
        }
        Ok(files)
    }

    fn begin(&mut self) -> Result<Box<dyn IndexWrite + '_>, IndexError> {
        let path = self.path.as_path();
        // IMMEDIATE takes the write lock up front, so two writers queue instead of deadlocking.
        let transaction = self
            .connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|error| IndexError::database(path, error))?;
        let bulk = super::write::defer_name_index(&transaction)
            .map_err(|error| IndexError::database(path, error))?;
        Ok(Box::new(SqliteWrite {
            transaction,
            path,
            graph_changed: false,
            bulk,
        }))
    }

    fn outline(&self, path: &str) -> Result<Option<FileOutline>, IndexError> {
        outlines::read_outline(&self.connection, path).map_err(|error| self.read_error(error))
    }

    fn outlines(&self) -> Result<BTreeMap<String, FileOutline>, IndexError> {
        outlines::read_outlines(&self.connection).map_err(|error| self.read_error(error))
    }

    fn defined_symbols(&self) -> Result<SymbolTable, IndexError> {
        outlines::read_defined_symbols(&self.connection).map_err(|error| self.read_error(error))
    }

    fn all_edges(&self) -> Result<Vec<Edge>, IndexError> {
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT from_path, to_path, source, line FROM edges \
                 ORDER BY from_path, to_path, source, line",
            )
            .map_err(|error| self.database(error))?;
        statement
            .query_map([], |row| {
                Ok(Edge {
                    from: row.get(0)?,
                    to: row.get(1)?,
                    source: row.get(2)?,
                    line: row.get(3)?,
                })
            })
            .and_then(Iterator::collect)
            .map_err(|error| self.database(error))
    }

    fn metrics(&self) -> Result<BTreeMap<String, FileMetrics>, IndexError> {
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT f.path, m.lines, m.loc, m.max_nesting, m.import_count, m.complexity \
                 FROM file_metrics m JOIN files f ON f.id = m.file_id",
            )
            .map_err(|error| self.database(error))?;
        statement
            .query_map([], |row| {
                let metrics = FileMetrics {
                    lines: row.get(1)?,
                    loc: row.get(2)?,
                    max_nesting: row.get(3)?,
                    import_count: row.get(4)?,
                    complexity: row.get(5)?,
                };
                Ok((row.get(0)?, metrics))
            })
            .and_then(Iterator::collect)
            .map_err(|error| self.database(error))
    }

    fn definitions(&self, name: &str) -> Result<Vec<SymbolLocation>, IndexError> {
        let sql = format!(
            "{SYMBOL_COLUMNS} WHERE s.name = ?1 AND s.role = 'definition' ORDER BY f.path, s.line, s.col"
        );
        self.symbol_query(&sql, [name])
    }

    fn references(&self, name: &str) -> Result<Vec<SymbolLocation>, IndexError> {
        let found = super::references::to_name(&self.connection, name)
            .map_err(|error| self.read_error(error))?;
        let mut sites: Vec<SymbolLocation> = found
            .into_iter()
            .map(|(path, symbol)| SymbolLocation {
                name: symbol.name,
                kind: symbol.kind,
                role: symbol.role,
                path,
                line: symbol.line,
                column: symbol.column,
            })
            .collect();
        sites.sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
        Ok(sites)
    }

    fn search_symbols(&self, query: &str, limit: usize) -> Result<Vec<SymbolLocation>, IndexError> {
        let query = query.trim();
        if query.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        // LIKE is case-insensitive for ASCII letters (SQLite is built without ICU).
        let sql = format!(
            "{SYMBOL_COLUMNS} WHERE s.role = 'definition' AND s.name LIKE ?1 ESCAPE '\\' \
             ORDER BY CASE WHEN s.name = ?2 COLLATE NOCASE THEN 0 \
                           WHEN s.name LIKE ?3 ESCAPE '\\' THEN 1 ELSE 2 END, \
                      length(s.name), s.name, f.path, s.line \
             LIMIT ?4"
        );
        let escaped = escape_like(query);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.symbol_query(
            &sql,
            params![format!("%{escaped}%"), query, format!("{escaped}%"), limit],
        )
    }

    fn dependencies(&self, path: &str) -> Result<Vec<Edge>, IndexError> {
        self.edge_query(
            "SELECT from_path, to_path, source, line FROM edges WHERE from_path = ?1 \
             ORDER BY line, to_path",
            path,
        )
    }

    fn dependents(&self, path: &str) -> Result<Vec<Edge>, IndexError> {
        self.edge_query(
            "SELECT from_path, to_path, source, line FROM edges WHERE to_path = ?1 \
             ORDER BY from_path, line",
            path,
        )
    }

    fn stats(&self) -> Result<IndexStats, IndexError> {
        // One read transaction: every count sees the same snapshot.
        let snapshot = self
            .connection
            .unchecked_transaction()
            .map_err(|error| self.database(error))?;
        let mut stats = IndexStats {
            files: self.count("SELECT count(*) FROM files")?,
            edges: self.count("SELECT count(*) FROM edges")?,
            parse_errors: self.count("SELECT count(*) FROM files WHERE has_errors")?,
            definitions: self
                .count("SELECT coalesce(sum(definition_count), 0) FROM file_metrics")?,
            references: self.count("SELECT coalesce(sum(reference_count), 0) FROM file_metrics")?,
            ..IndexStats::default()
        };
        let mut statement = snapshot
            .prepare_cached(
                "SELECT language, count(*) FROM files WHERE kind = 'source' GROUP BY language",
            )
            .map_err(|error| self.database(error))?;
        let languages: Vec<(String, i64)> = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .and_then(Iterator::collect)
            .map_err(|error| self.database(error))?;
        for (name, count) in languages {
            let Some(language) = super::codec::language_from_name(&name) else {
                return Err(self.corrupt(format!("unknown language `{name}`")));
            };
            stats
                .by_language
                .insert(language, usize::try_from(count).unwrap_or(0));
        }
        stats.last_indexed_ms = snapshot
            .query_row(
                "SELECT value FROM meta WHERE key = 'last_indexed_ms'",
                [],
                |row| row.get::<_, String>(0),
            )
            .optional()
            .map_err(|error| self.database(error))?
            .and_then(|value| value.parse().ok());
        Ok(stats)
    }

    fn scope(&self) -> Result<Option<String>, IndexError> {
        self.connection
            .query_row("SELECT value FROM meta WHERE key = 'scope'", [], |row| {
                row.get::<_, String>(0)
            })
            .optional()
            .map(|scope| scope.filter(|scope| !scope.is_empty()))
            .map_err(|error| self.database(error))
    }

    fn rank_cache(&self) -> Result<(i64, Option<Vec<u8>>), IndexError> {
        self.connection
            .query_row(
                &format!(
                    "SELECT {GENERATION}, \
                     (SELECT graph FROM rank_cache WHERE generation = {GENERATION})"
                ),
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .map_err(|error| self.database(error))
    }

    fn store_rank_cache(&self, generation: i64, graph: &[u8]) -> Result<bool, IndexError> {
        // One statement: the generation check and the insert see the same snapshot.
        let sql = format!(
            "INSERT OR REPLACE INTO rank_cache (generation, graph) \
             SELECT ?1, ?2 WHERE {GENERATION} = ?1"
        );
        // Never queue behind an indexer: its commit will outdate the graph anyway.
        self.connection
            .busy_timeout(Duration::ZERO)
            .map_err(|error| self.database(error))?;
        let stored = self.connection.execute(&sql, params![generation, graph]);
        self.connection
            .busy_timeout(hone_sqlite::BUSY_TIMEOUT)
            .map_err(|error| self.database(error))?;
        stored
            .map(|rows| rows > 0)
            .map_err(|error| self.database(error))
    }

    fn set_scope(&mut self, scope: Option<&str>) -> Result<(), IndexError> {
        let result = match scope.filter(|scope| !scope.is_empty()) {
            Some(scope) => self.connection.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('scope', ?1)",
                [scope],
            ),
            None => self
                .connection
                .execute("DELETE FROM meta WHERE key = 'scope'", []),
        };
        result.map(|_| ()).map_err(|error| self.database(error))
    }
}
