//! hone's session store: conversations that survive restarts, and a persistent undo journal.
//!
//! One SQLite database (`sessions.db` in hone's data directory, WAL journal, schema
//! versioned by `PRAGMA user_version`) holds, for every project:
//!
//! - **sessions**: id (26 sortable characters), project, times, title (the first user
//!   message), provider and model, totals ([`SessionStats`]) and an opaque JSON state the
//!   context manager saves ([`SessionStore::context_state`]);
//! - **messages**: every message with all its content blocks and per-message usage, appended
//!   one transaction at a time as the conversation goes, so a killed process loses at most
//!   the message being streamed;
//! - **the input history** for recall with the arrow keys (consecutive repeats skipped,
//!   capped per project);
//! - **the undo journal**: each applied edit with the before content and hash of every file
//!   and what was written, taken back by [`undo_latest`] only while the files still hold
//!   what the edit wrote;
//! - **notices** for the project's next session ([`SessionStore::take_notices`]), shown once.
//!
//! [`resume_history`] turns a stored conversation back into a history every provider
//! accepts; [`SessionStore::export`] renders one as Markdown or JSON.
//!
//! ```
//! use hone_memory::{MessageStats, NewSession, SessionStore};
//! use hone_protocol::Message;
//!
//! let mut store = SessionStore::open_in_memory()?;
//! let session = store.create(&NewSession { project: "/work/app".into(), ..NewSession::default() })?;
//! store.append_message(&session.id, &Message::user("fix the login bug"), &MessageStats::default())?;
//! let resumed = store.find(&session.id[..8])?;
//! assert_eq!(resumed.title, "fix the login bug");
//! assert_eq!(store.messages(&session.id)?.len(), 1);
//! # Ok::<(), hone_memory::MemoryError>(())
//! ```

mod backend;
mod error;
mod export;
mod facade;
mod history;
mod id;
mod journal;
mod messages;
mod migrations;
mod notices;
mod resume;
mod rewind;
mod sqlite;
mod store;
mod undo;

use std::path::Path;

pub use backend::{SessionBackend, new_session_id, now_ms, session_title};
pub use error::MemoryError;
pub use export::{ExportFormat, markdown};
pub use facade::SessionStore;
pub use history::DEFAULT_INPUT_HISTORY_CAP;
pub use id::ID_LEN;
pub use journal::{EditState, JournalEntry, UndoEntry};
pub use messages::{MessageStats, StoredMessage};
pub use migrations::SCHEMA_VERSION;
pub use notices::Notice;
pub use resume::{INTERRUPTED_RESULT, repair_history, resume_history};
pub use rewind::{Rewind, RewindFiles, RewindReport, RewindTarget, edits_since, rewind};
pub use store::{DB_FILE, NewSession, SessionInfo, SessionStats, UNANSWERED_KEPT_MS};
pub use undo::{RevertError, UndoError, UndoReport, revert, undo_latest};

/// The undo stack depth when the configuration sets none (`[memory] undo_depth`).
pub use hone_config::DEFAULT_UNDO_DEPTH;

/// The key sessions, input history and the journal are filed under: the canonical project
/// root (the path as given when it cannot be canonicalised).
pub fn project_key(root: &Path) -> String {
    std::fs::canonicalize(root)
        .unwrap_or_else(|_| root.to_path_buf())
        .display()
        .to_string()
}
