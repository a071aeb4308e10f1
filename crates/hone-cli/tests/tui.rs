//! End-to-end test of the terminal UI: the real `hone` binary in a pseudo-terminal (screen
//! read with a vt100 parser), a mock model server, a temporary git repository.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hone_testkit::{MockServer, Reply};
use portable_pty::{Child, CommandBuilder, PtySize, native_pty_system};
use serde_json::json;

const ROWS: u16 = 30;
const COLS: u16 = 100;
/// Generous: debug builds on a shared 2-core machine.
const WAIT: Duration = Duration::from_secs(60);

/// A project in a fresh git repository.
fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("README.md"), "# math\n\nAdds numbers.\n").unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("src/math.js"),
        "function add(a, b) {\n  return a + b;\n}\n",
    )
    .unwrap();
    common::commit_all(root);
    dir
}

fn environment(root: &Path) -> Vec<(String, String)> {
    vec![
        ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
        ("HOME".into(), root.join(".home").display().to_string()),
        (
            "XDG_CONFIG_HOME".into(),
            root.join(".home/.config").display().to_string(),
        ),
        (
            "HONE_DATA_DIR".into(),
            root.join(".home/data").display().to_string(),
        ),
        ("TERM".into(), "xterm-256color".into()),
    ]
}

/// `hone` running in a pseudo-terminal, its screen kept up to date by a reader thread.
struct Tui {
    child: Box<dyn Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    screen: Arc<Mutex<vt100::Parser>>,
}

impl Tui {
    fn start(root: &Path, args: &[&str]) -> Self {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_hone"));
        command.env_clear();
        for (name, value) in environment(root) {
            command.env(name, value);
        }
        command.cwd(root);
        command.args(args);
        let child = pair.slave.spawn_command(command).unwrap();
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let writer = pair.master.take_writer().unwrap();
        let screen = Arc::new(Mutex::new(vt100::Parser::new(ROWS, COLS, 0)));
        let feed = screen.clone();
        std::thread::spawn(move || {
            let _master = pair.master;
            let mut buffer = [0u8; 8192];
            while let Ok(read) = reader.read(&mut buffer) {
                if read == 0 {
                    break;
                }
                feed.lock().unwrap().process(&buffer[..read]);
            }
        });
        Self {
            child,
            writer,
            screen,
        }
    }

