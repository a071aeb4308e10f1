//! The indexer: incremental updates, watcher updates, metadata-only files, crash safety.
#![allow(clippy::unwrap_used)] // helpers outside #[test] functions panic on setup failure by design

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, TryRecvError};
use std::time::{Duration, SystemTime};

use hone_index::{FileKind, IndexOptions, IndexStore, Indexer, Language, Progress, SqliteStore};

fn write(root: &Path, path: &str, contents: &[u8]) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

/// Sets a file's mtime an hour back, as if it had not been touched recently.
fn age(root: &Path, path: &str) {
    let file = std::fs::File::options()
        .write(true)
        .open(root.join(path))
        .unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(3600))
        .unwrap();
}

const APP_TS: &str = "import { helper } from \"./util\";\n\nexport function main(): number {\n  return helper();\n}\n";
const UTIL_TS: &str = "export function helper(): number {\n  return 1;\n}\n";
const TOOL_PY: &str = "from lib import shared\n\n\ndef tool_main():\n    return shared.VALUE\n";
const SHARED_PY: &str = "VALUE = 1\n";

/// A small project: TypeScript and Python sources, text, binary and non-UTF-8 files, and an
/// ignored dependency directory.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "src/app.ts", APP_TS.as_bytes());
    write(root, "src/util.ts", UTIL_TS.as_bytes());
    write(root, "lib/tool.py", TOOL_PY.as_bytes());
    write(root, "lib/shared.py", SHARED_PY.as_bytes());
    write(root, "README.md", b"# Demo\n");
    write(root, "assets/logo.png", b"\x89PNG\r\n\x1a\n\0\0\0\0");
    write(root, "docs/latin1.txt", b"caf\xe9\n");
    write(root, "node_modules/dep/index.js", b"module.exports = 1;\n");
    dir
}

fn open(root: &Path) -> Indexer {
    Indexer::open(root, &IndexOptions::default()).unwrap()
}

fn update(indexer: &mut Indexer) -> hone_index::IndexReport {
    indexer.update(&mut |_| {}).unwrap()
}

#[test]
fn first_update_parses_every_source_file_and_the_second_none() {
    let dir = project();
    let mut indexer = open(dir.path());
    let mut progress = Vec::new();
    let first = indexer.update(&mut |p: Progress| progress.push(p)).unwrap();
    assert_eq!(first.files_total, 7);
    assert_eq!(first.files_parsed, 4);
    assert_eq!(first.by_language[&Language::TypeScript], 2);
    assert_eq!(first.by_language[&Language::Python], 2);
    assert_eq!(first.parse_errors, 0);
    assert!(first.warnings.is_empty(), "{:?}", first.warnings);
    assert_eq!(progress.first(), Some(&Progress { done: 0, total: 7 }));
    assert_eq!(progress.last(), Some(&Progress { done: 7, total: 7 }));

    let second = update(&mut indexer);
    assert_eq!((second.files_parsed, second.files_deleted), (0, 0));
    assert_eq!(second.files_total, 7);
    assert_eq!(second.symbols, first.symbols);
    assert_eq!(second.edges, first.edges);

    // A new process sees the same index and has nothing to parse either.
    drop(indexer);
    let mut reopened = open(dir.path());
    assert_eq!(reopened.files().len(), 7);
    assert_eq!(update(&mut reopened).files_parsed, 0);
}

#[test]
fn files_without_a_grammar_are_recorded_as_metadata_only() {
    let dir = project();
    let mut indexer = open(dir.path());
    update(&mut indexer);
    let files = indexer.store().files().unwrap();
    assert_eq!(files["README.md"].kind, FileKind::Text);
    assert_eq!(files["assets/logo.png"].kind, FileKind::Binary);
    assert_eq!(files["docs/latin1.txt"].kind, FileKind::NonUtf8);
    assert_eq!(files["assets/logo.png"].size, 12);
    assert_eq!(
        files["src/app.ts"].kind,
        FileKind::Source(Language::TypeScript)
    );
    assert_eq!(files["src/app.ts"].hash.len(), 64);
    for path in ["README.md", "assets/logo.png", "docs/latin1.txt"] {
        assert_eq!(indexer.store().outline(path).unwrap(), None);
    }
    assert!(indexer.store().outline("src/app.ts").unwrap().is_some());
    assert!(
        !files
            .keys()
            .any(|path| path.starts_with("node_modules/") || path.starts_with(".hone/"))
    );
}

