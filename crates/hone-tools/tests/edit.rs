//! The write tools end to end: plan (no side effects), apply, undo, and the errors the
//! model gets back.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use hone_tools::edit::{apply, diff_stats, undo, unified_diff};
use hone_tools::{EditPlan, Plan, ToolContext, ToolError, ToolErrorKind};
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

fn plan(context: &ToolContext, name: &str, arguments: Value) -> Result<EditPlan, ToolError> {
    let tool = hone_tools::edit::tools()
        .into_iter()
        .find(|tool| tool.name() == name)
        .unwrap();
    match tool.plan(context, &arguments)? {
        Plan::Edit(plan) => Ok(plan),
        other => panic!("{name} should plan an edit, got {other:?}"),
    }
}

fn read(context: &ToolContext, path: &str) {
    let tool = hone_tools::files::tools()
        .into_iter()
        .find(|tool| tool.name() == "read_file")
        .unwrap();
    tool.plan(context, &json!({ "path": path })).unwrap();
}

fn disk(dir: &TempDir, path: &str) -> Vec<u8> {
    std::fs::read(dir.path().join(path)).unwrap()
}

fn text(dir: &TempDir, path: &str) -> String {
    String::from_utf8(disk(dir, path)).unwrap()
}

fn edit(old: &str, new: &str) -> Value {
    json!({"path": "src/a.rs", "old_text": old, "new_text": new})
}

const CODE: &str = "fn main() {\n    let a = 1;\n    let b = 2;\n    println!(\"{a} {b}\");\n}\n";

#[test]
fn every_write_tool_is_registered_with_its_contract_name() {
    let tools = hone_tools::edit::tools();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name()).collect();
    assert_eq!(
        names,
        [
            "write_file",
            "edit_file",
            "edit_lines",
            "apply_patch",
            "delete_file",
            "move_file",
            "rename_symbol"
        ]
    );
    for tool in hone_tools::edit::tools() {
        assert_eq!(tool.kind(), hone_tools::ToolKind::Write);
        assert_eq!(tool.spec().name, tool.name());
    }
}

#[test]
fn edit_file_plans_without_touching_the_disk_and_apply_writes() {
    let (dir, context) = project(&[("src/a.rs", CODE.as_bytes())]);
    let planned = plan(&context, "edit_file", edit("let b = 2;", "let b = 3;")).unwrap();
    assert_eq!(text(&dir, "src/a.rs"), CODE);
    assert_eq!(planned.summary, "edit src/a.rs (1 replacement at line 3)");
    assert_eq!(planned.destructive, None);
    let applied = apply(&context, &planned).unwrap();
    assert_eq!(text(&dir, "src/a.rs"), CODE.replace("b = 2", "b = 3"));
    assert_eq!(applied.summary, planned.summary);
    assert_eq!(
        context.reads().seen("src/a.rs"),
        Some(hone_tools::files::hash_bytes(&disk(&dir, "src/a.rs")))
    );
}

#[test]
fn edit_file_tolerates_indentation_and_reindents_the_new_text() {
    let (dir, context) = project(&[("src/a.rs", CODE.as_bytes())]);
    let planned = plan(
        &context,
        "edit_file",
        edit("let a = 1;  \nlet b = 2;", "let a = 1;\nlet b = a + 1;"),
    )
    .unwrap();
    assert!(
        planned.summary.contains("matched ignoring whitespace"),
        "{}",
        planned.summary
    );
    apply(&context, &planned).unwrap();
    assert_eq!(
        text(&dir, "src/a.rs"),
        CODE.replace("let b = 2;", "let b = a + 1;")
    );
}

#[test]
fn edit_file_without_a_match_shows_the_closest_lines_with_numbers() {
    let (_dir, context) = project(&[("src/a.rs", CODE.as_bytes())]);
    let error = plan(&context, "edit_file", edit("let b = 20;", "let b = 3;")).unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::EditFailed);
    assert!(
        error.message.contains("Did you mean line 3 of src/a.rs ("),
        "{}",
        error.message
    );
    assert!(
        error.message.contains("3│     let b = 2;"),
        "{}",
        error.message
    );
}

#[test]
fn edit_file_with_several_matches_lists_them_unless_replace_all() {
    let (dir, context) = project(&[("src/a.rs", b"x();\ny();\nx();\n")]);
    let error = plan(&context, "edit_file", edit("x();", "z();")).unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::EditFailed);
    assert!(error.message.contains("lines 1, 3"), "{}", error.message);
    assert!(
        error.message.contains("replace_all=true"),
        "{}",
        error.message
    );
    let mut arguments = edit("x();", "z();");
    arguments["replace_all"] = json!(true);
    apply(&context, &plan(&context, "edit_file", arguments).unwrap()).unwrap();
    assert_eq!(text(&dir, "src/a.rs"), "z();\ny();\nz();\n");
}

