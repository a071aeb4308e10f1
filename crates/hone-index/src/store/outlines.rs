//! Outlines in the database: JSON without the symbols, which live once, in the `symbols`
//! table, and are put back in their original order when an outline is read.
//!
//! Symbols are most of an outline (references especially), so leaving them out of the JSON
//! keeps the database about a third smaller and makes reading every outline (the repo map)
//! several times faster than decoding them from JSON.

use std::collections::BTreeMap;

use rusqlite::{Connection, OptionalExtension, Row};
use serde::Serialize;

use super::codec::{role_from_name, symbol_kind_from_name, symbol_range};
use crate::analysis::{SymbolTable, SymbolTableBuilder};
use crate::model::{
    Class, Export, FileMetrics, FileOutline, Function, Import, Language, SymbolOccurrence, Todo,
};

/// Why an outline could not be read.
pub(crate) enum ReadError {
    /// The query failed.
    Database(rusqlite::Error),
    /// What was stored makes no sense (the message says what).
    Corrupt(String),
}

impl From<rusqlite::Error> for ReadError {
    fn from(error: rusqlite::Error) -> Self {
        Self::Database(error)
    }
}

/// An outline as stored: every field but the symbols.
#[derive(Serialize)]
struct StoredOutline<'a> {
    language: Language,
    imports: &'a [Import],
    exports: &'a [Export],
    functions: &'a [Function],
    classes: &'a [Class],
    todos: &'a [Todo],
    metrics: &'a FileMetrics,
    has_errors: bool,
}

/// The JSON stored for `outline`: everything but its symbols.
pub(crate) fn outline_json(outline: &FileOutline) -> Result<String, serde_json::Error> {
    // Destructured without `..`: a new field must be decided on here.
    let FileOutline {
        language,
        imports,
        exports,
        functions,
        classes,
        symbols: _,
        todos,
        metrics,
        has_errors,
    } = outline;
    serde_json::to_string(&StoredOutline {
        language: *language,
        imports,
        exports,
        functions,
        classes,
        todos,
        metrics,
        has_errors: *has_errors,
    })
}

fn decode(path: &str, json: &str) -> Result<FileOutline, ReadError> {
    serde_json::from_str(json)
        .map_err(|error| ReadError::Corrupt(format!("unreadable outline of `{path}`: {error}")))
}

/// A symbol row (`name, kind, role, line, col` from column `first` on).
fn symbol(row: &Row<'_>, first: usize) -> Result<SymbolOccurrence, ReadError> {
    let kind: String = row.get(first + 1)?;
    let role: String = row.get(first + 2)?;
    let (Some(kind), Some(role)) = (symbol_kind_from_name(&kind), role_from_name(&role)) else {
        return Err(ReadError::Corrupt(format!(
            "bad symbol kind `{kind}` or role `{role}`"
        )));
    };
    Ok(SymbolOccurrence {
        name: row.get(first)?,
        kind,
        role,
        line: row.get(first + 3)?,
        column: row.get(first + 4)?,
    })
}

