//! [`FaceSetup`]: what a face brings to the sessions it starts besides the configuration
//! (an editor's buffers, the MCP servers it runs).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use hone_config::{
    DEFAULT_MCP_STARTUP_TIMEOUT_SECS, DEFAULT_MCP_TOOL_TIMEOUT_SECS, McpApproval,
    McpServerSettings, McpTransport, Source,
};
pub use hone_tools::files::WorkspaceFiles;

/// What a face adds to a session ([`crate::Runtime::start_session_with`]).
#[derive(Clone, Default)]
pub struct FaceSetup {
    /// The face's access to the project's text files (an editor's unsaved buffers);
    /// `None`: the disk.
    pub files: Option<Arc<dyn WorkspaceFiles>>,
    /// MCP servers the face runs for the session, beside the configured ones (replacing a
    /// configured one of the same name); started only when the session starts MCP servers
    /// ([`crate::SessionRequest::mcp_servers`]).
    pub mcp_servers: Vec<McpServerSettings>,
}

impl std::fmt::Debug for FaceSetup {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("FaceSetup")
            .field("files", &self.files.is_some())
            .field(
                "mcp_servers",
                &self
                    .mcp_servers
                    .iter()
                    .map(|server| server.name.as_str())
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// An MCP server a face runs for its session: a program speaking MCP on stdin and stdout,
/// started in `cwd` (default: the project root) with the variables `env` set.
pub fn face_stdio_server(
    name: &str,
    command: &str,
    args: Vec<String>,
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
) -> McpServerSettings {
    face_server(
        name,
        McpTransport::Stdio {
            command: command.to_string(),
            args,
            env: Vec::new(),
            env_values: env,
            cwd,
        },
    )
}

/// An MCP server a face runs for its session: a streamable-HTTP endpoint, sent `headers`.
pub fn face_http_server(
    name: &str,
    url: &str,
    headers: BTreeMap<String, String>,
) -> McpServerSettings {
    face_server(
        name,
        McpTransport::Http {
            url: url.to_string(),
            headers,
            headers_env: BTreeMap::new(),
            bearer_token_env: None,
        },
    )
}

/// A face's server with the defaults of a configured one: every tool offered, each call
/// asked like a command the policy does not know.
fn face_server(name: &str, transport: McpTransport) -> McpServerSettings {
    McpServerSettings {
        name: name.to_string(),
        transport,
        enabled: true,
        startup_timeout_secs: DEFAULT_MCP_STARTUP_TIMEOUT_SECS,
        tool_timeout_secs: DEFAULT_MCP_TOOL_TIMEOUT_SECS,
        include: Vec::new(),
        exclude: Vec::new(),
        approval: McpApproval::Ask,
        tool_approval: BTreeMap::new(),
        source: Source::Default,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_face_stdio_server_sets_its_variables_and_passes_none_of_the_users() {
        let env = BTreeMap::from([("TOKEN".to_string(), "t".to_string())]);
        let server = face_stdio_server("files", "/bin/files", vec!["-v".into()], env.clone(), None);
        assert!(server.enabled);
        assert_eq!(server.approval_for("read"), McpApproval::Ask);
        match server.transport {
            McpTransport::Stdio {
                command,
                args,
                env: passed,
                env_values,
                cwd,
            } => {
                assert_eq!(command, "/bin/files");
                assert_eq!(args, ["-v"]);
                assert!(passed.is_empty());
                assert_eq!(env_values, env);
                assert_eq!(cwd, None);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_face_http_server_keeps_its_headers() {
        let headers = BTreeMap::from([("X-Key".to_string(), "v".to_string())]);
        let server = face_http_server("web", "http://127.0.0.1:1/mcp", headers.clone());
        match server.transport {
            McpTransport::Http {
                url, headers: sent, ..
            } => {
                assert_eq!(url, "http://127.0.0.1:1/mcp");
                assert_eq!(sent, headers);
            }
            other => panic!("{other:?}"),
        }
    }
}
