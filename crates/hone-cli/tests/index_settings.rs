//! End-to-end tests of the `[index]` settings (in the index commands and `hone exec`),
//! `hone index --scope`, and the question (on a terminal) or warning (otherwise) before a
//! large first index.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::path::Path;
use std::process::Output;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hone_testkit::{MockServer, Reply};
use portable_pty::{CommandBuilder, PtySize, native_pty_system};

fn write(root: &Path, path: &str, contents: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "src/store.ts",
        "export class Store {\n  get(key: string): string { return key; }\n}\n",
    );
    write(
        root,
        "src/main.ts",
        "import { Store } from './store';\nconst store = new Store();\nconsole.log(store.get('a'));\n",
    );
    write(
        root,
        "tool.py",
        "def helper(x: int) -> int:\n    return x\n",
    );
    dir
}

fn hone(root: &Path, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_hone"))
        .env_clear()
        .env("HOME", root.join(".home"))
        .env("HONE_DATA_DIR", root.join(".data"))
        .current_dir(root)
        .args(args)
        .output()
        .unwrap()
}

fn json(output: &Output) -> serde_json::Value {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn index_settings_choose_the_database_ignores_and_map_budget() {
    let dir = project();
    let root = dir.path();
    write(
        root,
        ".hone/config.toml",
        "[index]\ndatabase = \"data-dir\"\nextra_ignores = [\"*.py\"]\nmap_budget = 300\n",
    );
    let summary = json(&hone(root, &["index", "--json"]));
    assert_eq!(summary["files"], 2, "tool.py is ignored: {summary}");
    assert!(!root.join(".hone/index.db").exists());
    let databases: Vec<_> = std::fs::read_dir(root.join(".data/index"))
        .unwrap()
        .map(|entry| entry.unwrap().path().join("index.db"))
        .collect();
    assert_eq!(databases.len(), 1);
    assert!(databases[0].is_file());

    let map = hone(root, &["map"]);
    assert!(map.status.success(), "{}", stderr(&map));
    assert!(stderr(&map).contains("(budget 300)"), "{}", stderr(&map));
    let map = hone(root, &["map", "--budget", "500"]);
    assert!(stderr(&map).contains("(budget 500)"), "{}", stderr(&map));
    // The other commands read the same database.
    let symbols = hone(root, &["symbols", "Store"]);
    assert!(String::from_utf8_lossy(&symbols.stdout).contains("src/store.ts"));

    let shown = hone(root, &["config", "show"]);
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains("[index]"), "{shown}");
    assert!(shown.contains("database = \"data-dir\""), "{shown}");
    assert!(shown.contains("extra_ignores = \"*.py\""), "{shown}");
    assert!(shown.contains("watch_debounce_ms = 500"), "{shown}");
}

