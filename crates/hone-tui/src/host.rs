//! What the TUI needs from the program that embeds it: sessions, the session store, the
//! code index, and the input history. `hone-cli` implements it as a thin adapter over
//! `hone-runtime` (the same session path as `hone exec`).

use hone_api::EventFrame;
use hone_core::SessionHandle;
use hone_protocol::{HoneError, Message};
use tokio::sync::mpsc::UnboundedReceiver;

use crate::app::SessionInfo;

/// Which session to start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionStart {
    /// Continue this saved session (an id, or `last` for the project's latest); `None`
    /// starts a new one.
    pub resume: Option<String>,
    /// Use this model instead of the configured one.
    pub model: Option<String>,
}

/// A running session and what to show about it.
pub struct Session {
    /// Where requests go.
    pub handle: SessionHandle,
    /// Where events come from.
    pub events: UnboundedReceiver<EventFrame>,
    /// Provider, model, approval mode, context window, index status.
    pub info: SessionInfo,
    /// The conversation so far, when a saved session was resumed (shown, not re-sent).
    pub history: Vec<Message>,
}

/// A message with its `@path` mentions expanded ([`Host::expand_mentions`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mentions {
    /// The text to send: the message with the attached files after it.
    pub text: String,
    /// What was attached, one line each (`src/a.rs (40 lines)`).
    pub attached: Vec<String>,
    /// Mentions that were not attached, and why.
    pub problems: Vec<String>,
    /// The images the message carries.
    pub images: Vec<hone_api::ImageAttachment>,
}

/// A saved session, as `/sessions` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedSession {
    /// Its id.
    pub id: String,
    /// Its title (the first message).
    pub title: String,
    /// The model last used.
    pub model: String,
    /// Stored messages.
    pub messages: u64,
    /// Last activity, for people (`2h ago`).
    pub active: String,
}

/// A session rewound to before one of its prompts ([`Host::rewind`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewound {
    /// The session that goes on (a new one when forked).
    pub session_id: String,
    /// The prompt's text, put back in the input to edit and send again.
    pub text: String,
    /// How many edits were taken back.
    pub undone: usize,
}

/// The embedding program. Methods may block (they run on blocking threads).
pub trait Host: Send + Sync + 'static {
    /// Starts a session: the first one, a fresh one (`/clear`), a saved one (`/sessions`),
    /// or the same one with another model (`/model NAME`).
    fn start_session(&self, start: &SessionStart) -> Result<Session, HoneError>;

    /// The project's saved sessions, newest first.
    fn sessions(&self) -> Result<Vec<SavedSession>, HoneError>;

    /// Deletes a saved session.
    fn delete_session(&self, id: &str) -> Result<(), HoneError>;

    /// Brings the code index up to date; the text says what changed.
    fn reindex(&self) -> Result<String, HoneError>;

    /// Symbols from the code index whose names start with `prefix`, as
    /// `(name, "kind path:line")`.
    fn symbols(&self, prefix: &str, limit: usize) -> Vec<(String, String)>;

    /// How far the code index is while it is being built (`indexing 40% (…)`), else `None`.
    fn index_progress(&self) -> Option<String> {
        None
    }

    /// Stops waiting for the code index in this session (Esc while it is built); `true`
    /// when it was being built.
    fn skip_indexing(&self) -> bool {
        false
    }

    /// Earlier inputs of this project, oldest first.
    fn input_history(&self) -> Vec<String>;

    /// Stores one input in the project's history.
    fn remember_input(&self, text: &str);

    /// `text` with its `@path` mentions expanded (files and listings attached), and the
    /// images it carries: `image_paths` (from `/image`), image files mentioned, and paths of
    /// image files pasted into it; by default the text unchanged.
    fn expand_mentions(&self, text: &str, image_paths: &[String]) -> Mentions {
        let _ = image_paths;
        Mentions {
            text: text.to_string(),
            ..Mentions::default()
        }
    }

    /// The prompts of saved session `id`, oldest first (`/rewind`).
    fn rewind_points(&self, id: &str) -> Result<Vec<hone_api::RewindPoint>, HoneError> {
        let _ = id;
        Err(HoneError::config("/rewind is not available here"))
    }

    /// Takes saved session `id` back to before its prompt `prompt`: the files it changed
    /// since (through the undo journal) and its conversation; in a new session with `fork`.
    fn rewind(&self, id: &str, prompt: u32, fork: bool) -> Result<Rewound, HoneError> {
        let _ = (id, prompt, fork);
        Err(HoneError::config("/rewind is not available here"))
    }

    /// A first `AGENTS.md` for the project (`/init`): languages, layout, entry points,
    /// build and test commands.
    fn agents_md(&self) -> Result<String, HoneError> {
        Err(HoneError::config("/init is not available here"))
    }

    /// The MCP servers of the session (`/mcp`): state, tools and prompts, one line each.
    fn mcp_status(&self) -> Vec<String> {
        vec!["no MCP servers configured (add [mcp_servers.NAME] to your config)".to_string()]
    }

    /// The prompt of the custom command `name` (`/NAME ARGS`, a Markdown file in the
    /// commands directories) for `arguments`; `None` when there is no such command.
    fn custom_command(&self, name: &str, arguments: &str) -> Option<String> {
        let _ = (name, arguments);
        None
    }

    /// The text of prompt `prompt` of MCP server `server` (`/server:prompt key=value…`),
    /// sent as the user's message.
    fn mcp_prompt(&self, server: &str, prompt: &str, arguments: &str) -> Result<String, HoneError> {
        let _ = (prompt, arguments);
        Err(HoneError::config(format!(
            "no MCP server `{server}` is configured"
        )))
    }
}
