//! The read tools against real directories: what the model sees and what it is told.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use hone_tools::files::{hash_bytes, suggest_paths};
use hone_tools::{Plan, ToolContext, ToolError, ToolErrorKind};
use serde_json::{Value, json};
use tempfile::TempDir;

fn project(files: &[(&str, &[u8])]) -> (TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    let context = ToolContext::new(dir.path()).unwrap();
    (dir, context)
}

fn call(context: &ToolContext, name: &str, arguments: Value) -> Result<String, ToolError> {
    let tool = hone_tools::files::tools()
        .into_iter()
        .find(|tool| tool.name() == name)
        .unwrap();
    match tool.plan(context, &arguments)? {
        Plan::Done(output) => {
            assert!(!output.is_error);
            Ok(output.content)
        }
        other => panic!("{name} should finish at once, got {other:?}"),
    }
}

fn read(context: &ToolContext, arguments: Value) -> String {
    call(context, "read_file", arguments).unwrap()
}

#[test]
fn every_read_tool_is_registered_with_its_contract_name() {
    let tools = hone_tools::files::tools();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name()).collect();
    assert_eq!(
        names,
        [
            "read_file",
            "list_dir",
            "search_files",
            "glob_files",
            "file_hash"
        ]
    );
    for tool in hone_tools::files::tools() {
        assert_eq!(tool.kind(), hone_tools::ToolKind::Read);
        assert_eq!(tool.spec().name, tool.name());
        assert_eq!(tool.spec().parameters["type"], "object");
    }
}

#[test]
fn read_file_numbers_lines_under_a_header_with_the_line_count() {
    let (_dir, context) = project(&[("src/a.rs", b"fn main() {\n    run();\n}\n")]);
    assert_eq!(
        read(&context, json!({"path": "src/a.rs"})),
        "src/a.rs (3 lines)\n1│ fn main() {\n2│     run();\n3│ }\n"
    );
}

#[test]
fn read_file_records_the_hash_of_the_raw_bytes() {
    let (_dir, context) = project(&[("a.txt", b"hello\n")]);
    assert_eq!(context.reads().seen("a.txt"), None);
    read(&context, json!({"path": "./a.txt"}));
    assert_eq!(context.reads().seen("a.txt"), Some(hash_bytes(b"hello\n")));
}

#[test]
fn read_file_shows_an_inclusive_line_range() {
    let text: String = (1..=20).map(|n| format!("line {n}\n")).collect();
    let (_dir, context) = project(&[("a.txt", text.as_bytes())]);
    let out = read(
        &context,
        json!({"path": "a.txt", "start_line": 9, "end_line": "11"}),
    );
    assert_eq!(
        out,
        "a.txt (lines 9–11 of 20)\n 9│ line 9\n10│ line 10\n11│ line 11\n"
    );
    let clamped = read(
        &context,
        json!({"path": "a.txt", "start_line": 19, "end_line": 99}),
    );
    assert!(
        clamped.starts_with("a.txt (lines 19–20 of 20)\n"),
        "{clamped}"
    );
}

#[test]
fn a_start_line_past_the_end_is_an_error_that_states_the_line_count() {
    let (_dir, context) = project(&[("a.txt", b"a\nb\nc\n")]);
    let error = call(
        &context,
        "read_file",
        json!({"path": "a.txt", "start_line": 10}),
    )
    .unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::InvalidArguments);
    assert!(error.message.contains("has 3 lines"), "{}", error.message);
    assert_eq!(context.reads().seen("a.txt"), None);
}

#[test]
fn an_empty_file_says_so() {
    let (_dir, context) = project(&[("empty.txt", b"")]);
    assert_eq!(
        read(&context, json!({"path": "empty.txt"})),
        "empty.txt (0 lines)\n[empty file]"
    );
}

#[test]
fn crlf_lines_are_shown_without_carriage_returns() {
    let (_dir, context) = project(&[("win.txt", b"one\r\ntwo\r\n")]);
    assert_eq!(
        read(&context, json!({"path": "win.txt"})),
        "win.txt (2 lines)\n1│ one\n2│ two\n"
    );
}