#[test]
fn invalid_index_settings_name_the_file_and_line() {
    let dir = project();
    write(dir.path(), ".hone/config.toml", "[index]\nmap_budget = 5\n");
    let output = hone(dir.path(), &["index"]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(message.contains("config.toml, line 2"), "{message}");
    assert!(message.contains("map_budget"), "{message}");
}

#[test]
fn a_scope_limits_the_index_until_reset() {
    let dir = project();
    let root = dir.path();
    let summary = json(&hone(root, &["index", "--scope", "src", "--json"]));
    assert_eq!(
        (summary["files"].as_u64(), summary["scope"].as_str()),
        (Some(2), Some("src"))
    );
    let summary = json(&hone(root, &["index", "--json"]));
    assert_eq!(summary["scope"], "src", "the scope is remembered");
    let status = json(&hone(root, &["index", "status", "--json"]));
    assert_eq!(
        (status["files"].as_u64(), status["scope"].as_str()),
        (Some(2), Some("src"))
    );
    let text = hone(root, &["index"]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("scope: src only"));
    let summary = json(&hone(root, &["index", "--scope", ".", "--json"]));
    assert_eq!(summary["files"], 3);
    assert!(summary["scope"].is_null());
    let refused = hone(root, &["index", "--scope", "nope"]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("cannot limit the index to `nope`"),
        "{}",
        stderr(&refused)
    );
}

#[test]
fn a_large_first_index_warns_without_a_terminal_and_indexes_anyway() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let files = hone_index::LARGE_REPOSITORY_FILES + 5;
    for n in 0..files {
        write(root, &format!("d{}/f{n}.txt", n % 100), "x\n");
    }
    let output = hone(root, &["index", "--json"]);
    let message = stderr(&output);
    assert!(
        message.contains(&format!("{files} files to index (more than 10000)")),
        "{message}"
    );
    assert!(message.contains("--scope DIR"), "{message}");
    assert_eq!(json(&output)["files"], files, "it indexes anyway");
    // Nothing new to index: no warning.
    let output = hone(root, &["index", "--json"]);
    assert!(
        !stderr(&output).contains("files to index"),
        "{}",
        stderr(&output)
    );
    assert_eq!(json(&output)["parsed"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_opens_the_index_the_settings_describe() {
    let dir = project();
    let root = dir.path().to_path_buf();
    write(
        &root,
        ".hone/config.toml",
        "[index]\ndatabase = \"data-dir\"\nextra_ignores = [\"*.py\"]\nmap_budget = 2000\n",
    );
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("Looked.").openai_chat());
    let url = server.url();
    let output = {
        let root = root.clone();
        tokio::task::spawn_blocking(move || {
            hone(
                &root,
                &[
                    "exec",
                    "--provider",
                    "lmstudio",
                    "--base-url",
                    &url,
                    "describe the project",
                ],
            )
        })
        .await
        .unwrap()
    };
    assert!(output.status.success(), "{}", stderr(&output));
    let first = server.requests()[0].json().to_string();
    assert!(first.contains("# Repository map"), "{first}");
    assert!(first.contains("src/store.ts"), "{first}");
    assert!(
        !first.contains("tool.py"),
        "ignored by extra_ignores: {first}"
    );
    assert!(!root.join(".hone/index.db").exists());
    let databases = std::fs::read_dir(root.join(".data/index")).unwrap().count();
    assert_eq!(databases, 1, "the index lives in the data directory");
}

/// `hone exec` on `root` against a mock model that answers at once; the system prompt of
/// its request.
async fn exec_first_request(root: &Path) -> String {
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("Looked.").openai_chat());
    let url = server.url();
    let root = root.to_path_buf();
    let output = tokio::task::spawn_blocking(move || {
        hone(
            &root,
            &["exec", "--provider", "lmstudio", "--base-url", &url, "look"],
        )
    })
    .await
    .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    server.requests()[0].json()["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Whether the repo map in `system` ends with `… N more files`.
fn map_omits_files(system: &str) -> bool {
    system
        .lines()
        .any(|line| line.starts_with("… ") && line.ends_with(" more files"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_cuts_the_repo_map_to_the_configured_budget() {
    let dir = project();
    let root = dir.path();
    for n in 0..40 {
        write(
            root,
            &format!("src/feature{n}.ts"),
            &format!("export function feature{n}(input: string): string {{\n  return input;\n}}\n"),
        );
    }
    let whole = exec_first_request(root).await;
    assert!(whole.contains("# Repository map"), "{whole}");
    assert!(
        !whole.contains("more files"),
        "the default budget fits: {whole}"
    );
    write(root, ".hone/config.toml", "[index]\nmap_budget = 256\n");
    let cut = exec_first_request(root).await;
    assert!(map_omits_files(&cut), "{cut}");
    assert!(cut.len() < whole.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_compact_profile_gets_a_smaller_repo_map() {
    let dir = project();
    let root = dir.path();
    for n in 0..120 {
        write(
            root,
            &format!("src/feature{n}.ts"),
            &format!("export function feature{n}(input: string): string {{\n  return input;\n}}\n"),
        );
    }
    let whole = exec_first_request(root).await;
    assert!(!map_omits_files(&whole), "the default budget fits: {whole}");
    write(
        root,
        ".hone/config.toml",
        "[context]\nprompt_profile = \"compact\"\n",
    );
    let compact = exec_first_request(root).await;
    assert!(compact.contains("Files:"), "{compact}");
    assert!(map_omits_files(&compact), "{compact}");
    assert!(
        compact.len() * 2 < whole.len(),
        "{} vs {}",
        compact.len(),
        whole.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_warns_before_a_large_first_index_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    for n in 0..hone_index::LARGE_REPOSITORY_FILES + 5 {
        write(&root, &format!("d{}/f{n}.txt", n % 100), "x\n");
    }
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("Done.").openai_chat());
    let url = server.url();
    let output = tokio::task::spawn_blocking(move || {
        hone(
            &root,
            &["exec", "--provider", "lmstudio", "--base-url", &url, "hi"],
        )
    })
    .await
    .unwrap();
    let message = stderr(&output);
    assert!(output.status.success(), "{message}");
    // The count also has the session files hone writes under HOME and the data directory,
    // which this test keeps inside the project.
    assert!(
        message.contains("files to index (more than 10000)"),
        "{message}"
    );
    assert!(message.contains("--scope DIR"), "{message}");
    assert_eq!(server.requests().len(), 1, "the session ran");
}

/// `hone index` in a pseudo-terminal: its output so far, and its exit code once it ends.
struct Terminal {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    output: Arc<Mutex<String>>,
}

impl Terminal {
    fn start(root: &Path, args: &[&str]) -> Self {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 30,
                cols: 200,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_hone"));
        command.env_clear();
        command.env("HOME", root.join(".home"));
        command.env("HONE_DATA_DIR", root.join(".data"));
        command.env("TERM", "xterm-256color");
        command.cwd(root);
        command.args(args);
        let child = pair.slave.spawn_command(command).unwrap();
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let writer = pair.master.take_writer().unwrap();
        let output = Arc::new(Mutex::new(String::new()));
        let feed = output.clone();
        std::thread::spawn(move || {
            let _master = pair.master;
            let mut buffer = [0u8; 4096];
            while let Ok(read) = reader.read(&mut buffer) {
                if read == 0 {
                    break;
                }
                feed.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buffer[..read]));
            }
        });
        Self {
            child,
            writer,
            output,
        }
    }

    fn output(&self) -> String {
        self.output.lock().unwrap().clone()
    }

    /// Waits until the output contains `text` (generous: debug builds on a busy machine).
    fn wait_for(&self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !self.output().contains(text) {
            assert!(
                Instant::now() < deadline,
                "no `{text}` in:\n{}",
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

    fn exit_code(&mut self) -> u32 {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.exit_code();
            }
            assert!(
                Instant::now() < deadline,
                "hone did not end:\n{}",
                self.output()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

#[test]
fn a_large_first_index_on_a_terminal_asks_what_to_index() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let files = hone_index::LARGE_REPOSITORY_FILES + 5;
    for n in 0..files {
        let directory = if n < 3 {
            "src".to_string()
        } else {
            format!("d{}", n % 100)
        };
        write(root, &format!("{directory}/f{n}.txt"), "x\n");
    }
    const QUESTION: &str = "[c] continue  [d] index one sub-directory only  [q] cancel >";

    let mut cancelled = Terminal::start(root, &["index"]);
    cancelled.wait_for(QUESTION);
    assert!(
        cancelled
            .output()
            .contains(&format!("{files} files to index (more than 10000)")),
        "{}",
        cancelled.output()
    );
    cancelled.answer("q");
    assert_eq!(cancelled.exit_code(), 130, "{}", cancelled.output());
    cancelled.wait_for("nothing was indexed");
    let status = json(&hone(root, &["index", "status", "--json"]));
    assert_eq!(status["files"], 0, "{status}");

    let mut scoped = Terminal::start(root, &["index"]);
    scoped.wait_for(QUESTION);
    scoped.answer("d");
    scoped.wait_for("sub-directory, relative to the project root");
    scoped.answer("nope");
    scoped.wait_for("cannot limit the index to `nope`");
    scoped.answer("src");
    assert_eq!(scoped.exit_code(), 0, "{}", scoped.output());
    scoped.wait_for("scope: src only");
    let status = json(&hone(root, &["index", "status", "--json"]));
    assert_eq!(
        (status["files"].as_u64(), status["scope"].as_str()),
        (Some(3), Some("src"))
    );
}

#[test]
fn index_watch_uses_the_configured_debounce_and_ignores() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    use std::sync::mpsc;

    let dir = project();
    let root = dir.path();
    write(
        root,
        ".hone/config.toml",
        "[index]\nwatch_debounce_ms = 120\nextra_ignores = [\"*.gen.ts\"]\n",
    );
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_hone"))
        .env_clear()
        .env("HOME", root.join(".home"))
        .env("HONE_DATA_DIR", root.join(".data"))
        .current_dir(root)
        .args(["index", "--watch"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (sender, lines) = mpsc::channel();
    let stdout_sender = sender.clone();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let stderr = BufReader::new(child.stderr.take().unwrap());
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let _ = stdout_sender.send(line);
        }
    });
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });
    let wait_for_line = |wanted: &dyn Fn(&str) -> bool| {
        let mut seen = Vec::new();
        loop {
            match lines.recv_timeout(Duration::from_secs(30)) {
                Ok(line) if wanted(&line) => return line,
                Ok(line) => seen.push(line),
                Err(error) => panic!("{error}; output so far: {seen:?}"),
            }
        }
    };
    let watching = wait_for_line(&|line| line.contains("watching"));
    assert!(watching.contains("updating 120 ms after"), "{watching}");
    write(root, "src/schema.gen.ts", "export const generated = 1;\n");
    let ignored = wait_for_line(&|line| line.starts_with("updated "));
    assert!(ignored.contains("(parsed 0, removed 0)"), "{ignored}");
    write(root, "src/extra.ts", "export const extra = 1;\n");
    wait_for_line(&|line| line.starts_with("updated ") && line.contains("parsed 1"));
    child.kill().unwrap();
    child.wait().unwrap();
    let status = json(&hone(root, &["index", "status", "--json"]));
    assert_eq!(status["files"], 4, "{status}");
}
