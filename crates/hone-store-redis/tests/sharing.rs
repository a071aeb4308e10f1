//! The indexer on a Redis store shared by clones, and a server killed mid-update.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::Path;

use hone_index::{
    FileKind, FileRecord, FileUpdate, IndexBatch, IndexError, IndexOptions, IndexStore, Indexer,
    OutlineChange,
};

/// A small Python project of `files` modules, each defining `f{i}` and calling the previous.
fn project(dir: &Path, files: usize) {
    for i in 0..files {
        let previous = i.saturating_sub(1);
        std::fs::write(
            dir.join(format!("m{i}.py")),
            format!(
                "from m{previous} import f{previous}\n\ndef f{i}():\n    return f{previous}()\n"
            ),
        )
        .unwrap();
    }
}

fn indexer(redis: &support::Redis, root: &Path, clone: &str) -> Indexer {
    let store = redis.store("team", clone);
    Indexer::with_store(root, &IndexOptions::default(), Box::new(store)).unwrap()
}

#[test]
fn a_second_clone_parses_no_file_the_first_indexed() {
    let Some(redis) = support::Redis::start() else {
        return;
    };
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    project(first.path(), 12);
    project(second.path(), 12);
    std::fs::write(
        second.path().join("only_here.py"),
        "def mine():\n    pass\n",
    )
    .unwrap();

    let report = indexer(&redis, first.path(), "first")
        .update(&mut |_| {})
        .unwrap();
    assert_eq!(report.files_parsed, 12);

    let mut clone = indexer(&redis, second.path(), "second");
    let report = clone.update(&mut |_| {}).unwrap();
    assert_eq!(
        report.files_parsed, 1,
        "only the file the first clone lacks"
    );
    assert_eq!(report.files_total, 13);
    // Its own times are now kept: the next update reads nothing.
    let again = clone.update(&mut |_| {}).unwrap();
    assert_eq!(again.files_parsed, 0);

    // Both see one index: the first clone finds what the second added.
    let shared = redis.store("team", "first");
    assert_eq!(shared.definitions("mine").unwrap()[0].path, "only_here.py");
    assert_eq!(shared.definitions("f3").unwrap().len(), 1);
}

#[test]
fn an_edit_in_one_clone_is_seen_and_rehashed_by_the_other() {
    let Some(redis) = support::Redis::start() else {
        return;
    };
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    project(first.path(), 3);
    project(second.path(), 3);
    let mut one = indexer(&redis, first.path(), "first");
    one.update(&mut |_| {}).unwrap();
    let mut two = indexer(&redis, second.path(), "second");
    assert_eq!(two.update(&mut |_| {}).unwrap().files_parsed, 0);

    std::fs::write(first.path().join("m1.py"), "def renamed():\n    pass\n").unwrap();
    assert_eq!(one.update(&mut |_| {}).unwrap().files_parsed, 1);
    assert_eq!(two.store().definitions("renamed").unwrap()[0].path, "m1.py");
    // The second clone's m1.py still has the old contents: its next update sees the shared
    // record changed under its stamp, reads the file and puts its own version back.
    let mut reopened = indexer(&redis, second.path(), "second");
    assert_eq!(reopened.update(&mut |_| {}).unwrap().files_parsed, 1);
    assert!(reopened.store().definitions("renamed").unwrap().is_empty());
    assert_eq!(reopened.store().definitions("f1").unwrap().len(), 1);
}

fn many_files(count: usize) -> IndexBatch {
    let upserts = (0..count)
        .map(|i| {
            let mut outline = hone_index::FileOutline::empty(hone_index::Language::Python);
            outline.symbols.push(hone_index::SymbolOccurrence {
                name: format!("name{i}"),
                kind: hone_index::SymbolKind::Function,
                role: hone_index::SymbolRole::Definition,
                line: 1,
                column: 1,
            });
            FileUpdate {
                record: FileRecord {
                    path: format!("f{i}.py"),
                    size: 1,
                    mtime_ns: 1,
                    hash: format!("h{i}"),
                    kind: FileKind::Source(hone_index::Language::Python),
                    has_errors: false,
                },
                outline: OutlineChange::Replace(Box::new(outline)),
            }
        })
        .collect();
    IndexBatch {
        upserts,
        ..IndexBatch::default()
    }
}

/// Whether the store holds all of `batch` or none of it, with symbols matching records.
fn all_or_nothing(store: &dyn IndexStore, count: usize) -> usize {
    let files = store.files().unwrap().len();
    assert!(
        files == 1 || files == count + 1,
        "half an update: {files} files"
    );
    let defined = store.search_symbols("name", count + 10).unwrap().len();
    assert_eq!(defined, files - 1, "symbols match the records");
    files
}

#[test]
fn a_server_killed_mid_update_leaves_the_previous_or_the_whole_update() {
    let Some(mut redis) = support::Redis::start() else {
        return;
    };
    let mut store = redis.store("faults", "one");
    store
        .apply(&IndexBatch {
            upserts: vec![FileUpdate {
                record: FileRecord {
                    path: "keep.txt".to_string(),
                    size: 1,
                    mtime_ns: 1,
                    hash: "k".to_string(),
                    kind: FileKind::Text,
                    has_errors: false,
                },
                outline: OutlineChange::Remove,
            }],
            ..IndexBatch::default()
        })
        .unwrap();

    // Killed before the commit: the commit fails with the server named, nothing is written.
    let batch = many_files(2_000);
    {
        let mut write = store.begin().unwrap();
        for update in &batch.upserts {
            write.upsert(update).unwrap();
        }
        redis.server.kill();
        let error = write.commit().unwrap_err();
        assert!(matches!(error, IndexError::Unreachable { .. }), "{error}");
        assert!(error.to_string().contains("127.0.0.1"), "{error}");
    }
    redis.server.restart();
    assert_eq!(all_or_nothing(&store, 2_000), 1);

    // Killed while the transaction is on its way: after a restart (the append-only file
    // replayed) the index holds the previous state or the whole update, never part of it.
    let killer = {
        let pid_holder = std::sync::Arc::new(std::sync::Mutex::new(redis));
        let for_thread = std::sync::Arc::clone(&pid_holder);
        let handle = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            for_thread.lock().unwrap().server.kill();
        });
        let result = store.apply(&batch);
        handle.join().unwrap();
        (pid_holder, result)
    };
    let (holder, result) = killer;
    let mut redis = std::sync::Arc::try_unwrap(holder)
        .unwrap()
        .into_inner()
        .unwrap();
    redis.server.restart();
    let files = all_or_nothing(&store, 2_000);
    if result.is_ok() {
        assert_eq!(files, 2_001, "a commit reported done is durable");
    }
}
