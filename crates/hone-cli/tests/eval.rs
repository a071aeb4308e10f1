//! `hone eval`: the suite runner against a scripted model, and the project's own suite
//! checked task by task (each check fails on the snapshot and passes with the solution).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Output;

use hone_testkit::{MockServer, Reply};
use serde_json::{Value, json};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A suite of two Python tasks: one the scripted model fixes, one it gives up on.
fn mini_suite(root: &Path) {
    for name in ["fix-add", "give-up"] {
        let task = root.join(name);
        write(
            &task.join("task.toml"),
            "prompt = \"add() subtracts; fix it\"\ncheck = \"python3 -B -m unittest -q\"\ntimeout = 120\nlanguage = \"python\"\ntags = [\"bugfix\"]\n",
        );
        write(
            &task.join("repo/calc.py"),
            "def add(a, b):\n    return a - b\n",
        );
        write(
            &task.join("repo/test_calc.py"),
            "import unittest\n\nimport calc\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(calc.add(2, 3), 5)\n",
        );
        write(
            &task.join("solution/calc.py"),
            "def add(a, b):\n    return a + b\n",
        );
    }
}

fn fix_script() -> Vec<Reply> {
    vec![
        Reply::new()
            .tool_call(
                "edit_file",
                json!({"path": "calc.py", "old_text": "a - b", "new_text": "a + b"}),
            )
            .usage(100, 10),
        Reply::new().text("Fixed add.").usage(120, 5),
    ]
}

async fn hone(home: &Path, args: Vec<String>) -> Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_hone"));
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("OPENAI_API_KEY", "test-key-abcdef123456")
        .stdin(std::process::Stdio::null())
        .args(args);
    tokio::task::spawn_blocking(move || command.output().expect("hone runs"))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_suite_runs_against_a_scripted_model() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite");
    mini_suite(&suite);
    let server = MockServer::start().await;
    for reply in fix_script() {
        server.enqueue(reply.openai_chat());
    }
    server.enqueue(Reply::new().text("I cannot fix this.").openai_chat());
    let home = dir.path().join("home");
    let url = server.url();
    let base = vec![
        "--provider".to_string(),
        "openai".into(),
        "--base-url".into(),
        url.clone(),
        "eval".into(),
        suite.display().to_string(),
    ];
    let mut args = base.clone();
    args.push("--json".into());
    let output = hone(&home, args).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "stdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert_eq!(lines[0]["task"], "fix-add");
    assert_eq!(lines[0]["solved"], true);
    assert_eq!(lines[0]["end"], "answered");
    // The edit and the checks after it.
    assert_eq!(lines[0]["tool_calls"], 2);
    assert_eq!(lines[0]["model_requests"], 2);
    assert_eq!(lines[0]["tokens"], 235);
    assert_eq!(lines[0]["language"], "python");
    assert_eq!(lines[0]["checks_passed"], true, "the syntax check ran");
    assert_eq!(lines[1]["task"], "give-up");
    assert_eq!(lines[1]["solved"], false);
    assert!(
        lines[1]["note"].as_str().unwrap().contains("FAILED"),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2]["type"], "summary");
    assert_eq!(lines[2]["solved"], 1);
    assert_eq!(lines[2]["total"], 2);
    assert_eq!(server.requests().len(), 3);
    // The snapshot in the suite is untouched.
    let original = std::fs::read_to_string(suite.join("fix-add/repo/calc.py")).unwrap();
    assert!(original.contains("a - b"));

    // The table, one task, its working copy kept.
    for reply in fix_script() {
        server.enqueue(reply.openai_chat());
    }
    let mut args = base;
    args.extend(["--task".to_string(), "fix-add".into(), "--keep".into()]);
    let output = hone(&home, args).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("solved 1/1"), "{stdout}");
    let kept = stdout
        .lines()
        .find_map(|line| line.trim().strip_prefix("kept: "))
        .expect("the kept copy is named");
    let fixed = std::fs::read_to_string(Path::new(kept).join("repo/calc.py")).unwrap();
    assert!(fixed.contains("a + b"));
    std::fs::remove_dir_all(kept).unwrap();

    // An unknown task is a usage error.
    let output = hone(
        &home,
        vec![
            "eval".into(),
            suite.display().to_string(),
            "--task".into(),
            "nope".into(),
        ],
    )
    .await;
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("no task `nope`"));
}

#[tokio::test]
async fn verify_finds_a_task_whose_check_passes_on_the_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite");
    mini_suite(&suite);
    write(
        &suite.join("give-up/repo/calc.py"),
        "def add(a, b):\n    return a + b\n",
    );
    let output = hone(
        &dir.path().join("home"),
        vec![
            "eval".into(),
            suite.display().to_string(),
            "--verify".into(),
        ],
    )
    .await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!output.status.success(), "{stdout}");
    assert!(stdout.contains("ok      fix-add"), "{stdout}");
    assert!(
        stdout.contains("BROKEN  give-up: the check passes on the snapshot"),
        "{stdout}"
    );
}

/// The project's suite (`eval/suite`): every task's check fails on its snapshot and
/// passes with its reference solution, so the suite cannot rot.
#[tokio::test]
async fn the_project_suite_verifies() {
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../eval/suite");
    // The real environment: the checks need the toolchains (rustup reads its home from it).
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_hone"));
    command
        .args(["eval", "--verify"])
        .arg(&suite)
        .env_remove("CARGO_TARGET_DIR")
        .stdin(std::process::Stdio::null());
    let output = tokio::task::spawn_blocking(move || command.output().expect("hone runs"))
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "stdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tasks = std::fs::read_dir(&suite)
        .unwrap()
        .filter(|entry| entry.as_ref().unwrap().path().join("task.toml").is_file())
        .count();
    assert!(tasks >= 40, "{tasks} tasks");
    assert!(
        stdout.contains(&format!("{tasks} of {tasks} tasks verified")),
        "{stdout}"
    );
}
