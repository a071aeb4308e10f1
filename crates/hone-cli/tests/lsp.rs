//! `hone lsp` driven by LSP clients no one here wrote: Neovim's own client (headless, the
//! Debian package `.ci/run` installs) completes a line and applies a quick refactor's edit
//! against scripted models, and completes with the embedded test model (`HONE_TEST_MODEL`);
//! the `vscode-jsonrpc` client (npm, from `HONE_MCP_NODE_MODULES`) asks for
//! `textDocument/inlineCompletion`, which Debian's Neovim 0.7 does not have. Without a peer
//! a test prints a note and passes, unless `HONE_REQUIRE_NVIM=1` (Neovim) or
//! `HONE_REQUIRE_MCP_PEERS=1` (node) is set.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hone_testkit::{MockResponse, MockServer, Reply};
use serde_json::{Value, json};

const MAIN: &str = "fn add(a: i32, b: i32) -> i32 {\n    \n}\n\nfn main() {}\n";

/// Whether `nvim` runs here (a note when it does not, a failure when it must).
fn neovim() -> bool {
    let found = Command::new("nvim")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !found {
        assert!(
            std::env::var("HONE_REQUIRE_NVIM").as_deref() != Ok("1"),
            "HONE_REQUIRE_NVIM=1 but nvim is not installed"
        );
        eprintln!("note: skipped: nvim is not installed");
    }
    found
}

/// The `node_modules` holding `vscode-jsonrpc`, or `None` (with a note).
fn jsonrpc_modules() -> Option<PathBuf> {
    match std::env::var_os("HONE_MCP_NODE_MODULES") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            assert!(
                dir.join("vscode-jsonrpc").is_dir(),
                "HONE_MCP_NODE_MODULES={} has no vscode-jsonrpc",
                dir.display()
            );
            Some(dir)
        }
        None if std::env::var("HONE_REQUIRE_MCP_PEERS").as_deref() == Ok("1") => {
            panic!("HONE_REQUIRE_MCP_PEERS=1 but HONE_MCP_NODE_MODULES is not set")
        }
        None => {
            eprintln!(
                "note: skipped: set HONE_MCP_NODE_MODULES to a node_modules with vscode-jsonrpc"
            );
            None
        }
    }
}

/// A project with `src/main.rs` and a user configuration whose completion role is `role`.
fn project(role: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join(".home/.config/hone")).unwrap();
    std::fs::write(root.join("src/main.rs"), MAIN).unwrap();
    std::fs::write(root.join(".home/.config/hone/config.toml"), role).unwrap();
    (dir, root)
}

fn fim_role(fim: &MockServer) -> String {
    format!(
        "[roles]\ncompletion = {{ model = \"coder\", provider = \"fim\" }}\n\n\
         [providers.fim]\nkind = \"ollama\"\nbase_url = \"{}\"\n",
        fim.url()
    )
}

