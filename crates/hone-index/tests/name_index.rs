//! The name indexes (of definitions and of the names files refer to): a first write builds
//! them at its commit instead of row by row; the database ends up the same as one the
//! migrations made, and a failed first write keeps them.
#![allow(clippy::unwrap_used)] // helpers outside #[test] functions panic on setup failure by design

use std::path::Path;

use hone_index::{
    FileKind, FileOutline, FileRecord, FileUpdate, IndexBatch, IndexError, IndexStore, Language,
    OutlineChange, SqliteStore, SymbolKind, SymbolOccurrence, SymbolRole,
};

fn record(path: &str, kind: FileKind) -> FileRecord {
    FileRecord {
        path: path.to_string(),
        size: 10,
        mtime_ns: 1_700_000_000_000_000_000,
        hash: format!("hash-of-{path}"),
        kind,
        has_errors: false,
    }
}

/// A Python file defining `defined` and referring to `referred`.
fn source(path: &str, defined: &str, referred: &str) -> FileUpdate {
    let mut outline = FileOutline::empty(Language::Python);
    for (line, (name, role)) in [
        (defined, SymbolRole::Definition),
        (referred, SymbolRole::Reference),
    ]
    .into_iter()
    .enumerate()
    {
        outline.symbols.push(SymbolOccurrence {
            name: name.to_string(),
            kind: SymbolKind::Function,
            role,
            line: u32::try_from(line).unwrap() + 1,
            column: 1,
        });
    }
    FileUpdate {
        record: record(path, FileKind::Source(Language::Python)),
        outline: OutlineChange::Replace(Box::new(outline)),
    }
}

fn batch(upserts: Vec<FileUpdate>) -> IndexBatch {
    IndexBatch {
        upserts,
        deletions: Vec::new(),
        edges: None,
    }
}

/// The SQL of both name indexes as stored in the schema, if they exist.
fn name_index_sql(path: &Path) -> Option<String> {
    let connection = rusqlite::Connection::open(path).unwrap();
    let sql = |name: &str| -> Option<String> {
        connection
            .query_row(
                "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?1",
                [name],
                |row| row.get(0),
            )
            .ok()
    };
    Some(format!(
        "{}; {}",
        sql("symbols_by_name")?,
        sql("reference_names_by_name")?
    ))
}

/// Whether lookups by name use the name indexes, and the database passes an integrity check
/// (which compares every index with its table).
fn index_used_and_consistent(path: &Path) -> (bool, String) {
    let connection = rusqlite::Connection::open(path).unwrap();
    let plan = |sql: &str| -> Vec<String> {
        connection
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .unwrap()
            .query_map([], |row| row.get(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    let uses = |sql: &str, index: &str| plan(sql).iter().any(|step| step.contains(index));
    let integrity: String = connection
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    (
        uses(
            "SELECT id FROM symbols WHERE name = 'a' AND role = 'definition'",
            "symbols_by_name",
        ) && uses(
            "SELECT file_id FROM reference_names WHERE name = 'a'",
            "reference_names_by_name",
        ),
        integrity,
    )
}

#[test]
fn a_first_write_leaves_the_same_name_index_the_migrations_made() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let mut store = SqliteStore::open(&path).unwrap();
    let migrated = name_index_sql(&path).unwrap();
    store
        .apply(&batch(vec![
            source("a.py", "a", "b"),
            source("b.py", "b", "a"),
        ]))
        .unwrap();
    assert_eq!(name_index_sql(&path), Some(migrated.clone()));
    assert_eq!(index_used_and_consistent(&path), (true, "ok".to_string()));
    assert_eq!(store.definitions("a").unwrap().len(), 1);
    assert_eq!(store.references("a").unwrap().len(), 1);

    // A later write keeps the index up to date row by row.
    store.apply(&batch(vec![source("c.py", "c", "a")])).unwrap();
    assert_eq!(name_index_sql(&path), Some(migrated));
    assert_eq!(index_used_and_consistent(&path), (true, "ok".to_string()));
    assert_eq!(store.references("a").unwrap().len(), 2);
    assert_eq!(store.definitions("c").unwrap()[0].path, "c.py");
}

#[test]
fn a_failed_first_write_keeps_the_name_index() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let mut store = SqliteStore::open(&path).unwrap();
    let migrated = name_index_sql(&path).unwrap();
    let mut broken = record("zzz.bin", FileKind::Binary);
    broken.size = u64::MAX;
    let failing = batch(vec![
        source("a.py", "a", "b"),
        FileUpdate {
            record: broken,
            outline: OutlineChange::Remove,
        },
    ]);
    let error = store.apply(&failing).unwrap_err();
    assert!(matches!(error, IndexError::InvalidRecord { ref path, .. } if path == "zzz.bin"));
    assert_eq!(name_index_sql(&path), Some(migrated.clone()));
    assert!(store.definitions("a").unwrap().is_empty());

    // The next first write goes through and builds it again.
    store.apply(&batch(vec![source("a.py", "a", "b")])).unwrap();
    assert_eq!(name_index_sql(&path), Some(migrated));
    assert_eq!(index_used_and_consistent(&path), (true, "ok".to_string()));
    assert_eq!(store.definitions("a").unwrap().len(), 1);
}

#[test]
fn an_in_memory_store_finds_symbols_after_its_first_write() {
    let mut store = SqliteStore::open_in_memory().unwrap();
    store
        .apply(&batch(vec![
            source("a.py", "a", "b"),
            source("b.py", "b", "a"),
        ]))
        .unwrap();
    assert_eq!(store.definitions("b").unwrap()[0].path, "b.py");
    assert_eq!(store.references("b").unwrap()[0].path, "a.py");
    assert_eq!(store.stats().unwrap().definitions, 2);
}
