//! The scanner: ignore rules, hidden files, nested repositories, symlinks, targeted rescans.
#![allow(clippy::unwrap_used)] // helpers outside #[test] functions panic on setup failure by design

use std::path::Path;

use hone_index::scan::{LARGE_REPOSITORY_FILES, ScanReport};
use hone_index::{IndexError, ScanOptions, Scanner};

fn write(root: &Path, path: &str, contents: &[u8]) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

/// A monorepo-ish tree exercising every ignore source.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".git/HEAD", b"ref: refs/heads/main\n");
    write(root, ".git/info/exclude", b"excluded-locally.txt\n");
    write(root, ".gitignore", b"logs/\n*.tmp\n");
    write(root, ".honeignore", b"secrets/\n");
    write(root, ".github/workflows/ci.yml", b"on: push\n");
    write(root, "src/app.ts", b"export const app = 1;\n");
    write(root, "src/vendor.min.js", b"var a=1;\n");
    write(root, "src/scratch.tmp", b"tmp\n");
    write(root, "logs/today.log", b"log\n");
    write(root, "secrets/key.pem", b"key\n");
    write(root, "excluded-locally.txt", b"x\n");
    write(
        root,
        "node_modules/react/index.js",
        b"module.exports = 1;\n",
    );
    write(root, "dist/app.js", b"bundle\n");
    write(root, "target/debug/app", b"\x7fELF\0\0");
    write(root, ".hone/index.db", b"database\n");
    write(root, "assets/logo.png", b"\x89PNG\r\n\x1a\n\0\0\0");
    write(root, "docs/latin1.txt", b"caf\xe9\n");
    // A nested repository with its own ignore rules.
    write(root, "packages/api/.git/HEAD", b"ref: refs/heads/main\n");
    write(root, "packages/api/.gitignore", b"generated/\n");
    write(root, "packages/api/main.go", b"package main\n");
    write(
        root,
        "packages/api/generated/types.go",
        b"package generated\n",
    );
    dir
}

fn paths(report: &ScanReport) -> Vec<&str> {
    report.files.iter().map(|file| file.path.as_str()).collect()
}

#[test]
fn scan_honours_every_ignore_source_and_keeps_hidden_code() {
    let dir = project();
    let report = Scanner::new(dir.path(), &ScanOptions::default())
        .unwrap()
        .scan();
    assert_eq!(
        paths(&report),
        [
            ".github/workflows/ci.yml",
            ".gitignore",
            ".honeignore",
            "assets/logo.png",
            "docs/latin1.txt",
            "packages/api/.gitignore",
            "packages/api/main.go",
            "src/app.ts",
        ]
    );
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let logo = &report.files[3];
    assert_eq!((logo.size, logo.symlink_target.as_deref()), (11, None));
    assert!(logo.mtime_ns > 0);
    assert!(!report.is_large());
}

#[test]
fn project_outside_any_git_repository_still_honours_gitignore() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), ".gitignore", b"out/\n");
    write(dir.path(), "out/a.py", b"x = 1\n");
    write(dir.path(), "main.py", b"x = 1\n");
    let report = Scanner::new(dir.path(), &ScanOptions::default())
        .unwrap()
        .scan();
    assert_eq!(paths(&report), [".gitignore", "main.py"]);
}

#[cfg(unix)]
#[test]
fn symlink_leaving_the_root_is_recorded_and_not_followed() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "private/passwords.txt", b"hunter2\n");
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "main.py", b"x = 1\n");
    std::os::unix::fs::symlink(outside.path().join("private"), dir.path().join("escape")).unwrap();
    std::os::unix::fs::symlink("main.py", dir.path().join("alias.py")).unwrap();
    let report = Scanner::new(dir.path(), &ScanOptions::default())
        .unwrap()
        .scan();
    assert_eq!(paths(&report), ["alias.py", "escape", "main.py"]);
    let escape = &report.files[1];
    assert_eq!(
        escape.symlink_target.as_deref(),
        Some(outside.path().join("private").to_str().unwrap())
    );
    assert_eq!(report.files[0].symlink_target.as_deref(), Some("main.py"));
}

#[test]
fn extra_patterns_replace_the_defaults() {
    let dir = project();
    let options = ScanOptions {
        extra_ignores: vec!["*.go".to_string(), ".git".to_string()],
        ..ScanOptions::default()
    };
    let report = Scanner::new(dir.path(), &options).unwrap().scan();
    let found = paths(&report);
    assert!(found.contains(&"node_modules/react/index.js"));
    assert!(found.contains(&"src/vendor.min.js"));
    assert!(!found.iter().any(|path| path.ends_with(".go")));
    assert!(!found.iter().any(|path| path.starts_with(".hone/")));
}

#[test]
fn re_including_extra_patterns_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let options = ScanOptions {
        extra_ignores: vec!["!keep.js".to_string()],
        ..ScanOptions::default()
    };
    let error = Scanner::new(dir.path(), &options).unwrap_err();
    assert!(matches!(error, IndexError::Pattern { .. }));
    assert!(error.to_string().contains(".honeignore"), "{error}");
}

#[test]
fn missing_root_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let error = Scanner::new(&missing, &ScanOptions::default()).unwrap_err();
    assert!(error.to_string().contains("nope"), "{error}");
}

#[test]
fn excluded_files_are_left_out() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "main.py", b"x = 1\n");
    write(dir.path(), "state/index.db", b"db\n");
    let options = ScanOptions {
        excluded_files: vec![dir.path().join("state/index.db")],
        ..ScanOptions::default()
    };
    let report = Scanner::new(dir.path(), &options).unwrap().scan();
    assert_eq!(paths(&report), ["main.py"]);
}

#[test]
fn targeted_scan_walks_directories_and_skips_ignored_or_missing_paths() {
    let dir = project();
    let scanner = Scanner::new(dir.path(), &ScanOptions::default()).unwrap();
    let asked = [
        "packages/api",
        "src/app.ts",
        "src/scratch.tmp",
        "node_modules/react/index.js",
        "secrets/key.pem",
        "logs",
        "gone.py",
        "packages/api/main.go",
    ]
    .map(str::to_string);
    let report = scanner.scan_paths(&asked);
    assert_eq!(
        paths(&report),
        [
            "packages/api/.gitignore",
            "packages/api/main.go",
            "src/app.ts"
        ]
    );
}

#[test]
fn large_repositories_are_flagged() {
    let mut report = ScanReport::default();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.py", b"x = 1\n");
    let file = Scanner::new(dir.path(), &ScanOptions::default())
        .unwrap()
        .scan()
        .files
        .remove(0);
    report.files = vec![file; LARGE_REPOSITORY_FILES + 1];
    assert!(report.is_large());
}
