//! MCP end to end: the real binary with the reference servers from npm
//! (`@modelcontextprotocol/server-everything`, `server-filesystem`) and small servers
//! written here, driven by a scripted model; and `hone mcp serve` driven by the official
//! TypeScript SDK client. The npm packages come from `HONE_MCP_NODE_MODULES` (a
//! `node_modules` directory; `.ci/run` installs them); without it those tests print a note
//! and pass, unless `HONE_REQUIRE_MCP_PEERS=1`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Output;

use hone_testkit::{MockServer, Reply};
use serde_json::{Value, json};

#[path = "mcp/serve.rs"]
mod serve;

/// The `node_modules` holding the MCP peers, or `None` (with a note) when not installed.
fn peers() -> Option<PathBuf> {
    match std::env::var_os("HONE_MCP_NODE_MODULES") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            assert!(
                dir.join("@modelcontextprotocol/sdk").is_dir(),
                "HONE_MCP_NODE_MODULES={} has no @modelcontextprotocol/sdk",
                dir.display()
            );
            Some(dir)
        }
        None if std::env::var("HONE_REQUIRE_MCP_PEERS").as_deref() == Ok("1") => {
            panic!("HONE_REQUIRE_MCP_PEERS=1 but HONE_MCP_NODE_MODULES is not set")
        }
        None => {
            eprintln!(
                "note: skipped: set HONE_MCP_NODE_MODULES to a node_modules with the MCP peers \
                 (npm install @modelcontextprotocol/server-everything \
                 @modelcontextprotocol/server-filesystem @modelcontextprotocol/sdk)"
            );
            None
        }
    }
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("README.md"),
        "# demo\n\nThe secret word is heron.\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("lib.js"),
        "function area(r) {\n  return 3.14 * r * r;\n}\n\nmodule.exports = { area };\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join(".home")).unwrap();
    dir
}

fn write_config(root: &Path, text: &str) -> PathBuf {
    let path = root.join(".home/config.toml");
    std::fs::write(&path, text).unwrap();
    path
}

async fn hone(root: &Path, config: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_hone"));
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", root.join(".home"))
        .env("HONE_CONFIG", config)
        .env("HONE_DATA_DIR", root.join(".home/data"))
        .current_dir(root)
        .stdin(std::process::Stdio::null())
        .args(args);
    for (name, value) in env {
        command.env(name, value);
    }
    tokio::task::spawn_blocking(move || command.output().expect("hone runs"))
        .await
        .unwrap()
}

