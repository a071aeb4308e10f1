//! `hone acp` driven by the official ACP TypeScript SDK client (`@agentclientprotocol/sdk`)
//! against a scripted model: initialize, a session, a prompt that reads and edits a file
//! with permission asked and granted (and `hone undo` taking it back), a cancel while a
//! permission is asked, the approval modes, and `session/load` in a second process. The
//! package comes from `HONE_MCP_NODE_MODULES` (`.ci/run` installs it beside the MCP peers);
//! without it the test prints a note and passes, unless `HONE_REQUIRE_MCP_PEERS=1`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::PathBuf;

use hone_testkit::{MockServer, Reply};
use serde_json::{Value, json};

/// The `node_modules` holding the ACP SDK, or `None` (with a note) when not installed.
fn sdk() -> Option<PathBuf> {
    match std::env::var_os("HONE_MCP_NODE_MODULES") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            assert!(
                dir.join("@agentclientprotocol/sdk").is_dir(),
                "HONE_MCP_NODE_MODULES={} has no @agentclientprotocol/sdk",
                dir.display()
            );
            Some(dir)
        }
        None if std::env::var("HONE_REQUIRE_MCP_PEERS").as_deref() == Ok("1") => {
            panic!("HONE_REQUIRE_MCP_PEERS=1 but HONE_MCP_NODE_MODULES is not set")
        }
        None => {
            eprintln!(
                "note: skipped: set HONE_MCP_NODE_MODULES to a node_modules with \
                 @agentclientprotocol/sdk"
            );
            None
        }
    }
}

/// The `session/update`s of `kind` among `notifications`.
fn updates<'a>(notifications: &'a Value, kind: &str) -> Vec<&'a Value> {
    notifications
        .as_array()
        .unwrap()
        .iter()
        .map(|notification| &notification["update"])
        .filter(|update| update["sessionUpdate"] == kind)
        .collect()
}

