//! References in the database: one JSON value per file (`file_references`) and the names each
//! file refers to (`reference_names`), schema version 6.
//!
//! A file's symbols are numbered by their position in its outline. Definitions are rows of
//! `symbols` (position in the id's low bits); references are `[position, name, kind, line,
//! column]` entries of the file's JSON array. Reading an outline merges the two by position,
//! so the symbols come back in their original order.

use std::borrow::Cow;

use rusqlite::{Connection, Transaction, params};
use serde::{Deserialize, Serialize};

use super::PreparedOutline;
use super::codec::{symbol_kind_from_name, symbol_kind_name};
use super::outlines::ReadError;
use crate::model::{SymbolKind, SymbolOccurrence, SymbolRole};

/// One stored reference, as the JSON array holds it.
#[derive(Deserialize)]
struct Entry<'a>(u32, #[serde(borrow)] Cow<'a, str>, &'a str, u32, u32);

/// A reference read back, with its position among its file's symbols.
pub(crate) struct Positioned<T> {
    pub(crate) position: u32,
    pub(crate) symbol: T,
}

/// The references among a file's symbols, serialised as the JSON array stored (without an
/// intermediate list: a large file has tens of thousands of references).
struct References<'a>(&'a [SymbolOccurrence]);

impl Serialize for References<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            self.0
                .iter()
                .enumerate()
                .filter(|(_, symbol)| symbol.role == SymbolRole::Reference)
                .map(|(position, symbol)| {
                    (
                        position,
                        symbol.name.as_str(),
                        symbol_kind_name(symbol.kind),
                        symbol.line,
                        symbol.column,
                    )
                }),
        )
    }
}

/// The JSON array of the references among `symbols` (with their positions), or `None` when
/// there are none.
pub(crate) fn encode(symbols: &[SymbolOccurrence]) -> Result<Option<String>, serde_json::Error> {
    if !symbols
        .iter()
        .any(|symbol| symbol.role == SymbolRole::Reference)
    {
        return Ok(None);
    }
    serde_json::to_string(&References(symbols)).map(Some)
}

/// Calls `each` with every reference of a file's JSON array, in order: its position, name,
/// kind, line and column.
pub(crate) fn decode<'j>(
    json: &'j str,
    mut each: impl FnMut(u32, Cow<'j, str>, SymbolKind, u32, u32),
) -> Result<(), ReadError> {
    let entries: Vec<Entry<'j>> = serde_json::from_str(json)
        .map_err(|error| ReadError::Corrupt(format!("unreadable references: {error}")))?;
    for Entry(position, name, kind, line, column) in entries {
        let Some(kind) = symbol_kind_from_name(kind) else {
            return Err(ReadError::Corrupt(format!("bad symbol kind `{kind}`")));
        };
        each(position, name, kind, line, column);
    }
    Ok(())
}

/// A file's references as occurrences with their positions.
pub(crate) fn decode_occurrences(
    json: &str,
) -> Result<Vec<Positioned<SymbolOccurrence>>, ReadError> {
    let mut references = Vec::new();
    decode(json, |position, name, kind, line, column| {
        references.push(Positioned {
            position,
            symbol: SymbolOccurrence {
                name: name.into_owned(),
                kind,
                role: SymbolRole::Reference,
                line,
                column,
            },
        });
    })?;
    Ok(references)
}

/// `definitions` and `references` (each in position order) merged into one list in position
/// order.
pub(crate) fn merge(
    definitions: Vec<Positioned<SymbolOccurrence>>,
    references: Vec<Positioned<SymbolOccurrence>>,
) -> Vec<SymbolOccurrence> {
    let mut merged = Vec::with_capacity(definitions.len() + references.len());
    let mut references = references.into_iter().peekable();
    for definition in definitions {
        while let Some(reference) = references.next_if(|r| r.position < definition.position) {
            merged.push(reference.symbol);
        }
        merged.push(definition.symbol);
    }
    merged.extend(references.map(|reference| reference.symbol));
    merged
}

/// Stores the references of `outline`, the outline of the file with id `file_id`, whose
/// names go to the ids from `first_name_id` on.
pub(crate) fn insert(
    transaction: &Transaction<'_>,
    file_id: i64,
    first_name_id: i64,
    outline: &PreparedOutline,
) -> Result<(), rusqlite::Error> {
    let Some(json) = &outline.references else {
        return Ok(());
    };
    transaction
        .prepare_cached("INSERT INTO file_references (file_id, json) VALUES (?1, ?2)")?
        .execute(params![file_id, json])?;
    let mut insert = transaction
        .prepare_cached("INSERT INTO reference_names (id, file_id, name) VALUES (?1, ?2, ?3)")?;
    for (id, name) in (first_name_id..).zip(outline.reference_names()) {
        insert.execute(params![id, file_id, name])?;
    }
    Ok(())
}

/// Every reference to `name` (exact, case-sensitive), with its file's path, in no particular
/// order.
pub(crate) fn to_name(
    connection: &Connection,
    name: &str,
) -> Result<Vec<(String, SymbolOccurrence)>, ReadError> {
    let mut statement = connection.prepare_cached(
        "SELECT f.path, r.json FROM reference_names n \
         JOIN files f ON f.id = n.file_id \
         JOIN file_references r ON r.file_id = n.file_id \
         WHERE n.name = ?1",
    )?;
    let mut rows = statement.query([name])?;
    let mut found = Vec::new();
    while let Some(row) = rows.next()? {
        let path: String = row.get(0)?;
        let json = row.get_ref(1)?.as_str().map_err(rusqlite::Error::from)?;
        decode(json, |_, referred, kind, line, column| {
            if referred == name {
                found.push((
                    path.clone(),
                    SymbolOccurrence {
                        name: name.to_string(),
                        kind,
                        role: SymbolRole::Reference,
                        line,
                        column,
                    },
                ));
            }
        })?;
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn occurrence(name: &str, role: SymbolRole, line: u32) -> SymbolOccurrence {
        SymbolOccurrence {
            name: name.to_string(),
            kind: SymbolKind::Function,
            role,
            line,
            column: 3,
        }
    }

    #[test]
    fn references_round_trip_and_merge_back_in_order() {
        let symbols = vec![
            occurrence("a", SymbolRole::Reference, 1),
            occurrence("f", SymbolRole::Definition, 2),
            occurrence("b\"\\é", SymbolRole::Reference, 3),
            occurrence("a", SymbolRole::Reference, 4),
            occurrence("g", SymbolRole::Definition, 5),
            occurrence("c", SymbolRole::Reference, 6),
        ];
        let json = encode(&symbols).unwrap().unwrap();
        let references = decode_occurrences(&json).unwrap();
        let positions: Vec<u32> = references.iter().map(|r| r.position).collect();
        assert_eq!(positions, [0, 2, 3, 5]);
        let definitions = vec![
            Positioned {
                position: 1,
                symbol: symbols[1].clone(),
            },
            Positioned {
                position: 4,
                symbol: symbols[4].clone(),
            },
        ];
        assert_eq!(merge(definitions, references), symbols);
    }

    #[test]
    fn a_file_without_references_stores_none() {
        let symbols = vec![occurrence("f", SymbolRole::Definition, 1)];
        assert_eq!(encode(&symbols).unwrap(), None);
    }

    #[test]
    fn unreadable_references_are_reported_as_corrupt() {
        for json in ["[[0,\"a\",\"nonsense\",1,1]]", "{", "[[0,1]]"] {
            let result = decode(json, |_, _, _, _, _| {});
            assert!(matches!(result, Err(ReadError::Corrupt(_))), "{json}");
        }
    }
}
