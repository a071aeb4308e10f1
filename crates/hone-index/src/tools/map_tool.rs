//! `repo_map`: the ranked outline of the project, as a tool (offered by `hone mcp serve`).

use hone_protocol::ToolSpec;
use hone_tools::{Plan, Tool, ToolContext, ToolError, ToolKind, ToolOutput};
use serde_json::{Value, json};

use super::{SharedIndex, repo_map};

/// `repo_map`: the project's most important files with their outlines, cut to a budget.
pub struct RepoMapTool {
    index: SharedIndex,
    budget: usize,
}

impl RepoMapTool {
    /// The tool over `index`, with maps of at most `budget` tokens.
    pub fn new(index: SharedIndex, budget: usize) -> Self {
        Self { index, budget }
    }
}

impl Tool for RepoMapTool {
    fn name(&self) -> &str {
        "repo_map"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "repo_map".to_string(),
            description: "The project's most important files with their outlines (ranked by \
                          how much other code uses them), cut to a token budget. `focus`: words \
                          or paths to rank first."
                .to_string(),
            parameters: json!({
                "type": "object",
                "properties": {"focus": {"type": "string", "description": "What to rank first."}}
            }),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn plan(&self, _context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let focus = arguments["focus"].as_str().unwrap_or("");
        let mut indexer = self.index.lock();
        // Like the index tools: answers reflect the files as they are now.
        if let Err(error) = indexer.update(&mut |_| {}) {
            tracing::warn!("index update before the repo map failed: {error}");
        }
        let output = match repo_map(&indexer, focus, self.budget) {
            Ok(map) => ToolOutput::ok(map),
            Err(error) => ToolOutput::error(format!("no repository map: {error}")),
        };
        Ok(Plan::Done(output))
    }
}
