//! One suite of `IndexStore` behaviour run against both backends: SQLite (in memory) and
//! Redis (a real `redis-server` started for the test; skipped with a note when it is not
//! installed, unless `HONE_REQUIRE_REDIS=1`).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod support;

use hone_index::analysis::Edge;
use hone_index::store::PreparedOutline;
use hone_index::{
    EdgeUpdate, FileKind, FileOutline, FileRecord, FileUpdate, IndexBatch, IndexError, IndexStore,
    Language, OutlineChange, SqliteStore, SymbolKind, SymbolLocation, SymbolOccurrence, SymbolRole,
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

/// Three files: two Python modules and a binary blob, with edges app → util → models; the
/// models outline comes prepared, as the indexer sends it.
fn sample_batch() -> IndexBatch {
    use SymbolKind::{Class, Function};
    use SymbolRole::{Definition, Reference};
    let models = python(vec![symbol("User", Class, Definition, 2)]);
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
            FileUpdate {
                record: record("models.py", FileKind::Source(Language::Python)),
                outline: OutlineChange::Prepared(Box::new(PreparedOutline::new(&models).unwrap())),
            },
            FileUpdate {
                record: record("logo.png", FileKind::Binary),
                outline: OutlineChange::Remove,
            },
        ],
        deletions: Vec::new(),
        edges: Some(EdgeUpdate::All(vec![
            edge("app.py", "util.py", 1),
            edge("app.py", "models.py", 2),
            edge("util.py", "models.py", 1),
        ])),
    }
}

fn names(found: &[SymbolLocation]) -> Vec<(&str, &str, u32)> {
    found
        .iter()
        .map(|s| (s.name.as_str(), s.path.as_str(), s.line))
        .collect()
}

/// Every check, on one empty store.
fn exercise(store: &mut dyn IndexStore) {
    assert_eq!(store.stats().unwrap().last_indexed_ms, None);
    assert!(store.files().unwrap().is_empty());
    store.apply(&sample_batch()).unwrap();
    round_trips(store);
    symbol_queries(store);
    edges(store);
    stats(store);
    failing_batch_leaves_the_previous_state(store);
    rank_cache(store);
    later_batches(store);
    scope(store);
}

fn round_trips(store: &dyn IndexStore) {
    let files = store.files().unwrap();
    assert_eq!(
        files.keys().collect::<Vec<_>>(),
        ["app.py", "logo.png", "models.py", "util.py"]
    );
    assert_eq!(files["logo.png"], record("logo.png", FileKind::Binary));
    assert_eq!(files["app.py"].language(), Some(Language::Python));
    let batch = sample_batch();
    let OutlineChange::Replace(expected) = &batch.upserts[0].outline else {
        panic!("the sample starts with a parsed file");
    };
    assert_eq!(
        store.outline("app.py").unwrap().as_ref(),
        Some(expected.as_ref())
    );
    assert_eq!(
        store.outline("models.py").unwrap().unwrap().symbols[0].name,
        "User"
    );
    assert_eq!(store.outline("logo.png").unwrap(), None);
    assert_eq!(store.outlines().unwrap().len(), 3);
    assert_eq!(store.metrics().unwrap()["util.py"].lines, 12);
    let table = store.defined_symbols().unwrap();
    assert_eq!(table.files_defining("User"), ["models.py"]);
    assert_eq!(table.files_referencing("User"), ["app.py"]);
}

fn symbol_queries(store: &dyn IndexStore) {
    assert_eq!(
        names(&store.definitions("parse_args").unwrap()),
        [("parse_args", "util.py", 1)]
    );
    assert_eq!(
        names(&store.references("parse_args").unwrap()),
        [("parse_args", "app.py", 4)]
    );
    assert!(store.definitions("parse_ARGS").unwrap().is_empty());
    let found = store.search_symbols("PARSE", 10).unwrap();
    assert_eq!(
        names(&found),
        [
            ("parse", "util.py", 20),
            ("ParseError", "util.py", 9),
            ("parse_args", "util.py", 1)
        ]
    );
    assert!(found.iter().all(|s| s.role == SymbolRole::Definition));
    assert_eq!(store.search_symbols("parse", 1).unwrap().len(), 1);
    assert_eq!(
        names(&store.search_symbols("ser", 10).unwrap()),
        [("User", "models.py", 2)]
    );
    assert!(store.search_symbols("p%e", 10).unwrap().is_empty());
    assert!(store.search_symbols("  ", 10).unwrap().is_empty());
}

fn edges(store: &dyn IndexStore) {
    let pairs = |edges: Vec<Edge>| -> Vec<(String, String)> {
        edges.into_iter().map(|e| (e.from, e.to)).collect()
    };
    assert_eq!(
        pairs(store.dependencies("app.py").unwrap()),
        [
            ("app.py".to_string(), "util.py".to_string()),
            ("app.py".to_string(), "models.py".to_string())
        ]
    );
    assert_eq!(
        pairs(store.dependents("models.py").unwrap()),
        [
            ("app.py".to_string(), "models.py".to_string()),
            ("util.py".to_string(), "models.py".to_string())
        ]
    );
    assert!(store.dependents("app.py").unwrap().is_empty());
    let all = store.all_edges().unwrap();
    assert_eq!(all.len(), 3);
    assert!(all.windows(2).all(|pair| pair[0] <= pair[1]));
}

