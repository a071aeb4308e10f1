//! `apply_patch` end to end: several files, creations, deletions, renames, fuzzy placement,
//! the sloppiness models bring, and all-or-nothing failure.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use hone_tools::edit::{apply, undo, unified_diff};
use hone_tools::{EditPlan, Plan, ToolContext, ToolError, ToolErrorKind};
use serde_json::json;
use tempfile::TempDir;

fn project(files: &[(&str, &str)]) -> (TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    let context = ToolContext::new(dir.path()).unwrap();
    (dir, context)
}

fn plan(context: &ToolContext, patch: &str) -> Result<EditPlan, ToolError> {
    let tool = hone_tools::edit::tools()
        .into_iter()
        .find(|tool| tool.name() == "apply_patch")
        .unwrap();
    match tool.plan(context, &json!({ "patch": patch }))? {
        Plan::Edit(plan) => Ok(plan),
        other => panic!("apply_patch should plan an edit, got {other:?}"),
    }
}

fn patch(context: &ToolContext, patch: &str) {
    apply(context, &plan(context, patch).unwrap()).unwrap();
}

fn text(dir: &TempDir, path: &str) -> String {
    std::fs::read_to_string(dir.path().join(path)).unwrap()
}

fn exists(dir: &TempDir, path: &str) -> bool {
    dir.path().join(path).exists()
}

const A: &str = "alpha\nbeta\ngamma\ndelta\n";
const B: &str = "one\ntwo\nthree\n";

#[test]
fn a_patch_changes_several_files_at_once() {
    let (dir, context) = project(&[("src/a.txt", A), ("src/b.txt", B)]);
    let diff = "diff --git a/src/a.txt b/src/a.txt\n--- a/src/a.txt\n+++ b/src/a.txt\n\
                @@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n\
                diff --git a/src/b.txt b/src/b.txt\n--- a/src/b.txt\n+++ b/src/b.txt\n\
                @@ -2,2 +2,3 @@\n two\n three\n+four\n";
    let planned = plan(&context, diff).unwrap();
    assert_eq!(
        planned.summary,
        "apply patch: edit src/a.txt (1 hunk), edit src/b.txt (1 hunk)"
    );
    assert_eq!(text(&dir, "src/a.txt"), A);
    apply(&context, &planned).unwrap();
    assert_eq!(text(&dir, "src/a.txt"), "alpha\nBETA\ngamma\ndelta\n");
    assert_eq!(text(&dir, "src/b.txt"), "one\ntwo\nthree\nfour\n");
}

#[test]
fn a_patch_creates_deletes_and_renames_files() {
    let (dir, context) = project(&[("old.txt", "bye\n"), ("src/a.txt", A)]);
    let diff = "--- /dev/null\n+++ b/docs/new.md\n@@ -0,0 +1,2 @@\n+# New\n+text\n\
                --- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n\
                diff --git a/src/a.txt b/lib/a.txt\nsimilarity index 90%\nrename from src/a.txt\n\
                rename to lib/a.txt\n--- a/src/a.txt\n+++ b/lib/a.txt\n@@ -3,2 +3,2 @@\n gamma\n-delta\n+DELTA\n";
    let planned = plan(&context, diff).unwrap();
    assert_eq!(
        planned.summary,
        "apply patch: create docs/new.md (2 lines), delete old.txt, move src/a.txt → lib/a.txt, \
         edit src/a.txt (1 hunk)"
    );
    let applied = apply(&context, &planned).unwrap();
    assert_eq!(text(&dir, "docs/new.md"), "# New\ntext\n");
    assert!(!exists(&dir, "old.txt"));
    assert!(!exists(&dir, "src/a.txt"));
    assert_eq!(text(&dir, "lib/a.txt"), "alpha\nbeta\ngamma\nDELTA\n");
    undo(&context, &applied).unwrap();
    assert!(!exists(&dir, "docs/new.md"));
    assert_eq!(text(&dir, "old.txt"), "bye\n");
    assert_eq!(text(&dir, "src/a.txt"), A);
    assert!(!exists(&dir, "lib/a.txt"));
}

