//! The MCP servers of a session: started together in the background, their tools offered
//! once ready, a crashed server restarted on the next call.

mod connect;
mod result;
mod tool;

use std::collections::BTreeMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use hone_config::{McpServerSettings, McpTransport};
use hone_tools::command::CommandSetup;
use hone_tools::{Tool, ToolOutput, ToolSource};
use rmcp::model::{CallToolRequestParams, GetPromptRequestParams};
use tokio::sync::{Mutex as AsyncMutex, watch};
use tokio_util::sync::CancellationToken;

use connect::{Connection, connect};
pub use tool::McpTool;

/// Where a server stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerState {
    /// `enabled = false`.
    Disabled,
    /// Starting (its tools appear once it is ready).
    Starting,
    /// Ready; its tools are offered.
    Ready,
    /// Could not start, or stopped; why. Its known tools stay offered and the next call
    /// starts it again.
    Failed(String),
}

impl ServerState {
    /// One word or phrase for listings.
    pub fn describe(&self) -> String {
        match self {
            ServerState::Disabled => "disabled".to_string(),
            ServerState::Starting => "starting".to_string(),
            ServerState::Ready => "ready".to_string(),
            ServerState::Failed(why) => format!("failed: {why}"),
        }
    }
}

/// What `hone mcp list` and `/mcp` show about one server.
#[derive(Debug, Clone)]
pub struct ServerReport {
    /// The configured name.
    pub name: String,
    /// How it is reached (`command args…` or the URL).
    pub target: String,
    /// Where it stands.
    pub state: ServerState,
    /// The tools offered, as the model calls them (`NAME__tool`).
    pub tools: Vec<String>,
    /// The server's prompts (`/NAME:prompt`).
    pub prompts: Vec<String>,
}

/// `report` as lines for people: each server's name, state and target, then its tools and
/// prompts indented.
pub fn report_lines(report: &[ServerReport]) -> Vec<String> {
    let mut lines = Vec::new();
    for server in report {
        lines.push(format!(
            "{}  {}  ({})",
            server.name,
            server.state.describe(),
            server.target
        ));
        lines.extend(server.tools.iter().map(|tool| format!("  tool    {tool}")));
        lines.extend(
            server
                .prompts
                .iter()
                .map(|prompt| format!("  prompt  {prompt}")),
        );
    }
    lines
}

impl ServerReport {
    /// The report as one JSON object (`hone mcp list --json`): name, target, state
    /// (`ready`, `disabled`, `starting`, `failed`), the error of a failed server, tools
    /// and prompts.
    pub fn to_json(&self) -> serde_json::Value {
        let (state, error) = match &self.state {
            ServerState::Ready => ("ready", None),
            ServerState::Disabled => ("disabled", None),
            ServerState::Starting => ("starting", None),
            ServerState::Failed(why) => ("failed", Some(why.as_str())),
        };
        serde_json::json!({
            "name": self.name,
            "target": self.target,
            "state": state,
            "error": error,
            "tools": self.tools,
            "prompts": self.prompts,
        })
    }
}

/// One server and its connection.
struct Server {
    settings: McpServerSettings,
    /// The live connection; locked for (re)connecting, not for calls.
    connection: AsyncMutex<Option<Arc<AsyncMutex<Connection>>>>,
    /// State and tools for readers that cannot wait.
    shown: Mutex<Shown>,
    ready: watch::Sender<bool>,
}

#[derive(Default)]
struct Shown {
    state: Option<ServerState>,
    tools: Vec<Arc<dyn Tool>>,
    prompts: Vec<String>,
    /// Whether the current failure was already reported to the model.
    reported: bool,
}

/// The MCP servers of one session.
#[derive(Clone)]
pub struct McpClients {
    inner: Arc<Inner>,
}

struct Inner {
    servers: BTreeMap<String, Arc<Server>>,
    root: PathBuf,
    commands: CommandSetup,
}

