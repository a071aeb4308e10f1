//! hone's context manager: keeps long sessions inside the model's context window without
//! forgetting the task.
//!
//! A [`ContextManager`] belongs to one session. The session's history stays complete (it
//! is what gets stored); every request is built from it by [`ContextManager::build`]:
//!
//! - **System prompt**: the base prompt, the [project instructions](Instructions)
//!   (`AGENTS.md`, `HONE.md` from the repository root down to the working directory, after
//!   the user's own file), the **task memory** ([`TaskMemory`]: the original request, the
//!   current one, progress, changed files, failing commands, decisions; updated by rules
//!   from every reply and tool round, never compressed) and the **summary memory** (the
//!   summary of compacted turns).
//! - **Recent history**: the messages after the compaction boundary, with stale file
//!   contents replaced by one-line stubs and only the newest snapshot of each
//!   [tracked file](TrackedFile) kept.
//! - **The hard guarantee**: when the estimate exceeds the window minus room for the answer,
//!   the oldest units (an assistant message with its tool results, or one message) are
//!   dropped, then the summary, then the largest blocks are shortened; the system prompt,
//!   the tools, the task memory and the latest user request always stay, and tool calls and
//!   results stay paired. When even that does not fit, building fails with
//!   [`ContextError::WindowTooSmall`] instead of sending an oversized request.
//!
//! Tokens are counted with OpenAI's tokenizers for OpenAI-family models and estimated from
//! bytes otherwise ([`Tokenizer`]); provider-reported input tokens calibrate the estimate
//! ([`Calibration`]).
//!
//! Compaction ([`ContextManager::needs_compaction`]) is driven by the caller, which owns
//! the model: first [`ContextManager::drop_stale`], then [`ContextManager::plan_summary`]
//! gives the summary request to send (to a cheaper model if configured), and
//! [`ContextManager::apply_summary`] records the answer — or
//! [`ContextManager::rule_summary`] when the call fails or would not fit.
//!
//! The state (task memory, summary, boundary, stubs, tracked files, calibration) is saved
//! and restored as opaque JSON with [`ContextManager::snapshot`] and
//! [`ContextManager::restore`].

pub mod at_mentions;
mod build;
mod compaction;
mod document;
mod error;
mod files;
mod history;
pub mod images;
mod inspect;
mod instructions;
pub mod localize;
mod manager;
mod outline;
mod settings;
mod task;
mod tokens;
mod tracked;

pub use build::Built;
pub use compaction::{COMPACTION_PROMPT, CompactionMethod, SummaryPlan};
pub use document::render_document;
pub use error::ContextError;
pub use files::{Attached, TrackReport, TrackedInfo};
pub use history::{
    HONE_NOTE_PREFIX, is_request, pairs_are_valid, repair_pairs, request_text, turn_starts, units,
};
pub use hone_config::ContextSettings;
pub use inspect::Inspection;
pub use instructions::{INSTRUCTION_FILES, InstructionFile, Instructions};
pub use manager::{ContextManager, ContextUsage};
pub use outline::{LineOutliner, Outliner};
pub use settings::{ContextConfig, STALE_AFTER_TURNS};
pub use task::{FailingCommand, TaskMemory};
pub use tokens::{Calibration, TokenCounter, Tokenizer};
pub use tracked::{
    MAX_FULL_BYTES, MAX_TRACKED_FILES, Resolved, Snapshot, TrackMode, TrackedFile, resolve,
    snapshot,
};
