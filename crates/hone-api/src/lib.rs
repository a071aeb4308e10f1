//! hone's front-end protocol: what a front end (the terminal UI, `hone exec --json`,
//! `hone ask --json`, a server) sends to a session and what it hears back. Serde only:
//! no engine types, so any front end can depend on it.
//!
//! Front ends send [`RequestFrame`]s (a [`Request`] with an id the front end chooses) and
//! receive [`EventFrame`]s (an [`Event`] with the `request_id` it answers; the events of a
//! turn carry the id of the `user.message` that started it). Both serialise as flat JSON
//! objects with a dotted `type` tag, one per line on a stream:
//!
//! ```
//! use hone_api::{Event, EventFrame, Request, RequestFrame};
//!
//! let request = RequestFrame::new("1", Request::user_message("hi"));
//! assert_eq!(
//!     serde_json::to_string(&request).unwrap(),
//!     r#"{"id":"1","type":"user.message","text":"hi"}"#
//! );
//! let event = EventFrame::new(Some("1".into()), Event::TurnStarted { turn: 1 });
//! assert_eq!(
//!     serde_json::to_string(&event).unwrap(),
//!     r#"{"request_id":"1","type":"turn.started","turn":1}"#
//! );
//! ```
//!
//! `docs/protocol.md` lists every request, event and field; [`reference`] generates it
//! from these types' JSON schemas. [`display`] is how a front end shows text that did not
//! come from hone (the model's words, commands, file names) on a terminal.

pub mod display;
mod event;
mod image;
mod inspect;
pub mod reference;
mod request;
mod rewind;
pub mod rpc;
pub mod schema;
mod status;
mod types;

pub use event::{Event, EventFrame};
pub use image::ImageAttachment;
pub use inspect::{ContextPart, ContextPartKind, LogEntry, LogKind, OutlineItem};
pub use request::{Request, RequestFrame};
pub use rewind::RewindPoint;
pub use status::{HistoryEntry, McpServerState, McpServerStatus, SessionSettings, SymbolMatch};
pub use types::{
    ApprovalDecision, ApprovedBy, CheckResult, CheckStatus, CompactionMethod, ConflictChoice,
    ErrorCategory, ErrorChoice, ErrorInfo, LocalizedItem, ModelPrice, RunStatus, SessionSummary,
    TaskKind, TrackMode, TrackedInfo, TurnEnd, TurnStats, UndoEntry, Usage, dollars, thousands,
};
