//! References stored per file (schema version 6): outlines read back in their order, lookups
//! by name, replacements and deletions, damaged values.
#![allow(clippy::unwrap_used)] // helpers outside #[test] functions panic on setup failure by design

use hone_index::{
    FileKind, FileOutline, FileRecord, FileUpdate, IndexBatch, IndexError, IndexStore, Language,
    OutlineChange, SqliteStore, SymbolKind, SymbolOccurrence, SymbolRole,
};

fn occurrence(name: &str, role: SymbolRole, line: u32, column: u32) -> SymbolOccurrence {
    SymbolOccurrence {
        name: name.to_string(),
        kind: SymbolKind::Function,
        role,
        line,
        column,
    }
}

fn write(store: &mut SqliteStore, path: &str, symbols: Vec<SymbolOccurrence>) {
    let mut outline = FileOutline::empty(Language::Python);
    outline.symbols = symbols;
    let update = FileUpdate {
        record: FileRecord {
            path: path.to_string(),
            size: 10,
            mtime_ns: 1,
            hash: format!("hash-of-{path}"),
            kind: FileKind::Source(Language::Python),
            has_errors: false,
        },
        outline: OutlineChange::Replace(Box::new(outline)),
    };
    store
        .apply(&IndexBatch {
            upserts: vec![update],
            ..IndexBatch::default()
        })
        .unwrap();
}

/// (path, line, column) of each site.
fn sites(found: Vec<hone_index::SymbolLocation>) -> Vec<(String, u32, u32)> {
    found
        .into_iter()
        .map(|site| (site.path, site.line, site.column))
        .collect()
}

/// Definitions and references interleaved, a name referred to twice, one with characters
/// JSON escapes.
fn mixed() -> Vec<SymbolOccurrence> {
    vec![
        occurrence("helper", SymbolRole::Reference, 1, 1),
        occurrence("main", SymbolRole::Definition, 2, 5),
        occurrence("helper", SymbolRole::Reference, 3, 9),
        occurrence("quote\"back\\slash", SymbolRole::Reference, 4, 2),
        occurrence("other", SymbolRole::Definition, 5, 5),
        occurrence("print", SymbolRole::Reference, 6, 3),
    ]
}

#[test]
fn outlines_come_back_with_their_symbols_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = SqliteStore::open(&dir.path().join("index.db")).unwrap();
    write(&mut store, "a.py", mixed());
    write(
        &mut store,
        "b.py",
        vec![occurrence("helper", SymbolRole::Definition, 1, 5)],
    );
    assert_eq!(store.outline("a.py").unwrap().unwrap().symbols, mixed());
    assert_eq!(store.outlines().unwrap()["a.py"].symbols, mixed());
    let stats = store.stats().unwrap();
    assert_eq!((stats.definitions, stats.references), (3, 4));

    // Every site of a name, in path and line order.
    assert_eq!(
        sites(store.references("helper").unwrap()),
        [("a.py".to_string(), 1, 1), ("a.py".to_string(), 3, 9)]
    );
    assert_eq!(store.references("quote\"back\\slash").unwrap().len(), 1);
    assert!(store.references("main").unwrap().is_empty());
    assert!(store.references("nowhere").unwrap().is_empty());

    // The ranking table keeps the references to names the project defines only.
    let table = store.defined_symbols().unwrap();
    assert_eq!(table.references("helper").count(), 2);
    assert_eq!(table.references("print").count(), 0);
}

#[test]
fn a_replaced_or_deleted_file_takes_its_references_along() {
    let mut store = SqliteStore::open_in_memory().unwrap();
    write(&mut store, "a.py", mixed());
    write(
        &mut store,
        "b.py",
        vec![occurrence("helper", SymbolRole::Reference, 7, 1)],
    );
    assert_eq!(store.references("helper").unwrap().len(), 3);

    write(
        &mut store,
        "a.py",
        vec![occurrence("main", SymbolRole::Definition, 1, 1)],
    );
    assert_eq!(
        sites(store.references("helper").unwrap()),
        [("b.py".to_string(), 7, 1)]
    );
    assert!(store.references("print").unwrap().is_empty());

    store
        .apply(&IndexBatch {
            deletions: vec!["b.py".to_string()],
            ..IndexBatch::default()
        })
        .unwrap();
    assert!(store.references("helper").unwrap().is_empty());
    assert_eq!(store.stats().unwrap().references, 0);
}

#[test]
fn damaged_references_are_reported_not_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let mut store = SqliteStore::open(&path).unwrap();
    write(&mut store, "a.py", mixed());
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute("UPDATE file_references SET json = '[[0, \"helper\"'", [])
        .unwrap();
    for error in [
        store.outline("a.py").unwrap_err(),
        store.references("helper").unwrap_err(),
        store.defined_symbols().unwrap_err(),
    ] {
        assert!(
            matches!(&error, IndexError::Corrupt { detail, .. } if detail.contains("references")),
            "{error}"
        );
    }
}
