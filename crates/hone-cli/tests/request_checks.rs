//! End-to-end tests of requests that become checks: a call and its expected result in the
//! request is run as a small script in the project's language before the change (it must
//! fail) and after it (it must pass), and nothing of it is written into the project.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{events, of_type, stderr};
use hone_testkit::{MockServer, Reply};
use serde_json::{Value, json};

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    common::commit_all(dir.path());
    dir
}

/// `hone exec --approval full-auto --json REQUEST` against `replies`: the exit code and
/// the events.
async fn exec(repo: &tempfile::TempDir, replies: Vec<Reply>, request: &str) -> (i32, Vec<Value>) {
    let server = MockServer::start().await;
    for reply in replies {
        server.enqueue(reply.openai_chat());
    }
    let url = server.url();
    let output = common::exec_on(
        repo.path(),
        &url,
        &["--approval", "full-auto", "--json", request],
    )
    .await;
    eprintln!("{}", stderr(&output));
    (output.status.code().unwrap_or(-1), events(&output))
}

fn edit(path: &str, old: &str, new: &str) -> Reply {
    Reply::new().tool_call(
        "edit_file",
        json!({"path": path, "old_text": old, "new_text": new}),
    )
}

/// The `request_check` calls' outputs, in order.
fn request_checks(events: &[Value]) -> Vec<String> {
    of_type(events, "tool.completed")
        .into_iter()
        .filter(|event| event["name"] == "request_check")
        .map(|event| event["output"].as_str().unwrap().to_string())
        .collect()
}

/// The status of the request check in each `checks.completed`.
fn after_change(events: &[Value]) -> Vec<String> {
    of_type(events, "checks.completed")
        .into_iter()
        .flat_map(|event| event["checks"].as_array().cloned().unwrap_or_default())
        .filter(|check| check["name"] == "request check")
        .map(|check| check["status"].as_str().unwrap().to_string())
        .collect()
}

/// Every file of the project but `.git` and hone's own directories, with its content.
fn files(root: &std::path::Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if matches!(name.as_str(), ".git" | ".hone" | ".home") {
                continue;
            }
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path.strip_prefix(root).unwrap().display().to_string();
                found.push((relative, std::fs::read_to_string(&path).unwrap_or_default()));
            }
        }
    }
    found.sort();
    found
}

const CALC_PY: &str = "def add(a, b):\n    return a - b\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_request_check_fails_before_the_change_and_passes_after() {
    let repo = project(&[("shop/__init__.py", ""), ("shop/calc.py", CALC_PY)]);
    let (code, events) = exec(
        &repo,
        vec![
            edit("shop/calc.py", "return a - b", "return a + b"),
            Reply::new().text("Fixed."),
        ],
        "add(2, 3) should return 5 but it returns -1. Fix it.",
    )
    .await;
    let shown = request_checks(&events);
    assert_eq!(shown.len(), 1, "{events:#?}");
    assert!(
        shown[0].starts_with("reproduced: add(2, 3) == 5"),
        "{shown:?}"
    );
    assert!(shown[0].contains("returned -1, expected 5"), "{shown:?}");
    // The model was told, before it answered.
    let requested = of_type(&events, "tool.requested");
    assert!(
        requested
            .iter()
            .any(|event| event["arguments"]["file"] == "shop/calc.py"),
        "{requested:#?}"
    );
    assert_eq!(after_change(&events), ["passed"], "{events:#?}");
    // The request check verified the change: no project tests were needed.
    assert_eq!(code, 0, "{events:#?}");
    // Nothing of the check was written into the project.
    assert_eq!(
        files(repo.path()),
        [
            ("shop/__init__.py".to_string(), String::new()),
            (
                "shop/calc.py".to_string(),
                "def add(a, b):\n    return a + b\n".to_string()
            ),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_javascript_request_check_fails_before_the_change_and_passes_after() {
    let math = "function add(a, b) {\n  return a - b;\n}\n\nmodule.exports = { add };\n";
    let repo = project(&[("src/math.js", math)]);
    let (code, events) = exec(
        &repo,
        vec![
            edit("src/math.js", "return a - b;", "return a * b;"),
            Reply::new().text("Fixed."),
            // The repair round: the request check still fails.
            edit("src/math.js", "return a * b;", "return a + b;"),
            Reply::new().text("Fixed for real."),
        ],
        "add(2,3) returns -1 instead of 5 in src/math.js",
    )
    .await;
    let shown = request_checks(&events);
    assert_eq!(shown.len(), 1, "{events:#?}");
    assert!(
        shown[0].starts_with("reproduced: add(2,3) == 5"),
        "{shown:?}"
    );
    assert_eq!(after_change(&events), ["failed", "passed"], "{events:#?}");
    assert_eq!(code, 0, "{events:#?}");
    let fixed = std::fs::read_to_string(repo.path().join("src/math.js")).unwrap();
    assert!(fixed.contains("return a + b;"), "{fixed}");
}

/// An attempt that changes nothing is reported with the request check's verdict, not a line
/// of the script its command echoes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unchanged_attempt_names_the_request_check_s_verdict() {
    let math = "function add(a, b) {\n  return a - b;\n}\n\nmodule.exports = { add };\n";
    let repo = project(&[("src/math.js", math)]);
    let config = repo.path().join(".home/.config/hone/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "[context]\nmode = \"guided\"\n").unwrap();
    // The guided flow: the first answer writes the code back as it is.
    let (_, events) = exec(
        &repo,
        vec![
            Reply::new().text(&format!("```js src/math.js\n{math}```")),
            Reply::new().text(&format!("```js src/math.js\n{math}```")),
            Reply::new().text(&format!("```js src/math.js\n{math}```")),
            Reply::new().text(&format!("```js src/math.js\n{math}```")),
            Reply::new().text(&format!(
                "```js src/math.js\n{}```",
                math.replace("a - b", "a + b")
            )),
        ],
        "add(2,3) returns -1 instead of 5 in src/math.js",
    )
    .await;
    let attempts = of_type(&events, "attempt.completed");
    let first = attempts.first().unwrap_or_else(|| panic!("{events:#?}"));
    assert_eq!(first["unchanged"], true, "{first}");
    let failures = first["failures"].to_string();
    assert!(
        failures.contains("request check: hone check failed: add(2,3) returned -1, expected 5"),
        "{failures}"
    );
    assert!(!failures.contains("catch (error)"), "{failures}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_that_passes_before_the_change_is_not_used() {
    let repo = project(&[("calc.py", CALC_PY)]);
    let (_, events) = exec(
        &repo,
        vec![
            edit("calc.py", "return a - b", "return a + b"),
            Reply::new().text("Fixed."),
        ],
        "add(2, 2) should return 0, please fix add",
    )
    .await;
    let shown = request_checks(&events);
    assert_eq!(shown.len(), 1, "{events:#?}");
    assert!(
        shown[0].contains("holds before any change, so it does not reproduce the report"),
        "{shown:?}"
    );
    assert!(after_change(&events).is_empty(), "{events:#?}");
}