    fn contents(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    fn send(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
        self.writer.flush().unwrap();
    }

    /// Types `text` a character at a time, as a person would.
    async fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.send(c.to_string().as_bytes());
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    async fn wait_for(&self, text: &str) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            let screen = self.contents();
            if screen.contains(text) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "`{text}` never appeared; the screen:\n{screen}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn wait_for_file(&self, path: &Path, content: &str) {
        let deadline = Instant::now() + WAIT;
        loop {
            if std::fs::read_to_string(path).unwrap() == content {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{} never became {content:?}; the screen:\n{}",
                path.display(),
                self.contents()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn wait_exit(&mut self) -> portable_pty::ExitStatus {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "hone did not exit; the screen:\n{}",
                self.contents()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approve_an_edit_undo_it_and_quit_saving_the_session() {
    let repo = repository();
    let root = repo.path().canonicalize().unwrap();
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .text("I'll update the README.")
            .tool_call(
                "edit_file",
                json!({"path": "README.md", "old_text": "Adds numbers.", "new_text": "Adds two numbers."}),
            )
            .openai_chat(),
    );
    server.enqueue(
        Reply::new()
            .text("Done: the README now says **two** numbers.")
            .usage(120, 9)
            .openai_chat(),
    );
    let url = server.url();

    let mut tui = Tui::start(&root, &["--provider", "lmstudio", "--base-url", &url]);
    tui.wait_for("Welcome to hone").await;
    tui.type_text("update the readme").await;
    tui.send(b"\r");

    let dialog = tui.wait_for("approve edit_file?").await;
    assert!(
        dialog.contains("Adds two numbers."),
        "the diff is shown:\n{dialog}"
    );
    tui.send(b"y");
    let readme = root.join("README.md");
    tui.wait_for_file(&readme, "# math\n\nAdds two numbers.\n")
        .await;
    let answered = tui.wait_for("tool call").await;
    assert!(
        answered.contains("Done: the README now says two numbers."),
        "{answered}"
    );
    assert!(answered.contains("✓ ready"), "{answered}");

    tui.type_text("/undo").await;
    tui.send(b"\r");
    tui.wait_for("undone:").await;
    tui.wait_for_file(&readme, "# math\n\nAdds numbers.\n")
        .await;

    tui.send(b"\x04");
    let status = tui.wait_exit().await;
    assert!(
        status.success(),
        "exit status {status:?}; screen:\n{}",
        tui.contents()
    );
    // Back on the normal screen, the conversation was printed there to stay in the
    // scrollback: its end is on screen, the TUI's frame is not.
    let after = tui.contents();
    assert!(
        after.contains("Done: the README now says two numbers.") && after.contains("undone:"),
        "{after}"
    );
    assert!(!after.contains("╭ message"), "{after}");

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[0].json().to_string().contains("update the readme"));

    let listed = std::process::Command::new(env!("CARGO_BIN_EXE_hone"))
        .env_clear()
        .envs(environment(&root))
        .current_dir(&root)
        .args(["sessions", "list"])
        .output()
        .unwrap();
    let listed_text = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listed.status.success(),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    assert!(listed_text.contains("update the readme"), "{listed_text}");
    let log = std::fs::read_to_string(root.join(".hone/logs/tui.log")).unwrap_or_default();
    assert!(!log.contains('\u{1b}'), "the log is plain text");
}

/// `hone exec` in the same environment as the terminal UI.
fn exec(root: &Path, url: &str, extra: &[&str], prompt: &str) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_hone"))
        .env_clear()
        .envs(environment(root))
        .current_dir(root)
        .args(["exec", "--provider", "lmstudio", "--base-url", url])
        .args(extra)
        .arg(prompt)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hone_starts_new_sessions_and_continue_resumes_the_last_conversation_not_exec() {
    let repo = repository();
    let root = repo.path().canonicalize().unwrap();
    let server = MockServer::start().await;
    for text in ["answer one", "answer two", "answer three", "answer four"] {
        server.enqueue(Reply::new().text(text).openai_chat());
    }
    let url = server.url();
    let tui_args = ["--provider", "lmstudio", "--base-url", url.as_str()];
    let first = exec(&root, &url, &[], "first task");
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );

    // `hone "task"` starts a new session (not exec's) with the task already sent.
    let mut args = tui_args.to_vec();
    args.push("second task");
    let mut tui = Tui::start(&root, &args);
    let screen = tui.wait_for("answer two").await;
    assert!(screen.contains("second task"), "{screen}");
    assert!(!screen.contains("first task"), "a new session: {screen}");
    tui.send(b"\x04");
    let status = tui.wait_exit().await;
    assert!(status.success(), "{}", tui.contents());
    let sent = server.requests()[1].json().to_string();
    assert!(sent.contains("second task"), "{sent}");
    assert!(!sent.contains("first task"), "{sent}");

    // An exec run after it is the latest session, but not a conversation.
    let third = exec(&root, &url, &[], "third task");
    assert!(third.status.success());

    // `hone -c` continues the terminal UI's conversation, not the exec run.
    let mut args = tui_args.to_vec();
    args.push("-c");
    let mut tui = Tui::start(&root, &args);
    let screen = tui.wait_for("answer two").await;
    assert!(!screen.contains("third task"), "{screen}");
    tui.type_text("fourth task").await;
    tui.send(b"\r");
    tui.wait_for("answer four").await;
    tui.send(b"\x04");
    assert!(tui.wait_exit().await.success(), "{}", tui.contents());
    let sent = server.requests()[3].json().to_string();
    for needle in ["second task", "answer two", "fourth task"] {
        assert!(sent.contains(needle), "{needle} missing from {sent}");
    }
    for needle in ["first task", "third task"] {
        assert!(!sent.contains(needle), "{needle} in {sent}");
    }

    // And exec resumes the latest session of any kind with --resume last.
    server.enqueue(Reply::new().text("answer five").openai_chat());
    let fifth = exec(&root, &url, &["--resume", "last"], "fifth task");
    let stderr = String::from_utf8_lossy(&fifth.stderr);
    assert!(fifth.status.success(), "{stderr}");
    let sent = server.requests()[4].json().to_string();
    assert!(sent.contains("fourth task"), "{sent}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn init_proposes_agents_md_as_an_edit_and_leaves_an_existing_one_alone() {
    let repo = repository();
    let root = repo.path().canonicalize().unwrap();
    std::fs::write(
        root.join("package.json"),
        r#"{"scripts": {"test": "node test.js"}}"#,
    )
    .unwrap();
    let server = MockServer::start().await;
    let url = server.url();
    let mut tui = Tui::start(&root, &["--provider", "lmstudio", "--base-url", &url]);
    tui.wait_for("Welcome to hone").await;
    tui.type_text("/init").await;
    tui.send(b"\r");
    let dialog = tui.wait_for("approve write_file?").await;
    assert!(dialog.contains("AGENTS.md"), "{dialog}");
    tui.send(b"y");
    let agents = root.join("AGENTS.md");
    let deadline = Instant::now() + WAIT;
    while !agents.exists() {
        assert!(Instant::now() < deadline, "{}", tui.contents());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let text = std::fs::read_to_string(&agents).unwrap();
    assert!(text.contains("- javascript (1 files)"), "{text}");
    assert!(text.contains("- test: `npm test`"), "{text}");

    tui.type_text("/init").await;
    tui.send(b"\r");
    tui.wait_for("AGENTS.md exists and was left alone").await;
    assert_eq!(std::fs::read_to_string(&agents).unwrap(), text);
    tui.type_text("/undo").await;
    tui.send(b"\r");
    tui.wait_for("undone:").await;
    assert!(!agents.exists(), "the write is in the undo journal");
    tui.send(b"\x04");
    assert!(tui.wait_exit().await.success(), "{}", tui.contents());
    assert!(server.requests().is_empty(), "no model request for /init");
}

#[test]
fn continue_without_a_conversation_says_so() {
    let repo = repository();
    let root = repo.path().canonicalize().unwrap();
    let mut tui = Tui::start(
        &root,
        &[
            "--provider",
            "lmstudio",
            "--base-url",
            "http://127.0.0.1:9",
            "-c",
        ],
    );
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let screen = runtime.block_on(tui.wait_for("no earlier conversation"));
    assert!(screen.contains("hone` starts a new one"), "{screen}");
    let status = runtime.block_on(tui.wait_exit());
    assert!(!status.success());
}

#[test]
fn terminal_ui_flags_before_a_command_are_refused() {
    let repo = repository();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_hone"))
        .env_clear()
        .envs(environment(repo.path()))
        .current_dir(repo.path())
        .args(["--approval", "full-auto", "exec", "go"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--approval before the command"), "{stderr}");
}

#[test]
fn without_a_terminal_it_points_to_hone_exec() {
    let repo = repository();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_hone"))
        .env_clear()
        .envs(environment(repo.path()))
        .current_dir(repo.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("hone exec"), "{stderr}");
}
