//! End-to-end: a model that answers with the corrected function in a code block and calls
//! no tool, through the real `hone` binary and a mock model server.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Output;

use hone_testkit::{MockServer, Reply};
use serde_json::Value;

const MATH: &str = "export function add(a: number, b: number): number {\n  return a - b;\n}\n\nexport function sub(a: number, b: number): number {\n  return a - b;\n}\n";
const REQUEST: &str = "The add function in src/math.ts subtracts instead of adding. Fix it.";
const ANSWER: &str = "The bug is in `add`. Here is the corrected function:\n\n```ts\nfunction add(a: number, b: number): number {\n  return a + b;\n}\n```\n";

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/math.ts"), MATH).unwrap();
    dir
}

async fn hone(root: &Path, args: &[&str]) -> Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_hone"));
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", root.join(".home"))
        .env("XDG_CONFIG_HOME", root.join(".home/.config"))
        .env("XDG_DATA_HOME", root.join(".home/.local/share"))
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .args(args);
    tokio::task::spawn_blocking(move || command.output().expect("hone runs"))
        .await
        .unwrap()
}

async fn exec(root: &Path, approval: Option<&str>) -> (Output, MockServer) {
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text(ANSWER).openai_chat());
    server.enqueue(Reply::new().text("Fixed: `add` now adds.").openai_chat());
    let url = server.url();
    let mut args = vec![
        "exec",
        "--provider",
        "lmstudio",
        "--base-url",
        &url,
        "--json",
    ];
    if let Some(mode) = approval {
        args.extend(["--approval", mode]);
    }
    args.push(REQUEST);
    let output = hone(root, &args).await;
    // An applied change in this project without tests is unverified (10); a proposed one
    // that was refused is not applied (12).
    assert!(
        matches!(output.status.code(), Some(10 | 12)),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (output, server)
}

fn events_of(output: &Output, kind: &str) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| event["type"] == kind)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_corrected_function_in_a_code_block_fixes_the_file_under_auto_edit() {
    let dir = project();
    let (output, server) = exec(dir.path(), Some("auto-edit")).await;
    let math = std::fs::read_to_string(dir.path().join("src/math.ts")).unwrap();
    assert_eq!(math, MATH.replacen("return a - b", "return a + b", 1));
    assert_eq!(events_of(&output, "diff.applied").len(), 1);
    let completed = events_of(&output, "turn.completed");
    assert_eq!(completed[0]["end"], "unverified");
    assert_eq!(output.status.code(), Some(10));
    assert_eq!(server.request_count(), 2);
    let told = server.requests()[1].json().to_string();
    assert!(
        told.contains("replaced function `add` in src/math.ts"),
        "{told}"
    );

    let undone = hone(dir.path(), &["undo"]).await;
    assert!(
        undone.status.success(),
        "{}",
        String::from_utf8_lossy(&undone.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/math.ts")).unwrap(),
        MATH
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_text_output_shows_a_change_that_was_not_applied() {
    let dir = project();
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text(ANSWER).openai_chat());
    server.enqueue(
        Reply::new()
            .text("Run with --approval auto-edit to apply it.")
            .openai_chat(),
    );
    let url = server.url();
    let output = hone(
        dir.path(),
        &[
            "exec",
            "--provider",
            "lmstudio",
            "--base-url",
            &url,
            REQUEST,
        ],
    )
    .await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Shown, not applied: the run says so in its exit code and its summary.
    assert_eq!(output.status.code(), Some(12), "{stderr}");
    assert!(
        stderr.contains("not applied (the change was denied"),
        "{stderr}"
    );
    assert!(stderr.contains("proposed change (not applied)"), "{stderr}");
    assert!(stderr.contains("+  return a + b;"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/math.ts")).unwrap(),
        MATH
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_edit_approval_the_change_is_only_proposed() {
    for approval in [Some("read-only"), None] {
        let dir = project();
        let (output, _server) = exec(dir.path(), approval).await;
        assert_eq!(output.status.code(), Some(12), "{approval:?}");
        assert_eq!(events_of(&output, "result")[0]["status"], "not_applied");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("src/math.ts")).unwrap(),
            MATH,
            "{approval:?}"
        );
        let proposed = events_of(&output, "diff.proposed");
        assert_eq!(proposed.len(), 1, "{approval:?}");
        assert!(
            proposed[0]["diff"]
                .as_str()
                .unwrap()
                .contains("+  return a + b;")
        );
        assert!(events_of(&output, "diff.applied").is_empty());
        assert_eq!(events_of(&output, "tool.denied").len(), 1);
    }
}