#[test]
fn differing_old_and_new_paths_move_the_file() {
    let (dir, context) = project(&[("a.txt", B)]);
    patch(
        &context,
        "--- a/a.txt\n+++ b/moved/a.txt\n@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n",
    );
    assert!(!exists(&dir, "a.txt"));
    assert_eq!(text(&dir, "moved/a.txt"), "ONE\ntwo\nthree\n");
}

#[test]
fn hunks_are_found_when_line_numbers_are_off() {
    let lines: String = (1..=50).map(|n| format!("line {n}\n")).collect();
    let (dir, context) = project(&[("a.txt", &lines)]);
    patch(
        &context,
        "--- a/a.txt\n+++ b/a.txt\n@@ -10,3 +10,3 @@\n line 30\n-line 31\n+line thirty-one\n line 32\n",
    );
    assert!(text(&dir, "a.txt").contains("line 30\nline thirty-one\nline 32\n"));
}

#[test]
fn hunks_are_found_despite_whitespace_differences() {
    let code = "fn f() {\n\tif x {\n\t\ty();\n\t}\n}\n";
    let (dir, context) = project(&[("f.rs", code)]);
    patch(
        &context,
        "--- f.rs\n+++ f.rs\n@@ -2,3 +2,4 @@\n     if x {\n         y();\n+        z();\n     }\n",
    );
    assert_eq!(
        text(&dir, "f.rs"),
        "fn f() {\n\tif x {\n\t\ty();\n\t\tz();\n\t}\n}\n"
    );
}

#[test]
fn sloppy_patches_from_models_still_apply() {
    let (dir, context) = project(&[("src/a.txt", A), ("b.txt", "x\ny")]);
    let diff = "Here is the patch:\n```diff\n--- src/a.txt\n+++ src/a.txt\n@@ -1,99 +1,1 @@\n alpha\n-beta\n\
                +BETA\n\n@@\n gamma\n-delta\n+DELTA\n```\n\
                ```\n--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n```\n";
    patch(&context, diff);
    assert_eq!(text(&dir, "src/a.txt"), "alpha\nBETA\ngamma\nDELTA\n");
    assert_eq!(text(&dir, "b.txt"), "x\nz");
}

#[test]
fn codex_style_patches_apply_too() {
    let (dir, context) = project(&[("src/a.txt", A), ("old.txt", "x\n")]);
    let diff = "*** Begin Patch\n*** Update File: src/a.txt\n@@ beta\n gamma\n-delta\n+DELTA\n\
                *** Add File: new.txt\n+fresh\n*** Delete File: old.txt\n*** End Patch";
    patch(&context, diff);
    assert_eq!(text(&dir, "src/a.txt"), "alpha\nbeta\ngamma\nDELTA\n");
    assert_eq!(text(&dir, "new.txt"), "fresh\n");
    assert!(!exists(&dir, "old.txt"));
}

#[test]
fn no_newline_markers_are_respected() {
    let (dir, context) = project(&[("a.txt", "x\ny\n")]);
    patch(
        &context,
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n\\ No newline at end of file\n",
    );
    assert_eq!(text(&dir, "a.txt"), "x\nz");
}

#[test]
fn a_failing_hunk_says_which_file_which_hunk_and_why() {
    let (_dir, context) = project(&[("src/a.txt", A)]);
    let diff = "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+BETA\n\
                @@ -3,2 +3,2 @@ fn later\n gamma\n-epsilon\n+EPSILON\n";
    let error = plan(&context, diff).unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::EditFailed);
    let message = &error.message;
    assert!(
        message.starts_with("The patch was rejected and the file was not changed"),
        "{message}"
    );
    assert!(
        message.contains("hunk 2 of 2 for src/a.txt (`@@ -3,2 +3,2 @@ fn later`)"),
        "{message}"
    );
    assert!(message.contains("were not found"), "{message}");
    assert!(message.contains("3│ gamma\n4│ delta"), "{message}");
}

