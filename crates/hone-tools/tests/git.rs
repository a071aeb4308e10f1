//! The git tools on real temporary repositories.
#![allow(clippy::unwrap_used)] // helpers outside #[test] functions panic on setup failure by design

use std::path::Path;
use std::process::Command;

use hone_tools::command::execute;
use hone_tools::git::tools;
use hone_tools::{
    CommandPlan, Invocation, Plan, ToolContext, ToolError, ToolErrorKind, ToolKind, ToolOutput,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A repository with one commit of `a.txt`, then `a.txt` modified and `new.txt` untracked.
fn repository() -> (tempfile::TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "--quiet", "--initial-branch=main"]);
    git(root, &["config", "user.name", "Ada Lovelace"]);
    git(root, &["config", "user.email", "ada@example.com"]);
    git(root, &["config", "commit.gpgsign", "false"]);
    std::fs::write(root.join("a.txt"), "one\ntwo\n").unwrap();
    git(root, &["add", "a.txt"]);
    git(root, &["commit", "--quiet", "-m", "Add a.txt"]);
    std::fs::write(root.join("a.txt"), "one\n2\n").unwrap();
    std::fs::write(root.join("new.txt"), "fresh\n").unwrap();
    let context = ToolContext::new(root).unwrap();
    (dir, context)
}

fn plan(context: &ToolContext, name: &str, arguments: Value) -> Result<Plan, ToolError> {
    let tool = tools()
        .into_iter()
        .find(|tool| tool.name() == name)
        .unwrap();
    tool.plan(context, &arguments)
}

fn read(context: &ToolContext, name: &str, arguments: Value) -> String {
    match plan(context, name, arguments).unwrap() {
        Plan::Done(ToolOutput {
            content, is_error, ..
        }) => {
            assert!(!is_error, "{content}");
            content
        }
        other => panic!("expected a finished read, got {other:?}"),
    }
}

fn commit_plan(context: &ToolContext, arguments: Value) -> CommandPlan {
    match plan(context, "git_commit", arguments).unwrap() {
        Plan::Command(plan) => plan,
        other => panic!("expected a command plan, got {other:?}"),
    }
}

async fn run(context: &ToolContext, plan: &CommandPlan) -> ToolOutput {
    let output = execute(context, plan, &CancellationToken::new()).await;
    assert!(!output.is_error, "{}", output.content);
    output
}

fn last_subject(dir: &Path) -> String {
    git(dir, &["log", "-1", "--format=%B"])
        .trim_end()
        .to_string()
}

#[test]
fn git_status_shows_the_branch_and_changed_files() {
    let (_dir, context) = repository();
    let status = read(&context, "git_status", json!({}));
    assert!(status.starts_with("branch main\n"), "{status}");
    assert!(
        status.contains("not staged:\n  modified: a.txt\n"),
        "{status}"
    );
    assert!(status.contains("untracked:\n  new.txt\n"), "{status}");
    assert!(status.contains("git_commit"), "{status}");
}

#[test]
fn git_status_of_a_clean_tree_says_so() {
    let (dir, context) = repository();
    git(dir.path(), &["checkout", "--quiet", "--", "a.txt"]);
    std::fs::remove_file(dir.path().join("new.txt")).unwrap();
    let status = read(&context, "git_status", json!({}));
    assert_eq!(
        status,
        "branch main\nnothing to commit, working tree clean\n"
    );
}

#[test]
fn git_tools_outside_a_repository_say_there_is_none() {
    let dir = tempfile::tempdir().unwrap();
    let context = ToolContext::new(dir.path()).unwrap();
    for (name, arguments) in [
        ("git_status", json!({})),
        ("git_diff", json!({})),
        ("git_log", json!({})),
        ("git_commit", json!({"message": "x"})),
    ] {
        let error = plan(&context, name, arguments).unwrap_err();
        assert_eq!(error.kind, ToolErrorKind::Command, "{name}");
        assert!(
            error.message.contains("not inside a git repository"),
            "{name}: {error}"
        );
    }
}

#[test]
fn git_diff_shows_unstaged_changes_and_staged_ones_on_request() {
    let (dir, context) = repository();
    let diff = read(&context, "git_diff", json!({}));
    assert!(diff.contains("--- a/a.txt\n+++ b/a.txt\n"), "{diff}");
    assert!(diff.contains("-two\n+2\n"), "{diff}");
    let staged = read(&context, "git_diff", json!({"staged": true}));
    assert!(staged.starts_with("no staged changes"), "{staged}");
    git(dir.path(), &["add", "a.txt"]);
    let staged = read(&context, "git_diff", json!({"staged": "true"}));
    assert!(staged.contains("+2\n"), "{staged}");
}

#[test]
fn git_diff_is_limited_to_the_given_path() {
    let (dir, context) = repository();
    std::fs::write(dir.path().join("b.txt"), "b\n").unwrap();
    git(dir.path(), &["add", "b.txt"]);
    git(dir.path(), &["commit", "--quiet", "-m", "Add b.txt"]);
    std::fs::write(dir.path().join("b.txt"), "bee\n").unwrap();
    let diff = read(&context, "git_diff", json!({"path": "b.txt"}));
    assert!(diff.contains("+bee"), "{diff}");
    assert!(!diff.contains("a.txt"), "{diff}");
    let error = plan(&context, "git_diff", json!({"path": "../outside"})).unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::PathRefused);
}

