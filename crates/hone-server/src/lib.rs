//! hone's session server: one place that owns the runtime, the running sessions and the
//! clients attached to them, and answers every [`hone_api::Request`].
//!
//! A [`Server`] opens the [`hone_runtime::Runtime`] of a project (and of other projects a
//! client names by `cwd`). Each client gets a [`Connection`]: it sends
//! [`Call`](hone_api::rpc::Call)s and receives [`ServerMessage`](hone_api::rpc::ServerMessage)s,
//! a response per call and the events of every session it opened or joined. Several
//! clients attached to one session all receive its events (an editor and a terminal on
//! one session); the `request_id` of an event is set only for the client whose call it
//! answers. Transports: in process ([`Client`], typed calls), and JSON-RPC 2.0 over stdio
//! ([`serve_stdio`], `hone app-server`).
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use hone_server::{Client, Server};
//!
//! let options = hone_runtime::RuntimeOptions::from_process(".".into(), Default::default());
//! let server = Server::open(options, Arc::new(hone_runtime::Unattended))?;
//! let (client, mut events) = Client::connect(&server);
//! client.call(None, hone_api::Request::NewSession { model: None, cwd: None, role: None }).await?;
//! client.call(None, hone_api::Request::user_message("hello")).await?;
//! while let Some(event) = events.recv().await {
//!     println!("{:?}", event.frame.event);
//! }
//! # Ok(())
//! # }
//! ```

mod answer;
mod client;
mod history;
mod live;
mod rewind;
mod server;
mod stdio;

pub use client::{Client, Connection};
pub use history::history_entries;
/// The MCP servers a face adds ([`FaceSetup::mcp_servers`]).
pub use hone_config::McpServerSettings;
/// What a face adds to the sessions it opens ([`Client::open_with`]).
pub use hone_runtime::{FaceSetup, WorkspaceFiles, face_http_server, face_stdio_server};
pub use server::Server;
pub use stdio::serve_stdio;
