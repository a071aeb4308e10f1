//! `hone mcp list` and `hone mcp serve`, and the MCP servers of agent sessions.

use std::process::ExitCode;
use std::str::FromStr;
use std::sync::Arc;

use clap::{Args, Subcommand};
use hone_mcp::{AgentSessions, ServeOptions, ServerState};
use hone_policy::ApprovalMode;
use hone_protocol::HoneError;
use hone_runtime::Unattended;
use hone_runtime::mcp::AgentRuntime;

use crate::cli::GlobalArgs;

/// `hone mcp`.
#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Start the configured MCP servers and list their state, tools and prompts.
    List(ListArgs),
    /// Serve hone over MCP on stdin/stdout: the read and index tools, and `agent` (one
    /// hone turn in the project).
    Serve(ServeArgs),
}

/// `hone mcp list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// One JSON object per server on stdout.
    #[arg(long)]
    pub json: bool,
}

/// `hone mcp serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// What the `agent` tool may do: read-only (default), ask, auto-edit or full-auto. A
    /// call that would need approval is refused (an MCP client cannot be asked).
    #[arg(long, value_name = "MODE", default_value = "read-only")]
    pub approval: String,

    /// Leave out the `agent` tool (only reads and the index tools).
    #[arg(long)]
    pub no_agent: bool,
}

/// Runs `hone mcp …`.
pub(crate) async fn run(global: &GlobalArgs, command: &McpCommand) -> Result<ExitCode, HoneError> {
    match command {
        McpCommand::List(args) => list(global, args).await,
        McpCommand::Serve(args) => serve(global, args).await,
    }
}

async fn list(global: &GlobalArgs, args: &ListArgs) -> Result<ExitCode, HoneError> {
    let runtime = crate::terminal::open_runtime(
        global,
        crate::overrides(global),
        Arc::new(crate::terminal::Terminal::detect(args.json)),
    )?;
    let settings = runtime.config().mcp_settings();
    let clients = runtime.start_mcp_servers();
    clients.settled().await;
    let report = clients.report();
    if args.json {
        for server in &report {
            println!("{}", server.to_json());
        }
    } else if report.is_empty() && settings.ignored.is_empty() {
        println!("No MCP servers configured (add [mcp_servers.NAME] to your config).");
    } else {
        for line in hone_mcp::report_lines(&report) {
            println!("{line}");
        }
        for name in &settings.ignored {
            println!("{name}  ignored (defined by an untrusted project file)");
        }
    }
    let failed = report
        .iter()
        .any(|server| matches!(server.state, ServerState::Failed(_)));
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

async fn serve(global: &GlobalArgs, args: &ServeArgs) -> Result<ExitCode, HoneError> {
    ApprovalMode::from_str(&args.approval)
        .map_err(|error| HoneError::validation(format!("--approval: {error}")))?;
    let mut overrides = crate::overrides(global);
    overrides.approval = Some(args.approval.clone());
    // stdin and stdout carry the protocol: the runtime never asks, warnings go to stderr.
    let runtime = Arc::new(hone_runtime::Runtime::open(
        hone_runtime::RuntimeOptions::from_process(crate::project_dir(global)?, overrides),
        Arc::new(Unattended),
    )?);
    if let Some(problem) = runtime.code_index().problem() {
        eprintln!("hone: warning: no code index ({problem}); serving without it");
    }
    let tools = runtime.serve_tools();
    let agent =
        (!args.no_agent).then(|| Arc::new(AgentRuntime(runtime.clone())) as Arc<dyn AgentSessions>);
    hone_mcp::serve(ServeOptions {
        root: runtime.root().to_path_buf(),
        tools,
        agent,
    })
    .await
    .map_err(|error| HoneError::config(error.to_string()))?;
    Ok(ExitCode::SUCCESS)
}
