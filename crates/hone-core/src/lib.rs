//! hone's agent core: one session, one request/event protocol, every front end.
//!
//! [`start_session`] spawns a session task and returns a [`SessionHandle`] for
//! `hone_api` [`Request`]s and a receiver of [`EventFrame`]s (each [`Event`] with the id of
//! the request it answers). A user message starts a turn: the model is
//! called with the history and the tools, its tool calls are planned, checked against the
//! permission policy, approved (by policy or by the front end answering
//! [`hone_api::Event::ApprovalNeeded`]), executed, and fed back, until the model answers without
//! tools, the round limit is reached, or the user cancels.
//!
//! [`Request`]: hone_api::Request
//! [`Event`]: hone_api::Event
//!
//! Every request is built by the session's [`hone_context::ContextManager`] from
//! [`SessionConfig::context`]: project instructions, task memory and the summary of
//! compacted turns in the system prompt, tracked-file snapshots, and never more than the
//! context window ([`hone_api::Event::ContextCompacted`], [`hone_api::Event::ContextUsage`]). In interactive
//! sessions a failed model request asks the front end ([`hone_api::Event::TurnError`],
//! [`hone_api::Request::ErrorChoice`]).

mod api;
mod attempts;
mod audit;
mod authorize;
mod calls;
mod changes;
mod checks;
mod command_calls;
mod command_changes;
mod conflict;
mod context;
mod flow;
mod guidance;
mod guided;
mod guided_rename;
mod hooks;
mod images;
mod localize;
mod logs_view;
mod natural;
mod notices;
mod persist;
mod profile;
mod project;
mod prompt;
mod recovery;
mod repeats;
mod request_checks;
mod request_kind;
mod secret_read;
mod session;
mod tool_hooks;
mod tools;
mod turn;
mod user_write;

use std::path::PathBuf;
use std::sync::Arc;

use hone_api::EventFrame;
use hone_policy::Permissions;
use hone_protocol::HoneError;
use hone_providers::Provider;
use tokio::sync::mpsc;

pub use api::{error_info, hone_error};
pub use audit::{
    AUDIT_DIR, DEFAULT_MAX_BYTES as AUDIT_DEFAULT_MAX_BYTES, set_max_bytes as set_audit_max_bytes,
};
pub use checks::{
    CheckTarget, ChecksConfig, ConfiguredCheck, DEFAULT_ATTEMPTS, DEFAULT_MAX_REPAIR_ROUNDS,
};
pub use guidance::{
    ChatSettings, DEFAULT_LOCALIZE_BUDGET_TOKENS, FlowMode, Guidance, LocalizeMode, RoleModel,
    RoleModels, ToolSelection, step_notice,
};
pub use hone_context::localize::Localizer;
pub use hone_context::{ContextConfig, ContextSettings, Instructions, Outliner, TrackMode};
pub use hooks::{Hook, Hooks};
pub use persist::Persistence;
pub use profile::PromptProfile;
pub use session::SessionHandle;

/// Default number of tool rounds per turn.
pub const DEFAULT_MAX_TOOL_ROUNDS: u32 = 25;

/// Everything a session needs.
pub struct SessionConfig {
    /// Project root; every tool path is resolved against it.
    pub root: PathBuf,
    /// The model provider.
    pub provider: Arc<dyn Provider>,
    /// Model name (empty: the provider's default).
    pub model: String,
    /// Permission policy (approval mode, command rules, session grants).
    pub permissions: Permissions,
    /// Tool rounds per turn before the model is told to answer.
    pub max_tool_rounds: u32,
    /// Whether the front end can answer [`hone_api::Event::ApprovalNeeded`]. When false, calls that
    /// would ask are refused at once and the model is told why.
    pub interactive: bool,
    /// Whether to write audit logs under `<root>/.hone/logs/`.
    pub audit: bool,
    /// Secret values (API keys) to redact from every log line and every tool result.
    pub secrets: Vec<String>,
    /// How the commands the model runs are started: the OS sandbox helper and the
    /// environment variables kept from them ([`hone_tools::command::CommandSetup`]; the
    /// default runs them directly with hone's environment).
    pub commands: hone_tools::command::CommandSetup,
    /// Tools offered besides the built-in ones (e.g. the code index tools); a tool with a
    /// built-in's name replaces it.
    pub extra_tools: Vec<Arc<dyn hone_tools::Tool>>,
    /// Tools read again for every request (e.g. MCP servers' tools, which appear once their
    /// server is ready); a fixed tool of the same name wins.
    pub tool_sources: Vec<Arc<dyn hone_tools::ToolSource>>,
    /// A map of the repository (ranked outline of its files) for the system prompt.
    pub repo_map: Option<String>,
    /// How much prompt to spend on rules and tool descriptions ([`PromptProfile::for_model`]
    /// picks one from the provider and model).
    pub prompt_profile: PromptProfile,
    /// Where the session is saved (messages, totals, the project's undo journal); `None`
    /// keeps it in memory only.
    pub memory: Option<Persistence>,
    /// The context window, the `[context]` settings, the project instructions and the
    /// outliner for tracked files ([`ContextConfig::default`]: unknown window, so no
    /// compaction or trimming, and no instructions).
    pub context: ContextConfig,
    /// Checks after edits: the syntax check, the project's checks and tests, and how many
    /// repair rounds the model gets ([`ChecksConfig::disabled`] turns them off).
    pub checks: ChecksConfig,
    /// Language knowledge (tree-sitter, from `hone-index`) for edits written as code
    /// blocks in an answer and for `write_file` on unread files; `None` keeps them to
    /// path-labelled blocks, SEARCH/REPLACE blocks and diffs.
    pub code_mapper: Option<Arc<dyn hone_tools::edit::natural::CodeMapper>>,
    /// Finds the code a request names (the code index's, plugged in by the front end);
    /// `None`: no localisation.
    pub localizer: Option<Arc<dyn Localizer>>,
    /// Localisation and the guided flow ([`Guidance::default`]: both follow the prompt
    /// profile).
    pub guidance: Guidance,
    /// The models of the coder, planner, summary and checker roles (default: the session's).
    pub roles: RoleModels,
    /// The user's hooks ([`Hooks::default`]: none).
    pub hooks: Hooks,
}

/// Starts a session task on the current tokio runtime.
pub fn start_session(
    config: SessionConfig,
) -> Result<(SessionHandle, mpsc::UnboundedReceiver<EventFrame>), HoneError> {
    session::start(config, None)
}

/// [`start_session`] with the tools reading and writing the project's text files through
/// `files` (an editor's buffers, [`hone_tools::files::WorkspaceFiles`]) rather than the disk.
pub fn start_session_with_files(
    config: SessionConfig,
    files: Option<std::sync::Arc<dyn hone_tools::files::WorkspaceFiles>>,
) -> Result<(SessionHandle, mpsc::UnboundedReceiver<EventFrame>), HoneError> {
    session::start(config, files)
}
