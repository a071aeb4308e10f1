//! End-to-end tests of the `[index]` settings, `hone index --scope` and the warning before a
//! large first index.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Output;

fn write(root: &Path, path: &str, contents: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "src/store.ts",
        "export class Store {\n  get(key: string): string { return key; }\n}\n",
    );
    write(
        root,
        "src/main.ts",
        "import { Store } from './store';\nconst store = new Store();\nconsole.log(store.get('a'));\n",
    );
    write(
        root,
        "tool.py",
        "def helper(x: int) -> int:\n    return x\n",
    );
    dir
}

fn hone(root: &Path, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_hone"))
        .env_clear()
        .env("HOME", root.join(".home"))
        .env("HONE_DATA_DIR", root.join(".data"))
        .current_dir(root)
        .args(args)
        .output()
        .unwrap()
}

fn json(output: &Output) -> serde_json::Value {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn index_settings_choose_the_database_ignores_and_map_budget() {
    let dir = project();
    let root = dir.path();
    write(
        root,
        ".hone/config.toml",
        "[index]\ndatabase = \"data-dir\"\nextra_ignores = [\"*.py\"]\nmap_budget = 300\n",
    );
    let summary = json(&hone(root, &["index", "--json"]));
    assert_eq!(summary["files"], 2, "tool.py is ignored: {summary}");
    assert!(!root.join(".hone/index.db").exists());
    let databases: Vec<_> = std::fs::read_dir(root.join(".data/index"))
        .unwrap()
        .map(|entry| entry.unwrap().path().join("index.db"))
        .collect();
    assert_eq!(databases.len(), 1);
    assert!(databases[0].is_file());

    let map = hone(root, &["map"]);
    assert!(map.status.success(), "{}", stderr(&map));
    assert!(stderr(&map).contains("(budget 300)"), "{}", stderr(&map));
    let map = hone(root, &["map", "--budget", "500"]);
    assert!(stderr(&map).contains("(budget 500)"), "{}", stderr(&map));
    // The other commands read the same database.
    let symbols = hone(root, &["symbols", "Store"]);
    assert!(String::from_utf8_lossy(&symbols.stdout).contains("src/store.ts"));

    let shown = hone(root, &["config", "show"]);
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains("[index]"), "{shown}");
    assert!(shown.contains("database = \"data-dir\""), "{shown}");
    assert!(shown.contains("extra_ignores = \"*.py\""), "{shown}");
    assert!(shown.contains("watch_debounce_ms = 500"), "{shown}");
}

#[test]
fn invalid_index_settings_name_the_file_and_line() {
    let dir = project();
    write(dir.path(), ".hone/config.toml", "[index]\nmap_budget = 5\n");
    let output = hone(dir.path(), &["index"]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(message.contains("config.toml, line 2"), "{message}");
    assert!(message.contains("map_budget"), "{message}");
}

#[test]
fn a_scope_limits_the_index_until_reset() {
    let dir = project();
    let root = dir.path();
    let summary = json(&hone(root, &["index", "--scope", "src", "--json"]));
    assert_eq!(
        (summary["files"].as_u64(), summary["scope"].as_str()),
        (Some(2), Some("src"))
    );
    let summary = json(&hone(root, &["index", "--json"]));
    assert_eq!(summary["scope"], "src", "the scope is remembered");
    let status = json(&hone(root, &["index", "status", "--json"]));
    assert_eq!(
        (status["files"].as_u64(), status["scope"].as_str()),
        (Some(2), Some("src"))
    );
    let text = hone(root, &["index"]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("scope: src only"));
    let summary = json(&hone(root, &["index", "--scope", ".", "--json"]));
    assert_eq!(summary["files"], 3);
    assert!(summary["scope"].is_null());
    let refused = hone(root, &["index", "--scope", "nope"]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("cannot limit the index to `nope`"),
        "{}",
        stderr(&refused)
    );
}

#[test]
fn a_large_first_index_warns_without_a_terminal_and_indexes_anyway() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let files = hone_index::LARGE_REPOSITORY_FILES + 5;
    for n in 0..files {
        write(root, &format!("d{}/f{n}.txt", n % 100), "x\n");
    }
    let output = hone(root, &["index", "--json"]);
    let message = stderr(&output);
    assert!(
        message.contains(&format!("{files} files to index (more than 10000)")),
        "{message}"
    );
    assert!(message.contains("--scope DIR"), "{message}");
    assert_eq!(json(&output)["files"], files, "it indexes anyway");
    // Nothing new to index: no warning.
    let output = hone(root, &["index", "--json"]);
    assert!(
        !stderr(&output).contains("files to index"),
        "{}",
        stderr(&output)
    );
    assert_eq!(json(&output)["parsed"], 0);
}
