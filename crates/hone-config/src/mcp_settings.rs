//! `[mcp_servers.NAME]`: MCP servers whose tools a session offers.
//!
//! ```toml
//! [mcp_servers.files]                 # a stdio server: hone starts the command
//! command = "npx"
//! args = ["-y", "@modelcontextprotocol/server-filesystem", "."]
//! env = ["GITHUB_TOKEN"]              # variables passed on by name (values never stored)
//! cwd = "tools"                       # relative to the file's directory's project
//! tool_timeout_secs = 60
//!
//! [mcp_servers.docs]                  # a streamable-HTTP server
//! url = "https://example.com/mcp"
//! headers_env = { Authorization = "DOCS_TOKEN" }  # header value from a variable
//! include = ["search*"]               # offer only these tools (globs)
//! approval = "allow"                  # ask (default) | allow
//! tool_approval = { delete_page = "ask" }
//! ```
//!
//! Servers come from the user file and from a trusted project's file only: an untrusted
//! project file cannot add servers (its `[mcp_servers]` is reported as ignored).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::error::ConfigError;
use crate::file::line_and_column;
use crate::load::Config;
use crate::source::Source;

/// Seconds a server gets to start and list its tools, unless configured.
pub const DEFAULT_MCP_STARTUP_TIMEOUT_SECS: u64 = 10;
/// Seconds one tool call may take, unless configured.
pub const DEFAULT_MCP_TOOL_TIMEOUT_SECS: u64 = 120;

/// `[mcp_servers.NAME]` as written in a file.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct McpServerSection {
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: Vec<String>,
    cwd: Option<String>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    headers_env: BTreeMap<String, String>,
    bearer_token_env: Option<String>,
    enabled: Option<bool>,
    startup_timeout_secs: Option<u64>,
    tool_timeout_secs: Option<u64>,
    #[serde(default)]
    include: Vec<String>,
    #[serde(default)]
    exclude: Vec<String>,
    approval: Option<McpApproval>,
    #[serde(default)]
    tool_approval: BTreeMap<String, McpApproval>,
}

/// Whether calls of an MCP tool ask first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum McpApproval {
    /// Ask like a command the policy does not know (runs without asking in full-auto).
    #[default]
    Ask,
    /// Run without asking (never in read-only mode).
    Allow,
}

/// How hone reaches a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpTransport {
    /// A child process speaking MCP on stdin/stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Names of the user's environment variables passed on (values read at start).
        env: Vec<String>,
        /// Variables set to these values (the servers an editor passes over ACP; never
        /// read from a configuration file).
        env_values: BTreeMap<String, String>,
        /// Working directory (default: the project root).
        cwd: Option<PathBuf>,
    },
    /// A streamable-HTTP endpoint.
    Http {
        /// The endpoint.
        url: String,
        /// Headers with literal values.
        headers: BTreeMap<String, String>,
        /// Headers whose value is read from the named environment variable.
        headers_env: BTreeMap<String, String>,
        /// Variable holding a bearer token for `Authorization`.
        bearer_token_env: Option<String>,
    },
}

/// One configured MCP server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerSettings {
    /// The name (`[mcp_servers.NAME]`); tools are offered as `NAME__tool`.
    pub name: String,
    /// How to reach it.
    pub transport: McpTransport,
    /// False: configured but not started.
    pub enabled: bool,
    /// Seconds to start and list tools.
    pub startup_timeout_secs: u64,
    /// Seconds per tool call.
    pub tool_timeout_secs: u64,
    /// Tool-name globs to offer (empty: all).
    pub include: Vec<String>,
    /// Tool-name globs never offered.
    pub exclude: Vec<String>,
    /// Approval for the server's tools.
    pub approval: McpApproval,
    /// Approval per tool (the server's own tool name), over `approval`.
    pub tool_approval: BTreeMap<String, McpApproval>,
    /// The file that defined it.
    pub source: Source,
}

impl McpServerSettings {
    /// The approval for the server's tool `tool`.
    pub fn approval_for(&self, tool: &str) -> McpApproval {
        self.tool_approval
            .get(tool)
            .copied()
            .unwrap_or(self.approval)
    }
}

