//! `hone mcp list` and `hone mcp serve`, and the MCP servers of agent sessions.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::ExitCode;
use std::str::FromStr;
use std::sync::Arc;

use clap::{Args, Subcommand};
use hone_config::Config;
use hone_core::SessionConfig;
use hone_mcp::{AgentSessions, McpClients, ServeOptions, ServerState};
use hone_policy::ApprovalMode;
use hone_protocol::HoneError;
use hone_tools::ToolSource;
use hone_tools::command::CommandSetup;

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

/// Starts the MCP servers configured for a session in `root` (in the background), with the
/// environment and sandbox of the session's commands; `None` when there are none. Servers
/// an untrusted project file adds are ignored (see [`ignored_servers`]).
pub(crate) fn session_servers(
    config: &Config,
    root: &Path,
    commands: &CommandSetup,
) -> Option<McpClients> {
    let settings = config.mcp_settings();
    if !settings.ignored.is_empty() {
        tracing::warn!(
            ignored = %settings.ignored.join(", "),
            "MCP servers of an untrusted project file were ignored"
        );
    }
    if settings.servers.is_empty() {
        return None;
    }
    Some(McpClients::start(settings.servers, root, commands.clone()))
}

/// The servers as a session's tool source.
pub(crate) fn tool_sources(clients: Option<&McpClients>) -> Vec<Arc<dyn ToolSource>> {
    clients
        .map(|clients| Arc::new(clients.clone()) as Arc<dyn ToolSource>)
        .into_iter()
        .collect()
}

/// A warning naming the MCP servers an untrusted project file tried to add, if any.
pub(crate) fn ignored_servers(config: &Config) -> Option<String> {
    let ignored = config.mcp_settings().ignored;
    (!ignored.is_empty()).then(|| {
        format!(
            "MCP servers of an untrusted project file ignored: {} (add the project to \
             `trusted_projects` in your user config to use them)",
            ignored.join(", ")
        )
    })
}