impl McpClients {
    /// Starts every enabled server in `servers` in the background (in parallel), in `root`,
    /// with the environment and sandbox of `commands`. Returns at once: tools appear as
    /// their servers become ready. Needs a tokio runtime.
    pub fn start(servers: Vec<McpServerSettings>, root: &Path, commands: CommandSetup) -> Self {
        let servers = servers
            .into_iter()
            .map(|settings| {
                let state = if settings.enabled {
                    ServerState::Starting
                } else {
                    ServerState::Disabled
                };
                let server = Server {
                    connection: AsyncMutex::new(None),
                    shown: Mutex::new(Shown {
                        state: Some(state),
                        ..Shown::default()
                    }),
                    ready: watch::channel(!settings.enabled).0,
                    settings,
                };
                (server.settings.name.clone(), Arc::new(server))
            })
            .collect();
        let clients = Self {
            inner: Arc::new(Inner {
                servers,
                root: root.to_path_buf(),
                commands,
            }),
        };
        for server in clients.inner.servers.values() {
            if server.settings.enabled {
                let clients = clients.clone();
                let server = Arc::clone(server);
                tokio::spawn(async move {
                    let _ = clients.connection(&server).await;
                });
            }
        }
        clients
    }

    /// Waits until every server is ready or failed (each within its startup timeout).
    pub async fn settled(&self) {
        for server in self.inner.servers.values() {
            let mut ready = server.ready.subscribe();
            let _ = ready.wait_for(|done| *done).await;
        }
    }

    /// Every server with its state, tools and prompts.
    pub fn report(&self) -> Vec<ServerReport> {
        self.inner
            .servers
            .values()
            .map(|server| {
                let shown = lock(&server.shown);
                ServerReport {
                    name: server.settings.name.clone(),
                    target: target(&server.settings.transport),
                    state: shown.state.clone().unwrap_or(ServerState::Starting),
                    tools: shown
                        .tools
                        .iter()
                        .map(|tool| tool.name().to_string())
                        .collect(),
                    prompts: shown.prompts.clone(),
                }
            })
            .collect()
    }

    /// The live connection of `server`, started (again) when there is none or it closed.
    async fn connection(&self, server: &Server) -> Result<Arc<AsyncMutex<Connection>>, String> {
        let mut slot = server.connection.lock().await;
        if let Some(connection) = slot.as_ref() {
            if !connection.lock().await.is_closed() {
                return Ok(Arc::clone(connection));
            }
            *slot = None;
        }
        let connected = connect(&server.settings, &self.inner.root, &self.inner.commands).await;
        let result = match connected {
            Ok(connection) => {
                let tools = tool::tools_of(self, &server.settings, &connection.tools);
                let prompts = connection
                    .prompts
                    .iter()
                    .map(|prompt| format!("/{}:{}", server.settings.name, prompt.name))
                    .collect();
                let connection = Arc::new(AsyncMutex::new(connection));
                *slot = Some(Arc::clone(&connection));
                let mut shown = lock(&server.shown);
                shown.state = Some(ServerState::Ready);
                shown.tools = tools;
                shown.prompts = prompts;
                shown.reported = false;
                Ok(connection)
            }
            Err(why) => {
                tracing::warn!(server = %server.settings.name, "MCP server failed: {why}");
                lock(&server.shown).state = Some(ServerState::Failed(why.clone()));
                Err(why)
            }
        };
        server.ready.send_replace(true);
        result
    }

    /// The text of prompt `prompt` of server `name` (`/NAME:prompt` in the TUI), with
    /// `arguments` as `key=value` words; every message's text in order, images and other
    /// content described.
    pub async fn prompt(
        &self,
        name: &str,
        prompt: &str,
        arguments: &str,
    ) -> Result<String, String> {
        let server = self
            .inner
            .servers
            .get(name)
            .ok_or_else(|| format!("no MCP server `{name}` is configured"))?;
        let connection = self
            .connection(server)
            .await
            .map_err(|why| format!("the MCP server `{name}` is not available: {why}"))?;
        let peer = connection.lock().await.service.peer().clone();
        let mut params = GetPromptRequestParams::new(prompt);
        let pairs = prompt_arguments(arguments)?;
        if !pairs.is_empty() {
            params.arguments = Some(pairs);
        }
        let limit = server.settings.tool_timeout_secs;
        let result = tokio::time::timeout(Duration::from_secs(limit), peer.get_prompt(params))
            .await
            .map_err(|_| format!("the MCP server `{name}` did not answer within {limit} s"))?
            .map_err(|error| format!("the MCP server `{name}` answered with an error: {error}"))?;
        let parts: Vec<String> = result
            .messages
            .iter()
            .map(|message| result::describe(&message.content))
            .filter(|text| !text.trim().is_empty())
            .collect();
        if parts.is_empty() {
            return Err(format!("the prompt `{prompt}` of `{name}` is empty"));
        }
        Ok(parts.join("\n\n"))
    }