#[tokio::test]
async fn the_typescript_sdk_client_drives_hone_acp() {
    let Some(modules) = sdk() else { return };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join(".home")).unwrap();
    std::fs::write(root.join("greet.txt"), "hello\n").unwrap();
    common::commit_all(&root);
    let script = root.join(".home/client.js");
    std::fs::write(&script, include_str!("acp/client.js")).unwrap();

    let model = MockServer::start().await;
    for reply in [
        Reply::new().tool_call("read_file", json!({"path": "greet.txt"})),
        Reply::new().tool_call(
            "edit_file",
            json!({"path": "greet.txt", "old_text": "hello", "new_text": "hello, world"}),
        ),
        Reply::new().text("Done: greet.txt greets the world."),
        Reply::new().tool_call(
            "write_file",
            json!({"path": "notes.txt", "content": "never written\n"}),
        ),
    ] {
        model.enqueue(reply.openai_chat());
    }
    let data = root.join(".home/data");
    let mut command = std::process::Command::new("node");
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", root.join(".home"))
        .env("XDG_CONFIG_HOME", root.join(".home/.config"))
        .env("HONE_DATA_DIR", &data)
        .env("OPENAI_API_KEY", "test-key-abcdef123456")
        .env("NODE_PATH", &modules)
        .current_dir(&root)
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_hone"))
        .arg(model.url());
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "stderr: {stderr}");
    let seen: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("stdout: {}", String::from_utf8_lossy(&output.stdout)));

    // initialize: protocol 1, who hone is, what it offers.
    assert_eq!(seen["init"]["protocolVersion"], 1, "{seen}");
    assert_eq!(seen["init"]["agentInfo"]["name"], "hone");
    assert!(seen["init"]["agentInfo"]["version"].is_string());
    assert_eq!(seen["init"]["agentCapabilities"]["loadSession"], true);
    assert_eq!(
        seen["init"]["agentCapabilities"]["promptCapabilities"]["image"],
        true
    );
    // The prompt's image reached the model as an image part of the user message.
    let first = model.requests()[0].json();
    let user = first["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|message| message["role"] == "user")
        .unwrap()
        .clone();
    let image = user["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|part| part["type"] == "image_url")
        .unwrap_or_else(|| panic!("no image in {user}"))
        .clone();
    assert!(
        image["image_url"]["url"]
            .as_str()
            .unwrap()
            .starts_with("data:image/png;base64,iVBORw0KGgo")
    );
    // session/new: the approval modes, `ask` by default.
    assert_eq!(seen["session"]["modes"]["currentModeId"], "ask");
    let modes: Vec<&str> = seen["session"]["modes"]["availableModes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|mode| mode["id"].as_str().unwrap())
        .collect();
    assert_eq!(modes, ["read-only", "ask", "auto-edit", "full-auto"]);

    // The prompt read and edited the file, asking before the edit.
    assert_eq!(seen["prompt"]["stopReason"], "end_turn", "{seen}");
    assert_eq!(seen["greeting"], "hello, world\n");
    let asked = &seen["permissions"][0];
    assert_eq!(asked["toolCall"]["kind"], "edit", "{asked}");
    let kinds: Vec<&str> = asked["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|option| option["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["allow_once", "allow_always", "reject_once", "reject_always"]
    );
    let calls = updates(&seen["updates"], "tool_call");
    assert_eq!(calls[0]["kind"], "read");
    assert_eq!(
        calls[0]["locations"][0]["path"],
        root.join("greet.txt").display().to_string()
    );
    assert_eq!(calls[1]["kind"], "edit");
    let diffs: Vec<&Value> = updates(&seen["updates"], "tool_call_update")
        .into_iter()
        .filter_map(|update| update["content"].as_array())
        .flatten()
        .filter(|content| content["type"] == "diff")
        .collect();
    assert_eq!(diffs.len(), 1, "{seen}");
    assert_eq!(
        diffs[0]["path"],
        root.join("greet.txt").display().to_string()
    );
    assert_eq!(diffs[0]["oldText"], "hello\n");
    assert_eq!(diffs[0]["newText"], "hello, world\n");
    let said: String = updates(&seen["updates"], "agent_message_chunk")
        .iter()
        .map(|chunk| chunk["content"]["text"].as_str().unwrap_or(""))
        .collect();
    assert!(said.contains("greets the world"), "{said}");
    assert_eq!(
        updates(&seen["updates"], "available_commands_update").len(),
        1
    );

    // The cancel while a permission was asked ended the prompt `cancelled`; nothing written.
    assert_eq!(seen["cancelled"]["stopReason"], "cancelled", "{seen}");
    assert_eq!(seen["notes"], false);
    assert!(seen["mode"].is_object(), "{seen}");
    // stdin closed: hone exited cleanly, both times.
    assert_eq!(seen["firstExit"], 0);
    assert_eq!(seen["secondExit"], 0);

    // session/load replayed the conversation in the second process.
    let loaded_user: String = updates(&seen["loaded"], "user_message_chunk")
        .iter()
        .map(|chunk| chunk["content"]["text"].as_str().unwrap_or(""))
        .collect();
    assert!(loaded_user.contains("greet the whole world"), "{seen}");
    let loaded_said: String = updates(&seen["loaded"], "agent_message_chunk")
        .iter()
        .map(|chunk| chunk["content"]["text"].as_str().unwrap_or(""))
        .collect();
    assert!(loaded_said.contains("greets the world"), "{seen}");

    // The edit is in the undo journal: `hone undo` takes it back.
    let undo = common::hone(
        &root,
        &[("HONE_DATA_DIR", data.to_str().unwrap())],
        &["undo"],
    )
    .await;
    assert!(undo.status.success(), "{}", common::stderr(&undo));
    assert_eq!(
        std::fs::read_to_string(root.join("greet.txt")).unwrap(),
        "hello\n"
    );
}

/// An editor that offers its buffers and passes MCP servers: the model reads the unsaved
/// buffer (not the disk), the edit is written through `fs/write_text_file` with absolute
/// paths, the editor's MCP server's tools are in the first request, a server that cannot
/// start is told, and `hone undo` takes the edit back.
#[tokio::test]
async fn an_editor_s_buffers_and_mcp_servers_serve_hone_acp() {
    let Some(modules) = sdk() else { return };
    let everything = modules.join("@modelcontextprotocol/server-everything/dist/index.js");
    if !everything.is_file() {
        eprintln!("note: skipped: no @modelcontextprotocol/server-everything beside the SDK");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join(".home")).unwrap();
    std::fs::write(root.join("greet.txt"), "hello from disk\n").unwrap();
    common::commit_all(&root);
    let script = root.join(".home/editor.js");
    std::fs::write(&script, include_str!("acp/editor.js")).unwrap();

    let model = MockServer::start().await;
    for reply in [
        Reply::new().tool_call("read_file", json!({"path": "greet.txt"})),
        Reply::new().tool_call(
            "edit_file",
            json!({"path": "greet.txt", "old_text": "from the buffer", "new_text": "from hone"}),
        ),
        Reply::new().text("greet.txt says hello from hone."),
    ] {
        model.enqueue(reply.openai_chat());
    }
    let data = root.join(".home/data");
    let mut command = std::process::Command::new("node");
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", root.join(".home"))
        .env("XDG_CONFIG_HOME", root.join(".home/.config"))
        .env("HONE_DATA_DIR", &data)
        .env("OPENAI_API_KEY", "test-key-abcdef123456")
        .env("NODE_PATH", &modules)
        .current_dir(&root)
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_hone"))
        .arg(model.url())
        .arg(&everything);
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "stderr: {stderr}");
    let seen: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("stdout: {}", String::from_utf8_lossy(&output.stdout)));
    assert_eq!(seen["prompt"]["stopReason"], "end_turn", "{seen}");
    assert_eq!(seen["exit"], 0);
    assert_eq!(
        seen["init"]["agentCapabilities"]["mcpCapabilities"]["http"],
        true
    );
    let greet = root.join("greet.txt").display().to_string();

    // The editor's MCP server was ready before the first request: its tools were offered.
    let requests = model.requests();
    let tools: Vec<String> = requests[0].json()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert!(
        tools.iter().any(|name| name == "everything__echo"),
        "{tools:?}"
    );
    // The one that could not start was told, and the session went on.
    let said: String = updates(&seen["updates"], "agent_message_chunk")
        .iter()
        .map(|chunk| chunk["content"]["text"].as_str().unwrap_or(""))
        .collect();
    assert!(
        said.contains("MCP server `missing` failed to start"),
        "{said}"
    );

    // The model read the unsaved buffer, through fs/read_text_file with an absolute path.
    assert!(
        seen["reads"]
            .as_array()
            .unwrap()
            .iter()
            .all(|read| read["path"] == greet.as_str()),
        "{seen}"
    );
    assert!(!seen["reads"].as_array().unwrap().is_empty(), "{seen}");
    let second = requests[1].json().to_string();
    assert!(second.contains("hello from the buffer"), "{second}");
    assert!(!second.contains("hello from disk"), "{second}");

    // The edit, asked first, was planned on the buffer and written through the editor.
    let diffs: Vec<&Value> = updates(&seen["updates"], "tool_call_update")
        .into_iter()
        .filter_map(|update| update["content"].as_array())
        .flatten()
        .filter(|content| content["type"] == "diff")
        .collect();
    assert_eq!(diffs.len(), 1, "{seen}");
    assert_eq!(diffs[0]["path"], greet.as_str());
    assert_eq!(diffs[0]["oldText"], "hello from the buffer\n");
    assert_eq!(seen["permissions"][0]["toolCall"]["kind"], "edit", "{seen}");
    let writes = seen["writes"].as_array().unwrap();
    assert_eq!(writes.len(), 1, "{seen}");
    assert_eq!(writes[0]["path"], greet.as_str());
    assert_eq!(writes[0]["content"], "hello from hone\n");

    // The editor saved the edit; `hone undo` takes it back on disk, restoring the text the
    // edit replaced: the buffer as the model read it.
    let undo = common::hone(
        &root,
        &[("HONE_DATA_DIR", data.to_str().unwrap())],
        &["undo"],
    )
    .await;
    assert!(undo.status.success(), "{}", common::stderr(&undo));
    assert_eq!(
        std::fs::read_to_string(root.join("greet.txt")).unwrap(),
        "hello from the buffer\n"
    );
}
