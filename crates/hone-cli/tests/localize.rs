//! End to end through the real `hone` binary: localisation and the guided flow for a small
//! model, against a mock model server.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Output;

use hone_testkit::{MockServer, Reply};
use serde_json::Value;

const MATH_TS: &str = "export function add(a: number, b: number): number {\n  return a - b;\n}\n\nexport function double(x: number): number {\n  return x * 2;\n}\n";
const APP_TS: &str = "import { add } from \"./math\";\n\nconsole.log(add(2, 3));\n";
const REQUEST: &str = "The add function in src/math.ts subtracts instead of adding. Fix it.";

/// A two-file TypeScript project.
fn project(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join(".hone")).unwrap();
    std::fs::write(root.join("src/math.ts"), MATH_TS).unwrap();
    std::fs::write(root.join("src/app.ts"), APP_TS).unwrap();
    std::fs::write(root.join(".hone/config.toml"), config).unwrap();
    dir
}

async fn hone(root: &Path, args: &[&str]) -> Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_hone"));
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", root.join(".home"))
        .env("XDG_CONFIG_HOME", root.join(".home/.config"))
        .env("HONE_DATA_DIR", root.join(".home/data"))
        .env("OPENAI_API_KEY", "test-key-abcdef123456")
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .args(args);
    tokio::task::spawn_blocking(move || command.output().expect("hone runs"))
        .await
        .unwrap()
}

async fn exec(root: &Path, server: &MockServer, model: &str) -> Output {
    let url = server.url();
    hone(
        root,
        &[
            "exec",
            "--provider",
            "openai",
            "--model",
            model,
            "--base-url",
            &url,
            "--approval",
            "auto-edit",
            REQUEST,
        ],
    )
    .await
}

fn first_request(server: &MockServer) -> Value {
    server.requests().first().expect("a model request").json()
}

#[tokio::test]
async fn a_small_model_gets_the_located_function_and_its_answer_fixes_the_file() {
    let dir = project("");
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .text("```ts src/math.ts\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n```")
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("Fixed: add now adds.").openai_chat());
    let output = exec(dir.path(), &server, "qwen2.5-coder-1.5b-instruct").await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The project has no tests: the fix is applied and reported unverified.
    assert_eq!(output.status.code(), Some(10), "{stderr}");
    // The answer's code block became the edit.
    let fixed = std::fs::read_to_string(dir.path().join("src/math.ts")).unwrap();
    assert!(fixed.contains("return a + b;"), "{fixed}");
    assert!(fixed.contains("export function double"), "{fixed}");
    assert!(
        stderr.contains(
            "hone: attached src/math.ts (whole file, mentions \"src/math.ts\", matches \"add\")"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("hone: guided change"), "{stderr}");
    let request = first_request(&server);
    let text = request.to_string();
    // The guided step has no tools, so the code comes without line numbers.
    assert!(
        text.contains(
            "```ts\\nexport function add(a: number, b: number): number {\\n  return a - b;"
        ),
        "{text}"
    );
    assert!(!text.contains("2│"), "{text}");
    assert!(text.contains("```ts src/math.ts\\n"), "{text}");
    // An applied guided change needs no narration request.
    assert_eq!(server.request_count(), 1);
    assert!(
        request["tools"].as_array().is_none_or(Vec::is_empty),
        "the guided change offers no tools: {request}"
    );
}

#[tokio::test]
async fn localisation_can_be_turned_off_for_small_models() {
    let dir = project("[context]\nlocalize = \"off\"\nmode = \"agent\"\n");
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("Which file?").openai_chat());
    let output = exec(dir.path(), &server, "qwen2.5-coder-1.5b-instruct").await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    // A fix was asked for and the answer changed nothing.
    assert_eq!(output.status.code(), Some(11), "{stderr}");
    assert!(!stderr.contains("hone: attached"), "{stderr}");
    assert!(!first_request(&server).to_string().contains("return a - b"));
}

