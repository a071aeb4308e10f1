//! `get_dependencies` and `get_dependents`: the import graph around one file.

use hone_protocol::ToolSpec;
use hone_tools::{Args, Plan, Tool, ToolContext, ToolError, ToolKind};
use serde_json::{Value, json};

use super::code::{done, spec};
use super::{SharedIndex, capped, index_error, source_file};

/// Importing sites get_dependents lists at most.
const MAX_DEPENDENTS: usize = 100;
use crate::model::ImportOrigin;

/// `get_dependencies`: what a file imports.
pub(super) struct GetDependencies(pub(super) SharedIndex);

impl Tool for GetDependencies {
    fn name(&self) -> &'static str {
        "get_dependencies"
    }

    fn spec(&self) -> ToolSpec {
        spec(
            self.name(),
            "What a source file imports: the project files its imports resolve to (with the \
             import line), then external packages and standard-library modules.",
            json!({"path": {"type": "string", "description": "Source file relative to the project root."}}),
            &["path"],
        )
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{path}", arguments)?;
        let given = args.string("path")?;
        let indexer = self.0.fresh()?;
        let (path, outline) = source_file(context, &indexer, &given)?;
        let edges = indexer.store().dependencies(&path).map_err(index_error)?;
        let mut out = format!("{path} imports {} project files:\n", count_files(&edges));
        for edge in &edges {
            out.push_str(&format!(
                "  {}  (line {}: {})\n",
                edge.to, edge.line, edge.source
            ));
        }
        let mut external = Vec::new();
        let mut builtin = Vec::new();
        for import in &outline.imports {
            if edges.iter().any(|edge| edge.source == import.source) {
                continue;
            }
            let shown = format!("{} (line {})", import.source, import.line);
            match import.origin {
                ImportOrigin::External => external.push(shown),
                ImportOrigin::Builtin => builtin.push(shown),
                // Written as internal but not resolved to a project file.
                ImportOrigin::Internal => external.push(format!("{shown} [unresolved]")),
            }
        }
        if !external.is_empty() {
            out.push_str(&format!("external: {}\n", external.join(", ")));
        }
        if !builtin.is_empty() {
            out.push_str(&format!("standard library: {}\n", builtin.join(", ")));
        }
        done(out)
    }
}

fn count_files(edges: &[crate::analysis::Edge]) -> usize {
    let mut files: Vec<&str> = edges.iter().map(|edge| edge.to.as_str()).collect();
    files.sort_unstable();
    files.dedup();
    files.len()
}

/// `get_dependents`: which files import a file.
pub(super) struct GetDependents(pub(super) SharedIndex);

impl Tool for GetDependents {
    fn name(&self) -> &'static str {
        "get_dependents"
    }

    fn spec(&self) -> ToolSpec {
        spec(
            self.name(),
            "Which project files import a source file (with the import line): what may break \
             when it changes.",
            json!({"path": {"type": "string", "description": "Source file relative to the project root."}}),
            &["path"],
        )
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{path}", arguments)?;
        let given = args.string("path")?;
        let indexer = self.0.fresh()?;
        let (path, _) = source_file(context, &indexer, &given)?;
        let edges = indexer.store().dependents(&path).map_err(index_error)?;
        if edges.is_empty() {
            return done(format!(
                "no project file imports {path}; find_references finds uses of its names"
            ));
        }
        let mut files: Vec<&str> = edges.iter().map(|edge| edge.from.as_str()).collect();
        files.dedup();
        let mut out = format!("{} project files import {path}:\n", files.len());
        let items: Vec<String> = edges
            .iter()
            .map(|edge| format!("  {}  (line {}: {})", edge.from, edge.line, edge.source))
            .collect();
        out.push_str(&capped(items, MAX_DEPENDENTS, ""));
        done(out)
    }
}
