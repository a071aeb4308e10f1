//! Unix conventions of the real `hone` binary: colour, `--quiet`, closed pipes, options
//! after the prompt, stdin with a prompt, exit codes, and the generated help.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use hone_testkit::{MockServer, Reply};
use serde_json::json;

/// `hone` with a clean environment in `root` (no real keys or configuration).
fn command(root: &Path, env: &[(&str, &str)], args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hone"));
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", root.join(".home"))
        .env("XDG_CONFIG_HOME", root.join(".home/.config"))
        .env("HONE_DATA_DIR", root.join(".home/data"))
        .current_dir(root)
        .stdin(Stdio::null())
        .args(args);
    for (name, value) in env {
        command.env(name, value);
    }
    command
}

async fn run(command: Command) -> Output {
    let mut command = command;
    tokio::task::spawn_blocking(move || command.output().expect("hone runs"))
        .await
        .unwrap()
}

/// Runs `hone` with `input` piped on stdin.
async fn run_with_stdin(mut command: Command, input: &'static str) -> Output {
    tokio::task::spawn_blocking(move || {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The environment that points `hone` at `server` as an OpenAI-compatible local server.
fn at(server: &MockServer) -> Vec<(&'static str, String)> {
    vec![
        ("HONE_PROVIDER", "lmstudio".to_string()),
        ("HONE_BASE_URL", server.url()),
    ]
}

fn env_refs<'a>(env: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    env.iter()
        .map(|(name, value)| (*name, value.as_str()))
        .collect()
}

/// The user message of the last request the server received.
fn sent_prompt(server: &MockServer) -> String {
    let body = server.last_request().json();
    let messages = body["messages"].as_array().unwrap();
    messages.last().unwrap()["content"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| messages.last().unwrap()["content"].to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn options_after_the_prompt_are_options_and_a_double_dash_ends_them() {
    let root = tempfile::tempdir().unwrap();
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("hi").openai_chat());
    let env = at(&server);
    let output = run(command(
        root.path(),
        &env_refs(&env),
        &["ask", "hello", "--json"],
    ))
    .await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(sent_prompt(&server), "hello");
    assert!(
        stdout(&output).lines().all(|line| line.starts_with('{')),
        "--json after the prompt prints JSON: {}",
        stdout(&output)
    );

    server.enqueue(Reply::new().text("hi").openai_chat());
    let output = run(command(
        root.path(),
        &env_refs(&env),
        &["ask", "--", "hello", "--json"],
    ))
    .await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(sent_prompt(&server), "hello --json");
    assert_eq!(stdout(&output), "hi\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn piped_input_is_sent_after_the_prompt() {
    let root = tempfile::tempdir().unwrap();
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("ok").openai_chat());
    let env = at(&server);
    let output = run_with_stdin(
        command(root.path(), &env_refs(&env), &["ask", "summarize"]),
        "DATA line 1\nDATA line 2\n",
    )
    .await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        sent_prompt(&server),
        "summarize\n\nDATA line 1\nDATA line 2"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_pipe_ends_hone_quietly() {
    let root = tempfile::tempdir().unwrap();
    let server = MockServer::start().await;
    // More than a pipe buffer holds, so hone is still writing when the reader leaves.
    let long = "line of the answer\n".repeat(20_000);
    server.enqueue(Reply::new().text(&long).openai_chat());
    let env = at(&server);
    let mut command = command(root.path(), &env_refs(&env), &["ask", "go"]);
    let output = tokio::task::spawn_blocking(move || {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0_u8; 64];
        child
            .stdout
            .as_mut()
            .unwrap()
            .read_exact(&mut first)
            .unwrap();
        drop(child.stdout.take());
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    assert_eq!(output.status.code(), Some(141), "{}", stderr(&output));
    assert_eq!(stderr(&output), "", "no broken-pipe message");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_server_exits_5_from_ask_and_exec() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join(".home/.config/hone")).unwrap();
    std::fs::write(
        root.path().join(".home/.config/hone/config.toml"),
        "[network]\nmax_retries = 0\n",
    )
    .unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let env = [
        ("HONE_PROVIDER", "lmstudio"),
        ("HONE_BASE_URL", url.as_str()),
    ];
    for subcommand in ["ask", "exec"] {
        let output = run(command(root.path(), &env, &[subcommand, "hello"])).await;
        assert_eq!(
            output.status.code(),
            Some(5),
            "{subcommand}: {}",
            stderr(&output)
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_prompt_is_a_usage_error() {
    let root = tempfile::tempdir().unwrap();
    let output = run(command(root.path(), &[], &["ask"])).await;
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_carry_colour_only_when_asked_for_in_a_pipe() {
    let root = tempfile::tempdir().unwrap();
    let server = MockServer::start().await;
    let mut env = at(&server);
    env.push(("HONE_LOG", "debug".to_string()));
    server.enqueue(Reply::new().text("hi").openai_chat());
    let plain = run(command(root.path(), &env_refs(&env), &["ask", "hi"])).await;
    assert!(plain.status.success(), "{}", stderr(&plain));
    assert!(
        stderr(&plain).contains("DEBUG"),
        "debug logs: {}",
        stderr(&plain)
    );
    assert!(!stderr(&plain).contains('\u{1b}'), "{}", stderr(&plain));

    server.enqueue(Reply::new().text("hi").openai_chat());
    let forced = run(command(
        root.path(),
        &env_refs(&env),
        &["--color", "always", "ask", "hi"],
    ))
    .await;
    assert!(stderr(&forced).contains("\u{1b}["), "{}", stderr(&forced));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quiet_exec_prints_the_answer_and_nothing_on_stderr() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("README.md"), "# demo\n").unwrap();
    let server = MockServer::start().await;
    let env = at(&server);
    for quiet in [false, true] {
        server.enqueue(
            Reply::new()
                .tool_call("read_file", json!({"path": "README.md"}))
                .openai_chat(),
        );
        server.enqueue(Reply::new().text("It is a demo.").openai_chat());
        let mut args = vec!["exec", "what is this?"];
        if quiet {
            args.insert(0, "-q");
        }
        let output = run(command(root.path(), &env_refs(&env), &args)).await;
        assert!(output.status.success(), "{}", stderr(&output));
        assert_eq!(stdout(&output), "It is a demo.\n");
        if quiet {
            assert_eq!(stderr(&output), "");
        } else {
            assert!(stderr(&output).contains("read_file"), "{}", stderr(&output));
            assert!(
                stderr(&output).contains("hone: done"),
                "{}",
                stderr(&output)
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn top_level_help_fits_one_screen_with_global_options_apart() {
    let root = tempfile::tempdir().unwrap();
    let output = run(command(root.path(), &[], &["--help"])).await;
    assert!(output.status.success());
    let text = stdout(&output);
    assert!(
        text.lines().count() <= 47,
        "{} lines:\n{text}",
        text.lines().count()
    );
    assert!(text.contains("Global options:"), "{text}");
    assert!(text.contains("[env: HONE_PROVIDER]"), "{text}");

    let exec = stdout(&run(command(root.path(), &[], &["exec", "--help"])).await);
    assert!(
        exec.contains("possible values: read-only, ask, auto-edit, full-auto"),
        "{exec}"
    );
    assert!(exec.contains("[env: HONE_APPROVAL]"), "{exec}");
    let refused = run(command(
        root.path(),
        &[],
        &["exec", "--approval", "yolo", "x"],
    ))
    .await;
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("full-auto"),
        "{}",
        stderr(&refused)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completions_and_the_manual_are_generated() {
    let root = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let output = run(command(root.path(), &[], &["completions", shell])).await;
        assert!(output.status.success(), "{shell}: {}", stderr(&output));
        assert!(stdout(&output).contains("exec"), "{shell}");
    }
    let bad = run(command(root.path(), &[], &["completions", "tcsh"])).await;
    assert_eq!(bad.status.code(), Some(2));

    let man = run(command(root.path(), &[], &["man"])).await;
    assert!(man.status.success(), "{}", stderr(&man));
    assert!(stdout(&man).starts_with(".ie") || stdout(&man).contains(".TH hone"));
    let pages = root.path().join("man");
    let written = run(command(
        root.path(),
        &[],
        &["man", "--dir", pages.to_str().unwrap()],
    ))
    .await;
    assert!(written.status.success(), "{}", stderr(&written));
    assert!(pages.join("hone.1").is_file());
    assert!(pages.join("hone-exec.1").is_file());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_show_and_example_are_toml() {
    let root = tempfile::tempdir().unwrap();
    for args in [
        &["config", "show"][..],
        &["config", "show", "--toml"],
        &["config", "example"],
    ] {
        let output = run(command(root.path(), &[], args)).await;
        assert!(output.status.success(), "{args:?}: {}", stderr(&output));
        let parsed: Result<toml::Table, _> = toml::from_str(&stdout(&output));
        assert!(parsed.is_ok(), "{args:?}: {parsed:?}");
    }
    let toml_only = stdout(&run(command(root.path(), &[], &["config", "show", "--toml"])).await);
    assert!(!toml_only.contains('#'), "{toml_only}");
}