#[test]
fn a_missing_final_newline_still_shows_the_last_line() {
    let (_dir, context) = project(&[("a.txt", b"one\ntwo")]);
    assert_eq!(
        read(&context, json!({"path": "a.txt"})),
        "a.txt (2 lines)\n1│ one\n2│ two\n"
    );
}

#[test]
fn a_huge_file_keeps_head_and_tail_and_says_how_to_see_the_rest() {
    let text: String = (1..=5000).map(|n| format!("line {n}\n")).collect();
    let (_dir, context) = project(&[("big.txt", text.as_bytes())]);
    let out = read(&context, json!({"path": "big.txt"}));
    assert!(
        out.starts_with("big.txt (5000 lines)\n   1│ line 1\n"),
        "{out}"
    );
    assert!(out.contains("lines omitted (lines "), "{out}");
    assert!(out.contains("call read_file with start_line/end_line to see them"));
    assert!(out.ends_with("5000│ line 5000\n"));
    assert!(out.len() < 50 * 1024);
}

#[test]
fn binary_files_are_described_not_dumped() {
    let (_dir, context) = project(&[("logo.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")]);
    assert_eq!(
        read(&context, json!({"path": "logo.png"})),
        "logo.png\n[binary file, 16 bytes]"
    );
}

#[test]
fn non_utf8_text_is_decoded_as_latin1_with_a_note() {
    let (_dir, context) = project(&[("old.txt", b"caf\xe9\n")]);
    assert_eq!(
        read(&context, json!({"path": "old.txt"})),
        "old.txt (1 line)\n[not UTF-8: decoded as Latin-1]\n1│ café\n"
    );
}

#[test]
fn a_missing_file_gets_did_you_mean_suggestions() {
    let (_dir, context) = project(&[("src/store.ts", b"x\n"), ("src/main.ts", b"y\n")]);
    let error = call(
        &context,
        "read_file",
        json!({"path": "path/to/src/store.ts"}),
    )
    .unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::NotFound);
    assert!(
        error.message.contains("Did you mean `src/store.ts`?"),
        "{}",
        error.message
    );
    assert_eq!(
        suggest_paths(&context, "path/to/src/store.ts")
            .first()
            .map(String::as_str),
        Some("src/store.ts")
    );
}

#[test]
fn paths_outside_the_project_are_refused() {
    let (_dir, context) = project(&[("a.txt", b"x\n")]);
    let error = call(&context, "read_file", json!({"path": "../outside.txt"})).unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::PathRefused);
    let error = call(&context, "list_dir", json!({"path": "/etc"})).unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::PathRefused);
}

#[test]
fn reading_a_directory_points_to_list_dir() {
    let (_dir, context) = project(&[("src/a.rs", b"x\n")]);
    let error = call(&context, "read_file", json!({"path": "src"})).unwrap_err();
    assert!(error.message.contains("use list_dir"), "{}", error.message);
}

#[test]
fn list_dir_shows_a_tree_with_directories_first() {
    let (_dir, context) = project(&[
        ("README.md", b""),
        ("src/main.rs", b""),
        ("src/util/mod.rs", b""),
        ("src/util/deep/x.rs", b""),
    ]);
    assert_eq!(
        call(&context, "list_dir", json!({})).unwrap(),
        "./ (depth 2)\n  src/\n    util/\n    main.rs\n  README.md\n"
    );
    let deeper = call(&context, "list_dir", json!({"path": "src", "depth": 5})).unwrap();
    assert_eq!(
        deeper,
        "src/ (depth 5)\n  util/\n    deep/\n      x.rs\n    mod.rs\n  main.rs\n"
    );
}

#[test]
fn list_dir_hides_ignored_files_and_git_internals() {
    let (_dir, context) = project(&[
        (".gitignore", b"target/\n*.log\n"),
        (".honeignore", b"secrets/\n"),
        (".git/HEAD", b"ref: refs/heads/main\n"),
        ("target/debug/app", b""),
        ("debug.log", b""),
        ("secrets/key.pem", b""),
        ("src/lib.rs", b""),
    ]);
    let out = call(&context, "list_dir", json!({"depth": 3})).unwrap();
    assert_eq!(
        out,
        "./ (depth 3)\n  src/\n    lib.rs\n  .gitignore\n  .honeignore\n"
    );
}

