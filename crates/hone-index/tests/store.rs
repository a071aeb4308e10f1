//! The SQLite store: round trips, migrations, atomic batches, symbol and edge queries.
#![allow(clippy::unwrap_used)] // helpers outside #[test] functions panic on setup failure by design

use hone_index::analysis::Edge;
use hone_index::{
    EdgeUpdate, FileKind, FileOutline, FileRecord, FileUpdate, IndexBatch, IndexError, IndexStore,
    Language, OutlineChange, SqliteStore, SymbolKind, SymbolOccurrence, SymbolRole,
};

#[path = "store/migrations.rs"]
mod migrations;

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

fn symbol(name: &str, kind: SymbolKind, role: SymbolRole, line: u32) -> SymbolOccurrence {
    SymbolOccurrence {
        name: name.to_string(),
        kind,
        role,
        line,
        column: 5,
    }
}

fn python(symbols: Vec<SymbolOccurrence>) -> FileOutline {
    let mut outline = FileOutline::empty(Language::Python);
    outline.symbols = symbols;
    outline.metrics.lines = 12;
    outline
}

fn source(path: &str, outline: FileOutline) -> FileUpdate {
    FileUpdate {
        record: record(path, FileKind::Source(outline.language)),
        outline: OutlineChange::Replace(Box::new(outline)),
    }
}

fn edge(from: &str, to: &str, line: u32) -> Edge {
    Edge {
        from: from.to_string(),
        to: to.to_string(),
        source: format!("./{to}"),
        line,
    }
}

fn all_edges(edges: Vec<Edge>) -> Option<EdgeUpdate> {
    Some(EdgeUpdate::All(edges))
}

/// Three files: two Python modules and a binary blob, with edges app → util → models.
fn sample_batch() -> IndexBatch {
    use SymbolKind::{Class, Function};
    use SymbolRole::{Definition, Reference};
    IndexBatch {
        upserts: vec![
            source(
                "app.py",
                python(vec![
                    symbol("main", Function, Definition, 3),
                    symbol("parse_args", Function, Reference, 4),
                    symbol("User", Class, Reference, 5),
                ]),
            ),
            source(
                "util.py",
                python(vec![
                    symbol("parse_args", Function, Definition, 1),
                    symbol("ParseError", Class, Definition, 9),
                    symbol("parse", Function, Definition, 20),
                ]),
            ),
            source(
                "models.py",
                python(vec![symbol("User", Class, Definition, 2)]),
            ),
            FileUpdate {
                record: record("logo.png", FileKind::Binary),
                outline: OutlineChange::Remove,
            },
        ],
        deletions: Vec::new(),
        edges: all_edges(vec![
            edge("app.py", "util.py", 1),
            edge("app.py", "models.py", 2),
            edge("util.py", "models.py", 1),
        ]),
    }
}

fn filled() -> SqliteStore {
    let mut store = SqliteStore::open_in_memory().unwrap();
    store.apply(&sample_batch()).unwrap();
    store
}

fn names(found: &[hone_index::SymbolLocation]) -> Vec<(&str, &str, u32)> {
    found
        .iter()
        .map(|s| (s.name.as_str(), s.path.as_str(), s.line))
        .collect()
}

#[test]
fn in_memory_store_round_trips_records_and_outlines() {
    let store = filled();
    let files = store.files().unwrap();
    assert_eq!(
        files.keys().collect::<Vec<_>>(),
        ["app.py", "logo.png", "models.py", "util.py"]
    );
    assert_eq!(files["logo.png"], record("logo.png", FileKind::Binary));
    assert_eq!(files["app.py"].language(), Some(Language::Python));
    let batch = sample_batch();
    let OutlineChange::Replace(expected) = &batch.upserts[0].outline else {
        panic!("sample starts with a parsed file");
    };
    assert_eq!(
        store.outline("app.py").unwrap().as_ref(),
        Some(expected.as_ref())
    );
    assert_eq!(store.outline("logo.png").unwrap(), None);
    assert_eq!(store.outlines().unwrap().len(), 3);
    assert_eq!(store.metrics().unwrap()["util.py"].lines, 12);
}

#[test]
fn on_disk_store_keeps_everything_across_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/.hone/index.db");
    {
        let mut store = SqliteStore::open(&path).unwrap();
        store.apply(&sample_batch()).unwrap();
    }
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.files().unwrap().len(), 4);
    assert_eq!(store.definitions("User").unwrap().len(), 1);
    assert_eq!(store.dependents("models.py").unwrap().len(), 2);
    let stats = store.stats().unwrap();
    assert!(stats.last_indexed_ms.is_some());
    drop(store);
    // A database the store creates has 16 KiB pages (fewer for a first index to write).
    let page_size: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA page_size", [], |row| row.get(0))
        .unwrap();
    assert_eq!(page_size, 16384);
}

