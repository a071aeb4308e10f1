//! The project root (the repository above the working directory, `-C`), indexing that never
//! holds a session up (progress, the first request while indexing, the skip) and the live
//! status (the spinner on a terminal, nothing in a pipe, `model.retrying` and
//! `context.compacting` in `--json`), through pipes and a pseudo-terminal.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hone_testkit::{MockResponse, MockServer, Reply};
use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use serde_json::{Value, json};

/// A repository (`.git`) with `files` small JavaScript files under `src/` and a `README.md`.
struct Project {
    _dir: tempfile::TempDir,
    base: PathBuf,
    root: PathBuf,
}

fn project(files: usize) -> Project {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = base.join("repo");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::create_dir_all(root.join("src/lib")).unwrap();
    std::fs::write(root.join("README.md"), "# demo\n").unwrap();
    std::fs::write(
        root.join("src/math.js"),
        "function add(a, b) {\n  return a + b;\n}\nmodule.exports = { add };\n",
    )
    .unwrap();
    for index in 0..files {
        std::fs::write(
            root.join(format!("src/lib/m{index}.js")),
            format!(
                "const base = require('../math');\nfunction f{index}(x) {{\n  return base.add(x, {index});\n}}\nmodule.exports = {{ f{index} }};\n"
            ),
        )
        .unwrap();
    }
    Project {
        _dir: dir,
        base,
        root,
    }
}

impl Project {
    /// The environment every run gets: a private home, data directory and the mock model.
    fn env(&self, server: &MockServer) -> Vec<(String, String)> {
        vec![
            ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
            ("HOME".into(), self.base.join("home").display().to_string()),
            (
                "XDG_CONFIG_HOME".into(),
                self.base.join("home/.config").display().to_string(),
            ),
            (
                "HONE_DATA_DIR".into(),
                self.base.join("data").display().to_string(),
            ),
            ("HONE_PROVIDER".into(), "lmstudio".into()),
            ("HONE_BASE_URL".into(), server.url()),
        ]
    }

    /// `hone ARGS` in `cwd` with pipes for stdin (empty), stdout and stderr.
    async fn piped(&self, server: &MockServer, cwd: &Path, args: &[&str]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hone"));
        command
            .env_clear()
            .envs(self.env(server))
            .current_dir(cwd)
            .stdin(Stdio::null())
            .args(args);
        tokio::task::spawn_blocking(move || command.output().expect("hone runs"))
            .await
            .unwrap()
    }

    /// `hone ARGS` in `cwd` on a pseudo-terminal: everything it printed and whether it
    /// succeeded. When the output shows `interrupt_on`, Ctrl+C is typed once.
    async fn on_terminal(
        &self,
        server: &MockServer,
        cwd: &Path,
        args: &[&str],
        interrupt_on: Option<&'static str>,
    ) -> (String, bool) {
        let env = self.env(server);
        let cwd = cwd.to_path_buf();
        let args: Vec<String> = args.iter().map(ToString::to_string).collect();
        tokio::task::spawn_blocking(move || run_on_terminal(&cwd, env, args, interrupt_on))
            .await
            .unwrap()
    }
}

fn run_on_terminal(
    cwd: &Path,
    env: Vec<(String, String)>,
    args: Vec<String>,
    interrupt_on: Option<&'static str>,
) -> (String, bool) {
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 40,
            cols: 160,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_hone"));
    command.env_clear();
    for (name, value) in env {
        command.env(name, value);
    }
    command.env("TERM", "xterm-256color");
    command.cwd(cwd);
    command.args(args);
    let mut child = pair.slave.spawn_command(command).unwrap();
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().unwrap();
    let mut writer = pair.master.take_writer().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let collected = {
        let seen = seen.clone();
        std::thread::spawn(move || {
            let mut buffer = [0_u8; 8192];
            while let Ok(read) = reader.read(&mut buffer) {
                if read == 0 {
                    break;
                }
                seen.lock().unwrap().extend_from_slice(&buffer[..read]);
            }
        })
    };
    let mut interrupted = interrupt_on.is_none();
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if let Some(mark) = interrupt_on
            && !interrupted
            && String::from_utf8_lossy(&seen.lock().unwrap()).contains(mark)
        {
            writer.write_all(b"\x03").unwrap();
            writer.flush().unwrap();
            interrupted = true;
        }
        assert!(Instant::now() < deadline, "hone did not exit");
        std::thread::sleep(Duration::from_millis(10));
    };
    drop(writer);
    drop(pair.master);
    collected.join().unwrap();
    let output = String::from_utf8_lossy(&seen.lock().unwrap()).into_owned();
    (output, status.success())
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn events(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect()
}

