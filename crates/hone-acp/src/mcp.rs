//! The MCP servers an editor passes in `session/new` and `session/load`: started for that
//! session beside the configured ones, their tools offered to the model; the first prompt
//! waits until they are ready or failed (a failure is told as an agent message).

use std::time::Duration;

use agent_client_protocol::v1::schema as acp;
use hone_api::{McpServerState, McpServerStatus, Request};
use hone_server::{Client, McpServerSettings, face_http_server, face_stdio_server};

/// How often a prompt looks whether the session's MCP servers are still starting.
const POLL: Duration = Duration::from_millis(100);

/// The longest a prompt waits for them (each server has its own startup timeout, 10 s by
/// default, after which it counts as failed).
const LONGEST_WAIT: Duration = Duration::from_secs(60);

/// The editor's servers as hone's, and a line for each one hone cannot run (SSE).
pub(crate) fn face_servers(servers: &[acp::McpServer]) -> (Vec<McpServerSettings>, Vec<String>) {
    let mut settings = Vec::new();
    let mut refused = Vec::new();
    for server in servers {
        match server {
            acp::McpServer::Stdio(stdio) => settings.push(face_stdio_server(
                &stdio.name,
                &stdio.command.to_string_lossy(),
                stdio.args.clone(),
                stdio
                    .env
                    .iter()
                    .map(|variable| (variable.name.clone(), variable.value.clone()))
                    .collect(),
                None,
            )),
            acp::McpServer::Http(http) => settings.push(face_http_server(
                &http.name,
                &http.url,
                http.headers
                    .iter()
                    .map(|header| (header.name.clone(), header.value.clone()))
                    .collect(),
            )),
            acp::McpServer::Sse(sse) => refused.push(format!(
                "hone: MCP server `{}` not started: hone speaks streamable HTTP and stdio to \
                 MCP servers, not SSE",
                sse.name
            )),
            _ => refused.push("hone: an MCP server of an unknown kind was not started".into()),
        }
    }
    (settings, refused)
}

/// Waits until no MCP server of session `key` is starting (at most [`LONGEST_WAIT`]), so
/// the model's first request offers their tools.
pub(crate) async fn settled(hone: &Client, key: &str) {
    let deadline = tokio::time::Instant::now() + LONGEST_WAIT;
    loop {
        let Ok(status) = hone.call(Some(key), Request::McpStatus).await else {
            return;
        };
        let servers: Vec<McpServerStatus> =
            serde_json::from_value(status["servers"].clone()).unwrap_or_default();
        let starting = servers
            .iter()
            .any(|server| server.state == McpServerState::Starting);
        if !starting || tokio::time::Instant::now() >= deadline {
            return;
        }
        tokio::time::sleep(POLL).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdio_and_http_servers_are_kept_and_sse_ones_refused_with_a_reason() {
        let servers = vec![
            acp::McpServer::Stdio(
                acp::McpServerStdio::new("files", "/bin/files")
                    .args(vec!["-v".into()])
                    .env(vec![acp::EnvVariable::new("TOKEN", "t")]),
            ),
            acp::McpServer::Http(
                acp::McpServerHttp::new("web", "http://127.0.0.1:9/mcp")
                    .headers(vec![acp::HttpHeader::new("X-Key", "v")]),
            ),
            acp::McpServer::Sse(acp::McpServerSse::new("old", "http://127.0.0.1:9/sse")),
        ];
        let (settings, refused) = face_servers(&servers);
        let names: Vec<&str> = settings.iter().map(|server| server.name.as_str()).collect();
        assert_eq!(names, ["files", "web"]);
        assert_eq!(refused.len(), 1);
        assert!(
            refused[0].contains("`old`") && refused[0].contains("SSE"),
            "{refused:?}"
        );
    }
}