#[test]
fn editing_one_file_reparses_only_that_file() {
    let dir = project();
    let mut indexer = open(dir.path());
    update(&mut indexer);
    write(
        dir.path(),
        "src/util.ts",
        b"export function helper(): number {\n  return 2;\n}\n\nexport const EXTRA = 3;\n",
    );
    let report = update(&mut indexer);
    assert_eq!((report.files_parsed, report.files_deleted), (1, 0));
    // Touching without changing contents re-reads but does not re-parse.
    age(dir.path(), "lib/tool.py");
    age(dir.path(), "src/util.ts");
    assert_eq!(update(&mut indexer).files_parsed, 0);
    let aged = indexer.files()["lib/tool.py"].mtime_ns;
    assert!(aged > 0);
    // Settled files are skipped by size and mtime alone.
    assert_eq!(update(&mut indexer).files_parsed, 0);
    assert_eq!(
        indexer.store().files().unwrap()["lib/tool.py"].mtime_ns,
        aged
    );
}

#[test]
fn deleting_a_file_removes_its_record_symbols_and_edges() {
    let dir = project();
    let mut indexer = open(dir.path());
    update(&mut indexer);
    let store = indexer.store();
    assert!(
        store
            .definitions("helper")
            .unwrap()
            .iter()
            .any(|s| s.path == "src/util.ts")
    );
    assert_eq!(
        store
            .dependents("src/util.ts")
            .unwrap()
            .iter()
            .map(|e| e.from.as_str())
            .collect::<Vec<_>>(),
        ["src/app.ts"]
    );
    std::fs::remove_file(dir.path().join("src/util.ts")).unwrap();
    let report = update(&mut indexer);
    assert_eq!((report.files_deleted, report.files_total), (1, 6));
    let store = indexer.store();
    assert!(!store.files().unwrap().contains_key("src/util.ts"));
    assert_eq!(store.outline("src/util.ts").unwrap(), None);
    assert!(store.definitions("helper").unwrap().is_empty());
    assert!(store.dependents("src/util.ts").unwrap().is_empty());
    assert!(store.dependencies("src/app.ts").unwrap().is_empty());
}

#[test]
fn watcher_updates_handle_new_changed_deleted_and_ignored_paths() {
    let dir = project();
    let root = dir.path();
    let mut indexer = open(root);
    update(&mut indexer);
    write(root, "src/new.ts", b"export const fresh = 1;\n");
    write(root, "lib/tool.py", b"def tool_main():\n    return 2\n");
    std::fs::remove_file(root.join("lib/shared.py")).unwrap();
    write(root, "node_modules/dep/other.js", b"1;\n");
    let absolute = root.join("src/new.ts").to_str().unwrap().to_string();
    let report = indexer
        .update_paths(&[
            absolute,
            "./lib/tool.py".to_string(),
            "lib/shared.py".to_string(),
            "node_modules/dep/other.js".to_string(),
            "../outside.py".to_string(),
        ])
        .unwrap();
    assert_eq!((report.files_parsed, report.files_deleted), (2, 1));
    let files = indexer.store().files().unwrap();
    assert!(files.contains_key("src/new.ts"));
    assert!(!files.contains_key("lib/shared.py"));
    assert!(!files.keys().any(|path| path.starts_with("node_modules/")));
    // Unchanged contents reported by the watcher: re-hashed, not re-parsed.
    assert_eq!(
        indexer
            .update_paths(&["src/app.ts".to_string()])
            .unwrap()
            .files_parsed,
        0
    );
    // A deleted directory takes everything under it, and nothing that merely shares its prefix.
    write(root, "src2/keep.ts", b"export const keep = 1;\n");
    update(&mut indexer);
    std::fs::remove_dir_all(root.join("src")).unwrap();
    let report = indexer.update_paths(&["src".to_string()]).unwrap();
    assert_eq!(report.files_deleted, 3);
    assert!(indexer.files().contains_key("src2/keep.ts"));
    assert!(!indexer.files().keys().any(|path| path.starts_with("src/")));
}

