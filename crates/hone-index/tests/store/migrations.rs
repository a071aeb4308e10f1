//! Migrations of older databases, and databases hone cannot use.

use hone_index::store::SCHEMA_VERSION;

use super::*;

#[test]
fn fresh_database_is_migrated_to_the_current_schema() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    // An empty database made by someone else's SQLite: version 0, no tables.
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("VACUUM")
        .unwrap();
    drop(SqliteStore::open(&path).unwrap());
    let connection = rusqlite::Connection::open(&path).unwrap();
    let version: i64 = connection
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap();
    assert_eq!(version, SCHEMA_VERSION);
    let journal: String = connection
        .query_row("PRAGMA journal_mode", [], |row| row.get(0))
        .unwrap();
    assert_eq!(journal, "wal");
    // A database created elsewhere keeps its page size.
    let page_size: i64 = connection
        .query_row("PRAGMA page_size", [], |row| row.get(0))
        .unwrap();
    assert_eq!(page_size, 4096);
    // Opening again is a no-op.
    drop(connection);
    assert!(
        SqliteStore::open(&path)
            .unwrap()
            .files()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn version_one_databases_are_migrated_to_counts_and_outlines_without_symbols() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let connection = rusqlite::Connection::open(&path).unwrap();
    connection
        .execute_batch(include_str!("../../src/store/schema/001_initial.sql"))
        .unwrap();
    connection
        .execute_batch(
            "PRAGMA user_version = 1;
             INSERT INTO files (id, path, size, mtime_ns, hash, kind, language)
                 VALUES (1, 'a.py', 1, 1, 'h', 'source', 'python');
             INSERT INTO file_metrics (file_id, lines, loc, max_nesting, import_count, complexity, todos)
                 VALUES (1, 3, 3, 0, 0, 1, 0);
             INSERT INTO symbols (file_id, name, kind, role, line, col) VALUES
                 (1, 'f', 'function', 'definition', 1, 1),
                 (1, 'g', 'function', 'definition', 2, 1),
                 (1, 'f', 'function', 'reference', 3, 1);",
        )
        .unwrap();
    // Version 1 kept the symbols in the outline JSON too.
    let mut outline = FileOutline::empty(Language::Python);
    outline.symbols = vec![symbol("f", SymbolKind::Function, SymbolRole::Definition, 1)];
    connection
        .execute(
            "INSERT INTO outlines (file_id, json) VALUES (1, ?1)",
            [serde_json::to_string(&outline).unwrap()],
        )
        .unwrap();
    drop(connection);
    let store = SqliteStore::open(&path).unwrap();
    let stats = store.stats().unwrap();
    assert_eq!((stats.definitions, stats.references), (2, 1));
    let names: Vec<String> = store
        .outline("a.py")
        .unwrap()
        .unwrap()
        .symbols
        .into_iter()
        .map(|symbol| symbol.name)
        .collect();
    assert_eq!(
        names,
        ["f", "g", "f"],
        "the table's symbols, once, in order"
    );
    assert_eq!(store.outlines().unwrap()["a.py"].symbols.len(), 3);
}

#[test]
fn version_four_symbols_are_clustered_by_file_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let connection = rusqlite::Connection::open(&path).unwrap();
    for sql in [
        include_str!("../../src/store/schema/001_initial.sql"),
        include_str!("../../src/store/schema/002_symbol_counts.sql"),
        include_str!("../../src/store/schema/003_outlines_without_symbols.sql"),
        include_str!("../../src/store/schema/004_rank_cache.sql"),
    ] {
        connection.execute_batch(sql).unwrap();
    }
    let json = serde_json::to_string(&FileOutline::empty(Language::Python)).unwrap();
    connection
        .execute_batch(&format!(
            "PRAGMA user_version = 4;
             INSERT INTO files (id, path, size, mtime_ns, hash, kind, language) VALUES
                 (1, 'a.py', 1, 1, 'h', 'source', 'python'),
                 (2, 'b.py', 1, 1, 'h', 'source', 'python');
             INSERT INTO outlines (file_id, json) VALUES (1, '{json}'), (2, '{json}');
             INSERT INTO file_metrics (file_id, lines, loc, max_nesting, import_count, complexity,
                 todos, definition_count, reference_count) VALUES
                 (1, 3, 3, 0, 0, 1, 0, 2, 1), (2, 3, 3, 0, 0, 1, 0, 1, 1);
             -- The files' symbols interleaved, as a version 4 update could leave them.
             INSERT INTO symbols (file_id, name, kind, role, line, col) VALUES
                 (1, 'f', 'function', 'definition', 1, 1),
                 (2, 'h', 'function', 'definition', 1, 1),
                 (1, 'g', 'function', 'definition', 2, 1),
                 (2, 'f', 'function', 'reference', 2, 1),
                 (1, 'f', 'function', 'reference', 3, 1);"
        ))
        .unwrap();
    drop(connection);
    let mut store = SqliteStore::open(&path).unwrap();
    let names = |store: &SqliteStore, path: &str| -> Vec<String> {
        let outline = store.outline(path).unwrap().unwrap();
        outline
            .symbols
            .into_iter()
            .map(|symbol| symbol.name)
            .collect()
    };
    assert_eq!(names(&store, "a.py"), ["f", "g", "f"]);
    assert_eq!(names(&store, "b.py"), ["h", "f"]);
    assert_eq!(store.outlines().unwrap()["b.py"].symbols.len(), 2);
    let paths = |sites: Vec<hone_index::SymbolLocation>| -> Vec<String> {
        sites.into_iter().map(|site| site.path).collect()
    };
    assert_eq!(paths(store.references("f").unwrap()), ["a.py", "b.py"]);
    // A deleted file takes its symbols along, and only its own.
    store
        .apply(&IndexBatch {
            deletions: vec!["b.py".to_string()],
            ..IndexBatch::default()
        })
        .unwrap();
    assert_eq!(paths(store.references("f").unwrap()), ["a.py"]);
    assert!(store.definitions("h").unwrap().is_empty());
    assert_eq!(names(&store, "a.py"), ["f", "g", "f"]);
}

#[test]
fn database_from_a_newer_hone_is_refused_with_advice() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    drop(SqliteStore::open(&path).unwrap());
    rusqlite::Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    let error = SqliteStore::open(&path).unwrap_err();
    assert!(matches!(error, IndexError::NewerSchema { found, .. } if found == SCHEMA_VERSION + 1));
    let message = error.to_string();
    assert!(message.contains("upgrade hone"), "{message}");
    assert!(message.contains(&path.display().to_string()), "{message}");
}

#[test]
fn file_that_is_not_a_database_is_reported_corrupt_with_how_to_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    std::fs::write(&path, vec![b'x'; 4096]).unwrap();
    let error = SqliteStore::open(&path).unwrap_err();
    assert!(matches!(error, IndexError::Corrupt { .. }), "{error:?}");
    let message = error.to_string();
    assert!(
        message.contains(&format!("rm {}", path.display())),
        "{message}"
    );
}
