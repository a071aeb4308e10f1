//! End to end through the real `hone` binary: the tests run the way the project runs
//! them. A Python `src/` layout whose Makefile's command cannot import the package: that
//! run is hone's note and the next command (with `PYTHONPATH=src`) runs the tests; a
//! JavaScript project's `npm test` failure reaches the model as the failing assertion,
//! even when the output around it is long. A scripted mock model answers.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Output;

use hone_testkit::{MockServer, Reply};

const REQUEST: &str = "The tests fail. Make them pass without changing the tests.";

fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

async fn exec(root: &Path, server: &MockServer) -> Output {
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
        .args([
            "exec",
            "--provider",
            "openai",
            "--model",
            "qwen2.5-coder-1.5b-instruct",
            "--base-url",
            &server.url(),
            "--approval",
            "full-auto",
            REQUEST,
        ]);
    tokio::task::spawn_blocking(move || command.output().expect("hone runs"))
        .await
        .unwrap()
}

fn first_request(server: &MockServer) -> String {
    server
        .requests()
        .first()
        .expect("a model request")
        .json()
        .to_string()
}

const CART_PY: &str = "from shop.prices import discount\n\n\ndef total(prices, percent):\n    \"\"\"The sum of prices with the discount applied.\"\"\"\n    return discount(sum(prices), percent)\n";
const PRICES_PY: &str =
    "def discount(amount, percent):\n    return amount - amount * percent * 10 / 100\n";
const TEST_CART_PY: &str = "import unittest\n\nfrom shop.cart import total\n\n\nclass TotalTest(unittest.TestCase):\n    def test_total_with_discount(self):\n        self.assertEqual(total([60, 40], 10), 90)\n\n    def test_total_without_discount(self):\n        self.assertEqual(total([1, 2], 0), 3)\n";

#[tokio::test]
async fn a_src_layout_is_tested_with_its_source_on_the_path_and_the_import_error_is_not_the_bug() {
    if !on_path("python3") || !on_path("make") {
        eprintln!("SKIPPED: needs python3 and make");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        &[
            (
                "pyproject.toml",
                "[project]\nname = \"shop\"\nversion = \"0.1.0\"\n",
            ),
            // Written for an installed package: from a checkout it cannot import `shop`.
            (
                "Makefile",
                "test:\n\tpython3 -B -m unittest discover -s tests\n",
            ),
            ("src/shop/__init__.py", ""),
            ("src/shop/cart.py", CART_PY),
            ("src/shop/prices.py", PRICES_PY),
            ("tests/test_cart.py", TEST_CART_PY),
        ],
    );
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .text("```python src/shop/prices.py\ndef discount(amount, percent):\n    return amount - amount * percent / 100\n```")
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("Fixed the percentage.").openai_chat());
    let output = exec(root, &server).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    // The Makefile's command ran first and could not import the package: hone's note.
    assert!(stderr.contains("make test"), "{stderr}");
    assert!(
        stderr.contains(
            "hone: a test module could not be imported (ModuleNotFoundError: No module named 'shop')"
        ),
        "{stderr}"
    );
    // The next command put the source directory on the path and ran the tests.
    assert!(stderr.contains("PYTHONPATH=src python3"), "{stderr}");
    let request = first_request(&server);
    assert!(
        request.contains("The project's tests fail now"),
        "{request}"
    );
    assert!(request.contains("AssertionError: 0.0 != 90"), "{request}");
    assert!(request.contains("Failing tests:"), "{request}");
    assert!(request.contains("(tests/test_cart.py:8)"), "{request}");
    // The import error was hone's problem, not the bug the model is told about.
    assert!(!request.contains("_FailedTest"), "{request}");
    assert!(!request.contains("No module named"), "{request}");
    // The module the failing test imports leads the attached code.
    assert!(
        stderr.contains("hone: attached src/shop/cart.py"),
        "{stderr}"
    );
    let fixed = std::fs::read_to_string(root.join("src/shop/prices.py")).unwrap();
    assert!(fixed.contains("amount * percent / 100"), "{fixed}");
    assert!(stderr.contains("checks passed"), "{stderr}");
}

const MATH_JS: &str = "function add(a, b) {\n  return a - b;\n}\n\nfunction double(x) {\n  return x * 2;\n}\n\nmodule.exports = { add, double };\n";

/// A node test file: passing tests around the failing one, so the output is long and the
/// failure sits in its middle.
fn math_test_js() -> String {
    let mut text = String::from(
        "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add, double } = require('../src/math');\n\n",
    );
    for n in 0..30 {
        text.push_str(&format!(
            "test('doubles {n}', () => {{\n  assert.strictEqual(double({n}), {});\n}});\n\n",
            n * 2
        ));
    }
    text.push_str("test('add adds', () => {\n  assert.strictEqual(add(2, 1), 3);\n});\n\n");
    for n in 30..60 {
        text.push_str(&format!(
            "test('doubles {n}', () => {{\n  assert.strictEqual(double({n}), {});\n}});\n\n",
            n * 2
        ));
    }
    text
}

#[tokio::test]
async fn an_npm_test_failure_reaches_the_model_as_its_assertion() {
    if !on_path("npm") || !on_path("node") {
        eprintln!("SKIPPED: needs node and npm");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        &[
            (
                "package.json",
                "{\n  \"name\": \"calc\",\n  \"version\": \"1.0.0\",\n  \"scripts\": { \"test\": \"node --test\" }\n}\n",
            ),
            ("src/math.js", MATH_JS),
            ("test/math.test.js", &math_test_js()),
        ],
    );
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .text("```js src/math.js\nfunction add(a, b) {\n  return a + b;\n}\n```")
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("add now adds.").openai_chat());
    let output = exec(root, &server).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("npm test"), "{stderr}");
    let request = first_request(&server);
    // The failing assertion, its values and its place, not just the exit code.
    assert!(
        request.contains("- add adds (test/math.test.js:"),
        "{request}"
    );
    assert!(
        request.contains("Expected values to be strictly equal: 1 !== 3 [expected 3, actual 1]"),
        "{request}"
    );
    // The module the failing test requires leads the attached code.
    assert!(stderr.contains("hone: attached src/math.js"), "{stderr}");
    let fixed = std::fs::read_to_string(root.join("src/math.js")).unwrap();
    assert!(fixed.contains("return a + b;"), "{fixed}");
    assert!(fixed.contains("function double"), "{fixed}");
    assert!(stderr.contains("checks passed"), "{stderr}");
}
