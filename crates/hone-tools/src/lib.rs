//! hone's tools: what the model can do in a project.
//!
//! Every tool turns its JSON arguments into a [`Plan`] without side effects:
//! reads finish at once ([`Plan::Done`]), writes become [`EditPlan`]s (file changes shown as
//! a diff, approved, then applied all-or-nothing by [`edit::apply`]), commands become
//! [`CommandPlan`]s (approved, then run by [`command::execute`]). Every path goes through the
//! project's [`PathGuard`]; every error tells the model what to do next.

mod args;
pub mod command;
mod context;
pub mod edit;
mod error;
pub mod files;
pub mod git;
mod plan;
pub mod project;
mod syntax;

use std::sync::Arc;

use hone_protocol::ToolSpec;

pub use args::Args;
pub use context::{ReadTracker, ToolContext};
pub use error::{ToolError, ToolErrorKind};
pub use hone_policy::PathGuard;
pub use plan::{
    CommandPlan, EditPlan, ExternalCall, ExternalPlan, FileChange, FileState, Invocation, Plan,
    SecretRead, TextEncoding, ToolKind, ToolOutput, Written,
};
pub use syntax::{SyntaxChecker, SyntaxError};

/// One tool the model can call.
pub trait Tool: Send + Sync {
    /// The tool's name as the model calls it (part of hone's contract).
    fn name(&self) -> &str;

    /// Name, description and JSON Schema of the arguments, as sent to the model.
    fn spec(&self) -> ToolSpec;

    /// Read, write or command.
    fn kind(&self) -> ToolKind;

    /// Validates `arguments` and plans the call without side effects (reads run here).
    fn plan(&self, context: &ToolContext, arguments: &serde_json::Value)
    -> Result<Plan, ToolError>;
}

/// Tools that can change while a session runs (an MCP server's, offered once it is ready):
/// read each time a request is built.
pub trait ToolSource: Send + Sync {
    /// The tools offered now.
    fn tools(&self) -> Vec<Arc<dyn Tool>>;

    /// Waits until a tool called `name` is known if the source will have it: a call may
    /// name a tool of a server that is still starting. Returns at once by default.
    fn ready_for<'a>(
        &'a self,
        _name: &'a str,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + 'a>> {
        Box::pin(std::future::ready(()))
    }
}

/// Every built-in tool.
pub fn builtin_tools() -> Vec<Arc<dyn Tool>> {
    let mut tools = files::tools();
    tools.extend(edit::tools());
    tools.extend(command::tools());
    tools.extend(git::tools());
    tools
}
