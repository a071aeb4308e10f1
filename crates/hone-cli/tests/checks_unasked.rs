//! End-to-end tests of hone's own checks in headless `auto-edit`: with the sandbox's
//! namespaces they run unasked (the model sees the failure and repairs it), and a change
//! no check could verify ends as `unverified` with its own exit code.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{events, of_type, stderr};
use hone_testkit::{MockServer, Reply};
use serde_json::json;

/// Whether commands get the sandbox's namespaces here; says why not when they do not.
fn namespaces(root: &std::path::Path) -> bool {
    let probe = common::command(root)
        .args(["sandbox", "--", "sh", "-c", "printf %s \"$HONE_SANDBOX\""])
        .output()
        .unwrap();
    let marker = String::from_utf8_lossy(&probe.stdout).into_owned();
    if marker == "namespaces" {
        return true;
    }
    eprintln!(
        "SKIPPED: no namespaces for commands here: {}",
        stderr(&probe)
    );
    false
}

/// A JavaScript project whose `add` subtracts, with a test `npm test` runs.
fn project(with_tests: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("src/math.js"),
        "function add(a, b) {\n  return a - b;\n}\n\nmodule.exports = { add };\n",
    )
    .unwrap();
    if with_tests {
        std::fs::write(
            root.join("test.js"),
            "const { add } = require('./src/math');\n\
             if (add(2, 3) !== 5) { console.error('FAIL add(2, 3) gave ' + add(2, 3)); process.exit(1); }\n\
             console.log('all tests pass');\n",
        )
        .unwrap();
        std::fs::write(
            root.join("package.json"),
            "{\"name\":\"math\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"node test.js\"}}\n",
        )
        .unwrap();
    }
    common::commit_all(root);
    dir
}

fn edit(old: &str, new: &str) -> Reply {
    Reply::new().tool_call(
        "edit_file",
        json!({"path": "src/math.js", "old_text": old, "new_text": new}),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_edit_without_a_terminal_runs_the_checks_and_repairs() {
    let repo = project(true);
    if !namespaces(repo.path()) {
        return;
    }
    let server = MockServer::start().await;
    for reply in [
        edit("return a - b;", "return a * b;"),
        Reply::new().text("Fixed."),
        edit("return a * b;", "return a + b;"),
        Reply::new().text("Fixed for real."),
    ] {
        server.enqueue(reply.openai_chat());
    }
    let url = server.url();
    let output = common::exec_on(
        repo.path(),
        &url,
        &["--approval", "auto-edit", "--json", "make add() add"],
    )
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let events = events(&output);
    let checks = of_type(&events, "checks.completed");
    assert_eq!(checks.len(), 2, "{events:#?}");
    assert_eq!(checks[0]["passed"], false);
    assert_eq!(checks[1]["passed"], true);
    let npm = &checks[0]["checks"][1];
    assert_eq!(npm["name"], "npm test", "{npm}");
    assert_eq!(npm["status"], "failed", "{npm}");
    assert!(
        of_type(&events, "approval.needed").is_empty(),
        "nothing asked"
    );
    // The model was told the failing assertion, not that a check was skipped.
    let repair = server.requests()[2].json().to_string();
    assert!(repair.contains("FAIL add(2, 3) gave 6"), "{repair}");
    assert!(!repair.contains("no terminal to ask"), "{repair}");
    let math = std::fs::read_to_string(repo.path().join("src/math.js")).unwrap();
    assert!(math.contains("return a + b;"), "{math}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_no_check_could_verify_is_reported_unverified() {
    let repo = project(false);
    if !namespaces(repo.path()) {
        return;
    }
    let server = MockServer::start().await;
    server.enqueue(edit("return a - b;", "return a + b;").openai_chat());
    server.enqueue(Reply::new().text("Done.").openai_chat());
    let url = server.url();
    let output = common::exec_on(
        repo.path(),
        &url,
        &["--approval", "auto-edit", "--json", "make add() add"],
    )
    .await;
    assert_eq!(output.status.code(), Some(10), "{}", stderr(&output));
    let events = events(&output);
    let turn = of_type(&events, "turn.completed");
    assert_eq!(turn[0]["end"], "unverified", "{events:#?}");
    let result = of_type(&events, "result");
    assert_eq!(result[0]["status"], "unverified", "{events:#?}");

    // Without --json the summary says so too.
    let server = MockServer::start().await;
    server.enqueue(edit("return a + b;", "return b + a;").openai_chat());
    server.enqueue(Reply::new().text("Done.").openai_chat());
    let url = server.url();
    let output = common::exec_on(
        repo.path(),
        &url,
        &["--approval", "auto-edit", "swap the operands"],
    )
    .await;
    assert_eq!(output.status.code(), Some(10), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("unverified"),
        "{}",
        stderr(&output)
    );
}

/// Plain Java sources with a `TestMain`: the check compiles them into the command's own
/// temporary directory, since `.hone` is read-only inside the sandbox.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_java_sources_are_compiled_and_tested_inside_the_sandbox() {
    if std::process::Command::new("javac")
        .arg("-version")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED: no javac here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("src/MathUtil.java"),
        "public final class MathUtil {\n    static int add(int a, int b) {\n        return a - b;\n    }\n}\n",
    )
    .unwrap();
    std::fs::write(
        root.join("src/TestMain.java"),
        "public class TestMain {\n    public static void main(String[] args) {\n        \
         if (MathUtil.add(2, 3) != 5) {\n            System.err.println(\"FAIL add(2, 3) gave \" + MathUtil.add(2, 3));\n            \
         System.exit(1);\n        }\n        System.out.println(\"ok\");\n    }\n}\n",
    )
    .unwrap();
    common::commit_all(root);
    if !namespaces(root) {
        return;
    }
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .tool_call(
                "edit_file",
                json!({"path": "src/MathUtil.java", "old_text": "return a - b;", "new_text": "return a + b;"}),
            )
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("Fixed.").openai_chat());
    let url = server.url();
    let output = common::exec_on(
        root,
        &url,
        &["--approval", "auto-edit", "--json", "make add() add"],
    )
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let events = events(&output);
    let checks = of_type(&events, "checks.completed");
    assert_eq!(checks.last().unwrap()["passed"], true, "{events:#?}");
    let names: Vec<String> = checks[0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|check| check["name"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(names.iter().any(|name| name == "java tests"), "{names:?}");
    assert!(!root.join(".hone/java-classes").exists());
}