fn events(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// The outputs of the completed tool calls, by tool name, in order.
fn completed(events: &[Value]) -> Vec<(String, String, bool)> {
    events
        .iter()
        .filter(|event| event["type"] == "tool.completed")
        .map(|event| {
            (
                event["name"].as_str().unwrap().to_string(),
                event["output"].as_str().unwrap().to_string(),
                event["is_error"].as_bool().unwrap(),
            )
        })
        .collect()
}

async fn exec(
    root: &Path,
    config: &Path,
    server: &MockServer,
    extra_env: &[(&str, &str)],
) -> Output {
    let url = server.url();
    let mut env = vec![("OPENAI_API_KEY", "test-key-abcdef123456")];
    env.extend_from_slice(extra_env);
    hone(
        root,
        config,
        &env,
        &[
            "exec",
            "--provider",
            "openai",
            "--base-url",
            &url,
            "--approval",
            "full-auto",
            "--json",
            // Not a change request ("use …" would be one, and a turn that changed nothing
            // then exits 11).
            "Call the tools and tell me what they return.",
        ],
    )
    .await
}

#[tokio::test]
async fn exec_lists_calls_and_feeds_back_tools_of_the_reference_servers() {
    let Some(modules) = peers() else { return };
    let repo = project();
    let root = repo.path().canonicalize().unwrap();
    let config = write_config(
        &root,
        &format!(
            "[mcp_servers.everything]\ncommand = \"node\"\nargs = [{everything:?}, \"stdio\"]\n\n\
             [mcp_servers.fs]\ncommand = \"node\"\nargs = [{fs:?}, {root:?}]\ninclude = [\"read_*\", \"list_*\"]\n\n\
             [mcp_servers.missing]\ncommand = \"/nonexistent/hone-test-mcp-server\"\n",
            everything = modules
                .join("@modelcontextprotocol/server-everything/dist/index.js")
                .display()
                .to_string(),
            fs = modules
                .join("@modelcontextprotocol/server-filesystem/dist/index.js")
                .display()
                .to_string(),
            root = root.display().to_string(),
        ),
    );
    let server = MockServer::start().await;
    let readme = root.join("README.md").display().to_string();
    for reply in [
        Reply::new().tool_call("everything__echo", json!({"message": "hello from hone"})),
        Reply::new().tool_call("everything__get-tiny-image", json!({})),
        Reply::new().tool_call("fs__read_text_file", json!({"path": readme})),
        Reply::new().text("The secret word is heron."),
    ] {
        server.enqueue(reply.openai_chat());
    }
    let output = exec(&root, &config, &server, &[]).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{:?} stderr: {stderr}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout)
    );
    let calls = completed(&events(&output));
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert_eq!(calls[0].0, "everything__echo");
    assert!(
        calls[0].1.contains("hello from hone") && !calls[0].2,
        "{calls:?}"
    );
    assert!(calls[1].1.contains("[image: image/png"), "{calls:?}");
    assert!(calls[2].1.contains("heron") && !calls[2].2, "{calls:?}");

    // exec waited for the servers: the first request already offers their tools, and the
    // server that could not start is named.
    let requests = server.requests();
    let first = requests[0].json();
    let tools: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert!(tools.contains(&"everything__echo"), "{tools:?}");
    assert!(tools.contains(&"fs__read_text_file"), "{tools:?}");
    assert!(
        stderr.contains("MCP server `missing` failed to start"),
        "{stderr}"
    );
    let status = events(&output)
        .into_iter()
        .find(|event| event["type"] == "mcp.status")
        .expect("an mcp.status event");
    let missing = status["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|server| server["name"] == "missing")
        .unwrap();
    assert_eq!(missing["state"], "failed", "{status}");
    assert!(missing["error"].is_string(), "{status}");
    // Listed with their schemas once the servers were ready; the filter left out writes.
    let second = requests[1].json();
    let tools: Vec<&str> = second["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert!(tools.contains(&"everything__echo"), "{tools:?}");
    // The filesystem server was surely ready once its tool had been called.
    let last = requests[3].json();
    let tools: Vec<&str> = last["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert!(tools.contains(&"fs__read_text_file"), "{tools:?}");
    assert!(!tools.contains(&"fs__write_file"), "{tools:?}");
    let echo = second["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["function"]["name"] == "everything__echo")
        .unwrap();
    assert!(
        echo["function"]["parameters"]["properties"]["message"].is_object(),
        "{echo}"
    );
    // The result went back to the model.
    assert!(second.to_string().contains("hello from hone"));
    assert!(requests[3].json().to_string().contains("heron"));
}

/// Kills the server process when the test ends, however it ends.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn a_streamable_http_server_is_listed_and_called() {
    let Some(modules) = peers() else { return };
    let repo = project();
    let root = repo.path().canonicalize().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let _server = Killed(
        std::process::Command::new("node")
            .arg(modules.join("@modelcontextprotocol/server-everything/dist/index.js"))
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut listening = false;
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            listening = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(listening, "the HTTP server did not start");
    let config = write_config(
        &root,
        &format!(
            "[mcp_servers.web]\nurl = \"http://127.0.0.1:{port}/mcp\"\nheaders_env = {{ \"X-Hone-Test\" = \"HONE_TEST_HEADER\" }}\napproval = \"allow\"\n"
        ),
    );
    let env = [("HONE_TEST_HEADER", "yes")];
    let output = hone(&root, &config, &env, &["mcp", "list", "--json"]).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    let listed: Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(listed["state"], "ready", "{listed}");
    assert!(
        listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|tool| tool == "web__echo"),
        "{listed}"
    );

    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .tool_call("web__echo", json!({"message": "over http"}))
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("done").openai_chat());
    let url = server.url();
    let output = hone(
        &root,
        &config,
        &[
            ("OPENAI_API_KEY", "test-key-abcdef123456"),
            ("HONE_TEST_HEADER", "yes"),
        ],
        // The approval mode asks; `approval = "allow"` lets the call run without a terminal.
        &[
            "exec",
            "--provider",
            "openai",
            "--base-url",
            &url,
            "--json",
            "echo",
        ],
    )
    .await;
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let calls = completed(&events(&output));
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert!(calls[0].1.contains("over http") && !calls[0].2, "{calls:?}");
}

#[tokio::test]
async fn without_a_terminal_a_call_that_needs_approval_is_refused_not_hung() {
    let Some(modules) = peers() else { return };
    let repo = project();
    let root = repo.path().canonicalize().unwrap();
    let config = write_config(
        &root,
        &format!(
            "[mcp_servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\n",
            modules
                .join("@modelcontextprotocol/server-everything/dist/index.js")
                .display()
                .to_string()
        ),
    );
    let server = MockServer::start().await;
    server.enqueue(
        Reply::new()
            .tool_call("everything__echo", json!({"message": "x"}))
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("could not").openai_chat());
    let url = server.url();
    let output = hone(
        &root,
        &config,
        &[("OPENAI_API_KEY", "test-key-abcdef123456")],
        &[
            "exec",
            "--provider",
            "openai",
            "--base-url",
            &url,
            "--json",
            "echo",
        ],
    )
    .await;
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let calls = completed(&events(&output));
    assert!(calls[0].2 && calls[0].1.contains("MCP server"), "{calls:?}");
    assert!(calls[0].1.contains("without a terminal"), "{calls:?}");
}

/// A server written with the SDK whose tools misbehave on purpose.
const MISBEHAVING_SERVER: &str = r#"
const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const server = new McpServer({ name: "misbehaving", version: "1.0.0" });
const text = (t) => ({ content: [{ type: "text", text: t }] });
const run = Math.random().toString(36).slice(2);
server.tool("ok", "Answers at once.", async () => text("fine, pid " + process.pid + " run " + run));
server.tool("exit", "Exits in the middle of the call.", async () => { process.exit(3); });
server.tool("hang", "Never answers.", () => new Promise(() => {}));
server.tool("big", "Returns 10 MB.", async () => text("y".repeat(10 * 1024 * 1024)));
server.connect(new StdioServerTransport());
"#;

#[tokio::test]
async fn a_server_that_exits_hangs_or_floods_is_reported_and_restarted() {
    let Some(modules) = peers() else { return };
    let repo = project();
    let root = repo.path().canonicalize().unwrap();
    let script = root.join(".home/misbehaving.js");
    std::fs::write(&script, MISBEHAVING_SERVER).unwrap();
    let config = write_config(
        &root,
        &format!(
            "[mcp_servers.odd]\ncommand = \"node\"\nargs = [{:?}]\ntool_timeout_secs = 2\n",
            script.display().to_string()
        ),
    );
    let server = MockServer::start().await;
    for reply in [
        Reply::new().tool_call("odd__ok", json!({})),
        Reply::new().tool_call("odd__exit", json!({})),
        Reply::new().tool_call("odd__ok", json!({"again": true})),
        Reply::new().tool_call("odd__hang", json!({})),
        Reply::new().tool_call("odd__big", json!({})),
        Reply::new().text("done"),
    ] {
        server.enqueue(reply.openai_chat());
    }
    let node_path = modules.display().to_string();
    let output = exec(&root, &config, &server, &[("NODE_PATH", &node_path)]).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{:?} stderr: {stderr}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout)
    );
    let calls = completed(&events(&output));
    assert_eq!(calls.len(), 5, "{calls:?}");
    assert!(
        calls[0].1.starts_with("fine, pid") && !calls[0].2,
        "{calls:?}"
    );
    assert!(calls[1].2 && calls[1].1.contains("stopped"), "{calls:?}");
    assert!(
        calls[1].1.contains("started again on the next call"),
        "{calls:?}"
    );
    assert!(
        calls[2].1.starts_with("fine, pid") && !calls[2].2,
        "restarted: {calls:?}"
    );
    assert_ne!(
        calls[0].1, calls[2].1,
        "a new process answers after the restart"
    );
    assert!(
        calls[3].2 && calls[3].1.contains("did not answer within 2 s"),
        "{calls:?}"
    );
    assert!(!calls[4].2, "{calls:?}");
    assert!(
        calls[4].1.len() < 100_000,
        "cut like command output: {}",
        calls[4].1.len()
    );
}

