//! hone's session runtime: what every front end (`hone exec`, the terminal UI, and later
//! an MCP server, an LSP server or a web UI) needs to turn configuration and a project root
//! into running sessions.
//!
//! [`Runtime::open`] loads the configuration and opens the session store;
//! [`Runtime::start_session`] builds the provider (every HTTP kind and the embedded engine,
//! with the model-download offer), the policy and the command sandbox, opens the code index
//! (tools, repo map, localizer, code mapper), the context configuration with the outliner,
//! and creates, resumes or forks the saved session, then starts it in `hone-core`. The
//! runtime never touches the terminal: questions and warnings go through the front end's
//! [`Interaction`].
//!
//! ```no_run
//! # async fn demo() -> Result<(), hone_runtime::RuntimeError> {
//! use std::sync::Arc;
//! use hone_runtime::{Runtime, RuntimeOptions, SessionChoice, SessionRequest, Unattended};
//!
//! let options = RuntimeOptions::from_process(".".into(), Default::default());
//! let runtime = Runtime::open(options, Arc::new(Unattended))?;
//! let session = runtime
//!     .start_session(SessionRequest {
//!         choice: SessionChoice::LatestOrNew,
//!         model: None,
//!         interactive: false,
//!         conversation: false,
//!         focus: String::new(),
//!         show_history: false,
//!         mcp_servers: false,
//!         role: None,
//!     })
//!     .await?;
//! session.handle.send(hone_api::Request::user_message("hello"));
//! # Ok(())
//! # }
//! ```

pub mod agent;
pub mod context;
pub mod dialog;
pub mod doctor;
pub mod document;
mod error;
mod explore;
mod face_setup;
mod hooks;
pub mod index;
mod index_build;
pub mod index_store;
pub mod indexing;
pub mod init;
mod interaction;
pub mod mcp;
pub mod provider;
pub mod report;
pub mod rewind;
mod run_record;
mod runtime;
pub mod sandbox;
pub mod sessions;
mod skills;
pub mod undo;

pub use error::{RuntimeError, model_error, store_error};
pub use face_setup::{FaceSetup, WorkspaceFiles, face_http_server, face_stdio_server};
pub use hone_core::SessionHandle;
pub use hone_memory::SessionInfo as SavedSessionInfo;
pub use hone_tools::project::ProjectPlace;
pub use index::{CodeIndex, IndexProgress};
pub use interaction::{IndexChoice, Interaction, Unattended};
pub use run_record::{
    CHECKS_FAILED, INTERRUPTED, NO_CHANGE, NOT_ANSWERED, NOT_APPLIED, RunEnd, RunRecord,
    UNVERIFIED, exit_code,
};
pub use runtime::{
    Runtime, RuntimeOptions, SessionRequest, SessionSummary, StartedSession, expand_mentions,
};
pub use sessions::{OpenedSession, Opening, SessionChoice, SessionManager};
