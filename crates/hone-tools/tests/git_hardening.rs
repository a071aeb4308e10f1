//! The git tools never start a program the repository chose: a `.git/config` and
//! `.gitattributes` that came with the project set an fsmonitor, a textconv driver, a
//! clean filter and a hook that would each touch a canary outside the project.
#![allow(clippy::unwrap_used)] // helpers outside #[test] functions panic on setup failure by design

use std::path::{Path, PathBuf};
use std::process::Command;

use hone_tools::command::execute;
use hone_tools::git::tools;
use hone_tools::{Plan, ToolContext, ToolOutput};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn git(dir: &Path, args: &[&str]) {
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
}

/// A project with a poisoned repository; the canaries live outside it.
struct Poisoned {
    _dir: tempfile::TempDir,
    root: PathBuf,
    canaries: PathBuf,
    context: ToolContext,
}

impl Poisoned {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let canaries = dir.path().join("canaries");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&canaries).unwrap();
        git(&root, &["init", "--quiet", "--initial-branch=main"]);
        git(&root, &["config", "user.name", "Ada Lovelace"]);
        git(&root, &["config", "user.email", "ada@example.com"]);
        git(&root, &["config", "commit.gpgsign", "false"]);
        std::fs::write(root.join("a.txt"), "one\n").unwrap();
        git(&root, &["add", "a.txt"]);
        git(&root, &["commit", "--quiet", "-m", "Add a.txt"]);
        let touch = |name: &str| {
            let script = canaries.join(format!("{name}.sh"));
            let canary = canaries.join(name);
            std::fs::write(
                &script,
                format!("#!/bin/sh\ntouch '{}'\ncat\n", canary.display()),
            )
            .unwrap();
            Command::new("chmod")
                .arg("+x")
                .arg(&script)
                .status()
                .unwrap();
            script.display().to_string()
        };
        let fsmonitor = touch("fsmonitor");
        let textconv = touch("textconv");
        let filter = touch("filter");
        let hook = touch("hook");
        git(&root, &["config", "core.fsmonitor", &fsmonitor]);
        git(&root, &["config", "diff.evil.textconv", &textconv]);
        git(&root, &["config", "filter.evil.clean", &filter]);
        std::fs::write(root.join(".gitattributes"), "*.txt diff=evil filter=evil\n").unwrap();
        let hooks = root.join(".git/hooks");
        std::fs::create_dir_all(&hooks).unwrap();
        std::fs::copy(&hook, hooks.join("pre-commit")).unwrap();
        std::fs::copy(&hook, hooks.join("commit-msg")).unwrap();
        std::fs::write(root.join("a.txt"), "one\ntwo\n").unwrap();
        let context = ToolContext::new(&root).unwrap();
        Self {
            _dir: dir,
            root,
            canaries,
            context,
        }
    }

    fn read(&self, name: &str, arguments: Value) -> String {
        let tool = tools()
            .into_iter()
            .find(|tool| tool.name() == name)
            .unwrap();
        match tool.plan(&self.context, &arguments).unwrap() {
            Plan::Done(ToolOutput {
                content, is_error, ..
            }) => {
                assert!(!is_error, "{content}");
                content
            }
            other => panic!("expected a finished read, got {other:?}"),
        }
    }

    fn fired(&self) -> Vec<String> {
        ["fsmonitor", "textconv", "filter", "hook"]
            .into_iter()
            .filter(|name| self.canaries.join(name).exists())
            .map(String::from)
            .collect()
    }
}

#[test]
fn git_status_and_git_diff_run_no_program_of_the_repository() {
    let poisoned = Poisoned::new();
    let status = poisoned.read("git_status", json!({}));
    assert!(status.contains("a.txt"), "{status}");
    let diff = poisoned.read("git_diff", json!({}));
    assert!(diff.contains("+two"), "{diff}");
    let diff = poisoned.read("git_diff", json!({"path": "a.txt"}));
    assert!(diff.contains("+two"), "{diff}");
    poisoned.read("git_log", json!({}));
    assert_eq!(poisoned.fired(), Vec::<String>::new());
}

#[tokio::test]
async fn git_commit_runs_no_hook_or_fsmonitor_of_the_repository() {
    let poisoned = Poisoned::new();
    let tool = tools()
        .into_iter()
        .find(|tool| tool.name() == "git_commit")
        .unwrap();
    for arguments in [
        json!({"message": "Change a.txt"}),
        json!({"message": "Add b.txt", "files": ["b.txt"]}),
    ] {
        std::fs::write(poisoned.root.join("b.txt"), "b\n").unwrap();
        let Plan::Command(plan) = tool.plan(&poisoned.context, &arguments).unwrap() else {
            panic!("expected a command plan");
        };
        let output = execute(&poisoned.context, &plan, &CancellationToken::new()).await;
        assert!(!output.is_error, "{}", output.content);
    }
    let fired = poisoned.fired();
    assert!(
        !fired.contains(&"hook".to_string()) && !fired.contains(&"fsmonitor".to_string()),
        "{fired:?}"
    );
}

#[test]
fn git_diff_leaves_out_files_hidden_by_honeignore() {
    let poisoned = Poisoned::new();
    std::fs::write(poisoned.root.join("secret.env"), "KEY=old\n").unwrap();
    git(&poisoned.root, &["add", "secret.env"]);
    git(
        &poisoned.root,
        &[
            "-c",
            "core.hooksPath=/dev/null",
            "commit",
            "--quiet",
            "-m",
            "Add secret",
        ],
    );
    std::fs::write(poisoned.root.join("secret.env"), "KEY=canary-value\n").unwrap();
    std::fs::write(poisoned.root.join(".honeignore"), "*.env\n").unwrap();
    let context = ToolContext::new(&poisoned.root).unwrap();
    let tool = tools()
        .into_iter()
        .find(|tool| tool.name() == "git_diff")
        .unwrap();
    let Plan::Done(output) = tool.plan(&context, &json!({})).unwrap() else {
        panic!("expected a finished read");
    };
    assert!(
        !output.content.contains("canary-value"),
        "{}",
        output.content
    );
    assert!(output.content.contains("+two"), "{}", output.content);
    let error = tool
        .plan(&context, &json!({"path": "secret.env"}))
        .unwrap_err();
    assert!(error.message.contains(".honeignore"), "{error}");
}
