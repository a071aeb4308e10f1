//! End-to-end tests of the command sandbox, the secret scrub and the provider time limits,
//! through the real `hone` binary. The sandbox tests need Landlock; on a kernel without it
//! they say so and pass without checking (hone's CI kernel has it).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Output;

use hone_testkit::{MockServer, Reply};
use serde_json::json;

/// A project directory and, beside it, a canary directory outside the project.
struct Layout {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

fn layout() -> Layout {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = base.join("project");
    let outside = base.join("canary");
    std::fs::create_dir_all(root.join(".home/.config")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(root.join("README.md"), "# demo\n").unwrap();
    Layout {
        _dir: dir,
        root,
        outside,
    }
}

fn command(root: &Path, env: &[(&str, &str)], args: &[&str]) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_hone"));
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", root.join(".home"))
        .env("XDG_CONFIG_HOME", root.join(".home/.config"))
        .env("HONE_DATA_DIR", root.join(".home/data"))
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .args(args);
    for (name, value) in env {
        command.env(name, value);
    }
    command
}

fn run(root: &Path, args: &[&str]) -> Output {
    command(root, &[], args).output().expect("hone runs")
}

async fn run_async(root: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut command = command(root, env, args);
    tokio::task::spawn_blocking(move || command.output().expect("hone runs"))
        .await
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Whether this kernel can sandbox; prints why not when it cannot.
fn landlock_available(root: &Path) -> bool {
    let probe = run(root, &["sandbox", "--", "true"]);
    if probe.status.success() {
        return true;
    }
    let reason = stderr(&probe);
    assert!(
        reason.contains("not available"),
        "the probe failed for another reason: {reason}"
    );
    eprintln!("SKIPPED: this kernel cannot sandbox commands ({reason})");
    false
}

#[test]
fn a_sandboxed_command_writes_inside_the_root_only_and_is_told_why() {
    let layout = layout();
    let root = &layout.root;
    if !landlock_available(root) {
        return;
    }
    let canary = layout.outside.join("written");
    let canary_text = canary.display().to_string();

    let blocked = run(root, &["sandbox", "--", "touch", &canary_text]);
    assert!(!blocked.status.success());
    assert!(
        !canary.exists(),
        "the sandbox let a write outside the root through"
    );
    let note = stderr(&blocked);
    // With namespaces the canary's directory is not even visible; with Landlock alone the
    // write is refused.
    assert!(
        note.contains("Permission denied") || note.contains("No such file or directory"),
        "{note}"
    );
    assert!(note.contains("mode workspace-write"), "{note}");
    assert!(note.contains(&root.display().to_string()), "{note}");

    let inside = run(root, &["sandbox", "--", "touch", "inside.txt"]);
    assert!(inside.status.success(), "{}", stderr(&inside));
    assert!(root.join("inside.txt").exists());

    let temp = run(
        root,
        &[
            "sandbox",
            "--",
            "sh",
            "-c",
            "touch \"$TMPDIR/scratch\" && echo $TMPDIR",
        ],
    );
    assert!(
        temp.status.success(),
        "a private TMPDIR is writable: {}",
        stderr(&temp)
    );
    let temp_dir = stdout(&temp).trim().to_string();
    assert!(
        !temp_dir.is_empty() && !Path::new(&temp_dir).exists(),
        "and removed: {temp_dir}"
    );

    let extra = layout.outside.join("extra");
    std::fs::create_dir_all(&extra).unwrap();
    let extra_text = extra.display().to_string();
    let allowed = run(
        root,
        &[
            "sandbox",
            "--writable",
            &extra_text,
            "--",
            "touch",
            &format!("{extra_text}/ok"),
        ],
    );
    assert!(allowed.status.success(), "{}", stderr(&allowed));
    assert!(extra.join("ok").exists());

    let read_only = run(
        root,
        &["sandbox", "--mode", "read-only", "--", "touch", "ro.txt"],
    );
    assert!(!read_only.status.success());
    assert!(!root.join("ro.txt").exists());
    assert!(
        stderr(&read_only).contains("mode read-only: writes only under"),
        "only the private TMPDIR is writable: {}",
        stderr(&read_only)
    );

    let off = run(
        root,
        &["sandbox", "--mode", "off", "--", "touch", &canary_text],
    );
    assert!(off.status.success(), "{}", stderr(&off));
    assert!(canary.exists(), "--mode off must not restrict");
}

#[test]
fn explain_prints_the_rules() {
    let layout = layout();
    if !landlock_available(&layout.root) {
        return;
    }
    let output = run(&layout.root, &["sandbox", "--explain", "--", "true"]);
    assert!(output.status.success());
    let rules = stderr(&output);
    for part in [
        "sandbox mode: workspace-write",
        "reads: ",
        "writes: only under",
        "network: off",
        "limits: CPU time",
    ] {
        assert!(rules.contains(part), "{part} missing from {rules}");
    }
}

#[test]
fn a_sandboxed_command_cannot_connect_unless_the_network_is_allowed() {
    let layout = layout();
    let root = &layout.root;
    if !landlock_available(root) {
        return;
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connect = format!("exec 3<>/dev/tcp/127.0.0.1/{port}");
    let blocked = run(root, &["sandbox", "--", "bash", "-c", &connect]);
    assert!(!blocked.status.success(), "the connection went through");
    assert!(
        stderr(&blocked).contains("network off"),
        "{}",
        stderr(&blocked)
    );

    let allowed = run(
        root,
        &["sandbox", "--allow-network", "--", "bash", "-c", &connect],
    );
    assert!(allowed.status.success(), "{}", stderr(&allowed));
    let off = run(
        root,
        &["sandbox", "--mode", "off", "--", "bash", "-c", &connect],
    );
    assert!(off.status.success(), "{}", stderr(&off));

    // Internet sockets are refused outright (seccomp); Unix sockets still work.
    if run(
        root,
        &["sandbox", "--mode", "off", "--", "python3", "-c", "1"],
    )
    .status
    .success()
    {
        let inet = run(
            root,
            &[
                "sandbox",
                "--",
                "python3",
                "-c",
                "import socket; socket.socket(socket.AF_INET6)",
            ],
        );
        assert!(!inet.status.success());
        assert!(
            stderr(&inet).contains("Operation not permitted"),
            "{}",
            stderr(&inet)
        );
        let unix = run(
            root,
            &[
                "sandbox",
                "--",
                "python3",
                "-c",
                "import socket; socket.socket(socket.AF_UNIX)",
            ],
        );
        assert!(unix.status.success(), "{}", stderr(&unix));
    }
}

/// `hone exec --approval full-auto` against a mock OpenAI server playing `replies`.
async fn exec(layout: &Layout, env: &[(&str, &str)], extra: &[&str], replies: &[Reply]) -> Output {
    let server = MockServer::start().await;
    for reply in replies {
        server.enqueue(reply.openai_chat());
    }
    let url = server.url();
    let mut args = vec![
        "exec",
        "--provider",
        "openai",
        "--base-url",
        &url,
        "--approval",
        "full-auto",
        "--json",
    ];
    args.extend_from_slice(extra);
    args.push("do it");
    let mut env = env.to_vec();
    env.push(("OPENAI_API_KEY", "test-key-abcdef123456"));
    run_async(&layout.root, &env, &args).await
}

fn command_reply(command: &str) -> Reply {
    Reply::new().tool_call("run_command", json!({ "command": command }))
}

#[tokio::test]
async fn the_model_cannot_write_outside_the_project_in_full_auto() {
    let layout = layout();
    if !landlock_available(&layout.root) {
        return;
    }
    let replies = [
        command_reply("touch ../canary/outside || touch /usr/hone-canary-outside"),
        command_reply("touch inside.txt && touch \"$TMPDIR/scratch\" && echo tmp=$TMPDIR"),
        Reply::new().text("done"),
    ];
    let output = exec(&layout, &[], &[], &replies).await;
    // 10: the file the command made counts as an edit, and no test verified it.
    assert!(
        matches!(output.status.code(), Some(0 | 10)),
        "{}",
        stderr(&output)
    );
    assert!(
        !layout.outside.join("outside").exists(),
        "the sandbox let the model write outside"
    );
    assert!(
        layout.root.join("inside.txt").exists(),
        "{}",
        stdout(&output)
    );
    let events = stdout(&output);
    assert!(
        events.contains("Permission denied") || events.contains("Read-only file system"),
        "{events}"
    );
    assert!(!Path::new("/usr/hone-canary-outside").exists());
    assert!(events.contains("commands run in a sandbox"), "{events}");
    assert!(events.contains("tmp=/"), "{events}");

    let timed = [
        Reply::new().tool_call(
            "run_command",
            json!({ "command": "sleep 30", "timeout_secs": 1 }),
        ),
        Reply::new().text("done"),
    ];
    let output = exec(&layout, &[], &[], &timed).await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("timed out after 1 s; killed"),
        "the timeout kills a sandboxed command: {}",
        stdout(&output)
    );

    let replies = [replies[0].clone(), Reply::new().text("done")];
    let off = exec(&layout, &[], &["--sandbox", "off"], &replies).await;
    assert!(off.status.success(), "{}", stderr(&off));
    assert!(
        layout.outside.join("outside").exists(),
        "--sandbox off must not restrict"
    );
}

/// Every file under `dir`, read as bytes.
fn all_files(dir: &Path, found: &mut Vec<(PathBuf, Vec<u8>)>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            all_files(&path, found);
        } else if let Ok(bytes) = std::fs::read(&path) {
            found.push((path, bytes));
        }
    }
}

