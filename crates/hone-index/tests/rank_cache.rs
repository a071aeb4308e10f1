//! The repo map's ranking graph cached in the index: a map from the cache is the map built
//! from scratch, and every change to outlines or edges outdates the cache.
#![allow(clippy::unwrap_used)] // helpers outside #[test] functions panic on setup failure by design

use std::path::Path;
use std::time::{Duration, SystemTime};

use hone_index::analysis::analyze;
use hone_index::repomap::{RenderedMap, RepoMap, RepoMapRequest};
use hone_index::tools::repo_map_for;
use hone_index::{IndexOptions, IndexStore, Indexer, SqliteStore};

fn write(root: &Path, path: &str, contents: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, contents).unwrap();
    // An hour back, so updates trust the mtime (files this recent are re-hashed every time).
    let past = SystemTime::now() - Duration::from_secs(3600);
    let file = std::fs::File::options().write(true).open(&path).unwrap();
    file.set_modified(past).unwrap();
}

/// A small project importing and calling across files, indexed.
fn project() -> (tempfile::TempDir, Indexer) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "src/store.ts",
        "import { helper } from \"./util\";\nexport class Store {\n  add(item: string): string {\n    return helper(item);\n  }\n}\n",
    );
    write(
        root,
        "src/util.ts",
        "export function helper(value: string): string {\n  return value.trim();\n}\n",
    );
    write(
        root,
        "src/app.ts",
        "import { Store } from \"./store\";\nimport { helper } from \"./util\";\nexport function main(): string {\n  return new Store().add(helper(\"a\"));\n}\n",
    );
    write(
        root,
        "py/models.py",
        "class User:\n    pass\n\n\ndef make_user(name):\n    return User()\n",
    );
    write(root, "notes.txt", "not source\n");
    let mut indexer = Indexer::open(root, &IndexOptions::default()).unwrap();
    indexer.update(&mut |_| {}).unwrap();
    (dir, indexer)
}

/// The map built from every outline, without the index's cache.
fn from_scratch(indexer: &Indexer, request: &RepoMapRequest) -> RenderedMap {
    let outlines = indexer.store().outlines().unwrap();
    let analysis = analyze(indexer.root(), &outlines);
    RepoMap::new().render(&outlines, &analysis, request)
}

fn requests() -> Vec<RepoMapRequest> {
    vec![
        RepoMapRequest::default(),
        RepoMapRequest {
            focus_files: vec!["py/models.py".to_string()],
            focus_identifiers: vec!["helper".to_string()],
            budget_tokens: 8000,
        },
        RepoMapRequest {
            budget_tokens: 40,
            ..RepoMapRequest::default()
        },
    ]
}

#[test]
fn a_map_from_the_cached_graph_is_the_map_from_scratch() {
    let (_dir, indexer) = project();
    assert!(indexer.store().rank_cache().unwrap().1.is_none());
    let first = repo_map_for(&indexer, &RepoMapRequest::default()).unwrap();
    assert!(
        indexer.store().rank_cache().unwrap().1.is_some(),
        "the first map caches its graph"
    );
    assert_eq!(first, from_scratch(&indexer, &RepoMapRequest::default()));
    for request in requests() {
        assert_eq!(
            repo_map_for(&indexer, &request).unwrap(),
            from_scratch(&indexer, &request)
        );
    }
}

#[test]
fn an_edit_outdates_the_cache_and_the_next_map_sees_it() {
    let (dir, mut indexer) = project();
    let _ = repo_map_for(&indexer, &RepoMapRequest::default()).unwrap();
    let (generation, cached) = indexer.store().rank_cache().unwrap();
    assert!(cached.is_some());

    // `helper` moves to a new file: definitions, references and edges all change.
    write(
        dir.path(),
        "src/util.ts",
        "export function other(): number {\n  return 1;\n}\n",
    );
    write(
        dir.path(),
        "src/helpers.ts",
        "export function helper(value: string): string {\n  return value;\n}\n",
    );
    indexer.update(&mut |_| {}).unwrap();
    let (after, cached) = indexer.store().rank_cache().unwrap();
    assert!(after > generation, "{after} > {generation}");
    assert!(cached.is_none(), "the edit dropped the cached graph");
    for request in requests() {
        assert_eq!(
            repo_map_for(&indexer, &request).unwrap(),
            from_scratch(&indexer, &request)
        );
    }
    assert!(indexer.store().rank_cache().unwrap().1.is_some());

    // A deleted file outdates it too.
    std::fs::remove_file(dir.path().join("src/helpers.ts")).unwrap();
    indexer.update(&mut |_| {}).unwrap();
    assert!(indexer.store().rank_cache().unwrap().1.is_none());
    let request = RepoMapRequest::default();
    let map = repo_map_for(&indexer, &request).unwrap();
    assert!(!map.text.contains("src/helpers.ts"), "{}", map.text);
    assert_eq!(map, from_scratch(&indexer, &request));
}

#[test]
fn changes_that_keep_every_outline_keep_the_cache() {
    let (dir, mut indexer) = project();
    let _ = repo_map_for(&indexer, &RepoMapRequest::default()).unwrap();
    let before = indexer.store().rank_cache().unwrap();
    // Same contents, new mtime: re-hashed, nothing re-parsed.
    write(
        dir.path(),
        "src/util.ts",
        "export function helper(value: string): string {\n  return value.trim();\n}\n",
    );
    let file = std::fs::File::options()
        .write(true)
        .open(dir.path().join("src/util.ts"))
        .unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(60))
        .unwrap();
    let report = indexer.update(&mut |_| {}).unwrap();
    assert_eq!(report.files_parsed, 0);
    assert_eq!(indexer.store().rank_cache().unwrap(), before);
}

#[test]
fn a_graph_built_before_a_write_is_not_stored_as_current() {
    let (_dir, indexer) = project();
    let (generation, _) = indexer.store().rank_cache().unwrap();
    assert!(
        indexer
            .store()
            .store_rank_cache(generation, b"graph bytes")
            .unwrap()
    );
    assert!(
        !indexer
            .store()
            .store_rank_cache(generation - 1, b"stale")
            .unwrap(),
        "an outdated generation is refused"
    );
    assert_eq!(
        indexer.store().rank_cache().unwrap(),
        (generation, Some(b"graph bytes".to_vec()))
    );
}

#[test]
fn unreadable_cached_bytes_are_rebuilt() {
    let (_dir, indexer) = project();
    let (generation, _) = indexer.store().rank_cache().unwrap();
    indexer
        .store()
        .store_rank_cache(generation, b"not a graph")
        .unwrap();
    let request = RepoMapRequest::default();
    assert_eq!(
        repo_map_for(&indexer, &request).unwrap(),
        from_scratch(&indexer, &request)
    );
    let (_, cached) = indexer.store().rank_cache().unwrap();
    assert_ne!(cached.as_deref(), Some(&b"not a graph"[..]));
}

#[test]
fn an_in_memory_store_caches_too() {
    let store = SqliteStore::open_in_memory().unwrap();
    let (generation, cached) = store.rank_cache().unwrap();
    assert_eq!((generation, cached), (0, None));
    assert!(store.store_rank_cache(0, b"x").unwrap());
    assert_eq!(store.rank_cache().unwrap(), (0, Some(b"x".to_vec())));
}
