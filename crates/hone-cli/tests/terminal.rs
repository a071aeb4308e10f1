//! Colour on a real terminal: `hone` in a pseudo-terminal colours its logs and diffs unless
//! `NO_COLOR` is set or `--color never` is given.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

use hone_testkit::{MockServer, Reply};
use portable_pty::{CommandBuilder, PtySize, native_pty_system};

/// Runs `hone` in a pseudo-terminal with `env` and returns everything it printed (stdout and
/// stderr both go to the terminal) and its exit status.
async fn on_terminal(
    root: &Path,
    env: Vec<(String, String)>,
    args: Vec<String>,
) -> (String, portable_pty::ExitStatus) {
    let root = root.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 40,
                cols: 120,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_hone"));
        command.env_clear();
        command.env("PATH", std::env::var("PATH").unwrap_or_default());
        command.env("HOME", root.join(".home"));
        command.env("XDG_CONFIG_HOME", root.join(".home/.config"));
        command.env("HONE_DATA_DIR", root.join(".home/data"));
        command.env("TERM", "xterm-256color");
        for (name, value) in env {
            command.env(name, value);
        }
        command.cwd(&root);
        command.args(args);
        let mut child = pair.slave.spawn_command(command).unwrap();
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let collected = std::thread::spawn(move || {
            let mut all = Vec::new();
            let mut buffer = [0_u8; 8192];
            while let Ok(read) = reader.read(&mut buffer) {
                if read == 0 {
                    break;
                }
                all.extend_from_slice(&buffer[..read]);
            }
            all
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "hone did not exit");
            std::thread::sleep(Duration::from_millis(20));
        };
        drop(pair.master);
        let output = collected.join().unwrap();
        (String::from_utf8_lossy(&output).into_owned(), status)
    })
    .await
    .unwrap()
}

/// `hone ask hi` against `server` with debug logs, on a terminal, plus `extra` variables and
/// flags.
async fn ask_with_logs(server: &MockServer, extra_env: &[(&str, &str)], flags: &[&str]) -> String {
    let root = tempfile::tempdir().unwrap();
    server.enqueue(Reply::new().text("the answer").openai_chat());
    let mut env = vec![
        ("HONE_PROVIDER".to_string(), "lmstudio".to_string()),
        ("HONE_BASE_URL".to_string(), server.url()),
        ("HONE_LOG".to_string(), "debug".to_string()),
    ];
    env.extend(
        extra_env
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string())),
    );
    let mut args: Vec<String> = flags.iter().map(ToString::to_string).collect();
    args.extend(["ask".to_string(), "hi".to_string()]);
    let (output, status) = on_terminal(root.path(), env, args).await;
    assert!(status.success(), "{output}");
    assert!(output.contains("the answer"), "{output}");
    assert!(output.contains("DEBUG"), "debug logs expected: {output}");
    output
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_on_a_terminal_are_coloured() {
    let server = MockServer::start().await;
    let output = ask_with_logs(&server, &[], &[]).await;
    assert!(output.contains("\u{1b}["), "{output}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_color_turns_colour_off_on_a_terminal() {
    let server = MockServer::start().await;
    let output = ask_with_logs(&server, &[("NO_COLOR", "1")], &[]).await;
    assert!(!output.contains('\u{1b}'), "{output:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn color_never_turns_colour_off_on_a_terminal() {
    let server = MockServer::start().await;
    let output = ask_with_logs(&server, &[], &["--color", "never"]).await;
    assert!(!output.contains('\u{1b}'), "{output:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_no_color_is_ignored() {
    let server = MockServer::start().await;
    let output = ask_with_logs(&server, &[("NO_COLOR", "")], &[]).await;
    assert!(output.contains("\u{1b}["), "{output}");
}