#[test]
fn edit_file_explains_identical_and_empty_old_text() {
    let (_dir, context) = project(&[("src/a.rs", CODE.as_bytes()), ("empty.txt", b"")]);
    let same = plan(&context, "edit_file", edit("let a = 1;", "let a = 1;")).unwrap_err();
    assert!(same.message.contains("identical"), "{}", same.message);
    let empty = plan(&context, "edit_file", edit("", "x")).unwrap_err();
    assert!(
        empty.message.contains("nothing to find"),
        "{}",
        empty.message
    );
    let empty_file = plan(
        &context,
        "edit_file",
        json!({"path": "empty.txt", "old_text": "", "new_text": "hi"}),
    )
    .unwrap_err();
    assert!(
        empty_file.message.contains("write_file"),
        "{}",
        empty_file.message
    );
}

#[test]
fn edit_file_on_a_missing_file_suggests_paths_and_write_file() {
    let (_dir, context) = project(&[("src/a.rs", CODE.as_bytes())]);
    let mut arguments = edit("a", "b");
    arguments["path"] = json!("lib/src/a.rs");
    let error = plan(&context, "edit_file", arguments).unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::NotFound);
    assert!(error.message.contains("`src/a.rs`"), "{}", error.message);
    assert!(error.message.contains("write_file"), "{}", error.message);
}

#[test]
fn edit_file_refuses_a_file_that_changed_since_it_was_read() {
    let (dir, context) = project(&[("src/a.rs", CODE.as_bytes())]);
    read(&context, "src/a.rs");
    std::fs::write(dir.path().join("src/a.rs"), CODE.replace("1", "5")).unwrap();
    let error = plan(&context, "edit_file", edit("let b = 2;", "let b = 3;")).unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::Conflict);
    assert!(error.message.contains("read it again"), "{}", error.message);
}

#[test]
fn crlf_files_stay_crlf() {
    let (dir, context) = project(&[("src/a.rs", b"one\r\ntwo\r\nthree\r\n")]);
    let planned = plan(&context, "edit_file", edit("two\nthree", "2\n3\n4")).unwrap();
    apply(&context, &planned).unwrap();
    assert_eq!(text(&dir, "src/a.rs"), "one\r\n2\r\n3\r\n4\r\n");
}

#[test]
fn a_missing_final_newline_stays_missing() {
    let (dir, context) = project(&[("src/a.rs", b"one\n    two")]);
    let planned = plan(&context, "edit_file", edit("two", "2")).unwrap();
    apply(&context, &planned).unwrap();
    assert_eq!(text(&dir, "src/a.rs"), "one\n    2");
    let tolerant = plan(&context, "edit_file", edit("one\n2", "1\n2")).unwrap();
    apply(&context, &tolerant).unwrap();
    assert_eq!(text(&dir, "src/a.rs"), "1\n    2");
}

#[test]
fn latin1_files_keep_their_bytes_through_edit_and_apply() {
    let (dir, context) = project(&[("src/a.rs", b"caf\xe9 = 1\nna\xefve = 2\n")]);
    let planned = plan(&context, "edit_file", edit("= 2", "= 3")).unwrap();
    apply(&context, &planned).unwrap();
    assert_eq!(disk(&dir, "src/a.rs"), b"caf\xe9 = 1\nna\xefve = 3\n");
    let error = plan(&context, "edit_file", edit("= 3", "= 3 €")).unwrap_err();
    assert!(error.message.contains("Latin-1"), "{}", error.message);
}

#[test]
fn edit_lines_requires_a_read_and_uses_its_line_numbers() {
    let (dir, context) = project(&[("src/a.rs", CODE.as_bytes())]);
    let arguments = json!({"path": "src/a.rs", "start_line": 2, "end_line": 3, "content": "    let a = 1; let b = 2;"});
    let error = plan(&context, "edit_lines", arguments.clone()).unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::NotRead);
    assert!(
        error.message.contains("read src/a.rs with read_file first"),
        "{}",
        error.message
    );
    read(&context, "src/a.rs");
    let planned = plan(&context, "edit_lines", arguments).unwrap();
    assert_eq!(
        planned.summary,
        "replace lines 2–3 of src/a.rs with 1 line (lines after 3 move by -1)"
    );
    apply(&context, &planned).unwrap();
    assert_eq!(
        text(&dir, "src/a.rs"),
        "fn main() {\n    let a = 1; let b = 2;\n    println!(\"{a} {b}\");\n}\n"
    );
}

