//! One MCP tool as a hone tool: `SERVER__tool`, the server's schema, and a call planned as
//! an [`ExternalPlan`] (approved like a command, then sent to the server).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use globset::{Glob, GlobSet, GlobSetBuilder};
use hone_config::{McpApproval, McpServerSettings};
use hone_protocol::ToolSpec;
use hone_tools::{
    ExternalCall, ExternalPlan, Plan, Tool, ToolContext, ToolError, ToolErrorKind, ToolKind,
    ToolOutput,
};
use rmcp::model::Tool as McpToolSpec;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::McpClients;

/// Longest tool name providers accept.
const MAX_NAME: usize = 64;

/// A tool of an MCP server, offered to the model as `SERVER__tool`.
pub struct McpTool {
    clients: McpClients,
    server: String,
    /// The server's own name of the tool.
    tool: String,
    /// The name the model calls.
    name: String,
    description: String,
    schema: Value,
    trusted: bool,
}

/// The hone tools for the tools `server` listed, filtered by its `include`/`exclude`.
pub(crate) fn tools_of(
    clients: &McpClients,
    server: &McpServerSettings,
    listed: &[McpToolSpec],
) -> Vec<Arc<dyn Tool>> {
    let include = globs(&server.include);
    let exclude = globs(&server.exclude);
    listed
        .iter()
        .filter(|spec| server.include.is_empty() || include.is_match(spec.name.as_ref()))
        .filter(|spec| !exclude.is_match(spec.name.as_ref()))
        .map(|spec| {
            let tool: Arc<dyn Tool> = Arc::new(McpTool {
                clients: clients.clone(),
                server: server.name.clone(),
                tool: spec.name.to_string(),
                name: model_name(&server.name, &spec.name),
                description: spec
                    .description
                    .as_deref()
                    .unwrap_or("(no description)")
                    .to_string(),
                schema: schema(spec),
                trusted: server.approval_for(&spec.name) == McpApproval::Allow,
            });
            tool
        })
        .collect()
}

/// `SERVER__tool`, with characters providers refuse replaced by `_`, cut to 64.
fn model_name(server: &str, tool: &str) -> String {
    format!("{server}__{tool}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(MAX_NAME)
        .collect()
}

/// The tool's input schema, always an object schema.
fn schema(spec: &McpToolSpec) -> Value {
    let mut schema = Value::Object((*spec.input_schema).clone());
    if let Some(object) = schema.as_object_mut() {
        object
            .entry("type")
            .or_insert_with(|| Value::String("object".to_string()));
        object
            .entry("properties")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
    }
    schema
}

fn globs(patterns: &[String]) -> GlobSet {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        if let Ok(glob) = Glob::new(pattern) {
            builder.add(glob);
        }
    }
    builder.build().unwrap_or_else(|_| GlobSet::empty())
}

impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name.clone(),
            description: format!("[MCP server `{}`] {}", self.server, self.description),
            parameters: self.schema.clone(),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Command
    }

    fn plan(&self, _context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let arguments = match arguments {
            Value::Object(map) => Some(map.clone()),
            Value::Null => None,
            _ => {
                return Err(ToolError::new(
                    ToolErrorKind::InvalidArguments,
                    format!("`{}` takes a JSON object of arguments", self.name),
                ));
            }
        };
        let shown = arguments
            .as_ref()
            .map(|map| Value::Object(map.clone()).to_string())
            .unwrap_or_default();
        Ok(Plan::External(ExternalPlan {
            display: format!("{} {shown}", self.name),
            trusted: self.trusted,
            call: Arc::new(PendingCall {
                clients: self.clients.clone(),
                server: self.server.clone(),
                tool: self.tool.clone(),
                arguments,
            }),
        }))
    }
}

/// An approved call, made when run.
struct PendingCall {
    clients: McpClients,
    server: String,
    tool: String,
    arguments: Option<serde_json::Map<String, Value>>,
}

impl ExternalCall for PendingCall {
    fn run(&self, cancel: CancellationToken) -> Pin<Box<dyn Future<Output = ToolOutput> + Send>> {
        let clients = self.clients.clone();
        let server = self.server.clone();
        let tool = self.tool.clone();
        let arguments = self.arguments.clone();
        Box::pin(async move { clients.call(&server, &tool, arguments, cancel).await })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_names_join_server_and_tool_with_safe_characters() {
        assert_eq!(model_name("files", "read_file"), "files__read_file");
        assert_eq!(model_name("docs", "search.v2 now"), "docs__search_v2_now");
        assert_eq!(model_name("s", &"x".repeat(100)).len(), MAX_NAME);
    }

    #[test]
    fn globs_ignore_invalid_patterns() {
        let set = globs(&["get_*".to_string(), "[".to_string()]);
        assert!(set.is_match("get_env"));
        assert!(!set.is_match("echo"));
    }
}
