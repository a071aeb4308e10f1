//! MCP: the configured servers of a session (their tools join the session's), and what
//! `hone mcp serve` offers an MCP client (the read and index tools, and `agent` sessions).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use hone_api::{McpServerState, McpServerStatus};
use hone_config::Config;
use hone_mcp::{AgentSession, AgentSessions, McpClients};
use hone_tools::command::CommandSetup;
use hone_tools::{Tool, ToolSource};

use crate::error::RuntimeError;
use crate::runtime::{Runtime, SessionRequest};
use crate::sessions::SessionChoice;

/// Starts the MCP servers `config` names and the face's (`face`, which replace configured
/// ones of the same name) for a session in `root`, in the background, with the environment
/// and sandbox of the session's commands; `None` when there are none.
pub(crate) fn start_servers(
    config: &Config,
    face: Vec<hone_config::McpServerSettings>,
    root: &std::path::Path,
    commands: &CommandSetup,
) -> Option<McpClients> {
    let mut servers = config.mcp_settings().servers;
    servers.retain(|server| !face.iter().any(|own| own.name == server.name));
    servers.extend(face);
    (!servers.is_empty()).then(|| McpClients::start(servers, root, commands.clone()))
}

/// The MCP servers' report in the protocol's terms.
pub fn status(clients: &McpClients) -> Vec<McpServerStatus> {
    clients
        .report()
        .into_iter()
        .map(|server| {
            let (state, error) = match server.state {
                hone_mcp::ServerState::Disabled => (McpServerState::Disabled, None),
                hone_mcp::ServerState::Starting => (McpServerState::Starting, None),
                hone_mcp::ServerState::Ready => (McpServerState::Ready, None),
                hone_mcp::ServerState::Failed(why) => (McpServerState::Failed, Some(why)),
            };
            McpServerStatus {
                name: server.name,
                target: server.target,
                state,
                error,
                tools: server.tools,
                prompts: server.prompts,
            }
        })
        .collect()
}

/// The servers as a session's tool source.
pub(crate) fn tool_sources(clients: Option<&McpClients>) -> Vec<Arc<dyn ToolSource>> {
    clients
        .map(|clients| Arc::new(clients.clone()) as Arc<dyn ToolSource>)
        .into_iter()
        .collect()
}

impl Runtime {
    /// The configured MCP servers, started (in the background) the way a session starts
    /// them: `hone mcp list`.
    pub fn start_mcp_servers(&self) -> McpClients {
        let config = self.config();
        let sandbox =
            crate::sandbox::command_sandbox(config, config.approval(), self.interaction());
        McpClients::start(config.mcp_settings().servers, self.root(), sandbox.setup)
    }

    /// What `hone mcp serve` offers besides `agent`: hone's read tools, the repo map and
    /// the index tools (when there is an index; `serve` filters out what is not a read).
    pub fn serve_tools(&self) -> Vec<Arc<dyn Tool>> {
        let mut tools = hone_tools::builtin_tools();
        tools.extend(
            self.code_index()
                .serve_tools(self.config().index_settings().map_budget),
        );
        tools
    }
}

/// Sessions for the `agent` tool of `hone mcp serve`: like `hone exec`'s, but not
/// interactive (a call that needs approval is refused), not saved, and without MCP servers.
pub struct AgentRuntime(pub Arc<Runtime>);

impl AgentSessions for AgentRuntime {
    fn start(&self) -> Pin<Box<dyn Future<Output = Result<AgentSession, String>> + Send + '_>> {
        Box::pin(async move {
            let started = self
                .0
                .start_session(SessionRequest {
                    choice: SessionChoice::Unsaved,
                    model: None,
                    interactive: false,
                    conversation: false,
                    focus: String::new(),
                    show_history: false,
                    mcp_servers: false,
                    role: None,
                })
                .await
                .map_err(|error: RuntimeError| error.to_string())?;
            Ok((started.handle, started.events))
        })
    }
}
