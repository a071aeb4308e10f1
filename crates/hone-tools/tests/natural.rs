//! Edits written in a reply, without language knowledge: path-labelled blocks,
//! SEARCH/REPLACE blocks and diffs work; unlabelled code is left alone.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::fs;

use hone_tools::ToolContext;
use hone_tools::edit::natural::{NaturalEdit, plan_reply};

fn project(files: &[(&str, &str)]) -> (tempfile::TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in files {
        fs::write(dir.path().join(path), content).unwrap();
    }
    let context = ToolContext::new(dir.path()).unwrap();
    (dir, context)
}

fn change(context: &ToolContext, request: &str, reply: &str) -> hone_tools::EditPlan {
    match plan_reply(context, request, reply) {
        NaturalEdit::Change(change) => change.plan,
        other => panic!("expected a change, got {other:?}"),
    }
}

#[test]
fn a_labelled_block_creates_a_file_and_two_search_blocks_chain() {
    let (_dir, context) = project(&[("notes.txt", "alpha\nbeta\ngamma\n")]);
    let reply = "new.md\n```\n# New\n```\n\nnotes.txt\n<<<<<<< SEARCH\nalpha\n=======\nALPHA\n>>>>>>> REPLACE\n\nnotes.txt\n<<<<<<< SEARCH\ngamma\n=======\nGAMMA\n>>>>>>> REPLACE\n";
    let plan = change(&context, "Make the notes loud", reply);
    assert_eq!(plan.changes.len(), 2);
    let notes = plan.changes.iter().find(|c| c.path == "notes.txt").unwrap();
    assert_eq!(notes.after.as_deref(), Some("ALPHA\nbeta\nGAMMA\n"));
    let created = plan.changes.iter().find(|c| c.path == "new.md").unwrap();
    assert!(created.before.is_none());
    assert_eq!(created.after.as_deref(), Some("# New\n"));
    hone_tools::edit::apply(&context, &plan).unwrap();
    assert_eq!(
        fs::read_to_string(context.root().join("notes.txt")).unwrap(),
        "ALPHA\nbeta\nGAMMA\n"
    );
}