#[test]
fn a_long_diff_starts_with_the_files_changed() {
    let (dir, context) = repository();
    let long: String = (0..3000).map(|n| format!("line {n}\n")).collect();
    std::fs::write(dir.path().join("a.txt"), long).unwrap();
    let diff = read(&context, "git_diff", json!({}));
    assert!(
        diff.starts_with("The diff is long; files changed:\n a.txt"),
        "{diff}"
    );
    assert!(diff.contains("lines omitted"), "{diff}");
}

#[test]
fn git_log_shows_hash_date_author_and_subject() {
    let (dir, context) = repository();
    git(dir.path(), &["commit", "--quiet", "-am", "Change a.txt"]);
    let log = read(&context, "git_log", json!({}));
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 2, "{log}");
    assert!(
        lines[0].contains(" Ada Lovelace (HEAD -> main) Change a.txt"),
        "{log}"
    );
    assert!(lines[1].ends_with(" Ada Lovelace Add a.txt"), "{log}");
    let one = read(&context, "git_log", json!({"max_count": 1}));
    assert_eq!(one.lines().count(), 1, "{one}");
    let none = read(&context, "git_log", json!({"path": "new.txt"}));
    assert!(none.starts_with("no commits touch `new.txt`"), "{none}");
}

#[test]
fn git_commit_is_a_write_needing_a_message() {
    let (_dir, context) = repository();
    let tool = tools()
        .into_iter()
        .find(|tool| tool.name() == "git_commit")
        .unwrap();
    assert_eq!(tool.kind(), ToolKind::Write);
    let error = plan(&context, "git_commit", json!({"message": "  "})).unwrap_err();
    assert_eq!(error.kind, ToolErrorKind::InvalidArguments);
    assert!(error.message.contains("message"), "{error}");
}

#[tokio::test]
async fn git_commit_with_files_adds_and_commits_only_those() {
    let (dir, context) = repository();
    let plan = commit_plan(
        &context,
        json!({"message": "Add new.txt", "files": ["new.txt"]}),
    );
    assert_eq!(
        plan.display,
        "git add -- new.txt && git commit --only -m 'Add new.txt' -- new.txt"
    );
    assert!(
        matches!(&plan.invocation, Invocation::Argv(argv) if argv[0] == "env" && argv.iter().any(|part| part == "sh"))
    );
    let output = run(&context, &plan).await;
    assert!(
        output.content.starts_with("exit code 0 · "),
        "{}",
        output.content
    );
    assert_eq!(last_subject(dir.path()), "Add new.txt");
    let committed = git(dir.path(), &["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(committed, "new.txt\n");
    let status = read(&context, "git_status", json!({}));
    assert!(
        status.contains("not staged:\n  modified: a.txt\n"),
        "{status}"
    );
}

#[tokio::test]
async fn git_commit_passes_hostile_messages_and_paths_literally() {
    let (dir, context) = repository();
    let name = "we'ird $(touch pwned).txt";
    std::fs::write(dir.path().join(name), "x\n").unwrap();
    let message = "It's \"quoted\" $(touch pwned) `id`";
    let plan = commit_plan(&context, json!({"message": message, "files": [name]}));
    run(&context, &plan).await;
    assert_eq!(last_subject(dir.path()), message);
    assert!(!dir.path().join("pwned").exists());
}

#[tokio::test]
async fn git_commit_without_files_commits_tracked_changes() {
    let (dir, context) = repository();
    let plan = commit_plan(&context, json!({"message": "Update a.txt"}));
    assert_eq!(plan.display, "git commit -a -m 'Update a.txt'");
    let Invocation::Argv(argv) = &plan.invocation else {
        panic!("expected an argv, got {:?}", plan.invocation);
    };
    assert_eq!(argv[0], "env");
    assert!(
        argv.contains(&"core.hooksPath=/dev/null".to_string()),
        "{argv:?}"
    );
    assert!(
        argv.ends_with(&["commit", "-a", "-m", "Update a.txt"].map(String::from)),
        "{argv:?}"
    );
    run(&context, &plan).await;
    assert_eq!(last_subject(dir.path()), "Update a.txt");
    let status = read(&context, "git_status", json!({}));
    assert!(!status.contains("a.txt"), "{status}");
    assert!(status.contains("untracked:\n  new.txt\n"), "{status}");
}

#[tokio::test]
async fn git_commit_without_files_prefers_what_is_staged() {
    let (dir, context) = repository();
    std::fs::write(dir.path().join("b.txt"), "b\n").unwrap();
    git(dir.path(), &["add", "b.txt"]);
    let plan = commit_plan(&context, json!({"message": "Add b.txt"}));
    assert_eq!(plan.display, "git commit -m 'Add b.txt'");
    run(&context, &plan).await;
    let committed = git(dir.path(), &["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(committed, "b.txt\n");
}

#[test]
fn git_commit_with_only_new_files_asks_for_them_by_name() {
    let (dir, context) = repository();
    git(dir.path(), &["checkout", "--quiet", "--", "a.txt"]);
    let error = plan(&context, "git_commit", json!({"message": "x"})).unwrap_err();
    assert!(
        error.message.contains("\"files\": [\"new.txt\"]"),
        "{error}"
    );
    let error = plan(
        &context,
        "git_commit",
        json!({"message": "x", "files": ["a.txt"]}),
    )
    .unwrap_err();
    assert!(error.message.contains("a.txt has no changes"), "{error}");
}