#[test]
fn changed_ignore_file_reported_by_the_watcher_rescans_everything() {
    let dir = project();
    let mut indexer = open(dir.path());
    update(&mut indexer);
    write(dir.path(), ".honeignore", b"docs/\n");
    let report = indexer.update_paths(&[".honeignore".to_string()]).unwrap();
    assert_eq!(report.files_deleted, 1);
    assert!(indexer.files().contains_key(".honeignore"));
    assert!(!indexer.files().contains_key("docs/latin1.txt"));
}

#[test]
fn changing_a_config_file_without_an_outline_reruns_the_analysis() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "go.mod", b"module example.com/other\n\ngo 1.22\n");
    write(
        root,
        "main.go",
        b"package main\n\nimport \"example.com/app/util\"\n\nfunc main() { util.Run() }\n",
    );
    write(root, "util/util.go", b"package util\n\nfunc Run() {}\n");
    let mut indexer = open(root);
    update(&mut indexer);
    assert!(
        indexer
            .store()
            .dependents("util/util.go")
            .unwrap()
            .is_empty()
    );
    write(root, "go.mod", b"module example.com/app\n\ngo 1.22\n");
    let report = update(&mut indexer);
    assert_eq!((report.files_parsed, report.edges), (0, 1));
    assert_eq!(
        indexer.store().dependents("util/util.go").unwrap()[0].from,
        "main.go"
    );
}

#[test]
fn custom_database_path_inside_the_project_is_not_indexed() {
    let dir = project();
    let options = IndexOptions {
        db_path: Some("state/code.db".into()),
        ..IndexOptions::default()
    };
    let mut indexer = Indexer::open(dir.path(), &options).unwrap();
    update(&mut indexer);
    assert!(dir.path().join("state/code.db").is_file());
    assert!(
        !indexer
            .files()
            .keys()
            .any(|path| path.starts_with("state/"))
    );
    assert_eq!(update(&mut indexer).files_parsed, 0);
}

#[test]
fn files_over_the_size_limit_are_not_read() {
    let dir = project();
    write(
        dir.path(),
        "data/big.json",
        format!("[{}1]", "1,".repeat(600)).as_bytes(),
    );
    let options = IndexOptions {
        max_file_bytes: 1000,
        ..IndexOptions::default()
    };
    let mut indexer = Indexer::open(dir.path(), &options).unwrap();
    update(&mut indexer);
    let big = &indexer.files()["data/big.json"];
    assert_eq!((&big.kind, big.hash.as_str()), (&FileKind::TooLarge, ""));
}

#[test]
fn indexer_works_over_any_store() {
    let dir = project();
    let store = Box::new(SqliteStore::open_in_memory().unwrap());
    let mut indexer = Indexer::with_store(dir.path(), &IndexOptions::default(), store).unwrap();
    assert_eq!(update(&mut indexer).files_parsed, 4);
    assert!(!dir.path().join(".hone").exists());
}

#[test]
fn indexer_can_move_to_a_watcher_thread() {
    let dir = project();
    let mut indexer = open(dir.path());
    let report = std::thread::spawn(move || update(&mut indexer))
        .join()
        .unwrap();
    assert_eq!(report.files_parsed, 4);
}

const CRASH_CHILD_ROOT: &str = "HONE_INDEX_CRASH_CHILD_ROOT";

/// Not a test on its own: the child process of the crash test (does nothing otherwise).
#[test]
fn crash_test_child_process() {
    let Ok(root) = std::env::var(CRASH_CHILD_ROOT) else {
        return;
    };
    let mut indexer = open(Path::new(&root));
    let mut stdout = std::io::stdout();
    indexer
        .update(&mut |p: Progress| {
            writeln!(stdout, "progress {} {}", p.done, p.total).unwrap();
            stdout.flush().unwrap();
        })
        .unwrap();
    writeln!(stdout, "finished").unwrap();
}

