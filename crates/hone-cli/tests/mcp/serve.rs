//! `hone mcp serve` driven by the official TypeScript SDK client.

use super::*;

/// Drives `hone mcp serve` with the official TypeScript SDK client and prints what it saw.
const SDK_CLIENT: &str = r#"
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
(async () => {
  const [hone, url] = process.argv.slice(2);
  const transport = new StdioClientTransport({
    command: hone,
    args: ["--provider", "openai", "--base-url", url, "mcp", "serve"],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, HONE_CONFIG: process.env.HONE_CONFIG,
           HONE_DATA_DIR: process.env.HONE_DATA_DIR, OPENAI_API_KEY: "test-key-abcdef123456" },
    cwd: process.cwd(),
    stderr: "inherit",
  });
  const client = new Client({ name: "sdk-test", version: "1.0.0" });
  await client.connect(transport);
  const out = { server: client.getServerVersion() };
  out.tools = (await client.listTools()).tools.map((tool) => tool.name);
  out.outline = await client.callTool({ name: "get_outline", arguments: { path: "lib.js" } });
  out.definition = await client.callTool({ name: "find_definition", arguments: { symbol: "area" } });
  out.map = await client.callTool({ name: "repo_map", arguments: {} });
  out.read = await client.callTool({ name: "read_file", arguments: { path: "README.md" } });
  // Ways out of the project: a committed symlink, a relative escape, an absolute path.
  out.escapes = [];
  for (const path of ["escape.txt", "../outside/secret.txt", process.env.HONE_TEST_OUTSIDE]) {
    out.escapes.push(await client.callTool({ name: "read_file", arguments: { path } }));
  }
  out.writes = out.tools.filter((name) => ["write_file", "edit_file", "run_command"].includes(name));
  const progress = [];
  out.agent = await client.callTool(
    { name: "agent", arguments: { prompt: "what does area return?" } },
    undefined,
    { onprogress: (p) => progress.push(p.message), timeout: 60000 },
  );
  out.progress = progress;
  out.refused = await client.callTool({ name: "agent", arguments: { prompt: "change lib.js" } },
    undefined, { timeout: 60000 });
  // A turn whose model stalls: the client cancels after the first progress report.
  const controller = new AbortController();
  try {
    await client.callTool({ name: "agent", arguments: { prompt: "think slowly" } }, undefined, {
      signal: controller.signal, timeout: 60000,
      onprogress: () => controller.abort("enough"),
    });
    out.cancelled = "finished";
  } catch (error) {
    out.cancelled = String(error);
  }
  out.after = await client.callTool({ name: "get_outline", arguments: { path: "lib.js" } });
  console.log(JSON.stringify(out));
  await client.close();
})().catch((error) => { console.error(error); process.exit(1); });
"#;

#[tokio::test]
async fn serve_answers_the_typescript_sdk_client() {
    let Some(modules) = peers() else { return };
    let repo = project();
    let root = repo.path().canonicalize().unwrap();
    let config = write_config(&root, "");
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "TOPSECRET-42").unwrap();
    std::os::unix::fs::symlink(&secret, root.join("escape.txt")).unwrap();
    let script = root.join(".home/client.js");
    std::fs::write(&script, SDK_CLIENT).unwrap();
    let server = MockServer::start().await;
    for reply in [
        Reply::new().tool_call("read_file", json!({"path": "lib.js"})),
        Reply::new().text("`area` returns 3.14 * r * r."),
        Reply::new().tool_call(
            "edit_file",
            json!({"path": "lib.js", "old_text": "3.14", "new_text": "Math.PI"}),
        ),
        Reply::new().text("I could not change it."),
    ] {
        server.enqueue(reply.openai_chat());
    }
    server.enqueue(
        Reply::new()
            .tool_call("read_file", json!({"path": "README.md"}))
            .openai_chat(),
    );
    server.enqueue(Reply::new().text("never sent").openai_chat().stall_after(1));
    let mut command = std::process::Command::new("node");
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", root.join(".home"))
        .env("HONE_CONFIG", &config)
        .env("HONE_DATA_DIR", root.join(".home/data"))
        .env("NODE_PATH", &modules)
        .env("HONE_TEST_OUTSIDE", &secret)
        .current_dir(&root)
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_hone"))
        .arg(server.url());
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "stderr: {stderr}");
    let seen: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(seen["server"]["name"], "hone", "{seen}");
    let tools: Vec<&str> = seen["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|name| name.as_str().unwrap())
        .collect();
    for name in [
        "agent",
        "repo_map",
        "get_outline",
        "find_definition",
        "find_references",
        "read_file",
        "search_files",
    ] {
        assert!(tools.contains(&name), "{name} missing: {tools:?}");
    }
    assert_eq!(
        seen["writes"],
        json!([]),
        "only reads are served: {tools:?}"
    );
    let text = |value: &Value| {
        value["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    assert!(text(&seen["outline"]).contains("area"), "{seen}");
    assert!(text(&seen["definition"]).contains("lib.js"), "{seen}");
    assert!(text(&seen["map"]).contains("lib.js"), "{seen}");
    assert!(!tools.contains(&"check_background"), "{tools:?}");
    assert!(text(&seen["read"]).contains("heron"), "{seen}");
    // No path leads the served tools outside the project, symlinks included.
    let escapes = seen["escapes"].as_array().unwrap();
    assert_eq!(escapes.len(), 3, "{seen}");
    for escape in escapes {
        assert!(!escape.to_string().contains("TOPSECRET"), "{escape}");
        assert_eq!(escape["isError"], true, "{escape}");
    }
    let answer = text(&seen["agent"]);
    assert!(answer.contains("returns 3.14 * r * r"), "{answer}");
    assert!(answer.contains("No files were changed"), "{answer}");
    // Progress reached the client while the turn ran (notifications that arrive after the
    // result are dropped by the client, so only the first one is certain).
    assert!(!seen["progress"].as_array().unwrap().is_empty(), "{seen}");
    // Read-only by default: the edit is refused, not left waiting for an approval.
    let refused = text(&seen["refused"]);
    assert!(refused.contains("Refused: read-only mode"), "{refused}");
    let lib = std::fs::read_to_string(root.join("lib.js")).unwrap();
    assert!(lib.contains("3.14"), "{lib}");
    // Cancelled by the client, and the server goes on answering.
    assert!(
        seen["cancelled"].as_str().unwrap().contains("enough"),
        "{seen}"
    );
    assert!(text(&seen["after"]).contains("area"), "{seen}");
}
