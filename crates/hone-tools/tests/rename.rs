//! `rename_symbol` end to end: the plan renames whole identifiers in every file that uses
//! them, touches nothing on disk until applied, respects ignore files and the project's
//! edges, and explains bad input.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use hone_tools::edit::{apply, undo};
use hone_tools::{EditPlan, Plan, ToolContext, ToolError, ToolErrorKind};
use serde_json::{Value, json};
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

fn rename(context: &ToolContext, arguments: Value) -> Result<EditPlan, ToolError> {
    let tool = hone_tools::edit::tools()
        .into_iter()
        .find(|tool| tool.name() == "rename_symbol")
        .unwrap();
    match tool.plan(context, &arguments)? {
        Plan::Edit(plan) => Ok(plan),
        other => panic!("rename_symbol should plan an edit, got {other:?}"),
    }
}

fn text(dir: &TempDir, path: &str) -> String {
    std::fs::read_to_string(dir.path().join(path)).unwrap()
}

const STATS: &str = "def calc_avg(values):\n    return sum(values) / len(values)\n\n\ndef calc_avg_all(groups):\n    return [calc_avg(g) for g in groups]\n";
const REPORT: &str =
    "from stats import calc_avg\n\n\ndef report(v):\n    return f\"mean {calc_avg(v):.1f}\"\n";

#[test]
fn every_use_in_every_file_is_renamed_and_undone() {
    let (dir, context) = project(&[
        ("stats.py", STATS),
        ("report.py", REPORT),
        ("notes.txt", "nothing here\n"),
    ]);
    let plan = rename(&context, json!({"name": "calc_avg", "new_name": "mean"})).unwrap();
    assert_eq!(
        plan.summary,
        "rename `calc_avg` to `mean`: 4 occurrences in 2 files"
    );
    let paths: Vec<&str> = plan
        .changes
        .iter()
        .map(|change| change.path.as_str())
        .collect();
    assert_eq!(paths, ["report.py", "stats.py"]);
    // Planning touches nothing.
    assert_eq!(text(&dir, "stats.py"), STATS);
    let applied = apply(&context, &plan).unwrap();
    assert_eq!(
        text(&dir, "stats.py"),
        "def mean(values):\n    return sum(values) / len(values)\n\n\ndef calc_avg_all(groups):\n    return [mean(g) for g in groups]\n"
    );
    assert!(text(&dir, "report.py").contains("from stats import mean\n"));
    assert!(text(&dir, "report.py").contains("{mean(v):.1f}"));
    undo(&context, &applied).unwrap();
    assert_eq!(text(&dir, "stats.py"), STATS);
    assert_eq!(text(&dir, "report.py"), REPORT);
}

#[test]
fn path_limits_the_rename_and_ignored_files_are_left_alone() {
    let (dir, context) = project(&[
        (
            "lib/user.js",
            "function getUserName() {}\nmodule.exports = { getUserName };\n",
        ),
        ("test/user.test.js", "getUserName();\n"),
        ("build/out.js", "getUserName();\n"),
        (".gitignore", "build/\n"),
    ]);
    let plan = rename(
        &context,
        json!({"name": "getUserName", "new_name": "displayName", "path": "lib"}),
    )
    .unwrap();
    assert_eq!(plan.changes.len(), 1);
    assert_eq!(plan.changes[0].path, "lib/user.js");
    let everywhere = rename(
        &context,
        json!({"name": "getUserName", "new_name": "displayName"}),
    )
    .unwrap();
    let paths: Vec<&str> = everywhere
        .changes
        .iter()
        .map(|change| change.path.as_str())
        .collect();
    assert_eq!(paths, ["lib/user.js", "test/user.test.js"]);
    assert_eq!(text(&dir, "build/out.js"), "getUserName();\n");
}

#[test]
fn bad_names_and_missing_symbols_are_explained() {
    let (_dir, context) = project(&[("a.py", "x = 1\n")]);
    let not_identifier = rename(&context, json!({"name": "f()", "new_name": "g"})).unwrap_err();
    assert_eq!(not_identifier.kind, ToolErrorKind::InvalidArguments);
    assert!(
        not_identifier.message.contains("not an identifier"),
        "{}",
        not_identifier.message
    );
    let same = rename(&context, json!({"name": "x", "new_name": "x"})).unwrap_err();
    assert!(same.message.contains("the same"), "{}", same.message);
    let missing = rename(&context, json!({"name": "y", "new_name": "z"})).unwrap_err();
    assert_eq!(missing.kind, ToolErrorKind::NotFound);
    let outside = rename(
        &context,
        json!({"name": "x", "new_name": "z", "path": "../"}),
    )
    .unwrap_err();
    assert!(!outside.message.is_empty());
}

#[cfg(unix)]
#[test]
fn a_symlink_out_of_the_project_is_not_followed() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.py"), "calc_avg = 1\n").unwrap();
    let (dir, context) = project(&[("stats.py", STATS)]);
    std::os::unix::fs::symlink(outside.path(), dir.path().join("linked")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.py"),
        dir.path().join("secret.py"),
    )
    .unwrap();
    let plan = rename(&context, json!({"name": "calc_avg", "new_name": "mean"})).unwrap();
    let paths: Vec<&str> = plan
        .changes
        .iter()
        .map(|change| change.path.as_str())
        .collect();
    assert_eq!(paths, ["stats.py"]);
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret.py")).unwrap(),
        "calc_avg = 1\n"
    );
}
