//! End-to-end tests of the context features with the real binary and a mock model:
//! `hone context`, `hone exec --file`, compaction notices, and a failing provider.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use hone_testkit::{MockResponse, MockServer, Reply};
use serde_json::{Value, json};

/// A line of `big.txt` that compaction must remove from the context.
const MARKER: &str = "MARKER-LINE-OF-BIG-FILE";

struct Sandbox {
    _dir: tempfile::TempDir,
    root: PathBuf,
    data: PathBuf,
}

/// A git repository with instructions, a small JavaScript source file and a big text file.
fn sandbox() -> Sandbox {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join("AGENTS.md"), "Always run the tests.\n").unwrap();
    std::fs::write(
        root.join("src/math.js"),
        "function add(a, b) {\n  return a - b;\n}\n\nmodule.exports = { add };\n",
    )
    .unwrap();
    let mut big = String::new();
    for line in 0..380 {
        big.push_str(&format!(
            "line {line}: the quick brown fox {} jumps over the lazy dog\n",
            line * 7
        ));
        if line == 100 {
            big.push_str(MARKER);
            big.push('\n');
        }
    }
    std::fs::write(root.join("big.txt"), big).unwrap();
    Sandbox {
        root: root.canonicalize().unwrap(),
        data: dir.path().join("data"),
        _dir: dir,
    }
}

impl Sandbox {
    async fn run(&self, args: &[&str]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hone"));
        command
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.root.join(".home"))
            .env("XDG_CONFIG_HOME", self.root.join(".home/.config"))
            .env("HONE_DATA_DIR", &self.data)
            .current_dir(&self.root)
            .stdin(Stdio::null())
            .args(args);
        tokio::task::spawn_blocking(move || command.output().expect("hone runs"))
            .await
            .unwrap()
    }

    async fn exec(&self, server: &MockServer, extra: &[&str], prompt: &str) -> Output {
        let url = server.url();
        let mut args = vec!["exec", "--provider", "lmstudio", "--base-url", &url];
        args.extend_from_slice(extra);
        args.push(prompt);
        self.run(&args).await
    }

    fn config(&self, text: &str) {
        std::fs::create_dir_all(self.root.join(".hone")).unwrap();
        std::fs::write(self.root.join(".hone/config.toml"), text).unwrap();
    }
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn events(output: &Output) -> Vec<Value> {
    stdout(output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect()
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|event| event["type"] == kind)
        .collect()
}

