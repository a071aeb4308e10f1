//! What reaches the terminal: the real `hone` binary in a pseudo-terminal, a mock model whose
//! answers, commands and edits carry escape sequences, and the bytes hone writes checked for
//! them. Each sequence must arrive shown (`\x1b]52;…` as text), never raw, and the screen (a
//! vt100 parser) must show what was really sent.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hone_testkit::{MockServer, Reply};
use portable_pty::{Child, CommandBuilder, PtySize, native_pty_system};
use serde_json::json;

/// Generous: debug builds on a shared 2-core machine.
const WAIT: Duration = Duration::from_secs(90);
const ROWS: u16 = 40;
const COLS: u16 = 200;

/// OSC 52 (put a command on the clipboard), then a claim overwritten by a carriage return
/// and erase-line.
const ANSWER: &str = "\x1b]52;c;cm0gLXJmIH4=\x07rm -rf ~ was run\r\x1b[2KNothing was run";
/// How [`ANSWER`] must be shown.
const ANSWER_SHOWN: &str = r"\x1b]52;c;cm0gLXJmIH4=\x07rm -rf ~ was run\r\x1b[2KNothing was run";

/// `hone` running in a pseudo-terminal: every byte it wrote, and the screen they draw.
struct Terminal {
    child: Box<dyn Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    bytes: Arc<Mutex<Vec<u8>>>,
    screen: Arc<Mutex<vt100::Parser>>,
}