#[tokio::test]
async fn mcp_list_reports_servers_that_cannot_start_or_speak_garbage() {
    let repo = project();
    let root = repo.path().canonicalize().unwrap();
    let config = write_config(
        &root,
        "[mcp_servers.missing]\ncommand = \"no-such-program-for-hone\"\n\n\
         [mcp_servers.garbage]\ncommand = \"sh\"\nargs = [\"-c\", \"while true; do echo not json; sleep 0.1; done\"]\nstartup_timeout_secs = 2\n\n\
         [mcp_servers.off]\ncommand = \"sh\"\nenabled = false\n",
    );
    let output = hone(&root, &config, &[], &["mcp", "list"]).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("missing  failed"), "{stdout}");
    assert!(stdout.contains("no-such-program-for-hone"), "{stdout}");
    assert!(
        stdout.contains("garbage  failed: did not answer the MCP handshake within 2 s"),
        "{stdout}"
    );
    assert!(
        stdout.contains("not an MCP message on stdout) not json"),
        "{stdout}"
    );
    assert!(stdout.contains("off  disabled"), "{stdout}");
}

#[tokio::test]
async fn invalid_server_config_names_file_line_and_column() {
    let repo = project();
    let root = repo.path().canonicalize().unwrap();
    let config = write_config(
        &root,
        "model = \"m\"\n\n[mcp_servers.broken]\nargs = [\"x\"]\n",
    );
    let output = hone(&root, &config, &[], &["mcp", "list"]).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("config.toml, line 3, column 14"),
        "{stderr}"
    );
    assert!(stderr.contains("`command`"), "{stderr}");
}

#[tokio::test]
async fn an_untrusted_project_cannot_add_servers() {
    let repo = project();
    let root = repo.path().canonicalize().unwrap();
    let config = write_config(&root, "");
    std::fs::create_dir_all(root.join(".hone")).unwrap();
    std::fs::write(
        root.join(".hone/config.toml"),
        "[mcp_servers.evil]\ncommand = \"sh\"\nargs = [\"-c\", \"touch pwned\"]\n",
    )
    .unwrap();
    let output = hone(&root, &config, &[], &["mcp", "list"]).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("evil  ignored"), "{stdout}");
    assert!(!root.join("pwned").exists());
}