fn assert_nowhere(canary: &str, layout: &Layout, output: &Output) {
    assert!(!stdout(output).contains(canary), "the canary is in stdout");
    assert!(!stderr(output).contains(canary), "the canary is in stderr");
    let mut files = Vec::new();
    all_files(&layout.root, &mut files);
    assert!(
        files.iter().any(|(path, _)| path.ends_with("sessions.db")),
        "the session store was written under the test's data directory"
    );
    assert!(files.iter().any(|(path, _)| path.ends_with("tools.jsonl")));
    for (path, bytes) in files {
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(canary),
            "the canary is in {}",
            path.display()
        );
    }
}

const CANARY: &str = "sk-ant-canary-0123456789";

#[tokio::test]
async fn commands_do_not_see_other_vendors_keys() {
    let layout = layout();
    let replies = [
        command_reply("printenv ANTHROPIC_API_KEY; env"),
        Reply::new().text("done"),
    ];
    let output = exec(&layout, &[("ANTHROPIC_API_KEY", CANARY)], &[], &replies).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let events = stdout(&output);
    assert!(events.contains("PATH="), "env ran: {events}");
    assert!(!events.contains("ANTHROPIC_API_KEY="), "{events}");
    assert!(!events.contains("OPENAI_API_KEY="), "{events}");
    assert_nowhere(CANARY, &layout, &output);
}

