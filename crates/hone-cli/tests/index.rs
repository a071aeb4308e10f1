//! End-to-end tests of the index commands on a small temporary project.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Output;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("src/store.ts"),
        "export class Store {\n  get(key: string): string { return key; }\n}\n",
    )
    .unwrap();
    std::fs::write(
        root.join("src/main.ts"),
        "import { Store } from './store';\n// TODO: configure\nconst store = new Store();\nconsole.log(store.get('a'));\n",
    )
    .unwrap();
    std::fs::write(
        root.join("tool.py"),
        "def helper(x: int) -> int:\n    return x\n",
    )
    .unwrap();
    dir
}

fn hone(root: &Path, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_hone"))
        .env_clear()
        .env("HOME", root.join(".home"))
        .current_dir(root)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn index_builds_then_skips_unchanged_files() {
    let dir = project();
    let first = hone(dir.path(), &["index", "--json"]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(summary["parsed"], 3);
    assert_eq!(summary["by_language"]["typescript"], 2);
    assert_eq!(summary["edges"], 1, "main.ts imports store.ts");
    let second = hone(dir.path(), &["index", "--json"]);
    let summary: serde_json::Value = serde_json::from_slice(&second.stdout).unwrap();
    assert_eq!(summary["parsed"], 0);
    let status = hone(dir.path(), &["index", "status", "--json"]);
    let status: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(status["files"], 3);
    let ignore = std::fs::read_to_string(dir.path().join(".hone/.gitignore")).unwrap();
    assert!(ignore.contains("index.db"));
}

#[test]
fn symbols_and_deps_answer_from_the_index() {
    let dir = project();
    let symbols = hone(dir.path(), &["symbols", "stor"]);
    assert!(
        symbols.status.success(),
        "{}",
        String::from_utf8_lossy(&symbols.stderr)
    );
    let text = String::from_utf8_lossy(&symbols.stdout);
    assert!(text.contains("src/store.ts:1:"), "{text}");
    let deps = hone(dir.path(), &["deps", "src/main.ts"]);
    assert!(String::from_utf8_lossy(&deps.stdout).contains("src/store.ts"));
    let reverse = hone(dir.path(), &["deps", "--reverse", "src/store.ts"]);
    assert!(String::from_utf8_lossy(&reverse.stdout).contains("src/main.ts"));
    let missing = hone(dir.path(), &["deps", "nope.ts"]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("not in the index"));
    let none = hone(dir.path(), &["symbols", "zzzz"]);
    assert_eq!(none.status.code(), Some(1));
}

#[test]
fn index_watch_reports_each_update_until_stopped() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    use std::sync::mpsc;
    use std::time::Duration;

    let dir = project();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_hone"))
        .env_clear()
        .env("HOME", dir.path().join(".home"))
        .current_dir(dir.path())
        .args(["index", "--watch"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (sender, lines) = mpsc::channel();
    let stdout_sender = sender.clone();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let stderr = BufReader::new(child.stderr.take().unwrap());
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let _ = stdout_sender.send(line);
        }
    });
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });
    let wait_for_line = |wanted: &dyn Fn(&str) -> bool| {
        let mut seen = Vec::new();
        loop {
            match lines.recv_timeout(Duration::from_secs(30)) {
                Ok(line) if wanted(&line) => return line,
                Ok(line) => seen.push(line),
                Err(error) => panic!("{error}; output so far: {seen:?}"),
            }
        }
    };
    wait_for_line(&|line| line.contains("watching") && line.contains("Ctrl-C"));
    std::fs::write(dir.path().join("src/extra.ts"), "export const extra = 1;\n").unwrap();
    // Under load the creation and the write may be reported separately; wait for the parse.
    let line = wait_for_line(&|line| line.starts_with("updated ") && line.contains("parsed 1"));
    assert!(line.contains("(parsed 1, removed 0)"), "{line}");
    assert!(line.ends_with(" ms"), "{line}");
    std::fs::remove_file(dir.path().join("tool.py")).unwrap();
    let line = wait_for_line(&|line| line.starts_with("updated ") && line.contains("removed 1"));
    assert!(line.contains("(parsed 0, removed 1)"), "{line}");
    child.kill().unwrap();
    child.wait().unwrap();
}