impl Terminal {
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
        command.env("PATH", std::env::var("PATH").unwrap_or_default());
        command.env("HOME", root.join(".home"));
        command.env("XDG_CONFIG_HOME", root.join(".home/.config"));
        command.env("HONE_DATA_DIR", root.join(".home/data"));
        command.env("TERM", "xterm-256color");
        command.cwd(root);
        command.args(args);
        let child = pair.slave.spawn_command(command).unwrap();
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let writer = pair.master.take_writer().unwrap();
        let bytes = Arc::new(Mutex::new(Vec::new()));
        let screen = Arc::new(Mutex::new(vt100::Parser::new(ROWS, COLS, 1_000)));
        let (all, feed) = (bytes.clone(), screen.clone());
        std::thread::spawn(move || {
            let _master = pair.master;
            let mut buffer = [0_u8; 8192];
            while let Ok(read) = reader.read(&mut buffer) {
                if read == 0 {
                    break;
                }
                all.lock().unwrap().extend_from_slice(&buffer[..read]);
                feed.lock().unwrap().process(&buffer[..read]);
            }
        });
        Self {
            child,
            writer,
            bytes,
            screen,
        }
    }

    /// Everything written so far, as text.
    fn output(&self) -> String {
        String::from_utf8_lossy(&self.bytes.lock().unwrap()).into_owned()
    }

    fn screen(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    fn wait_for(&self, text: &str) {
        let deadline = Instant::now() + WAIT;
        while !self.output().contains(text) {
            assert!(
                Instant::now() < deadline,
                "`{text}` never came:\n{:?}",
                self.output()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn answer(&mut self, line: &str) {
        self.writer.write_all(line.as_bytes()).unwrap();
        self.writer.write_all(b"\r").unwrap();
        self.writer.flush().unwrap();
    }

    /// Waits for the end and returns the exit code and everything written.
    fn finish(mut self) -> (u32, String) {
        let deadline = Instant::now() + WAIT;
        let code = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status.exit_code();
            }
            assert!(
                Instant::now() < deadline,
                "hone did not end:\n{:?}",
                self.output()
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        // The reader drains what is left once the child is gone.
        std::thread::sleep(Duration::from_millis(200));
        (code, self.output())
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

/// Runs `hone ARGS` on a terminal in `root` to its end off the async runtime.
async fn on_terminal(root: &Path, args: Vec<String>) -> (u32, String, String) {
    let root = root.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let terminal = Terminal::start(&root, &args);
        let screen = Arc::clone(&terminal.screen);
        let (code, output) = terminal.finish();
        let screen = screen.lock().unwrap().screen().contents();
        (code, output, screen)
    })
    .await
    .unwrap()
}

/// The raw sequences of the attacks, none of which hone itself writes.
fn assert_no_raw_attack(output: &str) {
    for raw in [
        "\x1b]52",
        "\x1b]8;",
        "\x1b]0;",
        "\x07",
        "was run\r\x1b",
        "pwned\r\x1b",
        "\u{9b}",
        "\u{202e}",
    ] {
        assert!(
            !output.contains(raw),
            "{raw:?} reached the terminal: {output:?}"
        );
    }
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/lib.rs"),
        "pub fn one() -> u32 {\n    1\n}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("README.md"), "# demo\n").unwrap();
    common::commit_all(dir.path());
    dir
}

fn exec_args(url: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["exec", "--provider", "lmstudio", "--base-url", url];
    args.extend_from_slice(extra);
    args.into_iter().map(str::to_string).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_with_osc_52_and_an_erased_line_is_shown_not_obeyed() {
    let repo = project();
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text(ANSWER).openai_chat());
    let (code, output, screen) =
        on_terminal(repo.path(), exec_args(&server.url(), &["say it"])).await;
    assert_eq!(code, 0, "{output:?}");
    assert_no_raw_attack(&output);
    assert!(output.contains(ANSWER_SHOWN), "{output:?}");
    // What the screen shows is what was sent: the claim is not overwritten.
    assert!(screen.contains("rm -rf ~ was run"), "{screen}");

    // `hone sessions show` replays the stored answer, shown the same way.
    let id = output
        .lines()
        .find_map(|line| line.trim().strip_prefix("session: "))
        .expect("the session id is printed")
        .trim()
        .to_string();
    let (code, shown, _) = on_terminal(
        repo.path(),
        vec!["sessions".into(), "show".into(), id.clone()],
    )
    .await;
    assert_eq!(code, 0, "{shown:?}");
    assert_no_raw_attack(&shown);
    assert!(shown.contains(ANSWER_SHOWN), "{shown:?}");
    let (code, exported, _) =
        on_terminal(repo.path(), vec!["sessions".into(), "export".into(), id]).await;
    assert_eq!(code, 0, "{exported:?}");
    assert_no_raw_attack(&exported);
    assert!(exported.contains(ANSWER_SHOWN), "{exported:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hone_ask_shows_the_escapes_of_the_answer_and_the_reasoning() {
    let repo = project();
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .thinking("thinking \x1b]0;owned\x07 \u{202e}done")
            .text(ANSWER)
            .openai_chat(),
    );
    let url = server.url();
    let args = ["--provider", "lmstudio", "--base-url", &url, "ask", "hi"];
    let (code, output, _) =
        on_terminal(repo.path(), args.iter().map(ToString::to_string).collect()).await;
    assert_eq!(code, 0, "{output:?}");
    assert_no_raw_attack(&output);
    assert!(output.contains(ANSWER_SHOWN), "{output:?}");
    assert!(
        output.contains(r"thinking \x1b]0;owned\x07 \u{202e}done"),
        "{output:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_approval_prompt_shows_a_hidden_command_whole_and_warns() {
    let repo = project();
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .tool_call(
                "run_command",
                json!({"command": "touch pwned\r\x1b[2Kls src"}),
            )
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("Stopped.").openai_chat());
    let root = repo.path().to_path_buf();
    let url = server.url();
    let (code, output, screen) = tokio::task::spawn_blocking(move || {
        let args = exec_args(&url, &["--approval", "ask", "list the sources"]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut terminal = Terminal::start(&root, &args);
        terminal.wait_for("[y] approve");
        let screen = terminal.screen();
        terminal.answer("n");
        terminal.wait_for("reason for the model");
        terminal.answer("");
        let (code, output) = terminal.finish();
        (code, output, screen)
    })
    .await
    .unwrap();
    assert_eq!(code, 0, "{output:?}");
    assert_no_raw_attack(&output);
    assert!(
        output.contains(r"hone wants to run: touch pwned\r\x1b[2Kls src"),
        "{output:?}"
    );
    assert!(
        output.contains("this command contains control characters"),
        "{output:?}"
    );
    // On the screen, the prompt is not `hone wants to run: ls src`.
    let prompt = screen
        .lines()
        .find(|line| line.contains("hone wants to run:"))
        .unwrap_or_default();
    assert!(prompt.contains("touch pwned"), "{screen}");
    assert!(!repo.path().join("pwned").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_diff_carrying_an_osc_8_link_is_shown_as_text() {
    let repo = project();
    let server = MockServer::start().await;
    let hidden = "\x1b]8;;https://evil.example\x1b\\docs\x1b]8;;\x1b\\ \x1b[8mconcealed\x1b[0m";
    server.enqueue(
        Reply::new()
            .tool_call(
                "write_file",
                json!({"path": "NOTES.md", "content": format!("{hidden}\n")}),
            )
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("Written.").openai_chat());
    let (code, output, _) = on_terminal(
        repo.path(),
        exec_args(&server.url(), &["--approval", "auto-edit", "write notes"]),
    )
    .await;
    // The run ends as answered or unverified (no check verifies a Markdown file).
    assert!(output.contains("Written."), "exit code {code}: {output:?}");
    assert_no_raw_attack(&output);
    assert!(!output.contains("\x1b[8m"), "{output:?}");
    assert!(
        output.contains(r"+\x1b]8;;https://evil.example\x1b\docs\x1b]8;;\x1b\ \x1b[8mconcealed"),
        "{output:?}"
    );
    // The file holds exactly what the model wrote.
    let written = std::fs::read_to_string(repo.path().join("NOTES.md")).unwrap();
    assert_eq!(written, format!("{hidden}\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_output_escapes_every_control_character() {
    let repo = project();
    let server = MockServer::start().await;
    let answer = format!("{ANSWER} \u{9b}31m \u{202e}x\u{7f}");
    server.enqueue(Reply::new().text(&answer).openai_chat());
    let output = common::exec_on(repo.path(), &server.url(), &["--json", "say it"]).await;
    assert!(output.status.success(), "{}", common::stderr(&output));
    let stdout = String::from_utf8(output.stdout.clone()).unwrap();
    assert!(
        !stdout.contains(['\x1b', '\x07', '\r', '\u{9b}', '\u{202e}', '\u{7f}']),
        "{stdout:?}"
    );
    let events = common::events(&output);
    let completed = common::of_type(&events, "message.completed");
    assert_eq!(
        completed[0]["text"],
        answer.as_str(),
        "the exact text, escaped"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_terminal_ui_shows_the_escapes_on_screen_and_in_the_scrollback() {
    let repo = project();
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .text(&format!("{ANSWER} \u{202e}end"))
            .openai_chat(),
    );
    let root = repo.path().to_path_buf();
    let url = server.url();
    let (code, output, during, after) = tokio::task::spawn_blocking(move || {
        let args = ["--provider", "lmstudio", "--base-url", &url];
        let mut terminal = Terminal::start(&root, &args);
        let wait_for_screen = |terminal: &Terminal, text: &str| {
            let deadline = Instant::now() + WAIT;
            while !terminal.screen().contains(text) {
                assert!(
                    Instant::now() < deadline,
                    "`{text}` never appeared:\n{}",
                    terminal.screen()
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        };
        wait_for_screen(&terminal, "Welcome to hone");
        for c in "say it".chars() {
            terminal.writer.write_all(c.to_string().as_bytes()).unwrap();
            terminal.writer.flush().unwrap();
            std::thread::sleep(Duration::from_millis(5));
        }
        terminal.answer("");
        wait_for_screen(&terminal, r"\u{202e}end");
        let during = terminal.screen();
        terminal.writer.write_all(b"\x04").unwrap();
        terminal.writer.flush().unwrap();
        let screen = Arc::clone(&terminal.screen);
        let (code, output) = terminal.finish();
        let after = screen.lock().unwrap().screen().contents();
        (code, output, during, after)
    })
    .await
    .unwrap();
    assert_eq!(code, 0, "{after}");
    assert_no_raw_attack(&output);
    assert!(
        during.contains(r"\x1b]52;c;cm0gLXJmIH4=\x07rm -rf ~ was run"),
        "{during}"
    );
    // The conversation printed to the scrollback at the end shows them too.
    assert!(
        after.contains(r"was run\r\x1b[2KNothing was run"),
        "{after}"
    );
}