#[test]
fn list_dir_caps_large_directories_and_says_how_many_were_cut() {
    let names: Vec<String> = (0..450).map(|n| format!("f{n:03}.txt")).collect();
    let files: Vec<(&str, &[u8])> = names
        .iter()
        .map(|name| (name.as_str(), b"".as_slice()))
        .collect();
    let (_dir, context) = project(&files);
    let out = call(&context, "list_dir", json!({"path": "."})).unwrap();
    assert!(
        out.ends_with(
            "[... 50 more entries not shown; list a subdirectory or use a smaller depth ...]\n"
        ),
        "{out}"
    );
}

#[test]
fn search_is_literal_and_case_insensitive_by_default() {
    let (_dir, context) = project(&[
        ("src/a.rs", b"let total = price * (1 + tax);\nTOTAL(\n"),
        ("src/b.rs", b"nothing here\n"),
    ]);
    let out = call(&context, "search_files", json!({"pattern": "total"})).unwrap();
    assert_eq!(
        out,
        "2 matches in 1 file for `total` (literal, case-insensitive):\n\
         src/a.rs:1: let total = price * (1 + tax);\nsrc/a.rs:2: TOTAL(\n"
    );
    let literal = call(&context, "search_files", json!({"pattern": "(1 + tax)"})).unwrap();
    assert!(literal.starts_with("1 match in 1 file"), "{literal}");
    let exact = call(
        &context,
        "search_files",
        json!({"pattern": "TOTAL", "case_sensitive": true}),
    )
    .unwrap();
    assert!(exact.contains("src/a.rs:2: TOTAL("), "{exact}");
    assert!(!exact.contains("src/a.rs:1:"), "{exact}");
}

#[test]
fn search_supports_regexes_and_explains_invalid_ones() {
    let (_dir, context) = project(&[("a.py", b"def run():\ndef stop():\nrunner = 1\n")]);
    let out = call(
        &context,
        "search_files",
        json!({"pattern": r"^def \w+\(", "regex": true}),
    )
    .unwrap();
    assert!(out.starts_with("2 matches"), "{out}");
    let error = call(
        &context,
        "search_files",
        json!({"pattern": "run(", "regex": "true"}),
    )
    .unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::InvalidArguments);
    assert!(
        error.message.contains("set regex=false"),
        "{}",
        error.message
    );
}

#[test]
fn search_respects_glob_path_ignores_and_skips_binary_files() {
    let (_dir, context) = project(&[
        (".gitignore", b"build/\n"),
        ("src/a.rs", b"needle\n"),
        ("src/a.ts", b"needle\n"),
        ("docs/n.md", b"needle\n"),
        ("build/out.rs", b"needle\n"),
        ("blob.bin", b"needle\0\0\0"),
    ]);
    let all = call(&context, "search_files", json!({"pattern": "needle"})).unwrap();
    assert!(all.starts_with("3 matches in 3 files"), "{all}");
    assert!(
        !all.contains("build/") && !all.contains("blob.bin"),
        "{all}"
    );
    let rust = call(
        &context,
        "search_files",
        json!({"pattern": "needle", "glob": "*.rs"}),
    )
    .unwrap();
    assert!(rust.starts_with("1 match in 1 file") && rust.contains("src/a.rs:1:"));
    let docs = call(
        &context,
        "search_files",
        json!({"pattern": "needle", "path": "docs"}),
    )
    .unwrap();
    assert!(docs.contains("docs/n.md:1: needle"), "{docs}");
    let none = call(&context, "search_files", json!({"pattern": "haystack"})).unwrap();
    assert!(none.starts_with("No matches for `haystack`"), "{none}");
}