/// Runs `command` to its end (killed after three minutes) on a blocking thread.
async fn finish(mut command: Command) -> std::process::Output {
    tokio::task::spawn_blocking(move || {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(180);
        while child.try_wait().unwrap().is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap()
}

/// Neovim headless running `tests/lsp/client.lua` on `src/main.rs` of `root`, with `hone
/// lsp` started as `hone_args`; what the script saw.
async fn run_neovim(root: &Path, hone_args: &[&str], env: &[(&str, &str)]) -> Value {
    let script = root.join(".home/client.lua");
    std::fs::write(&script, include_str!("lsp/client.lua")).unwrap();
    let mut cmd = vec![env!("CARGO_BIN_EXE_hone")];
    cmd.extend_from_slice(hone_args);
    let out = root.join(".home/seen.json");
    let mut command = Command::new("nvim");
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", root.join(".home"))
        .env("XDG_CONFIG_HOME", root.join(".home/.config"))
        .env("XDG_DATA_HOME", root.join(".home/.local/share"))
        .env("XDG_STATE_HOME", root.join(".home/.local/state"))
        .env("HONE_DATA_DIR", root.join(".home/data"))
        .env("HONE_CMD", serde_json::to_string(&cmd).unwrap())
        .env("LSP_ROOT", root)
        .env("LSP_FILE", root.join("src/main.rs"))
        .env("LSP_OUT", &out)
        .env("LSP_LINE", "1")
        .env("LSP_COLUMN", "4")
        .current_dir(root)
        .args(["--headless", "--clean", "-u", "NONE", "-i", "NONE", "-n"])
        .arg("-c")
        .arg(format!("luafile {}", script.display()));
    for (name, value) in env {
        command.env(name, value);
    }
    let output = finish(command).await;
    let seen = std::fs::read_to_string(&out).unwrap_or_else(|_| {
        panic!(
            "nvim wrote nothing; stderr: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    serde_json::from_str(&seen).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn neovim_completes_a_line_and_applies_a_quick_refactor() {
    if !neovim() {
        return;
    }
    let fim = MockServer::start().await;
    let chat = MockServer::start().await;
    let (_dir, root) = project(&fim_role(&fim));
    fim.enqueue(MockResponse::json(
        200,
        &json!({"response": "a + b\n}\n\nfn main() {}\n", "done": true}),
    ));
    for reply in [
        Reply::new().tool_call("read_file", json!({"path": "src/main.rs"})),
        Reply::new().tool_call(
            "edit_file",
            json!({"path": "src/main.rs", "old_text": "    a + b", "new_text": "    a.wrapping_add(b)"}),
        ),
        Reply::new().text("The addition wraps now."),
    ] {
        chat.enqueue(reply.openai_chat());
    }
    let url = chat.url();
    let args = ["--provider", "openai", "--base-url", url.as_str(), "lsp"];
    let env = [
        ("LSP_INSTRUCTION", "Make the addition wrap."),
        ("OPENAI_API_KEY", "test-key-abcdef123456"),
    ];
    let seen = run_neovim(&root, &args, &env).await;

    assert_eq!(seen["failure"], Value::Null, "{seen}");
    assert_eq!(seen["completion"], "a + b", "{seen}");
    assert!(
        seen["after_completion"]
            .as_str()
            .unwrap()
            .starts_with("fn add(a: i32, b: i32) -> i32 {\n    a + b\n}"),
        "{seen}"
    );
    let sent = fim.last_request().json();
    assert_eq!(sent["suffix"], "\n}\n\nfn main() {}\n", "{sent}");
    let titles: Vec<&str> = seen["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|title| title.as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        ["hone: refactor…", "hone: explain", "hone: add tests"]
    );
    assert_eq!(seen["command_error"], Value::Null, "{seen}");
    assert_eq!(seen["command"]["applied"], true, "{seen}");
    // Neovim applied the edit to its buffer; the agent wrote the file (and journaled it).
    assert!(
        seen["after_action"]
            .as_str()
            .unwrap()
            .contains("    a.wrapping_add(b)\n}"),
        "{seen}"
    );
    let on_disk = std::fs::read_to_string(root.join("src/main.rs")).unwrap();
    assert!(on_disk.contains("a.wrapping_add(b)"), "{on_disk}");
    // The answer comes back in the command's result (the window/showMessage that also
    // carries it may reach Neovim after the script has finished).
    assert!(
        seen["command"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("wraps now"),
        "{seen}"
    );
    let undo = common::hone_with_data_dir(&root, &[], &["undo", "--list"]).await;
    let listed = String::from_utf8_lossy(&undo.stdout);
    assert!(
        listed.contains("src/main.rs"),
        "{listed}{}",
        common::stderr(&undo)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn neovim_completes_with_the_embedded_test_model() {
    let Ok(model) = std::env::var("HONE_TEST_MODEL") else {
        assert!(
            std::env::var("HONE_REQUIRE_TEST_MODEL").as_deref() != Ok("1"),
            "HONE_REQUIRE_TEST_MODEL=1 but HONE_TEST_MODEL is not set"
        );
        eprintln!("note: skipped: set HONE_TEST_MODEL");
        return;
    };
    if !neovim() {
        return;
    }
    let role = format!("[roles]\ncompletion = {{ model = {model:?}, provider = \"local\" }}\n");
    let (_dir, root) = project(&role);
    let seen = run_neovim(&root, &["lsp"], &[("LSP_NO_ACTION", "1")]).await;
    assert_eq!(seen["failure"], Value::Null, "{seen}");
    assert_eq!(seen["completion_error"], Value::Null, "{seen}");
    let completion = seen["completion"].as_str().unwrap_or_default();
    assert!(!completion.trim().is_empty(), "{seen}");
    assert!(
        seen["after_completion"]
            .as_str()
            .unwrap()
            .contains(completion),
        "{seen}"
    );
    // Cut at the block's end: what follows the cursor is not written again.
    assert_eq!(
        seen["after_completion"]
            .as_str()
            .unwrap()
            .matches("fn main")
            .count(),
        1,
        "{seen}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_vscode_jsonrpc_client_gets_inline_completions() {
    let Some(modules) = jsonrpc_modules() else {
        return;
    };
    let fim = MockServer::start().await;
    let (_dir, root) = project(&fim_role(&fim));
    fim.enqueue(MockResponse::json(
        200,
        &json!({"response": "a + b", "done": true}),
    ));
    let script = root.join(".home/inline.js");
    std::fs::write(&script, include_str!("lsp/inline.js")).unwrap();
    let cmd = serde_json::to_string(&[env!("CARGO_BIN_EXE_hone"), "lsp"]).unwrap();
    let mut command = Command::new("node");
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", root.join(".home"))
        .env("XDG_CONFIG_HOME", root.join(".home/.config"))
        .env("HONE_DATA_DIR", root.join(".home/data"))
        .env("NODE_PATH", &modules)
        .current_dir(&root)
        .arg(&script)
        .arg(cmd)
        .arg(root.join("src/main.rs"))
        .args(["1", "4"]);
    let output = finish(command).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "stderr: {stderr}");
    let seen: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("stdout: {}", String::from_utf8_lossy(&output.stdout)));
    assert_eq!(
        seen["capabilities"]["inlineCompletionProvider"], true,
        "{seen}"
    );
    assert_eq!(seen["inline"][0]["insertText"], "a + b", "{seen}");
    assert_eq!(
        seen["inline"][0]["range"]["start"],
        json!({"line": 1, "character": 4})
    );
    assert_eq!(fim.last_request().json()["suffix"], "\n}\n\nfn main() {}\n");
}