/// Checks every server of a file: one of `command` or `url`, a usable name, and timeouts
/// above zero. Errors name the file, line and column of the server's table.
pub(crate) fn validate(
    path: &Path,
    text: &str,
    servers: &BTreeMap<Spanned<String>, McpServerSection>,
) -> Result<(), ConfigError> {
    for (name, section) in servers {
        let problem = check(name.get_ref(), section);
        if let Some(message) = problem {
            let (line, column) = line_and_column(text, name.span().start);
            return Err(ConfigError::Parse {
                path: path.to_path_buf(),
                line: Some(line),
                column: Some(column),
                message: format!("invalid `[mcp_servers.{}]`: {message}", name.get_ref()),
            });
        }
    }
    Ok(())
}

fn check(name: &str, section: &McpServerSection) -> Option<String> {
    let valid_name = !name.is_empty()
        && !name.contains("__")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !valid_name {
        return Some(
            "the name may use letters, digits, `-` and `_` (not `__`), as tools are offered as `NAME__tool`"
                .to_string(),
        );
    }
    match (&section.command, &section.url) {
        (None, None) => return Some("set `command` (a stdio server) or `url` (HTTP)".to_string()),
        (Some(_), Some(_)) => {
            return Some("set either `command` or `url`, not both".to_string());
        }
        (Some(command), None) if command.trim().is_empty() => {
            return Some("`command` is empty".to_string());
        }
        (Some(_), None) => {
            if !section.headers.is_empty()
                || !section.headers_env.is_empty()
                || section.bearer_token_env.is_some()
            {
                return Some("headers are for `url` servers".to_string());
            }
        }
        (None, Some(url)) => {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Some(format!(
                    "`url` must start with http:// or https:// (got `{url}`)"
                ));
            }
            if !section.args.is_empty() || !section.env.is_empty() || section.cwd.is_some() {
                return Some("`args`, `env` and `cwd` are for `command` servers".to_string());
            }
        }
    }
    if section.startup_timeout_secs == Some(0) || section.tool_timeout_secs == Some(0) {
        return Some("timeouts must be at least 1 second".to_string());
    }
    None
}

/// `[mcp_servers]` of the user file and of the project file, kept apart until trust is known.
#[derive(Debug, Clone, Default)]
pub(crate) struct McpLayers {
    user: BTreeMap<String, McpServerSettings>,
    project: BTreeMap<String, McpServerSettings>,
}

impl McpLayers {
    /// Layers the servers of a file read from `source`, in directory `base`; a later file's
    /// server replaces an earlier one of the same name.
    pub(crate) fn merge(
        &mut self,
        servers: &BTreeMap<Spanned<String>, McpServerSection>,
        source: &Source,
        base: &Path,
    ) {
        let layer = match source {
            Source::ProjectFile(_) => &mut self.project,
            _ => &mut self.user,
        };
        for (name, section) in servers {
            let name = name.get_ref().clone();
            let settings = settings(&name, section, source, base);
            layer.insert(name, settings);
        }
    }
}

fn settings(
    name: &str,
    section: &McpServerSection,
    source: &Source,
    base: &Path,
) -> McpServerSettings {
    let transport = match (&section.command, &section.url) {
        (_, Some(url)) => McpTransport::Http {
            url: url.clone(),
            headers: section.headers.clone(),
            headers_env: section.headers_env.clone(),
            bearer_token_env: section.bearer_token_env.clone(),
        },
        (command, None) => McpTransport::Stdio {
            command: command.clone().unwrap_or_default(),
            args: section.args.clone(),
            env: section.env.clone(),
            env_values: BTreeMap::new(),
            cwd: section
                .cwd
                .as_ref()
                .map(|cwd| crate::load::resolve_path(cwd, base)),
        },
    };
    McpServerSettings {
        name: name.to_string(),
        transport,
        enabled: section.enabled.unwrap_or(true),
        startup_timeout_secs: section
            .startup_timeout_secs
            .unwrap_or(DEFAULT_MCP_STARTUP_TIMEOUT_SECS),
        tool_timeout_secs: section
            .tool_timeout_secs
            .unwrap_or(DEFAULT_MCP_TOOL_TIMEOUT_SECS),
        include: section.include.clone(),
        exclude: section.exclude.clone(),
        approval: section.approval.unwrap_or_default(),
        tool_approval: section.tool_approval.clone(),
        source: source.clone(),
    }
}

