//! hone and the Model Context Protocol (through the `rmcp` SDK).
//!
//! - [`McpClients`]: the MCP servers of a session (`[mcp_servers.NAME]`), started in the
//!   background in parallel; their tools are offered as `NAME__tool` through
//!   [`hone_tools::ToolSource`] once each server is ready, approved like commands
//!   ([`hone_tools::ExternalPlan`]), and a server that stopped is started again on the next
//!   call.
//! - [`serve`]: hone as an MCP server on stdio (`hone mcp serve`): the read and index tools
//!   and an `agent` tool that runs one hone turn.

mod client;
mod server;

pub use client::{McpClients, McpTool, ServerReport, ServerState, report_lines};
pub use server::{AgentSession, AgentSessions, McpServeError, ServeOptions, serve};