    /// Calls `tool` (the server's own name) of server `name`, restarting a server that
    /// stopped; the result is mapped and truncated for the model.
    pub(crate) async fn call(
        &self,
        name: &str,
        tool: &str,
        arguments: Option<serde_json::Map<String, serde_json::Value>>,
        cancel: CancellationToken,
    ) -> ToolOutput {
        let Some(server) = self.inner.servers.get(name) else {
            return ToolOutput::error(format!("no MCP server `{name}` is configured"));
        };
        let connection = match self.connection(server).await {
            Ok(connection) => connection,
            Err(why) => {
                return ToolOutput::error(format!(
                    "the MCP server `{name}` is not available: {why}"
                ));
            }
        };
        let peer = connection.lock().await.service.peer().clone();
        let mut params = CallToolRequestParams::new(tool.to_string());
        if let Some(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        let limit = server.settings.tool_timeout_secs;
        let outcome = tokio::select! {
            () = cancel.cancelled() => return ToolOutput::error("not finished: the user cancelled the turn"),
            outcome = tokio::time::timeout(Duration::from_secs(limit), peer.call_tool(params)) => outcome,
        };
        match outcome {
            Ok(Ok(result)) => result::to_output(result),
            Ok(Err(error)) => {
                let mut connection = connection.lock().await;
                let gone = matches!(
                    error,
                    rmcp::ServiceError::TransportClosed | rmcp::ServiceError::TransportSend(_)
                );
                if gone || connection.is_closed() {
                    // Let the stderr reader collect the last words of the process.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    let stderr = connection.stderr();
                    drop(connection);
                    *server.connection.lock().await = None;
                    self.stopped(server, &stderr)
                } else {
                    ToolOutput::error(format!(
                        "the MCP server `{name}` answered with an error: {error}"
                    ))
                }
            }
            Err(_) => ToolOutput::error(format!(
                "the MCP server `{name}` did not answer within {limit} s (tool_timeout_secs); \
                 the call was cancelled"
            )),
        }
    }

    /// Records that `server` stopped during a call and says so, once per failure.
    fn stopped(&self, server: &Server, stderr: &str) -> ToolOutput {
        let name = &server.settings.name;
        let mut shown = lock(&server.shown);
        let why = if stderr.trim().is_empty() {
            "it stopped during the call".to_string()
        } else {
            format!("it stopped during the call; its stderr ended with:\n{stderr}")
        };
        shown.state = Some(ServerState::Failed(why.clone()));
        if shown.reported {
            ToolOutput::error(format!(
                "the MCP server `{name}` stopped again during the call"
            ))
        } else {
            shown.reported = true;
            ToolOutput::error(format!(
                "the MCP server `{name}` stopped: {why}\nIt will be started again on the next call."
            ))
        }
    }
}

impl ToolSource for McpClients {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.inner
            .servers
            .values()
            .flat_map(|server| lock(&server.shown).tools.clone())
            .collect()
    }

    fn ready_for<'a>(&'a self, name: &'a str) -> Pin<Box<dyn Future<Output = ()> + Send + 'a>> {
        Box::pin(async move {
            let Some((server, _)) = name.split_once("__") else {
                return;
            };
            if let Some(server) = self.inner.servers.get(server) {
                let mut ready = server.ready.subscribe();
                let _ = ready.wait_for(|done| *done).await;
            }
        })
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn target(transport: &McpTransport) -> String {
    match transport {
        McpTransport::Stdio { command, args, .. } => std::iter::once(command.as_str())
            .chain(args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        McpTransport::Http { url, .. } => url.clone(),
    }
}

/// `key=value` words as a prompt's arguments (values are strings).
fn prompt_arguments(text: &str) -> Result<serde_json::Map<String, serde_json::Value>, String> {
    text.split_whitespace()
        .map(|word| match word.split_once('=') {
            Some((key, value)) if !key.is_empty() => Ok((
                key.to_string(),
                serde_json::Value::String(value.to_string()),
            )),
            _ => Err(format!(
                "prompt arguments are `key=value` words; `{word}` is not one"
            )),
        })
        .collect()
}

#[cfg(test)]
mod prompt_tests {
    use super::prompt_arguments;

    #[test]
    fn prompt_arguments_are_key_value_words() {
        let parsed = prompt_arguments("style=short topic=rust").unwrap();
        assert_eq!(parsed["style"], "short");
        assert_eq!(parsed["topic"], "rust");
        assert!(prompt_arguments("").unwrap().is_empty());
        let error = prompt_arguments("oops").unwrap_err();
        assert!(error.contains("`oops`"), "{error}");
    }
}