fn saved_documents(root: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(root.join(".hone/context"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "md"))
        .collect();
    found.sort();
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn context_renders_instructions_and_files_and_saves_the_document() {
    let sandbox = sandbox();
    let output = sandbox.run(&["context", "src/**/*.js"]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let document = stdout(&output);
    assert!(document.starts_with("# Context: project\n"), "{document}");
    for expected in [
        "## Project instructions\n\n### AGENTS.md\n\nAlways run the tests.\n",
        "## Files\n\n### src/math.js\n\n```javascript\nfunction add(a, b) {\n  return a - b;\n}",
    ] {
        assert!(document.contains(expected), "{expected:?} in {document}");
    }
    let saved = saved_documents(&sandbox.root);
    assert_eq!(saved.len(), 1);
    assert_eq!(std::fs::read_to_string(&saved[0]).unwrap(), document);
    assert_eq!(
        std::fs::read_to_string(sandbox.root.join(".hone/context/.gitignore")).unwrap(),
        "*\n"
    );
    assert!(
        stderr(&output).contains("hone: saved .hone/context/"),
        "{}",
        stderr(&output)
    );

    let outline = sandbox.run(&["context", "--summary", "src"]).await;
    assert!(outline.status.success(), "{}", stderr(&outline));
    let document = stdout(&outline);
    assert!(document.contains("### src/math.js (outline)"), "{document}");
    assert!(document.contains("add(a, b)"), "{document}");
    assert!(!document.contains("return a - b"), "{document}");
    assert_eq!(saved_documents(&sandbox.root).len(), 2);

    // From a sub-directory, the instructions are read down to it, as a session reads them.
    std::fs::write(sandbox.root.join("src/AGENTS.md"), "Use tabs in src.\n").unwrap();
    let nested = sandbox.run(&["-C", "src", "context"]).await;
    assert!(nested.status.success(), "{}", stderr(&nested));
    let document = stdout(&nested);
    assert!(document.contains("Always run the tests."), "{document}");
    assert!(document.contains("Use tabs in src."), "{document}");
    std::fs::remove_file(sandbox.root.join("src/AGENTS.md")).unwrap();

    let nothing = sandbox.run(&["context", "nothing/**/*.rs"]).await;
    assert!(!nothing.status.success());
    assert!(
        stderr(&nothing).contains("matches no file"),
        "{}",
        stderr(&nothing)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_pins_files_before_the_first_turn() {
    let sandbox = sandbox();
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("I see `add`.").openai_chat());
    let output = sandbox
        .exec(
            &server,
            &["--json", "--file", "src/*.js", "--file", "*.md"],
            "look",
        )
        .await;
    assert!(output.status.success(), "{}", stderr(&output));
    let events = events(&output);
    let tracked = of_type(&events, "files.tracked");
    assert_eq!(tracked.len(), 1, "{events:#?}");
    let paths: Vec<&str> = tracked[0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["AGENTS.md", "src/math.js"]);
    let first = server.requests()[0].json().to_string();
    assert!(
        first.contains("<tracked_file path=\\\"src/math.js\\\" mode=\\\"full\\\" lines=\\\"5\\\">\\nfunction add(a, b)"),
        "{first}"
    );
    assert!(first.contains("# Project instructions"), "{first}");
    assert!(first.contains("Always run the tests."), "{first}");
    assert_eq!(of_type(&events, "context.usage").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_session_past_the_threshold_is_compacted_with_a_notice() {
    let sandbox = sandbox();
    sandbox.config("[providers.lmstudio]\ncontext_window = 1000000\n");
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .tool_call("read_file", json!({"path": "big.txt"}))
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("Read it.").openai_chat());
    let first = sandbox.exec(&server, &["--json"], "Read big.txt").await;
    assert!(first.status.success(), "{}", stderr(&first));
    let usage: Vec<u64> = of_type(&events(&first), "context.usage")
        .iter()
        .map(|event| event["used"].as_u64().unwrap())
        .collect();
    assert_eq!(usage.len(), 2);
    assert!(usage[1] > usage[0] + 4_000, "{usage:?}");
    // The threshold (half the window) lies between the first request and the second.
    let window = usage[0] + usage[1];
    sandbox.config(&format!(
        "[providers.lmstudio]\ncontext_window = {window}\n\n[context]\ncompact_threshold = 0.5\nrecent_turns = 1\n"
    ));
    server.enqueue(
        Reply::new()
            .text("- The user had big.txt read.")
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("Next, the tests.").openai_chat());
    let second = sandbox
        .exec(&server, &["--resume", "last"], "What next?")
        .await;
    assert!(second.status.success(), "{}", stderr(&second));
    let notice = stderr(&second);
    assert!(
        notice.contains("hone: context compacted (summary by the model): ~"),
        "{notice}"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    let summary = requests[2].json().to_string();
    assert!(
        summary.contains("You compact the conversation"),
        "{summary}"
    );
    let last = requests[3].json().to_string();
    assert!(last.contains("- The user had big.txt read."), "{last}");
    assert!(!last.contains(MARKER), "{last}");
    assert!(last.contains("Original request:\\nRead big.txt"), "{last}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_failure_fails_exec_with_the_categorys_exit_code() {
    let sandbox = sandbox();
    let server = MockServer::start().await;
    server.enqueue(MockResponse::json(
        400,
        &json!({"error": {"message": "model not loaded"}}),
    ));
    let output = sandbox.exec(&server, &[], "hello").await;
    // 400: the provider refused the request; 8, as from `hone ask`.
    assert_eq!(output.status.code(), Some(8), "{}", stderr(&output));
    let message = stderr(&output);
    assert!(message.contains("error: "), "{message}");
    assert!(message.contains("model not loaded"), "{message}");
    assert_eq!(server.request_count(), 1);
}