/// The MCP servers of a session, and what an untrusted project tried to add.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct McpSettings {
    /// Servers to use, by name (disabled ones included, with `enabled = false`).
    pub servers: Vec<McpServerSettings>,
    /// Names of servers in an untrusted project file, ignored.
    pub ignored: Vec<String>,
}

impl Config {
    /// The configured MCP servers: the user file's, then (for a trusted project) the
    /// project file's, which replace the user's of the same name.
    pub fn mcp_settings(&self) -> McpSettings {
        let mut servers = self.mcp.user.clone();
        let mut ignored = Vec::new();
        if self.trust.trusted {
            servers.extend(self.mcp.project.clone());
        } else {
            ignored.extend(self.mcp.project.keys().cloned());
        }
        McpSettings {
            servers: servers.into_values().collect(),
            ignored,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::load_layered;

    fn parse_error(text: &str) -> (Option<usize>, Option<usize>, String) {
        match crate::file::parse(
            Path::new("/p/config.toml"),
            text,
            crate::file::FileRole::User,
        ) {
            Err(ConfigError::Parse {
                line,
                column,
                message,
                ..
            }) => (line, column, message),
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn a_stdio_server_is_read_with_defaults() {
        let (_dir, config) = load_layered(
            "[mcp_servers.files]\ncommand = \"npx\"\nargs = [\"-y\", \"x\"]\nenv = [\"HOME\"]\n",
            "",
        );
        let settings = config.mcp_settings();
        let [server] = settings.servers.as_slice() else {
            panic!("{settings:?}")
        };
        assert_eq!(server.name, "files");
        assert!(server.enabled);
        assert_eq!(server.tool_timeout_secs, DEFAULT_MCP_TOOL_TIMEOUT_SECS);
        assert_eq!(server.approval_for("read"), McpApproval::Ask);
        match &server.transport {
            McpTransport::Stdio {
                command, args, env, ..
            } => {
                assert_eq!(command, "npx");
                assert_eq!(args, &["-y", "x"]);
                assert_eq!(env, &["HOME"]);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_http_server_keeps_headers_and_per_tool_approval() {
        let (_dir, config) = load_layered(
            "[mcp_servers.docs]\nurl = \"http://127.0.0.1:9/mcp\"\nheaders_env = { Authorization = \"TOKEN\" }\napproval = \"allow\"\ntool_approval = { delete = \"ask\" }\n",
            "",
        );
        let server = &config.mcp_settings().servers[0];
        assert_eq!(server.approval_for("search"), McpApproval::Allow);
        assert_eq!(server.approval_for("delete"), McpApproval::Ask);
        assert!(
            matches!(&server.transport, McpTransport::Http { headers_env, .. } if headers_env["Authorization"] == "TOKEN")
        );
    }

    #[test]
    fn an_untrusted_project_cannot_add_servers() {
        let (_dir, config) = load_layered("", "[mcp_servers.evil]\ncommand = \"sh\"\n");
        let settings = config.mcp_settings();
        assert!(settings.servers.is_empty());
        assert_eq!(settings.ignored, ["evil"]);
    }

    #[test]
    fn invalid_servers_name_file_line_and_column() {
        let (line, column, message) = parse_error("model = \"m\"\n\n[mcp_servers.x]\nargs = []\n");
        assert_eq!((line, column), (Some(3), Some(14)));
        assert!(message.contains("`command`"), "{message}");
        let (line, _, message) =
            parse_error("[mcp_servers.y]\ncommand = \"a\"\nurl = \"http://h\"\n");
        assert_eq!(line, Some(1));
        assert!(message.contains("not both"), "{message}");
        let (_, _, message) = parse_error("[mcp_servers.a__b]\ncommand = \"a\"\n");
        assert!(message.contains("`__`"), "{message}");
        let (line, _, message) = parse_error("[mcp_servers.z]\ncommand = \"a\"\ncomand = 1\n");
        assert_eq!(line, Some(3));
        assert!(message.contains("comand"), "{message}");
        let (_, _, message) = parse_error("[mcp_servers.w]\nurl = \"ftp://h\"\n");
        assert!(message.contains("http://"), "{message}");
    }
}