#[test]
fn edit_lines_inserts_deletes_and_checks_the_range() {
    let (dir, context) = project(&[("a.txt", b"1\n2\n3\n")]);
    read(&context, "a.txt");
    let insert = json!({"path": "a.txt", "start_line": 4, "end_line": 3, "content": "4\n"});
    apply(&context, &plan(&context, "edit_lines", insert).unwrap()).unwrap();
    assert_eq!(text(&dir, "a.txt"), "1\n2\n3\n4\n");
    let delete = json!({"path": "a.txt", "start_line": 1, "end_line": 2, "content": ""});
    apply(&context, &plan(&context, "edit_lines", delete).unwrap()).unwrap();
    assert_eq!(text(&dir, "a.txt"), "3\n4\n");
    let outside = json!({"path": "a.txt", "start_line": 2, "end_line": 9, "content": "x"});
    let error = plan(&context, "edit_lines", outside).unwrap_err();
    assert!(
        error.message.contains("a.txt has 2 lines"),
        "{}",
        error.message
    );
}

#[test]
fn edit_lines_refuses_a_file_changed_after_the_read() {
    let (dir, context) = project(&[("a.txt", b"1\n2\n3\n")]);
    read(&context, "a.txt");
    std::fs::write(dir.path().join("a.txt"), "0\n1\n2\n3\n").unwrap();
    let arguments = json!({"path": "a.txt", "start_line": 1, "end_line": 1, "content": "one"});
    let error = plan(&context, "edit_lines", arguments).unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::Conflict);
}

#[test]
fn write_file_creates_files_and_their_directories() {
    let (dir, context) = project(&[]);
    let planned = plan(
        &context,
        "write_file",
        json!({"path": "new/deep/file.txt", "content": "hello\n"}),
    )
    .unwrap();
    assert_eq!(planned.summary, "create new/deep/file.txt (1 line)");
    assert!(!dir.path().join("new").exists());
    apply(&context, &planned).unwrap();
    assert_eq!(text(&dir, "new/deep/file.txt"), "hello\n");
}

#[test]
fn write_file_overwrites_only_what_was_read() {
    let (dir, context) = project(&[("a.txt", b"old\n")]);
    let arguments = json!({"path": "a.txt", "content": "new\n"});
    let error = plan(&context, "write_file", arguments.clone()).unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::NotRead);
    assert!(
        error.message.contains("read a.txt with read_file first"),
        "{}",
        error.message
    );
    read(&context, "a.txt");
    std::fs::write(dir.path().join("a.txt"), "changed\n").unwrap();
    let error = plan(&context, "write_file", arguments.clone()).unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::Conflict);
    read(&context, "a.txt");
    apply(&context, &plan(&context, "write_file", arguments).unwrap()).unwrap();
    assert_eq!(text(&dir, "a.txt"), "new\n");
}

#[test]
fn write_file_that_removes_most_of_a_file_is_flagged_destructive() {
    let long: String = (1..=40).map(|n| format!("line {n}\n")).collect();
    let (_dir, context) = project(&[("a.txt", long.as_bytes())]);
    read(&context, "a.txt");
    let planned = plan(
        &context,
        "write_file",
        json!({"path": "a.txt", "content": "line 1\n// rest unchanged\n"}),
    )
    .unwrap();
    let reason = planned.destructive.unwrap();
    assert!(reason.contains("use edit_file"), "{reason}");
    let full = plan(
        &context,
        "write_file",
        json!({"path": "a.txt", "content": long.replace("line 7\n", "line seven\n")}),
    )
    .unwrap();
    assert_eq!(full.destructive, None);
}

#[test]
fn apply_refuses_a_file_that_changed_between_plan_and_apply() {
    let (dir, context) = project(&[("src/a.rs", CODE.as_bytes())]);
    let planned = plan(&context, "edit_file", edit("let b = 2;", "let b = 3;")).unwrap();
    std::fs::write(dir.path().join("src/a.rs"), "fn main() {}\n").unwrap();
    let error = apply(&context, &planned).unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::Conflict);
    assert!(
        error.message.contains("nothing was written"),
        "{}",
        error.message
    );
    assert_eq!(text(&dir, "src/a.rs"), "fn main() {}\n");
}