fn position(events: &[Value], kind: &str) -> Option<usize> {
    events.iter().position(|event| event["type"] == kind)
}

fn system_prompt(server: &MockServer, index: usize) -> String {
    server.requests()[index].json()["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

// --- the project root ---

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sub_directory_works_on_the_repository_root_and_the_model_knows_where_the_user_is() {
    let project = project(0);
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("done").openai_chat());
    let cwd = project.root.join("src");
    let output = project
        .piped(&server, &cwd, &["exec", "--json", "say done"])
        .await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(project.root.join(".hone/logs").is_dir());
    assert!(
        !cwd.join(".hone").exists(),
        "no .hone/ in the sub-directory"
    );
    let system = system_prompt(&server, 0);
    assert!(
        system.contains("The user is working in `src/` inside the project"),
        "{system}"
    );
    // The repo map covers the whole repository, not only the sub-directory.
    assert!(
        system.contains("README.md") || system.contains("src/math.js"),
        "{system}"
    );

    // Every command finds the same project: the session is listed from the root.
    let listed = project
        .piped(&server, &project.root, &["sessions", "list", "--json"])
        .await;
    assert!(listed.status.success(), "{}", stderr(&listed));
    assert!(
        String::from_utf8_lossy(&listed.stdout).contains("say done"),
        "{}",
        String::from_utf8_lossy(&listed.stdout)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dash_c_starts_the_search_in_its_directory() {
    let project = project(0);
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("done").openai_chat());
    let elsewhere = project.base.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let sub = project.root.join("src/lib");
    let output = project
        .piped(
            &server,
            &elsewhere,
            &["-C", sub.to_str().unwrap(), "exec", "--json", "say done"],
        )
        .await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(project.root.join(".hone").is_dir());
    assert!(!sub.join(".hone").exists());
    assert!(!elsewhere.join(".hone").exists());
    let system = system_prompt(&server, 0);
    assert!(system.contains("working in `src/lib/`"), "{system}");

    // A directory that is not there is a usage error (exit 2), before anything is created.
    let missing = project.base.join("missing");
    let failed = project
        .piped(
            &server,
            &elsewhere,
            &["-C", missing.to_str().unwrap(), "exec", "hi"],
        )
        .await;
    assert_eq!(failed.status.code(), Some(2), "{}", stderr(&failed));
    assert!(!missing.exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_repository_the_directory_itself_is_the_root() {
    let project = project(0);
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("done").openai_chat());
    let plain = project.base.join("plain/sub");
    std::fs::create_dir_all(&plain).unwrap();
    let output = project
        .piped(&server, &plain, &["exec", "--json", "say done"])
        .await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(plain.join(".hone").is_dir());
    assert!(!project.base.join("plain/.hone").exists());
    assert!(!system_prompt(&server, 0).contains("The user is working in"));
}

// --- indexing ---

/// More files than are indexed before a session starts.
const LARGE: usize = 3_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_request_goes_out_while_the_index_is_built() {
    let project = project(LARGE);
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("done").openai_chat());
    let output = project
        .piped(&server, &project.root, &["exec", "--json", "say done"])
        .await;
    assert!(output.status.success(), "{}", stderr(&output));
    let first = server.requests()[0].json().to_string();
    assert!(!first.contains("# Repository map"), "no map yet: {first}");
    assert!(
        first.contains("\"find_definition\""),
        "the index tools are offered"
    );
    // Nothing about indexing in a pipe.
    let log = stderr(&output);
    assert!(!log.contains("indexing"), "{log}");

    // A small project is indexed first, so its first request has the map.
    let small = self::project(3);
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("done").openai_chat());
    let output = small
        .piped(&server, &small.root, &["exec", "--json", "say done"])
        .await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(system_prompt(&server, 0).contains("# Repository map"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_shows_on_a_terminal_and_ctrl_c_skips_the_index() {
    let project = project(LARGE * 2);
    let server = MockServer::start().await;
    // The answer comes slowly, so the run lasts while the index is built.
    server.enqueue(
        Reply::new()
            .text("all done here")
            .text_pieces(3)
            .openai_chat()
            .chunk_delay(Duration::from_millis(300)),
    );
    let (output, success) = project
        .on_terminal(
            &server,
            &project.root,
            &["exec", "--approval", "read-only", "say done"],
            Some("indexing"),
        )
        .await;
    assert!(success, "{output}");
    assert!(output.contains("indexing"), "{output}");
    assert!(
        output.contains("code index skipped for this session"),
        "{output}"
    );
    assert!(output.contains("all done here"), "{output}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quiet_shows_no_progress_on_a_terminal() {
    let project = project(LARGE);
    let server = MockServer::start().await;
    server.enqueue(Reply::new().text("done").openai_chat());
    let (output, success) = project
        .on_terminal(&server, &project.root, &["-q", "exec", "say done"], None)
        .await;
    assert!(success, "{output}");
    assert!(!output.contains("indexing"), "{output}");
    assert!(!output.contains('\u{1b}'), "{output:?}");
}

// --- the live status ---

/// A model that is rate limited once (`Retry-After: 1`), then answers.
async fn rate_limited_once() -> MockServer {
    let server = MockServer::start().await;
    server.enqueue(MockResponse::status(429).header("Retry-After", "1"));
    server.enqueue(Reply::new().text("the answer").openai_chat());
    server
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_spinner_shows_a_retry_on_a_terminal() {
    let project = project(0);
    let server = rate_limited_once().await;
    let (output, success) = project
        .on_terminal(&server, &project.root, &["exec", "say it"], None)
        .await;
    assert!(success, "{output}");
    assert!(
        output.contains("retrying in 1 s after 429 (retry 1)"),
        "{output}"
    );
    assert!(output.contains("the answer"), "{output}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pipe_gets_no_spinner_and_no_control_characters() {
    let project = project(0);
    let server = rate_limited_once().await;
    let output = project
        .piped(&server, &project.root, &["exec", "say it"])
        .await;
    assert!(output.status.success(), "{}", stderr(&output));
    let log = stderr(&output);
    assert!(!log.contains("retrying"), "{log}");
    for text in [log, String::from_utf8_lossy(&output.stdout).into_owned()] {
        assert!(
            !text.contains(['\u{1b}', '\r', '\u{8}']),
            "control characters: {text:?}"
        );
    }
    assert_eq!(String::from_utf8_lossy(&output.stdout), "the answer\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_announces_a_retry_when_its_wait_starts() {
    let project = project(0);
    let server = rate_limited_once().await;
    let output = project
        .piped(&server, &project.root, &["exec", "--json", "say it"])
        .await;
    assert!(output.status.success(), "{}", stderr(&output));
    let events = events(&output);
    let retry = position(&events, "model.retrying").expect("a model.retrying event");
    assert_eq!(events[retry]["attempt"], 1);
    assert_eq!(events[retry]["status"], 429);
    assert_eq!(events[retry]["delay_ms"], 1_000);
    assert_eq!(events[retry]["request_id"], "prompt");
    assert!(retry < position(&events, "message.delta").unwrap());
    assert_eq!(server.request_count(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_announces_compaction_when_it_starts() {
    let project = project(0);
    let mut big = String::new();
    for line in 0..380 {
        big.push_str(&format!(
            "line {line}: the quick brown fox {} jumps over the lazy dog\n",
            line * 7
        ));
    }
    std::fs::write(project.root.join("big.txt"), big).unwrap();
    let config = |text: &str| {
        std::fs::create_dir_all(project.root.join(".hone")).unwrap();
        std::fs::write(project.root.join(".hone/config.toml"), text).unwrap();
    };
    config("[providers.lmstudio]\ncontext_window = 1000000\n");
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .tool_call("read_file", json!({"path": "big.txt"}))
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("Read it.").openai_chat());
    let first = project
        .piped(&server, &project.root, &["exec", "--json", "Read big.txt"])
        .await;
    assert!(first.status.success(), "{}", stderr(&first));
    let usage: Vec<u64> = events(&first)
        .iter()
        .filter(|event| event["type"] == "context.usage")
        .map(|event| event["used"].as_u64().unwrap())
        .collect();
    let window = usage[0] + usage[1];
    config(&format!(
        "[providers.lmstudio]\ncontext_window = {window}\n\n[context]\ncompact_threshold = 0.5\nrecent_turns = 1\n"
    ));
    server.enqueue(Reply::new().text("- big.txt was read.").openai_chat());
    server.enqueue(Reply::new().text("Next, the tests.").openai_chat());
    let second = project
        .piped(
            &server,
            &project.root,
            &["exec", "--json", "--resume", "last", "What next?"],
        )
        .await;
    assert!(second.status.success(), "{}", stderr(&second));
    let events = events(&second);
    let compacting = position(&events, "context.compacting").expect("context.compacting");
    let compacted = position(&events, "context.compacted").expect("context.compacted");
    assert!(compacting < compacted);
    assert_eq!(events[compacting]["manual"], false);
    assert!(events[compacting]["before_tokens"].as_u64().unwrap() > 0);
}
