//! Server prompts (`/NAME:prompt` in the TUI) against the reference server
//! `@modelcontextprotocol/server-everything` (found through `HONE_MCP_NODE_MODULES`, as in
//! hone-cli's MCP tests; skipped without it unless `HONE_REQUIRE_MCP_PEERS=1`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use hone_config::{ConfigSources, load};
use hone_mcp::McpClients;
use hone_tools::command::CommandSetup;

fn everything() -> Option<PathBuf> {
    match std::env::var_os("HONE_MCP_NODE_MODULES") {
        Some(modules) => Some(
            PathBuf::from(modules).join("@modelcontextprotocol/server-everything/dist/index.js"),
        ),
        None => {
            assert!(
                std::env::var_os("HONE_REQUIRE_MCP_PEERS").is_none(),
                "HONE_MCP_NODE_MODULES is not set"
            );
            eprintln!("skipped: HONE_MCP_NODE_MODULES is not set");
            None
        }
    }
}

#[tokio::test]
async fn a_server_prompt_becomes_text_with_its_arguments() {
    let Some(server) = everything() else { return };
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("config.toml");
    std::fs::write(
        &user,
        format!("[mcp_servers.everything]\ncommand = \"node\"\nargs = [{server:?}, \"stdio\"]\n"),
    )
    .unwrap();
    let sources = ConfigSources {
        user_file: Some(user),
        project_dir: Some(dir.path().to_path_buf()),
        env: BTreeMap::new(),
    };
    let config = load(&sources, &Default::default()).unwrap();
    let clients = McpClients::start(
        config.mcp_settings().servers,
        dir.path(),
        CommandSetup::default(),
    );

    let simple = clients
        .prompt("everything", "simple-prompt", "")
        .await
        .unwrap();
    assert!(!simple.trim().is_empty());

    let with_args = clients
        .prompt("everything", "args-prompt", "city=Lisbon state=Portugal")
        .await
        .unwrap();
    assert!(with_args.contains("Lisbon"), "{with_args}");

    let unknown = clients.prompt("nowhere", "x", "").await.unwrap_err();
    assert!(unknown.contains("no MCP server `nowhere`"), "{unknown}");
    let bad = clients
        .prompt("everything", "args-prompt", "Lisbon")
        .await
        .unwrap_err();
    assert!(bad.contains("key=value"), "{bad}");
}
