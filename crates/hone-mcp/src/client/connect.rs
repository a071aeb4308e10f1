//! Starting one server: a child process on stdin/stdout (scrubbed environment, the OS
//! sandbox when commands use it) or a streamable-HTTP endpoint, then the MCP handshake and
//! the tool list.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hone_config::{McpServerSettings, McpTransport};
use hone_tools::command::CommandSetup;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{Prompt, Tool as McpToolSpec};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};
use serde::de::IgnoredAny;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::process::{Child, ChildStdout, Command};

/// Lines of a server's stderr kept for error messages.
const STDERR_LINES: usize = 20;
/// Lines of stdout that are not messages noted per connection.
const NOISE_LINES: usize = 3;
/// Bytes of a server's messages buffered between its stdout and the MCP session.
const STDOUT_BUFFER: usize = 1 << 16;

/// A live connection to a server.
pub(crate) struct Connection {
    /// The MCP session.
    pub(crate) service: RunningService<RoleClient, ()>,
    /// The server's tools, as it listed them.
    pub(crate) tools: Vec<McpToolSpec>,
    /// The server's prompts (empty when it has none).
    pub(crate) prompts: Vec<Prompt>,
    /// The child process of a stdio server (killed when the connection is dropped).
    child: Option<Child>,
    /// The last lines the child wrote on stderr.
    stderr: StderrTail,
}

impl Connection {
    /// Whether the server went away (the process exited or the transport closed).
    pub(crate) fn is_closed(&mut self) -> bool {
        let exited = self
            .child
            .as_mut()
            .is_some_and(|child| !matches!(child.try_wait(), Ok(None)));
        exited || self.service.is_closed()
    }

    /// What the server last wrote on stderr, for error messages (empty when nothing).
    pub(crate) fn stderr(&self) -> String {
        self.stderr.text()
    }
}

/// The last lines of a child's stderr.
#[derive(Clone, Default)]
struct StderrTail(Arc<Mutex<VecDeque<String>>>);

impl StderrTail {
    fn push(&self, line: String) {
        if let Ok(mut lines) = self.0.lock() {
            if lines.len() == STDERR_LINES {
                lines.pop_front();
            }
            lines.push_back(line);
        }
    }

    fn text(&self) -> String {
        self.0
            .lock()
            .map(|lines| lines.iter().cloned().collect::<Vec<_>>().join("\n"))
            .unwrap_or_default()
    }
}

/// Starts `server` and completes the handshake and listings within its startup timeout.
/// The error says what went wrong, with the server's last stderr lines.
pub(crate) async fn connect(
    server: &McpServerSettings,
    root: &Path,
    commands: &CommandSetup,
) -> Result<Connection, String> {
    let timeout = Duration::from_secs(server.startup_timeout_secs);
    let stderr = StderrTail::default();
    let (service, child) = match &server.transport {
        McpTransport::Stdio {
            command,
            args,
            env,
            env_values,
            cwd,
        } => {
            let cwd = cwd.as_deref().unwrap_or(root);
            let mut child = spawn(command, args, (env, env_values), cwd, commands)?;
            if let Some(err) = child.stderr.take() {
                let tail = stderr.clone();
                tokio::spawn(async move {
                    let mut lines = BufReader::new(err).lines();
                    while let Ok(Some(line)) = lines.next_line().await {
                        tail.push(line);
                    }
                });
            }
            let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
                return Err("the process has no stdin/stdout".to_string());
            };
            let stdout = messages_only(stdout, stderr.clone());
            let started = tokio::time::timeout(timeout, ().serve((stdout, stdin))).await;
            let service = handshake(started, server, &stderr).await?;
            (service, Some(child))
        }
        McpTransport::Http {
            url,
            headers,
            headers_env,
            bearer_token_env,
        } => {
            let config = http_config(url, headers, headers_env, bearer_token_env.as_deref())?;
            let transport =
                StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
            let started = tokio::time::timeout(timeout, ().serve(transport)).await;
            (handshake(started, server, &stderr).await?, None)
        }
    };
    let listed = tokio::time::timeout(timeout, list(&service)).await;
    let (tools, prompts) = match listed {
        Ok(Ok(listed)) => listed,
        Ok(Err(error)) => {
            return Err(with_stderr(
                format!("listing tools failed: {error}"),
                &stderr,
            ));
        }
        Err(_) => {
            return Err(with_stderr(
                format!(
                    "did not list its tools within {} s",
                    server.startup_timeout_secs
                ),
                &stderr,
            ));
        }
    };
    Ok(Connection {
        service,
        tools,
        prompts,
        child,
        stderr,
    })
}

type Started<E> = Result<Result<RunningService<RoleClient, ()>, E>, tokio::time::error::Elapsed>;