#[tokio::test]
async fn a_large_model_can_turn_localisation_on_and_keeps_its_tools() {
    let dir = project("[context]\nlocalize = \"on\"\n");
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("I will fix it.").openai_chat());
    let output = exec(dir.path(), &server, "gpt-4.1").await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(11), "{stderr}");
    assert!(stderr.contains("hone: attached src/math.ts"), "{stderr}");
    assert!(!stderr.contains("guided"), "{stderr}");
    let request = first_request(&server);
    assert!(request.to_string().contains("2│   return a - b;"));
    assert!(
        request["tools"]
            .as_array()
            .is_some_and(|tools| !tools.is_empty())
    );
}

const TIMEPARSE_PY: &str = "def parse_duration(text):\n    \"\"\"Seconds in '2m', '30s' or '1h'.\"\"\"\n    units = {\"s\": 1, \"m\": 60, \"h\": 360}\n    return int(text[:-1]) * units[text[-1]]\n";
const TEST_TIMEPARSE_PY: &str = "import unittest\n\nfrom timeparse import parse_duration\n\n\nclass ParseDurationTest(unittest.TestCase):\n    def test_hours(self):\n        self.assertEqual(parse_duration(\"1h\"), 3600)\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n";

#[tokio::test]
async fn failing_tests_are_run_first_and_the_code_they_name_is_attached() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("timeparse.py"), TIMEPARSE_PY).unwrap();
    std::fs::write(root.join("test_timeparse.py"), TEST_TIMEPARSE_PY).unwrap();
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .text("```python timeparse.py\ndef parse_duration(text):\n    \"\"\"Seconds in '2m', '30s' or '1h'.\"\"\"\n    units = {\"s\": 1, \"m\": 60, \"h\": 3600}\n    return int(text[:-1]) * units[text[-1]]\n```")
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("Fixed the hour factor.").openai_chat());
    let url = server.url();
    let output = hone(
        root,
        &[
            "exec",
            "--provider",
            "openai",
            "--model",
            "qwen2.5-coder-1.5b-instruct",
            "--base-url",
            &url,
            "--approval",
            "full-auto",
            "The tests fail. Make them pass without changing the tests.",
        ],
    )
    .await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("run_tests"), "{stderr}");
    let text = first_request(&server).to_string();
    assert!(
        text.contains("The project's tests fail now"),
        "the failure output goes to the model: {text}"
    );
    assert!(text.contains("AssertionError"), "{text}");
    assert!(
        text.contains("def parse_duration(text):"),
        "the code the traceback names is attached: {text}"
    );
    assert!(
        text.contains("```py timeparse.py"),
        "the fix goes to the code: {text}"
    );
    let fixed = std::fs::read_to_string(root.join("timeparse.py")).unwrap();
    assert!(fixed.contains("\"h\": 3600"), "{fixed}");
    assert!(stderr.contains("checks passed"), "{stderr}");
}

/// The README's quick-start request, verbatim: a change and a run, so the guided change step
/// (not the agent loop of a run) fixes the file.
#[tokio::test]
async fn the_quick_start_request_takes_the_guided_change_step() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("src/math.js"),
        "function add(a, b) {\n  return a - b;\n}\n\nmodule.exports = { add };\n",
    )
    .unwrap();
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .text("```js src/math.js\nfunction add(a, b) {\n  return a + b;\n}\n```")
            .openai_chat(),
    );
    let url = server.url();
    let output = hone(
        root,
        &[
            "exec",
            "--provider",
            "openai",
            "--model",
            "qwen2.5-coder-1.5b-instruct",
            "--base-url",
            &url,
            "--approval",
            "auto-edit",
            "The add() function in src/math.js is wrong; fix it and run the tests",
        ],
    )
    .await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("hone: guided change"), "{stderr}");
    let fixed = std::fs::read_to_string(root.join("src/math.js")).unwrap();
    assert!(fixed.contains("return a + b;"), "{fixed}");
    assert!(fixed.contains("module.exports = { add };"), "{fixed}");
    let request = first_request(&server);
    assert!(
        request["tools"].as_array().is_none_or(Vec::is_empty),
        "the guided change offers no tools: {request}"
    );
}