fn stats(store: &dyn IndexStore) {
    let stats = store.stats().unwrap();
    assert_eq!(stats.files, 4);
    assert_eq!(stats.by_language[&Language::Python], 3);
    assert_eq!((stats.definitions, stats.references), (5, 2));
    assert_eq!(stats.edges, 3);
    assert_eq!(stats.parse_errors, 0);
    assert!(stats.last_indexed_ms.is_some());
}

fn failing_batch_leaves_the_previous_state(store: &mut dyn IndexStore) {
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
        edges: Some(EdgeUpdate::All(Vec::new())),
    };
    let error = store.apply(&batch).unwrap_err();
    assert!(matches!(error, IndexError::InvalidRecord { ref path, .. } if path == "zzz.bin"));
    assert_eq!(store.files().unwrap(), before);
    assert!(store.definitions("fresh").unwrap().is_empty());
    assert_eq!(store.definitions("parse_args").unwrap().len(), 1);
    assert_eq!(store.stats().unwrap().edges, 3);
}

fn rank_cache(store: &mut dyn IndexStore) {
    let (generation, graph) = store.rank_cache().unwrap();
    assert_eq!(graph, None);
    assert!(store.store_rank_cache(generation, b"graph").unwrap());
    assert_eq!(
        store.rank_cache().unwrap(),
        (generation, Some(b"graph".to_vec()))
    );
    assert!(!store.store_rank_cache(generation - 1, b"old").unwrap());
    // A write that changes outlines moves the generation on and drops the graph.
    store
        .apply(&IndexBatch {
            upserts: vec![source("extra.py", python(Vec::new()))],
            ..IndexBatch::default()
        })
        .unwrap();
    let (moved, graph) = store.rank_cache().unwrap();
    assert!(moved > generation);
    assert_eq!(graph, None);
}

fn later_batches(store: &mut dyn IndexStore) {
    let mut touched = record("app.py", FileKind::Source(Language::Python));
    touched.mtime_ns += 1;
    let batch = IndexBatch {
        upserts: vec![
            FileUpdate {
                record: touched.clone(),
                outline: OutlineChange::Keep,
            },
            FileUpdate {
                record: record("models.py", FileKind::NonUtf8),
                outline: OutlineChange::Remove,
            },
        ],
        deletions: vec!["util.py".to_string(), "extra.py".to_string()],
        edges: Some(EdgeUpdate::From {
            files: vec!["app.py".to_string(), "util.py".to_string()],
            edges: vec![edge("app.py", "models.py", 3)],
        }),
    };
    store.apply(&batch).unwrap();
    assert_eq!(store.files().unwrap()["app.py"], touched);
    assert_eq!(store.definitions("main").unwrap().len(), 1);
    assert!(store.outline("models.py").unwrap().is_none());
    assert!(store.definitions("User").unwrap().is_empty());
    assert!(store.definitions("parse_args").unwrap().is_empty());
    assert!(store.search_symbols("parse", 10).unwrap().is_empty());
    assert!(!store.files().unwrap().contains_key("util.py"));
    assert!(!store.metrics().unwrap().contains_key("util.py"));
    assert_eq!(store.dependencies("util.py").unwrap(), []);
    let from_app = store.dependencies("app.py").unwrap();
    assert_eq!(
        (from_app.len(), from_app[0].to.as_str(), from_app[0].line),
        (1, "models.py", 3)
    );
    // A rewritten file replaces its symbols.
    store
        .apply(&IndexBatch {
            upserts: vec![source(
                "app.py",
                python(vec![symbol(
                    "tokenize",
                    SymbolKind::Function,
                    SymbolRole::Definition,
                    3,
                )]),
            )],
            ..IndexBatch::default()
        })
        .unwrap();
    assert_eq!(
        names(&store.definitions("tokenize").unwrap()),
        [("tokenize", "app.py", 3)]
    );
    assert!(store.definitions("main").unwrap().is_empty());
}

fn scope(store: &mut dyn IndexStore) {
    assert_eq!(store.scope().unwrap(), None);
    store.set_scope(Some("packages/app")).unwrap();
    assert_eq!(store.scope().unwrap().as_deref(), Some("packages/app"));
    store.set_scope(None).unwrap();
    assert_eq!(store.scope().unwrap(), None);
}

#[test]
fn the_sqlite_store_passes_the_suite() {
    let mut store = SqliteStore::open_in_memory().unwrap();
    exercise(&mut store);
}

#[test]
fn the_redis_store_passes_the_suite() {
    let Some(redis) = support::Redis::start() else {
        return;
    };
    let mut store = redis.store("suite", "clone-a");
    exercise(&mut store);
    // The same namespace opened again (another process) sees everything.
    let again = redis.store("suite", "clone-a");
    assert_eq!(again.files().unwrap(), store.files().unwrap());
    // Another namespace is another index.
    assert!(redis.store("other", "clone-a").files().unwrap().is_empty());
}
