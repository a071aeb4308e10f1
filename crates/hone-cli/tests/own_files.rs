//! hone's own files in a hostile repository: symlinks committed under `.hone/` and as
//! instruction files never lead hone to files outside the project (the real binary, a
//! mock model server).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Output;

use hone_testkit::{MockServer, Reply};

const ENVIRON_CANARY: &str = "environ-canary-6e2b";

/// `dir/project`, a git repository; files outside it go to `dir`.
fn project(dir: &Path) -> PathBuf {
    let root = dir.join("project");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("README.md"), "# demo\n").unwrap();
    let status = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&root)
        .status()
        .unwrap();
    assert!(status.success());
    root
}

async fn hone(root: &Path, url: &str) -> Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_hone"));
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", root.join(".home"))
        .env("XDG_CONFIG_HOME", root.join(".home/.config"))
        .env("HONE_TEST_CANARY", ENVIRON_CANARY)
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .args([
            "exec",
            "--approval",
            "read-only",
            "--provider",
            "lmstudio",
            "--base-url",
            url,
            "--json",
            "say hello",
        ]);
    tokio::task::spawn_blocking(move || command.output().expect("hone runs"))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn committed_symlinks_never_lead_hone_outside_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path());
    let logs = root.join(".hone/logs");
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::write(dir.path().join("outside.txt"), "outside\n").unwrap();
    std::fs::write(dir.path().join("secret.txt"), "canary-secret-91f3\n").unwrap();
    std::os::unix::fs::symlink("../../../outside.txt", logs.join("comms.jsonl")).unwrap();
    std::os::unix::fs::symlink("../../../outside.txt", logs.join(".gitignore")).unwrap();
    std::os::unix::fs::symlink("../secret.txt", root.join("AGENTS.md")).unwrap();
    std::os::unix::fs::symlink("/proc/self/environ", root.join("HONE.md")).unwrap();
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("Hello.").openai_chat());
    let output = hone(&root, &server.url()).await;
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("outside.txt")).unwrap(),
        "outside\n"
    );
    let requests = server.requests();
    assert!(!requests.is_empty());
    let sent = requests[0].json().to_string();
    assert!(!sent.contains("canary-secret-91f3"), "{sent}");
    assert!(!sent.contains(ENVIRON_CANARY), "{sent}");
    assert!(logs.join("comms.jsonl").is_symlink());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hone_dir_that_is_a_symlink_is_refused_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path());
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, root.join(".hone")).unwrap();
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("Hello.").openai_chat());
    let output = hone(&root, &server.url()).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(stderr.contains("symbolic link"), "{stderr}");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_auto_does_not_run_a_command_it_cannot_see_without_a_terminal() {
    let (output, canary, _dir) = full_auto_computed_rm("off").await;
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(canary.is_dir(), "the unseen command did not run");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("tool.denied"), "{stdout}");
    assert!(stdout.contains("sandbox"), "{stdout}");
}

#[tokio::test]
async fn full_auto_runs_a_command_it_cannot_see_only_inside_the_sandbox() {
    let (output, canary, _dir) = full_auto_computed_rm("workspace-write").await;
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !hone_sandbox::support().is_available() {
        eprintln!("SKIPPED: no Landlock on this kernel");
        return;
    }
    assert!(!stdout.contains("tool.denied"), "{stdout}");
    assert!(
        canary.is_dir(),
        "the sandbox kept the command inside the project"
    );
}

/// Runs `hone exec --approval full-auto --sandbox MODE` with a model that asks for a
/// computed `rm -rf` of a directory outside the project; returns the output and that
/// directory (with the temporary directory that holds everything).
async fn full_auto_computed_rm(
    sandbox: &str,
) -> (std::process::Output, std::path::PathBuf, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path());
    let canary = dir.path().join("canary");
    std::fs::create_dir_all(&canary).unwrap();
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .tool_call(
                "run_command",
                serde_json::json!({"command": "RM=rm; $RM -rf ../canary"}),
            )
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("Done.").openai_chat());
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_hone"));
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", root.join(".home"))
        .env("XDG_CONFIG_HOME", root.join(".home/.config"))
        .current_dir(&root)
        .stdin(std::process::Stdio::null())
        .args([
            "exec",
            "--approval",
            "full-auto",
            "--sandbox",
            sandbox,
            "--provider",
            "lmstudio",
            "--base-url",
            &server.url(),
            "--json",
            "clean up",
        ]);
    let output = tokio::task::spawn_blocking(move || command.output().expect("hone runs"))
        .await
        .unwrap();
    (output, canary, dir)
}