#[test]
fn a_search_text_that_is_not_in_the_file_is_refused_with_the_closest_lines() {
    let (_dir, context) = project(&[("notes.txt", "alpha\nbeta\n")]);
    let reply = "notes.txt\n<<<<<<< SEARCH\ndelta\n=======\nDELTA\n>>>>>>> REPLACE\n";
    match plan_reply(&context, "change delta", reply) {
        NaturalEdit::Refused(reason) => assert!(reason.contains("notes.txt"), "{reason}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_partial_labelled_file_without_a_grammar_is_refused() {
    let (_dir, context) = project(&[("notes.txt", "alpha\nbeta\ngamma\n")]);
    let reply = "```notes.txt\nalpha\nBETA\n```";
    match plan_reply(&context, "fix beta", reply) {
        NaturalEdit::Refused(reason) => assert!(reason.contains("line 2 `beta`"), "{reason}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    let appended = "```notes.txt\nalpha\nbeta\ngamma\ndelta\n```";
    let plan = change(&context, "add delta", appended);
    assert_eq!(
        plan.changes[0].after.as_deref(),
        Some("alpha\nbeta\ngamma\ndelta\n")
    );
}

#[test]
fn a_diff_is_applied_and_a_diff_that_deletes_a_file_is_refused() {
    let (_dir, context) = project(&[("a.txt", "one\ntwo\n")]);
    let reply = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n";
    let plan = change(&context, "shout two", reply);
    assert_eq!(plan.changes[0].after.as_deref(), Some("one\nTWO\n"));
    let delete = "```diff\n--- a/a.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-one\n-two\n```";
    assert!(matches!(
        plan_reply(&context, "fix it", delete),
        NaturalEdit::Refused(_)
    ));
}

#[test]
fn without_a_grammar_unlabelled_code_and_questions_stay_answers() {
    let (_dir, context) = project(&[("notes.txt", "alpha\n")]);
    let code = "```python\ndef alpha():\n    return 1\n```";
    assert_eq!(
        plan_reply(&context, "fix alpha", code),
        NaturalEdit::Nothing
    );
    let labelled = "```python new.py\nx = 1\n```";
    assert_eq!(
        plan_reply(&context, "How would a new.py look?", labelled),
        NaturalEdit::Nothing
    );
    assert_eq!(
        plan_reply(&context, "fix alpha", "It is fine as it is."),
        NaturalEdit::Nothing
    );
}

#[test]
fn a_path_outside_the_project_is_refused() {
    let (_dir, context) = project(&[]);
    let reply = "../escape.txt\n<<<<<<< SEARCH\n=======\nx\n>>>>>>> REPLACE\n";
    assert!(matches!(
        plan_reply(&context, "write it", reply),
        NaturalEdit::Refused(_)
    ));
}

#[test]
fn code_identical_to_the_file_is_reported_unchanged() {
    let (_dir, context) = project(&[("math_utils.py", "def add(a, b):\n    return a - b\n")]);
    let copied = "```py math_utils.py\ndef add(a, b):\n    return a - b\n```";
    match plan_reply(&context, "Fix add: it subtracts", copied) {
        NaturalEdit::Unchanged { path } => assert_eq!(path, "math_utils.py"),
        other => panic!("expected unchanged, got {other:?}"),
    }
}

#[test]
fn a_labelled_copy_that_only_changes_blank_lines_is_unchanged() {
    let source = "def a():\n    return 1\n\n\ndef b():\n    return 2\n";
    let (_dir, context) = project(&[("calc.py", source)]);
    let reply = "```py calc.py\ndef a():\n    return 1  \n\ndef b():\n    return 2\n```";
    assert_eq!(
        plan_reply(&context, "Fix b", reply),
        NaturalEdit::Unchanged {
            path: "calc.py".to_string()
        }
    );
    // A real change is still a change (without a grammar: lines added).
    let fixed = "```py calc.py\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n```";
    assert!(matches!(
        plan_reply(&context, "Fix b", fixed),
        NaturalEdit::Change(_)
    ));
}

#[test]
fn an_empty_labelled_block_is_no_code_unless_deletion_was_asked() {
    let (_dir, context) = project(&[("notes.txt", "alpha\n")]);
    // The label alone, as small models sometimes answer: nothing to apply, nothing refused.
    let reply = "```txt notes.txt\n```\n```txt\nnotes.txt\n```";
    assert!(matches!(
        plan_reply(&context, "fix alpha", reply),
        NaturalEdit::Nothing
    ));
    let emptied = change(
        &context,
        "delete everything in notes.txt",
        "```txt notes.txt\n```",
    );
    assert_eq!(emptied.changes[0].after.as_deref(), Some(""));
    // A new file may be empty.
    let created = change(&context, "create an empty marker", "```txt empty.txt\n```");
    assert_eq!(created.changes[0].after.as_deref(), Some(""));
}

#[test]
fn a_new_file_reply_takes_its_one_unlabelled_block_as_the_file() {
    let (_dir, context) = project(&[("notes.txt", "alpha\n")]);
    let request = "Create slug.py with a slugify function";
    let reply = "```python\ndef slugify(text):\n    return text.lower()\n```";
    let plan =
        match hone_tools::edit::natural::plan_new_file_reply(&context, request, reply, "slug.py") {
            NaturalEdit::Change(change) => change.plan,
            other => panic!("expected a change, got {other:?}"),
        };
    assert_eq!(plan.changes[0].path, "slug.py");
    assert!(plan.changes[0].before.is_none());
    // Without the step's file the block names nothing to write.
    assert!(matches!(
        plan_reply(&context, request, reply),
        NaturalEdit::Nothing
    ));
    // A block in another language, or two blocks, are not guessed at.
    for reply in [
        "```js\nfunction slugify() {}\n```",
        "```py\na = 1\n```\n```py\nb = 2\n```",
    ] {
        assert!(matches!(
            hone_tools::edit::natural::plan_new_file_reply(&context, request, reply, "slug.py"),
            NaturalEdit::Nothing
        ));
    }
}

#[test]
fn changes_to_files_left_unchanged_are_taken_out_with_their_actions() {
    let (_dir, context) = project(&[
        ("cart.txt", "add\n"),
        ("test_cart.txt", "assert add\nassert remove\n"),
    ]);
    let reply = "cart.txt\n<<<<<<< SEARCH\nadd\n=======\nadd\nremove\n>>>>>>> REPLACE\n\n\
                 test_cart.txt\n<<<<<<< SEARCH\nassert remove\n=======\n>>>>>>> REPLACE\n\n\
                 new_test.txt\n```\nassert more\n```\n";
    let NaturalEdit::Change(mut change) = plan_reply(&context, "Add remove", reply) else {
        panic!("expected a change");
    };
    assert_eq!(change.plan.changes.len(), 3);
    let left = change.leave_unchanged(|path| path.contains("test"));
    // A new file is never "left as it is": only existing files are kept.
    assert_eq!(left, vec!["test_cart.txt".to_string()]);
    let paths: Vec<&str> = change
        .plan
        .changes
        .iter()
        .map(|c| c.path.as_str())
        .collect();
    assert_eq!(paths, ["cart.txt", "new_test.txt"]);
    assert!(
        change.actions.iter().all(|a| !a.contains("test_cart.txt")),
        "{:?}",
        change.actions
    );
    assert!(!change.plan.summary.contains("test_cart.txt"));
    assert!(change.leave_unchanged(|_| false).is_empty());
}
