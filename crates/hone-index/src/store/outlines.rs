//! Outlines in the database: JSON without the symbols, which live once, definitions in the
//! `symbols` table and references in `file_references` ([`super::references`]), and are put
//! back in their original order when an outline is read.
//!
//! Symbols are most of an outline (references especially), so leaving them out of the JSON
//! keeps the database about a third smaller and makes reading every outline (the repo map)
//! several times faster than decoding them from JSON.

use std::collections::BTreeMap;

use rusqlite::{Connection, OptionalExtension, Row};
use serde::Serialize;

use super::codec::{SYMBOLS_PER_FILE, role_from_name, symbol_kind_from_name, symbol_range};
use super::references::{self, Positioned};
use crate::analysis::{SymbolTable, SymbolTableBuilder};
use crate::model::{
    Class, Export, FileMetrics, FileOutline, Function, Import, Language, SymbolOccurrence,
    SymbolRole, Todo,
};

/// Why an outline could not be read.
#[derive(Debug)]
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
    let mut definitions = Vec::new();
    {
        let mut statement = snapshot.prepare_cached(
            "SELECT id, name, kind, role, line, col FROM symbols WHERE id BETWEEN ?1 AND ?2 ORDER BY id",
        )?;
        let (first, last) = symbol_range(id);
        let mut rows = statement.query([first, last])?;
        while let Some(row) = rows.next()? {
            definitions.push(positioned(row)?);
        }
    }
    let references: Option<String> = snapshot
        .query_row(
            "SELECT json FROM file_references WHERE file_id = ?1",
            [id],
            |row| row.get(0),
        )
        .optional()?;
    let references = match references {
        Some(json) => references::decode_occurrences(&json)?,
        None => Vec::new(),
    };
    outline.symbols = references::merge(definitions, references);
    Ok(Some(outline))
}

/// A definition row (`id, name, kind, role, line, col`) with its position in its file.
fn positioned(row: &Row<'_>) -> Result<Positioned<SymbolOccurrence>, ReadError> {
    let id: i64 = row.get(0)?;
    Ok(Positioned {
        position: u32::try_from(id.rem_euclid(SYMBOLS_PER_FILE)).unwrap_or(u32::MAX),
        symbol: symbol(row, 1)?,
    })
}

/// Every stored outline with its symbols, by path, read in one snapshot.
pub(crate) fn read_outlines(
    connection: &Connection,
) -> Result<BTreeMap<String, FileOutline>, ReadError> {
    let snapshot = connection.unchecked_transaction()?;
    let mut by_id: BTreeMap<i64, (String, FileOutline)> = BTreeMap::new();
    let mut definitions: BTreeMap<i64, Vec<Positioned<SymbolOccurrence>>> = BTreeMap::new();
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
        let mut statement = snapshot
            .prepare_cached("SELECT id, name, kind, role, line, col FROM symbols ORDER BY id")?;
        let mut rows = statement.query([])?;
        while let Some(row) = rows.next()? {
            let file_id = row.get::<_, i64>(0)?.div_euclid(SYMBOLS_PER_FILE);
            if by_id.contains_key(&file_id) {
                definitions
                    .entry(file_id)
                    .or_default()
                    .push(positioned(row)?);
            }
        }
    }
    let mut references: BTreeMap<i64, Vec<Positioned<SymbolOccurrence>>> = BTreeMap::new();
    {
        let mut statement = snapshot.prepare_cached("SELECT file_id, json FROM file_references")?;
        let mut rows = statement.query([])?;
        while let Some(row) = rows.next()? {
            let file_id: i64 = row.get(0)?;
            if by_id.contains_key(&file_id) {
                let json = row.get_ref(1)?.as_str().map_err(rusqlite::Error::from)?;
                references.insert(file_id, references::decode_occurrences(json)?);
            }
        }
    }
    Ok(by_id
        .into_iter()
        .map(|(file_id, (path, mut outline))| {
            outline.symbols = references::merge(
                definitions.remove(&file_id).unwrap_or_default(),
                references.remove(&file_id).unwrap_or_default(),
            );
            (path, outline)
        })
        .collect())
}

/// The symbol table of the names defined in the project (their definitions and references)
/// over every parsed file, straight from the `symbols` and `file_references` tables: no
/// outline is decoded and each name is copied once.
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
        // Ids are file ranges in symbol order, so each file's definitions come in its order.
        let mut statement = snapshot.prepare_cached(
            "SELECT file_id, name, kind, role, line, col FROM symbols ORDER BY id",
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
    {
        // Then the references to the names defined (the table takes each file's definitions
        // and references apart, so they need not be interleaved).
        let mut statement = snapshot
            .prepare_cached("SELECT file_id, json FROM file_references ORDER BY file_id")?;
        let mut rows = statement.query([])?;
        while let Some(row) = rows.next()? {
            let id = usize::try_from(row.get::<_, i64>(0)?).unwrap_or(usize::MAX);
            let Some(file) = positions.get(id).copied().flatten() else {
                continue;
            };
            let json = row.get_ref(1)?.as_str().map_err(rusqlite::Error::from)?;
            references::decode(json, |_, name, kind, line, column| {
                if builder.defines(&name) {
                    builder.push(file, &name, SymbolRole::Reference, (line, column), kind);
                }
            })?;
        }
    }
    Ok(builder.finish(files))
}