#[tokio::test]
async fn a_key_let_through_to_commands_is_still_redacted() {
    let layout = layout();
    std::fs::create_dir_all(layout.root.join(".home/.config/hone")).unwrap();
    std::fs::write(
        layout.root.join(".home/.config/hone/config.toml"),
        "[sandbox]\nenv_passthrough = [\"ANTHROPIC_API_KEY\"]\n",
    )
    .unwrap();
    let replies = [
        command_reply("echo key=$ANTHROPIC_API_KEY"),
        Reply::new().text("done"),
    ];
    let output = exec(&layout, &[("ANTHROPIC_API_KEY", CANARY)], &[], &replies).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let events = stdout(&output);
    assert!(events.contains("key=[REDACTED]"), "{events}");
    assert_nowhere(CANARY, &layout, &output);
}

#[tokio::test]
async fn a_server_that_never_answers_fails_with_a_timeout() {
    let layout = layout();
    std::fs::create_dir_all(layout.root.join(".home/.config/hone")).unwrap();
    std::fs::write(
        layout.root.join(".home/.config/hone/config.toml"),
        "[network]\nheader_timeout_secs = 1\nmax_retries = 0\n",
    )
    .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    // Accept connections and hold them open without a byte of answer.
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    let output = run_async(
        &layout.root,
        &[("OPENAI_API_KEY", "test-key-abcdef123456")],
        &["exec", "--provider", "openai", "--base-url", &url, "hello"],
    )
    .await;
    assert!(!output.status.success());
    let error = stderr(&output);
    assert!(error.contains("timed out after 1 s"), "{error}");
    assert!(error.contains("header_timeout_secs"), "{error}");
}