#[test]
fn search_caps_results_and_counts_the_rest() {
    let text = "hit\n".repeat(30);
    let (_dir, context) = project(&[("a.txt", text.as_bytes())]);
    let out = call(
        &context,
        "search_files",
        json!({"pattern": "hit", "max_results": 10}),
    )
    .unwrap();
    assert_eq!(
        out.lines()
            .filter(|line| line.starts_with("a.txt:"))
            .count(),
        10
    );
    assert!(out.contains("[... 20 more matches not shown;"), "{out}");
}

#[test]
fn glob_files_lists_sorted_matches_and_explains_misses() {
    let (_dir, context) = project(&[
        ("src/b.rs", b""),
        ("src/a.rs", b""),
        ("src/deep/c.rs", b""),
        ("tests/t.rs", b""),
        ("README.md", b""),
    ]);
    assert_eq!(
        call(&context, "glob_files", json!({"pattern": "src/**/*.rs"})).unwrap(),
        "3 files match `src/**/*.rs`:\nsrc/a.rs\nsrc/b.rs\nsrc/deep/c.rs\n"
    );
    let anywhere = call(&context, "glob_files", json!({"pattern": "*.rs"})).unwrap();
    assert!(anywhere.starts_with("4 files match"), "{anywhere}");
    let none = call(&context, "glob_files", json!({"pattern": "*.go"})).unwrap();
    assert!(none.starts_with("No files match `*.go`"), "{none}");
}

#[test]
fn file_hash_reports_and_records_the_sha256() {
    let (_dir, context) = project(&[("a.txt", b"abc")]);
    let out = call(&context, "file_hash", json!({"path": "a.txt"})).unwrap();
    let hash = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    assert_eq!(out, format!("{hash}  a.txt (3 bytes)"));
    assert_eq!(context.reads().seen("a.txt").as_deref(), Some(hash));
}

#[test]
fn a_fifo_is_refused_by_read_file_and_skipped_by_search_instead_of_hanging() {
    let (dir, context) = project(&[("a.txt", b"needle\n")]);
    let made = std::process::Command::new("mkfifo")
        .arg(dir.path().join("pipe"))
        .status()
        .unwrap();
    assert!(made.success());
    let error = call(&context, "read_file", json!({"path": "pipe"})).unwrap_err();
    assert!(error.message.contains("not a regular file"), "{error}");
    let found = call(&context, "search_files", json!({"pattern": "needle"})).unwrap();
    assert!(found.contains("a.txt"), "{found}");
}

#[test]
fn reading_a_file_that_may_hold_secrets_waits_for_approval() {
    let (_dir, context) = project(&[(".env", b"API_KEY=abc\n"), ("notes.md", b"hi\n")]);
    let tool = hone_tools::files::tools()
        .into_iter()
        .find(|tool| tool.name() == "read_file")
        .unwrap();
    let Plan::SecretRead(read) = tool.plan(&context, &json!({"path": ".env"})).unwrap() else {
        panic!("a read of .env must wait for approval");
    };
    assert_eq!(read.path, ".env");
    assert!(read.output.content.contains("API_KEY=abc"));
    assert_eq!(read.hash, hash_bytes(b"API_KEY=abc\n"));
    // Not seen by the model until the core records it.
    assert_eq!(context.reads().seen(".env"), None);
}

#[test]
fn a_search_says_how_many_lines_of_a_secret_file_match_but_not_which() {
    let (_dir, context) = project(&[
        (".env", b"API_KEY=abc\n"),
        ("src/main.rs", b"const API_KEY: &str = \"\";\n"),
    ]);
    let found = call(&context, "search_files", json!({"pattern": "API_KEY"})).unwrap();
    assert!(found.contains("src/main.rs:1:"), "{found}");
    assert!(!found.contains("abc"), "{found}");
    assert!(
        found.contains("[.env may hold secrets: 1 matching line not shown"),
        "{found}"
    );
    let none = call(&context, "search_files", json!({"pattern": "abc"})).unwrap();
    assert!(none.starts_with("No matches"), "{none}");
    assert!(none.contains("\n[.env may hold secrets"), "{none}");
}