#[test]
fn a_file_of_many_symbols_is_written_whole_and_replaced_whole() {
    let mut store = SqliteStore::open_in_memory().unwrap();
    // A file of many symbols, then fewer: the extra ones go.
    let many: Vec<SymbolOccurrence> = (1..=75)
        .map(|line| {
            symbol(
                &format!("s{line}"),
                SymbolKind::Variable,
                SymbolRole::Reference,
                line,
            )
        })
        .collect();
    let write = |store: &mut SqliteStore, path: &str, symbols: Vec<SymbolOccurrence>| {
        store
            .apply(&IndexBatch {
                upserts: vec![source(path, python(symbols))],
                ..IndexBatch::default()
            })
            .unwrap();
    };
    write(&mut store, "a.py", many.clone());
    write(
        &mut store,
        "b.py",
        vec![symbol(
            "s1",
            SymbolKind::Function,
            SymbolRole::Definition,
            1,
        )],
    );
    assert_eq!(store.outline("a.py").unwrap().unwrap().symbols, many);
    write(&mut store, "a.py", many[..3].to_vec());
    assert_eq!(store.outline("a.py").unwrap().unwrap().symbols, many[..3]);
    assert_eq!(store.references("s1").unwrap().len(), 1);
    assert_eq!(store.definitions("s1").unwrap()[0].path, "b.py");
    assert!(store.references("s75").unwrap().is_empty());
}

#[test]
fn failing_batch_leaves_the_previous_state() {
    let mut store = filled();
    let before = store.files().unwrap();
    let mut broken = record("zzz.bin", FileKind::Binary);
    broken.size = u64::MAX;
    let batch = IndexBatch {
        upserts: vec![
            source(
                "new.py",
                python(vec![symbol(
                    "fresh",
                    SymbolKind::Function,
                    SymbolRole::Definition,
                    1,
                )]),
            ),
            FileUpdate {
                record: broken,
                outline: OutlineChange::Remove,
            },
        ],
        deletions: vec!["util.py".to_string()],
        edges: all_edges(Vec::new()),
    };
    let error = store.apply(&batch).unwrap_err();
    assert!(matches!(error, IndexError::InvalidRecord { ref path, .. } if path == "zzz.bin"));
    assert_eq!(store.files().unwrap(), before);
    assert!(store.definitions("fresh").unwrap().is_empty());
    assert_eq!(store.definitions("parse_args").unwrap().len(), 1);
    assert_eq!(store.stats().unwrap().edges, 3);
}

#[test]
fn symbol_queries_find_definitions_references_and_partial_names() {
    let store = filled();
    assert_eq!(
        names(&store.definitions("parse_args").unwrap()),
        [("parse_args", "util.py", 1)]
    );
    assert_eq!(
        names(&store.references("parse_args").unwrap()),
        [("parse_args", "app.py", 4)]
    );
    assert!(store.definitions("parse_ARGS").unwrap().is_empty());
    // Case-insensitive; exact first, then prefixes (shorter first), then substrings.
    let found = store.search_symbols("PARSE", 10).unwrap();
    assert_eq!(
        names(&found),
        [
            ("parse", "util.py", 20),
            ("ParseError", "util.py", 9),
            ("parse_args", "util.py", 1)
        ]
    );
    assert_eq!(
        names(&store.search_symbols("rse_", 10).unwrap()),
        [("parse_args", "util.py", 1)]
    );
    assert!(found.iter().all(|s| s.role == SymbolRole::Definition));
    assert_eq!(store.search_symbols("parse", 1).unwrap().len(), 1);
    assert_eq!(
        names(&store.search_symbols("ser", 10).unwrap()),
        [("User", "models.py", 2)]
    );
    // LIKE wildcards in the query are literal.
    assert!(store.search_symbols("p%e", 10).unwrap().is_empty());
    assert!(store.search_symbols("_", 10).unwrap()[0].name.contains('_'));
    assert!(store.search_symbols("  ", 10).unwrap().is_empty());
}

#[test]
fn dependencies_and_dependents_follow_edges_both_ways() {
    let store = filled();
    let targets = |edges: Vec<Edge>| {
        edges
            .into_iter()
            .map(|e| (e.from, e.to))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        targets(store.dependencies("app.py").unwrap()),
        [
            ("app.py".to_string(), "util.py".to_string()),
            ("app.py".to_string(), "models.py".to_string())
        ]
    );
    assert_eq!(
        targets(store.dependents("models.py").unwrap()),
        [
            ("app.py".to_string(), "models.py".to_string()),
            ("util.py".to_string(), "models.py".to_string())
        ]
    );
    assert!(store.dependents("app.py").unwrap().is_empty());
}