/// The outline of the file at `path`, with its symbols.
pub(crate) fn read_outline(
    connection: &Connection,
    path: &str,
) -> Result<Option<FileOutline>, ReadError> {
    let snapshot = connection.unchecked_transaction()?;
    let found: Option<(i64, String)> = snapshot
        .query_row(
            "SELECT f.id, o.json FROM outlines o JOIN files f ON f.id = o.file_id WHERE f.path = ?1",
            [path],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()?;
    let Some((id, json)) = found else {
        return Ok(None);
    };
    let mut outline = decode(path, &json)?;
    let mut statement = snapshot.prepare_cached(
        "SELECT name, kind, role, line, col FROM symbols WHERE id BETWEEN ?1 AND ?2 ORDER BY id",
    )?;
    let (first, last) = symbol_range(id);
    let mut rows = statement.query([first, last])?;
    while let Some(row) = rows.next()? {
        outline.symbols.push(symbol(row, 0)?);
    }
    Ok(Some(outline))
}

/// Every stored outline with its symbols, by path, read in one snapshot.
pub(crate) fn read_outlines(
    connection: &Connection,
) -> Result<BTreeMap<String, FileOutline>, ReadError> {
    let snapshot = connection.unchecked_transaction()?;
    let mut by_id: BTreeMap<i64, (String, FileOutline)> = BTreeMap::new();
    {
        let mut statement = snapshot.prepare_cached(
            "SELECT f.id, f.path, o.json FROM outlines o JOIN files f ON f.id = o.file_id",
        )?;
        let mut rows = statement.query([])?;
        while let Some(row) = rows.next()? {
            let path: String = row.get(1)?;
            let json: String = row.get(2)?;
            let outline = decode(&path, &json)?;
            by_id.insert(row.get(0)?, (path, outline));
        }
    }
    {
        // Ids are file ranges in symbol order, so this is each file's original order.
        let mut statement = snapshot.prepare_cached(
            "SELECT file_id, name, kind, role, line, col FROM symbols ORDER BY id",
        )?;
        let mut rows = statement.query([])?;
        while let Some(row) = rows.next()? {
            let id: i64 = row.get(0)?;
            if let Some((_, outline)) = by_id.get_mut(&id) {
                outline.symbols.push(symbol(row, 1)?);
            }
        }
    }
    Ok(by_id.into_values().collect())
}

/// The symbol table of the names defined in the project (their definitions and references)
/// over every parsed file, straight from the `symbols` table: no outline is decoded and each
/// name is copied once.
pub(crate) fn read_defined_symbols(connection: &Connection) -> Result<SymbolTable, ReadError> {
    let snapshot = connection.unchecked_transaction()?;
    let mut files = Vec::new();
    // File id → position in `files`; ids are small integers.
    let mut positions: Vec<Option<u32>> = Vec::new();
    {
        let mut statement = snapshot.prepare_cached(
            "SELECT f.id, f.path FROM files f JOIN outlines o ON o.file_id = f.id ORDER BY f.path",
        )?;
        let mut rows = statement.query([])?;
        while let Some(row) = rows.next()? {
            let id = usize::try_from(row.get::<_, i64>(0)?)
                .map_err(|_| ReadError::Corrupt("negative file id".to_string()))?;
            if positions.len() <= id {
                positions.resize(id + 1, None);
            }
            positions[id] = Some(u32::try_from(files.len()).unwrap_or(u32::MAX));
            files.push(row.get::<_, String>(1)?);
        }
    }
    let mut builder = SymbolTableBuilder::default();
    {
        // Ids are file ranges in symbol order, so each file's symbols come in its order.
        let mut statement = snapshot.prepare_cached(
            "SELECT file_id, name, kind, role, line, col FROM symbols \
             WHERE role = 'definition' \
                OR name IN (SELECT name FROM symbols WHERE role = 'definition') \
             ORDER BY id",
        )?;
        let mut rows = statement.query([])?;
        while let Some(row) = rows.next()? {
            let id = usize::try_from(row.get::<_, i64>(0)?).unwrap_or(usize::MAX);
            let Some(file) = positions.get(id).copied().flatten() else {
                continue;
            };
            let kind = row.get_ref(2)?.as_str().map_err(rusqlite::Error::from)?;
            let role = row.get_ref(3)?.as_str().map_err(rusqlite::Error::from)?;
            let (Some(kind), Some(role)) = (symbol_kind_from_name(kind), role_from_name(role))
            else {
                return Err(ReadError::Corrupt(format!(
                    "bad symbol kind `{kind}` or role `{role}`"
                )));
            };
            let name = row.get_ref(1)?.as_str().map_err(rusqlite::Error::from)?;
            builder.push(file, name, role, (row.get(4)?, row.get(5)?), kind);
        }
    }
    Ok(builder.finish(files))
}
