//! Limiting the index to one sub-directory of the project (the large-repository choice).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use hone_index::{IndexError, IndexOptions, Indexer, normalize_scope};

fn write(root: &Path, path: &str, contents: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

/// Two packages, one importing the other, and a top-level script.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "packages/app/src/main.ts",
        "import { helper } from \"./util\";\nexport const x = helper();\n",
    );
    write(
        root,
        "packages/app/src/util.ts",
        "export function helper(): number {\n  return 1;\n}\n",
    );
    write(root, "packages/lib/index.ts", "export const lib = 1;\n");
    write(root, "tool.py", "def tool():\n    return 1\n");
    dir
}

fn open(root: &Path) -> Indexer {
    Indexer::open(root, &IndexOptions::default()).unwrap()
}

fn paths(indexer: &Indexer) -> Vec<&str> {
    indexer.files().keys().map(String::as_str).collect()
}

#[test]
fn a_scope_limits_updates_and_is_remembered_by_the_store() {
    let dir = project();
    let mut indexer = open(dir.path());
    indexer.update(&mut |_| {}).unwrap();
    assert_eq!(indexer.files().len(), 4);

    indexer.set_scope(Some("./packages/app/")).unwrap();
    assert_eq!(indexer.scope(), Some("packages/app"));
    let report = indexer.update(&mut |_| {}).unwrap();
    assert_eq!(report.files_deleted, 2);
    assert_eq!(
        paths(&indexer),
        ["packages/app/src/main.ts", "packages/app/src/util.ts"]
    );
    assert_eq!(report.edges, 1, "imports inside the scope still resolve");

    // Another process (hone exec, hone map) keeps to the same scope.
    drop(indexer);
    let mut reopened = open(dir.path());
    assert_eq!(reopened.scope(), Some("packages/app"));
    assert_eq!(
        reopened.store().scope().unwrap().as_deref(),
        Some("packages/app")
    );
    let report = reopened.update(&mut |_| {}).unwrap();
    assert_eq!((report.files_parsed, report.files_total), (0, 2));

    // `.` is the whole project again.
    reopened.set_scope(Some(".")).unwrap();
    assert_eq!(reopened.scope(), None);
    assert_eq!(reopened.update(&mut |_| {}).unwrap().files_total, 4);
    assert_eq!(open(dir.path()).scope(), None);
}

#[test]
fn watcher_paths_outside_the_scope_are_ignored() {
    let dir = project();
    let mut indexer = open(dir.path());
    indexer.set_scope(Some("packages/app")).unwrap();
    indexer.update(&mut |_| {}).unwrap();

    write(
        dir.path(),
        "packages/lib/extra.ts",
        "export const extra = 2;\n",
    );
    let report = indexer
        .update_paths(&["packages/lib/extra.ts".to_string()])
        .unwrap();
    assert_eq!(report.files_parsed, 0);
    assert!(!indexer.files().contains_key("packages/lib/extra.ts"));

    // A parent directory of the scope stands for the scope: nothing inside it is dropped,
    // new files inside it are added, and nothing outside it comes in.
    write(
        dir.path(),
        "packages/app/src/new.ts",
        "export const n = 3;\n",
    );
    let report = indexer.update_paths(&["packages".to_string()]).unwrap();
    assert_eq!((report.files_parsed, report.files_deleted), (1, 0));
    assert_eq!(
        paths(&indexer),
        [
            "packages/app/src/main.ts",
            "packages/app/src/new.ts",
            "packages/app/src/util.ts"
        ]
    );
}

#[test]
fn a_scope_must_be_a_directory_inside_the_project() {
    let dir = project();
    let outside = tempfile::tempdir().unwrap();
    let root = dir.path();
    for bad in ["missing", "tool.py", "..", outside.path().to_str().unwrap()] {
        let error = normalize_scope(root, bad).unwrap_err();
        assert!(matches!(error, IndexError::Scope { .. }), "{bad}: {error}");
        assert!(
            error.to_string().contains("relative to the project root"),
            "{error}"
        );
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outside.path(), root.join("escape")).unwrap();
        assert!(normalize_scope(root, "escape").is_err());
    }
    let absolute = root.join("packages/lib");
    assert_eq!(
        normalize_scope(root, absolute.to_str().unwrap())
            .unwrap()
            .as_deref(),
        Some("packages/lib")
    );
    assert_eq!(normalize_scope(root, " . ").unwrap(), None);
    let mut indexer = open(root);
    assert!(indexer.set_scope(Some("missing")).is_err());
    assert_eq!(indexer.scope(), None, "a refused scope changes nothing");
}

#[test]
fn a_vanished_scope_empties_the_index_with_a_warning() {
    let dir = project();
    let mut indexer = open(dir.path());
    indexer.set_scope(Some("packages/lib")).unwrap();
    indexer.update(&mut |_| {}).unwrap();
    std::fs::remove_dir_all(dir.path().join("packages/lib")).unwrap();
    drop(indexer);
    let mut reopened = open(dir.path());
    let report = reopened.update(&mut |_| {}).unwrap();
    assert_eq!(report.files_total, 0);
    assert!(
        report.warnings.iter().any(|w| w.contains("--scope .")),
        "{:?}",
        report.warnings
    );
}