#[test]
fn later_batches_replace_delete_and_keep_as_asked() {
    let mut store = filled();
    let mut touched = record("app.py", FileKind::Source(Language::Python));
    touched.mtime_ns += 1;
    let batch = IndexBatch {
        upserts: vec![
            // Metadata only: outline and symbols stay.
            FileUpdate {
                record: touched.clone(),
                outline: OutlineChange::Keep,
            },
            // No longer source: outline, metrics and symbols go.
            FileUpdate {
                record: record("models.py", FileKind::NonUtf8),
                outline: OutlineChange::Remove,
            },
        ],
        deletions: vec!["util.py".to_string()],
        edges: all_edges(vec![edge("app.py", "models.py", 2)]),
    };
    store.apply(&batch).unwrap();
    assert_eq!(store.files().unwrap()["app.py"], touched);
    assert_eq!(store.definitions("main").unwrap().len(), 1);
    assert!(store.outline("models.py").unwrap().is_none());
    assert!(store.definitions("User").unwrap().is_empty());
    assert!(store.definitions("parse_args").unwrap().is_empty());
    assert!(!store.files().unwrap().contains_key("util.py"));
    assert!(!store.metrics().unwrap().contains_key("util.py"));
    assert_eq!(store.dependencies("util.py").unwrap(), []);
    assert_eq!(store.dependents("models.py").unwrap().len(), 1);
    // A batch without edges keeps the edges.
    store
        .apply(&IndexBatch {
            deletions: vec!["logo.png".to_string()],
            ..IndexBatch::default()
        })
        .unwrap();
    assert_eq!(store.stats().unwrap().edges, 1);
}

#[test]
fn a_rewritten_file_keeps_its_row_and_a_new_one_gets_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let mut store = SqliteStore::open(&path).unwrap();
    store.apply(&sample_batch()).unwrap();
    let ids = || -> Vec<(String, i64, i64)> {
        let connection = rusqlite::Connection::open(&path).unwrap();
        let mut query = connection
            .prepare("SELECT path, id, size FROM files ORDER BY path")
            .unwrap();
        query
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    let before = ids();
    let mut edited = source(
        "util.py",
        python(vec![symbol(
            "tokenize",
            SymbolKind::Function,
            SymbolRole::Definition,
            3,
        )]),
    );
    edited.record.size = 99;
    let batch = IndexBatch {
        upserts: vec![edited, source("new.py", python(Vec::new()))],
        ..IndexBatch::default()
    };
    store.apply(&batch).unwrap();
    let after = ids();
    assert_eq!(after.len(), before.len() + 1);
    let row = |rows: &[(String, i64, i64)], path: &str| {
        rows.iter().find(|row| row.0 == path).cloned().unwrap()
    };
    let (_, util_id, util_size) = row(&after, "util.py");
    assert_eq!(
        util_id,
        row(&before, "util.py").1,
        "same row, updated in place"
    );
    assert_eq!(util_size, 99);
    let (_, new_id, _) = row(&after, "new.py");
    assert!(before.iter().all(|(_, id, _)| *id < new_id));
    assert_eq!(
        names(&store.definitions("tokenize").unwrap()),
        [("tokenize", "util.py", 3)]
    );
    assert!(store.definitions("parse_args").unwrap().is_empty());
}

#[test]
fn stats_count_languages_symbols_edges_and_errors() {
    let mut store = filled();
    let mut broken = FileOutline::empty(Language::TypeScript);
    broken.has_errors = true;
    let mut update = source("web/app.ts", broken);
    update.record.has_errors = true;
    store
        .apply(&IndexBatch {
            upserts: vec![update],
            ..IndexBatch::default()
        })
        .unwrap();
    let stats = store.stats().unwrap();
    assert_eq!(stats.files, 5);
    assert_eq!(stats.by_language[&Language::Python], 3);
    assert_eq!(stats.by_language[&Language::TypeScript], 1);
    assert_eq!((stats.definitions, stats.references), (5, 2));
    assert_eq!(stats.edges, 3);
    assert_eq!(stats.parse_errors, 1);
}

#[test]
fn store_is_usable_as_a_trait_object() {
    let mut store: Box<dyn IndexStore> = Box::new(SqliteStore::open_in_memory().unwrap());
    assert!(store.apply(&IndexBatch::default()).is_ok());
    assert_eq!(store.stats().unwrap().last_indexed_ms, None);
    store
        .apply(&IndexBatch {
            upserts: vec![FileUpdate {
                record: record(
                    "link",
                    FileKind::Symlink {
                        target: "/etc".to_string(),
                    },
                ),
                outline: OutlineChange::Remove,
            }],
            ..IndexBatch::default()
        })
        .unwrap();
    assert_eq!(
        store.files().unwrap()["link"].kind,
        FileKind::Symlink {
            target: "/etc".to_string()
        }
    );
}

#[test]
fn edges_of_some_files_replace_only_theirs() {
    let mut store = filled();
    store
        .apply(&IndexBatch {
            edges: Some(EdgeUpdate::From {
                files: vec!["app.py".to_string()],
                edges: vec![edge("app.py", "models.py", 3)],
            }),
            ..IndexBatch::default()
        })
        .unwrap();
    let from_app = store.dependencies("app.py").unwrap();
    assert_eq!(from_app.len(), 1);
    assert_eq!(
        (from_app[0].to.as_str(), from_app[0].line),
        ("models.py", 3)
    );
    assert_eq!(store.dependencies("util.py").unwrap().len(), 1, "kept");
    assert_eq!(store.stats().unwrap().edges, 2);
}

#[test]
fn the_scope_is_kept_until_cleared() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let mut store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.scope().unwrap(), None);
    store.set_scope(Some("packages/app")).unwrap();
    drop(store);
    let mut store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.scope().unwrap().as_deref(), Some("packages/app"));
    store.set_scope(None).unwrap();
    assert_eq!(store.scope().unwrap(), None);
}