async fn list(global: &GlobalArgs, args: &ListArgs) -> Result<ExitCode, HoneError> {
    let config = crate::load_config(global)?;
    let root = crate::project_dir(global)?;
    let settings = config.mcp_settings();
    let mode = ApprovalMode::from_str(config.approval().as_str())
        .map_err(|error| HoneError::config(error.to_string()))?;
    let commands = crate::sandbox_setup::command_sandbox(&config, mode).setup;
    let clients = McpClients::start(settings.servers, &root, commands);
    clients.settled().await;
    let report = clients.report();
    if args.json {
        for server in &report {
            let line = serde_json::json!({
                "name": server.name,
                "target": server.target,
                "state": match &server.state {
                    ServerState::Ready => "ready",
                    ServerState::Disabled => "disabled",
                    ServerState::Starting => "starting",
                    ServerState::Failed(_) => "failed",
                },
                "error": match &server.state {
                    ServerState::Failed(why) => Some(why.as_str()),
                    _ => None,
                },
                "tools": server.tools,
                "prompts": server.prompts,
            });
            println!("{line}");
        }
    } else if report.is_empty() && settings.ignored.is_empty() {
        println!("No MCP servers configured (add [mcp_servers.NAME] to your config).");
    } else {
        for server in &report {
            println!(
                "{}  {}  ({})",
                server.name,
                server.state.describe(),
                server.target
            );
            for tool in &server.tools {
                println!("  tool    {tool}");
            }
            for prompt in &server.prompts {
                println!("  prompt  {prompt}");
            }
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
    let config = crate::load_config(global)?;
    let root = crate::project_dir(global)?;
    let mut tools: Vec<Arc<dyn hone_tools::Tool>> = hone_tools::builtin_tools();
    let settings = config.index_settings();
    match crate::agent_setup::open_code_index(&root, &settings) {
        Ok(index) => {
            tools.push(Arc::new(RepoMap {
                index: index.clone(),
                budget: settings.map_budget,
            }));
            tools.extend(hone_index::tools::index_tools(index));
        }
        Err(error) => eprintln!("hone: warning: no code index ({error}); serving without it"),
    }
    let agent: Option<Arc<dyn AgentSessions>> = (!args.no_agent).then(|| {
        let sessions: Arc<dyn AgentSessions> = Arc::new(ServeSessions {
            global: global.clone(),
            approval: args.approval.clone(),
            root: root.clone(),
        });
        sessions
    });
    hone_mcp::serve(ServeOptions { root, tools, agent })
        .await
        .map_err(|error| HoneError::config(error.to_string()))?;
    Ok(ExitCode::SUCCESS)
}

/// `repo_map`: the ranked outline of the project's most important files.
struct RepoMap {
    index: hone_index::tools::SharedIndex,
    budget: usize,
}

impl hone_tools::Tool for RepoMap {
    fn name(&self) -> &'static str {
        "repo_map"
    }

    fn spec(&self) -> hone_protocol::ToolSpec {
        hone_protocol::ToolSpec {
            name: "repo_map".to_string(),
            description: "The project's most important files with their outlines (ranked by \
                          how much other code uses them), cut to a token budget. `focus`: words \
                          or paths to rank first."
                .to_string(),
            parameters: serde_json::json!({
                "type": "object",
                "properties": {"focus": {"type": "string", "description": "What to rank first."}}
            }),
        }
    }

    fn kind(&self) -> hone_tools::ToolKind {
        hone_tools::ToolKind::Read
    }

    fn plan(
        &self,
        _context: &hone_tools::ToolContext,
        arguments: &serde_json::Value,
    ) -> Result<hone_tools::Plan, hone_tools::ToolError> {
        let focus = arguments["focus"].as_str().unwrap_or("");
        let mut indexer = self.index.lock();
        // Like the index tools: answers reflect the files as they are now.
        if let Err(error) = indexer.update(&mut |_| {}) {
            tracing::warn!("index update before the repo map failed: {error}");
        }
        let output = match hone_index::tools::repo_map(&indexer, focus, self.budget) {
            Ok(map) => hone_tools::ToolOutput::ok(map),
            Err(error) => hone_tools::ToolOutput::error(format!("no repository map: {error}")),
        };
        Ok(hone_tools::Plan::Done(output))
    }
}

/// Sessions for the `agent` tool, built like `hone exec`'s (not interactive, not saved).
struct ServeSessions {
    global: GlobalArgs,
    approval: String,
    root: PathBuf,
}

impl AgentSessions for ServeSessions {
    fn start(
        &self,
    ) -> Pin<Box<dyn Future<Output = Result<hone_mcp::AgentSession, String>> + Send + '_>> {
        Box::pin(async move { self.session().await.map_err(|error| error.to_string()) })
    }
}

impl ServeSessions {
    async fn session(&self) -> Result<hone_mcp::AgentSession, HoneError> {
        let mut overrides = crate::overrides(&self.global);
        overrides.approval = Some(self.approval.clone());
        let config = crate::load_config_with(&self.global, overrides)?;
        let provider_config = config.provider()?;
        let basics = crate::agent_setup::basics(&config, &provider_config)?;
        let window = crate::context_cmd::context_window(&config, &provider_config);
        let prompting = crate::provider_factory::Prompting::Never;
        let roles = crate::agent_setup::roles(&config, &provider_config, prompting).await?;
        let provider = crate::provider_factory::build(&config, provider_config, prompting).await?;
        let (extra_tools, repo_map, code_mapper, localizer) = crate::exec::code_index(
            &self.root,
            "",
            &config.index_settings(),
            basics.prompt_profile,
        );
        let context = crate::context_cmd::session_context(&config, window, &self.root);
        hone_core::start_session(SessionConfig {
            root: self.root.clone(),
            provider,
            model: basics.model,
            permissions: basics.permissions,
            max_tool_rounds: basics.max_tool_rounds,
            interactive: false,
            audit: true,
            secrets: basics.secrets,
            commands: basics.commands,
            extra_tools,
            tool_sources: Vec::new(),
            repo_map,
            prompt_profile: basics.prompt_profile,
            memory: None,
            context,
            checks: crate::agent_setup::checks(&config),
            code_mapper: Some(code_mapper),
            localizer,
            guidance: crate::agent_setup::guidance(&config),
            roles,
        })
    }
}