#[test]
fn one_bad_hunk_in_the_second_file_leaves_the_first_file_untouched() {
    let (dir, context) = project(&[("a.txt", A), ("b.txt", B)]);
    let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+BETA\n\
                --- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n one\n-TWO?\n+2\n";
    let error = plan(&context, diff).unwrap_err();
    assert!(
        error
            .message
            .starts_with("The whole patch was rejected and no file was changed"),
        "{}",
        error.message
    );
    assert!(error.message.contains("for b.txt"), "{}", error.message);
    assert_eq!(text(&dir, "a.txt"), A);
    assert_eq!(text(&dir, "b.txt"), B);
}

#[test]
fn a_write_failing_midway_restores_the_files_already_written() {
    let (dir, context) = project(&[("a.txt", A)]);
    // `x` is created as a file, so the directory `x/` cannot be: the third write fails
    // after the first two succeeded.
    let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-alpha\n+ALPHA\n\
                --- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+file\n\
                --- /dev/null\n+++ b/x/y.txt\n@@ -0,0 +1 @@\n+nested\n";
    let planned = plan(&context, diff).unwrap();
    let error = apply(&context, &planned).unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::Io);
    assert!(
        error.message.contains("Nothing was changed"),
        "{}",
        error.message
    );
    assert_eq!(text(&dir, "a.txt"), A);
    assert!(!exists(&dir, "x"));
}

#[test]
fn apply_refuses_a_patch_whose_file_changed_after_planning() {
    let (dir, context) = project(&[("a.txt", A), ("b.txt", B)]);
    let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-alpha\n+ALPHA\n\
                --- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-one\n+ONE\n";
    let planned = plan(&context, diff).unwrap();
    std::fs::write(dir.path().join("b.txt"), "someone else\n").unwrap();
    let error = apply(&context, &planned).unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::Conflict);
    assert!(error.message.contains("b.txt changed"), "{}", error.message);
    assert_eq!(text(&dir, "a.txt"), A);
}

#[test]
fn creating_an_existing_file_or_patching_a_missing_one_is_explained() {
    let (_dir, context) = project(&[("src/store.ts", "x\n")]);
    let create = plan(
        &context,
        "--- /dev/null\n+++ b/src/store.ts\n@@ -0,0 +1 @@\n+y\n",
    )
    .unwrap_err();
    assert!(
        create.message.contains("already exists"),
        "{}",
        create.message
    );
    let missing = plan(
        &context,
        "--- a/path/to/src/store.ts\n+++ b/path/to/src/store.ts\n@@ -1 +1 @@\n-x\n+y\n",
    )
    .unwrap_err();
    assert_eq!(missing.kind, ToolErrorKind::NotFound);
    assert!(
        missing.message.contains("Did you mean `src/store.ts`?"),
        "{}",
        missing.message
    );
}

#[test]
fn text_that_is_not_a_patch_gets_the_format_explained() {
    let (_dir, context) = project(&[]);
    let error = plan(&context, "please change beta to BETA").unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::InvalidArguments);
    assert!(error.message.contains("--- a/path"), "{}", error.message);
}

#[test]
fn patches_into_git_internals_are_refused() {
    let (_dir, context) = project(&[(".git/HEAD", "ref\n")]);
    let error = plan(
        &context,
        "--- a/.git/HEAD\n+++ b/.git/HEAD\n@@ -1 +1 @@\n-ref\n+x\n",
    )
    .unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::PathRefused);
}

#[test]
fn a_patch_plan_shows_as_a_unified_diff() {
    let (_dir, context) = project(&[("a.txt", B)]);
    let planned = plan(&context, "--- a.txt\n+++ a.txt\n@@\n one\n-two\n+2\n").unwrap();
    assert_eq!(
        unified_diff(&planned),
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
    );
}
