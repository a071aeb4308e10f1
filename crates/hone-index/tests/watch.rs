//! The file watcher: edits, new files, deletes and renames reach the index while it runs.
#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers outside #[test] functions panic on setup failure by design

use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use hone_index::tools::SharedIndex;
use hone_index::{IndexOptions, IndexWatcher, Indexer};

const DEBOUNCE: Duration = Duration::from_millis(100);
/// Generous for a loaded CI machine; the polling returns as soon as the index reflects it.
const TIMEOUT: Duration = Duration::from_secs(10);
const POLL: Duration = Duration::from_millis(25);

fn write(root: &Path, path: &str, contents: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "src/app.ts",
        "import { helper } from \"./util\";\n\nexport function main(): number {\n  return helper();\n}\n",
    );
    write(
        dir.path(),
        "src/util.ts",
        "export function helper(): number {\n  return 1;\n}\n",
    );
    write(
        dir.path(),
        "lib/tool.py",
        "def tool_main():\n    return 1\n",
    );
    dir
}

fn start(root: &Path) -> (SharedIndex, IndexWatcher) {
    let mut indexer = Indexer::open(root, &IndexOptions::default()).unwrap();
    indexer.update(&mut |_| {}).unwrap();
    let index = SharedIndex::new(indexer);
    let watcher = IndexWatcher::start(index.clone(), DEBOUNCE).unwrap();
    (index, watcher)
}

/// The files defining `name`.
fn definitions(index: &SharedIndex, name: &str) -> Vec<String> {
    index
        .lock()
        .store()
        .definitions(name)
        .unwrap()
        .into_iter()
        .map(|site| site.path)
        .collect()
}

fn indexed(index: &SharedIndex, path: &str) -> bool {
    index.lock().files().contains_key(path)
}

/// Polls until `condition` holds, failing with `what` after [`TIMEOUT`].
fn wait_for(what: &str, mut condition: impl FnMut() -> bool) {
    let started = Instant::now();
    while !condition() {
        assert!(
            started.elapsed() < TIMEOUT,
            "timed out after {TIMEOUT:?} waiting for: {what}"
        );
        std::thread::sleep(POLL);
    }
}

#[test]
fn an_edited_file_is_reindexed() {
    let dir = project();
    let (index, _watcher) = start(dir.path());
    assert!(definitions(&index, "extra").is_empty());
    write(
        dir.path(),
        "src/util.ts",
        "export function helper(): number {\n  return 1;\n}\n\nexport function extra(): number {\n  return 2;\n}\n",
    );
    wait_for("`extra` defined in src/util.ts", || {
        definitions(&index, "extra") == ["src/util.ts"]
    });
    assert_eq!(definitions(&index, "helper"), ["src/util.ts"]);
}

#[test]
fn a_new_file_is_indexed() {
    let dir = project();
    let (index, _watcher) = start(dir.path());
    write(
        dir.path(),
        "src/nested/fresh.py",
        "def brand_new():\n    return 3\n",
    );
    wait_for("src/nested/fresh.py indexed", || {
        definitions(&index, "brand_new") == ["src/nested/fresh.py"]
    });
    assert!(indexed(&index, "src/nested/fresh.py"));
}

#[test]
fn a_deleted_file_leaves_the_index() {
    let dir = project();
    let (index, _watcher) = start(dir.path());
    assert_eq!(definitions(&index, "tool_main"), ["lib/tool.py"]);
    std::fs::remove_file(dir.path().join("lib/tool.py")).unwrap();
    wait_for("lib/tool.py removed", || {
        !indexed(&index, "lib/tool.py") && definitions(&index, "tool_main").is_empty()
    });
}

#[test]
fn a_deleted_directory_leaves_the_index() {
    let dir = project();
    let (index, _watcher) = start(dir.path());
    std::fs::remove_dir_all(dir.path().join("lib")).unwrap();
    wait_for("lib/ removed", || !indexed(&index, "lib/tool.py"));
    assert!(indexed(&index, "src/app.ts"));
}

#[test]
fn a_renamed_file_moves_in_the_index() {
    let dir = project();
    let (index, _watcher) = start(dir.path());
    std::fs::rename(
        dir.path().join("src/util.ts"),
        dir.path().join("src/helpers.ts"),
    )
    .unwrap();
    wait_for("src/util.ts renamed to src/helpers.ts", || {
        !indexed(&index, "src/util.ts")
            && indexed(&index, "src/helpers.ts")
            && definitions(&index, "helper") == ["src/helpers.ts"]
    });
}

#[test]
fn every_update_is_reported_and_dropping_stops_watching() {
    let dir = project();
    let mut indexer = Indexer::open(dir.path(), &IndexOptions::default()).unwrap();
    indexer.update(&mut |_| {}).unwrap();
    let index = SharedIndex::new(indexer);
    let (sender, receiver) = mpsc::channel();
    let watcher = IndexWatcher::start_with_callback(
        index.clone(),
        DEBOUNCE,
        Some(Box::new(move |paths, result| {
            let report = result.map(|report| (report.files_parsed, report.files_deleted));
            let _ = sender.send((paths.to_vec(), report.map_err(ToString::to_string)));
        })),
    )
    .unwrap();
    write(dir.path(), "src/other.ts", "export const other = 1;\n");
    // Under load the creation and the write can land in separate batches, and directory
    // events in batches of their own: wait for the batch that parses the file.
    let started = Instant::now();
    loop {
        let remaining = TIMEOUT.saturating_sub(started.elapsed());
        let (paths, report) = receiver
            .recv_timeout(remaining)
            .expect("no update parsed src/other.ts");
        assert!(
            paths.iter().all(|path| !path.starts_with(".hone")),
            "{paths:?}"
        );
        if paths.iter().any(|path| path == "src/other.ts") && report.unwrap().0 == 1 {
            break;
        }
    }
    assert!(indexed(&index, "src/other.ts"));
    // The indexer's own reads must not trigger further updates.
    while let Ok((paths, _)) = receiver.recv_timeout(DEBOUNCE * 5) {
        assert_eq!(paths, ["src/other.ts"], "an update nothing changed for");
    }

    drop(watcher);
    write(dir.path(), "src/late.ts", "export const late = 1;\n");
    std::thread::sleep(DEBOUNCE * 5);
    assert!(!indexed(&index, "src/late.ts"));
}