#[test]
fn undo_restores_the_files_before_the_edit() {
    let (dir, context) = project(&[("src/a.rs", CODE.as_bytes())]);
    let planned = plan(&context, "edit_file", edit("let b = 2;", "let b = 3;")).unwrap();
    let applied = apply(&context, &planned).unwrap();
    undo(&context, &applied).unwrap();
    assert_eq!(text(&dir, "src/a.rs"), CODE);
    assert_eq!(context.reads().seen("src/a.rs"), None);
}

#[test]
fn undo_refuses_to_overwrite_later_changes() {
    let (dir, context) = project(&[("src/a.rs", CODE.as_bytes())]);
    let planned = plan(&context, "edit_file", edit("let b = 2;", "let b = 3;")).unwrap();
    let applied = apply(&context, &planned).unwrap();
    std::fs::write(dir.path().join("src/a.rs"), "user change\n").unwrap();
    let error = undo(&context, &applied).unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::Conflict);
    assert_eq!(text(&dir, "src/a.rs"), "user change\n");
}

#[test]
fn delete_and_move_apply_and_undo() {
    let (dir, context) = project(&[("a.txt", b"A\n"), ("b.bin", b"\0\x01\xff")]);
    let deleted = apply(
        &context,
        &plan(&context, "delete_file", json!({"path": "a.txt"})).unwrap(),
    )
    .unwrap();
    assert!(!dir.path().join("a.txt").exists());
    undo(&context, &deleted).unwrap();
    assert_eq!(text(&dir, "a.txt"), "A\n");
    let moved = plan(
        &context,
        "move_file",
        json!({"from": "b.bin", "to": "assets/b.bin"}),
    )
    .unwrap();
    assert_eq!(moved.summary, "move b.bin → assets/b.bin");
    let moved = apply(&context, &moved).unwrap();
    assert_eq!(disk(&dir, "assets/b.bin"), b"\0\x01\xff");
    assert!(!dir.path().join("b.bin").exists());
    undo(&context, &moved).unwrap();
    assert_eq!(disk(&dir, "b.bin"), b"\0\x01\xff");
    assert!(!dir.path().join("assets/b.bin").exists());
}

#[test]
fn move_file_refuses_an_existing_destination() {
    let (_dir, context) = project(&[("a.txt", b"A\n"), ("b.txt", b"B\n")]);
    let error = plan(
        &context,
        "move_file",
        json!({"from": "a.txt", "to": "b.txt"}),
    )
    .unwrap_err();
    assert!(
        error.message.contains("already exists"),
        "{}",
        error.message
    );
    let missing = plan(&context, "delete_file", json!({"path": "c.txt"})).unwrap_err();
    assert_eq!(missing.kind, ToolErrorKind::NotFound);
}

#[test]
fn path_guard_refusals_surface_as_path_refused() {
    let (_dir, context) = project(&[(".git/config", b"[core]\n"), ("a.txt", b"A\n")]);
    for arguments in [
        json!({"path": ".git/config", "content": "x"}),
        json!({"path": "../escape.txt", "content": "x"}),
        json!({"path": "/etc/passwd", "content": "x"}),
    ] {
        let error = plan(&context, "write_file", arguments).unwrap_err();
        assert_eq!(error.kind, ToolErrorKind::PathRefused, "{}", error.message);
    }
    let error = plan(
        &context,
        "move_file",
        json!({"from": "a.txt", "to": "../a.txt"}),
    )
    .unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::PathRefused);
}

#[cfg(unix)]
#[test]
fn apply_keeps_the_files_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, context) = project(&[("run.sh", b"echo hi\n")]);
    let path = dir.path().join("run.sh");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let planned = plan(
        &context,
        "edit_file",
        json!({"path": "run.sh", "old_text": "hi", "new_text": "hello"}),
    )
    .unwrap();
    apply(&context, &planned).unwrap();
    let mode = std::fs::metadata(Path::new(&path))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755);
}

#[test]
fn plans_show_as_unified_diffs_with_stats() {
    let (_dir, context) = project(&[("src/a.rs", CODE.as_bytes())]);
    let planned = plan(
        &context,
        "edit_file",
        edit("let b = 2;", "let b = 3;\n    let c = 4;"),
    )
    .unwrap();
    let diff = unified_diff(&planned);
    assert!(
        diff.starts_with("--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1,5 +1,6 @@\n"),
        "{diff}"
    );
    assert!(
        diff.contains("-    let b = 2;\n+    let b = 3;\n+    let c = 4;\n"),
        "{diff}"
    );
    assert_eq!(diff_stats(&planned), (2, 1));
}