async fn handshake<E: std::fmt::Display>(
    started: Started<E>,
    server: &McpServerSettings,
    stderr: &StderrTail,
) -> Result<RunningService<RoleClient, ()>, String> {
    match started {
        Ok(Ok(service)) => Ok(service),
        Ok(Err(error)) => {
            // Give the stderr reader a moment to collect why the process ended.
            tokio::time::sleep(Duration::from_millis(100)).await;
            Err(with_stderr(
                format!("the MCP handshake failed: {error}"),
                stderr,
            ))
        }
        Err(_) => Err(with_stderr(
            format!(
                "did not answer the MCP handshake within {} s (startup_timeout_secs)",
                server.startup_timeout_secs
            ),
            stderr,
        )),
    }
}

async fn list(
    service: &RunningService<RoleClient, ()>,
) -> Result<(Vec<McpToolSpec>, Vec<Prompt>), rmcp::ServiceError> {
    let capabilities = service
        .peer_info()
        .map(|info| info.capabilities.clone())
        .unwrap_or_default();
    let tools = if capabilities.tools.is_some() {
        service.list_all_tools().await?
    } else {
        Vec::new()
    };
    let prompts = if capabilities.prompts.is_some() {
        service.list_all_prompts().await.unwrap_or_default()
    } else {
        Vec::new()
    };
    Ok((tools, prompts))
}

/// Forwards the lines of a server's stdout that are JSON messages; anything else (a
/// banner, debugging output) is dropped and noted with the stderr lines, so it neither
/// breaks the session nor goes unexplained.
fn messages_only(stdout: ChildStdout, noise: StderrTail) -> DuplexStream {
    let (ours, mut theirs) = tokio::io::duplex(STDOUT_BUFFER);
    tokio::spawn(async move {
        let mut reader = BufReader::new(stdout);
        let mut line = Vec::new();
        let mut dropped = 0usize;
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let starts_like_json = line
                .iter()
                .find(|byte| !byte.is_ascii_whitespace())
                .is_some_and(|byte| *byte == b'{' || *byte == b'[');
            if starts_like_json && serde_json::from_slice::<IgnoredAny>(&line).is_ok() {
                if !line.ends_with(b"\n") {
                    line.push(b'\n');
                }
                if theirs.write_all(&line).await.is_err() {
                    break;
                }
            } else if !line.iter().all(u8::is_ascii_whitespace) {
                dropped += 1;
                if dropped <= NOISE_LINES {
                    let text = String::from_utf8_lossy(&line);
                    let shown: String = text.trim_end().chars().take(200).collect();
                    noise.push(format!("(not an MCP message on stdout) {shown}"));
                }
            }
        }
    });
    ours
}

fn with_stderr(message: String, stderr: &StderrTail) -> String {
    let text = stderr.text();
    if text.trim().is_empty() {
        message
    } else {
        format!("{message}; its stderr ended with:\n{text}")
    }
}

/// Starts the server's process: hone's environment without secrets (the variables the
/// user listed in `env` are passed on), under the sandbox helper when commands use one.
fn spawn(
    program: &str,
    args: &[String],
    (env, values): (&[String], &BTreeMap<String, String>),
    cwd: &Path,
    commands: &CommandSetup,
) -> Result<Child, String> {
    let mut command = match &commands.sandbox {
        Some(helper) if helper.policy.mode != hone_sandbox::SandboxMode::Off => {
            let mut command = Command::new(&helper.program);
            command
                .args(&helper.args)
                .args(helper.policy.helper_args())
                .arg("--")
                .arg(program)
                .args(args);
            command
        }
        _ => {
            let mut command = Command::new(program);
            command.args(args);
            command
        }
    };
    for name in &commands.remove_env {
        if !env.contains(name) {
            command.env_remove(name);
        }
    }
    command.envs(values);
    command
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .process_group(0);
    command.spawn().map_err(|error| match error.kind() {
        std::io::ErrorKind::NotFound => {
            format!("cannot start `{program}`: no such program (is it installed and on PATH?)")
        }
        _ => format!("cannot start `{program}`: {error}"),
    })
}

/// The HTTP transport's configuration: literal headers, headers from variables and a
/// bearer token from a variable. A variable that is not set is an error naming it.
fn http_config(
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
    headers_env: &std::collections::BTreeMap<String, String>,
    bearer_token_env: Option<&str>,
) -> Result<StreamableHttpClientTransportConfig, String> {
    let variable = |name: &str| {
        std::env::var(name).map_err(|_| format!("the environment variable `{name}` is not set"))
    };
    let mut custom = HashMap::new();
    let from_env = headers_env
        .iter()
        .map(|(header, name)| variable(name).map(|value| (header.clone(), value)));
    let literal = headers.iter().map(|(k, v)| Ok((k.clone(), v.clone())));
    for pair in literal.chain(from_env) {
        let (header, value) = pair?;
        let name = HeaderName::try_from(header.as_str())
            .map_err(|_| format!("`{header}` is not a valid header name"))?;
        let value = HeaderValue::try_from(value.as_str())
            .map_err(|_| format!("the value of header `{header}` is not valid"))?;
        custom.insert(name, value);
    }
    let mut config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom);
    if let Some(name) = bearer_token_env {
        config = config.auth_header(variable(name)?);
    }
    Ok(config)
}
