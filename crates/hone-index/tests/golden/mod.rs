//! The golden-outline harness shared by the per-language golden tests.
//!
//! Each fixture `tests/fixtures/<dir>/<file>` has its expected outline next to it in
//! `<file>.expected.json` (a pretty-printed `FileOutline`). Run with `HONE_UPDATE_GOLDEN=1` to
//! rewrite the expectations, then review the diff: the expectations are the specification.
#![allow(dead_code, clippy::unwrap_used)]

use std::fs;
use std::path::{Path, PathBuf};

use hone_index::Language;
use hone_index::parse::outline;

const EXPECTED_SUFFIX: &str = ".expected.json";

/// The fixture sources of one directory, sorted.
pub fn fixtures(directory: &str) -> Vec<PathBuf> {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(directory);
    let mut paths: Vec<PathBuf> = fs::read_dir(&directory)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| !path.to_string_lossy().ends_with(EXPECTED_SUFFIX))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no fixtures in {}", directory.display());
    paths
}

/// The language of a fixture, from its extension.
pub fn language_of(path: &Path) -> Language {
    Language::from_path(&path.to_string_lossy()).unwrap()
}

/// The outline of one fixture as pretty JSON.
pub fn rendered(path: &Path) -> String {
    let source = fs::read_to_string(path).unwrap();
    let mut json = serde_json::to_string_pretty(&outline(language_of(path), &source)).unwrap();
    json.push('\n');
    json
}

/// Compares every fixture of `directory` with its expected outline (or rewrites them).
pub fn check(directory: &str) {
    let update = std::env::var_os("HONE_UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    for path in fixtures(directory) {
        let actual = rendered(&path);
        let expected_path = PathBuf::from(format!("{}{EXPECTED_SUFFIX}", path.display()));
        if update {
            fs::write(&expected_path, &actual).unwrap();
            continue;
        }
        let expected = fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != actual {
            let line = expected
                .lines()
                .zip(actual.lines())
                .position(|(want, got)| want != got)
                .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
            failures.push(format!(
                "{}: first difference at line {}\n  expected: {}\n  actual:   {}",
                expected_path.display(),
                line + 1,
                expected.lines().nth(line).unwrap_or("<end>"),
                actual.lines().nth(line).unwrap_or("<end>"),
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "golden outlines differ (HONE_UPDATE_GOLDEN=1 rewrites them):\n{}",
        failures.join("\n")
    );
}
