//! hone as an MCP server on stdio (`hone mcp serve`): the read and index tools, and an
//! `agent` tool that runs one hone turn in the project.

mod agent;

use std::path::PathBuf;
use std::sync::Arc;

use hone_tools::{Plan, Tool, ToolContext, ToolKind};
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as McpToolSpec,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServiceExt};
use serde_json::Value;

pub use agent::{AgentSession, AgentSessions};

/// Read tools that only make sense inside a session (they control its background jobs).
const SESSION_TOOLS: &[&str] = &["check_background", "stop_background"];

/// What `hone mcp serve` offers.
pub struct ServeOptions {
    /// The project root.
    pub root: PathBuf,
    /// Tools to offer; only reads are exposed (hone's file reads and the index tools).
    pub tools: Vec<Arc<dyn Tool>>,
    /// Starts a session for the `agent` tool; `None` leaves the tool out.
    pub agent: Option<Arc<dyn AgentSessions>>,
}

/// Why serving failed.
#[derive(Debug, thiserror::Error)]
pub enum McpServeError {
    /// The project root cannot be used by the tools.
    #[error("cannot serve {root}: {message}")]
    Root {
        /// The root.
        root: PathBuf,
        /// Why.
        message: String,
    },
    /// The client went away during the handshake, or the transport failed.
    #[error("the MCP session failed: {0}")]
    Session(String),
}

/// Serves `options` over stdin/stdout until the client disconnects.
pub async fn serve(options: ServeOptions) -> Result<(), McpServeError> {
    let context = ToolContext::new(&options.root).map_err(|error| McpServeError::Root {
        root: options.root.clone(),
        message: error.message,
    })?;
    let handler = HoneServer {
        context: Arc::new(context),
        tools: options
            .tools
            .into_iter()
            .filter(|tool| tool.kind() == ToolKind::Read && !SESSION_TOOLS.contains(&tool.name()))
            .collect(),
        agent: options.agent,
    };
    let service = handler
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|error| McpServeError::Session(error.to_string()))?;
    service
        .waiting()
        .await
        .map_err(|error| McpServeError::Session(error.to_string()))?;
    Ok(())
}

struct HoneServer {
    context: Arc<ToolContext>,
    tools: Vec<Arc<dyn Tool>>,
    agent: Option<Arc<dyn AgentSessions>>,
}

impl HoneServer {
    fn specs(&self) -> Vec<McpToolSpec> {
        let mut specs: Vec<McpToolSpec> = self
            .tools
            .iter()
            .map(|tool| {
                let spec = tool.spec();
                McpToolSpec::new(spec.name, spec.description, object(spec.parameters))
            })
            .collect();
        if self.agent.is_some() {
            specs.push(agent::spec());
        }
        specs
    }

    /// Runs a read tool on a blocking thread.
    async fn run_tool(&self, tool: Arc<dyn Tool>, arguments: Value) -> CallToolResult {
        let context = Arc::clone(&self.context);
        let planned = tokio::task::spawn_blocking(move || tool.plan(&context, &arguments)).await;
        match planned {
            Ok(Ok(Plan::Done(output))) if output.is_error => {
                CallToolResult::error(vec![ContentBlock::text(output.content)])
            }
            Ok(Ok(Plan::Done(output))) => {
                CallToolResult::success(vec![ContentBlock::text(output.content)])
            }
            // Nobody can be asked here, so a file that may hold secrets is not served.
            Ok(Ok(Plan::SecretRead(read))) => {
                CallToolResult::error(vec![ContentBlock::text(format!(
                    "`{}` may hold secrets: reading it needs the user's approval, which cannot be \
                     asked for through MCP",
                    read.path
                ))])
            }
            Ok(Ok(_)) => CallToolResult::error(vec![ContentBlock::text(
                "this tool does not change anything through MCP; use the `agent` tool",
            )]),
            Ok(Err(error)) => CallToolResult::error(vec![ContentBlock::text(error.message)]),
            Err(error) => CallToolResult::error(vec![ContentBlock::text(format!(
                "the tool crashed: {error}"
            ))]),
        }
    }
}

fn object(value: Value) -> serde_json::Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    }
}

impl ServerHandler for HoneServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("hone", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "hone's code index and file reads for this project (repo map, outlines, \
                 definitions, references, search, read), and `agent`, which runs one hone \
                 turn and returns the answer and the changes.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.specs()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = Value::Object(request.arguments.clone().unwrap_or_default());
        if request.name == agent::NAME
            && let Some(sessions) = &self.agent
        {
            let progress = request
                .meta
                .as_ref()
                .and_then(|meta| meta.get_progress_token())
                .or_else(|| context.meta.get_progress_token());
            let result = agent::run(sessions.as_ref(), &arguments, progress, &context).await;
            return Ok(result.into());
        }
        let Some(tool) = self
            .tools
            .iter()
            .find(|tool| tool.name() == request.name.as_ref())
        else {
            return Err(ErrorData::invalid_params(
                format!("unknown tool `{}`", request.name),
                None,
            ));
        };
        Ok(self.run_tool(Arc::clone(tool), arguments).await.into())
    }
}