#[test]
fn killing_the_indexer_mid_update_leaves_a_usable_database() {
    let dir = project();
    let root = dir.path();
    update(&mut open(root));
    for n in 0..2000 {
        let body =
            format!("def function_{n}(x):\n    return x + {n}\n\n\nclass Class{n}:\n    pass\n");
        write(root, &format!("gen/m{}/f{n}.py", n % 40), body.as_bytes());
    }
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "crash_test_child_process",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CRASH_CHILD_ROOT, root)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // Kill it in the middle of its write: parsing done and uncommitted pages spilling into the
    // write-ahead log.
    let (lines, received) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let wal = root.join(".hone/index.db-wal");
    let mut parsed = false;
    loop {
        match received.try_recv() {
            Ok(line) if line == "finished" => break,
            Ok(line) => {
                parsed |= line
                    .strip_prefix("progress ")
                    .and_then(|counts| counts.split_once(' '))
                    .is_some_and(|(done, total)| done == total && done != "0");
            }
            Err(TryRecvError::Disconnected) => break,
            Err(TryRecvError::Empty) => {
                if parsed && std::fs::metadata(&wal).is_ok_and(|wal| wal.len() > 64 * 1024) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();

    let store = SqliteStore::open(&root.join(".hone/index.db")).unwrap();
    let indexed = store.files().unwrap().len();
    assert!(
        indexed == 7 || indexed == 2007,
        "partial state: {indexed} files"
    );
    store.stats().unwrap();
    store.search_symbols("function_1", 5).unwrap();
    drop(store);
    let mut indexer = open(root);
    let report = update(&mut indexer);
    assert_eq!(report.files_total, 2007);
    assert_eq!(update(&mut indexer).files_parsed, 0);
}

#[test]
fn edits_re_resolve_the_edited_file_and_new_files_resolve_earlier_imports() {
    let dir = project();
    let mut indexer = open(dir.path());
    let first = update(&mut indexer);
    let targets = |indexer: &Indexer, path: &str| -> Vec<String> {
        let edges = indexer.store().dependencies(path).unwrap();
        edges.into_iter().map(|edge| edge.to).collect()
    };
    assert_eq!(targets(&indexer, "src/app.ts"), ["src/util.ts"]);
    // An edit keeping the set of files: only the edited file's edges change.
    write(
        dir.path(),
        "src/app.ts",
        b"import { extra } from \"./extra\";\nexport const value = extra;\n",
    );
    let report = indexer.update_paths(&["src/app.ts".to_string()]).unwrap();
    assert_eq!(report.edges, first.edges - 1);
    assert!(targets(&indexer, "src/app.ts").is_empty());
    assert_eq!(targets(&indexer, "lib/tool.py"), ["lib/shared.py"]);
    // A new file that an earlier import names: that import now resolves.
    write(dir.path(), "src/extra.ts", b"export const extra = 1;\n");
    let report = indexer.update_paths(&["src/extra.ts".to_string()]).unwrap();
    assert_eq!(report.edges, first.edges);
    assert_eq!(targets(&indexer, "src/app.ts"), ["src/extra.ts"]);
    // A new process continues incrementally from the stored state.
    drop(indexer);
    let mut reopened = open(dir.path());
    write(dir.path(), "lib/tool.py", b"import os\n");
    let report = reopened.update_paths(&["lib/tool.py".to_string()]).unwrap();
    assert_eq!(report.edges, first.edges - 1);
    assert_eq!(targets(&reopened, "src/app.ts"), ["src/extra.ts"]);
}

#[test]
fn a_symlinked_hone_dir_or_database_is_refused_and_nothing_is_written_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(root.join("a.rs"), "fn a() {}\n").unwrap();
    std::os::unix::fs::symlink(&elsewhere, root.join(".hone")).unwrap();
    let error = Indexer::open(&root, &IndexOptions::default()).unwrap_err();
    assert!(error.to_string().contains("symbolic link"), "{error}");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    std::fs::remove_file(root.join(".hone")).unwrap();
    std::fs::create_dir(root.join(".hone")).unwrap();
    std::os::unix::fs::symlink(elsewhere.join("index.db"), root.join(".hone/index.db")).unwrap();
    assert!(Indexer::open(&root, &IndexOptions::default()).is_err());
    assert!(!elsewhere.join("index.db").exists());
}
