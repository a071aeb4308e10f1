//! hone as an Agent Client Protocol agent (`hone acp`): editors that host agents in a panel
//! (Zed, JetBrains IDEs, Neovim's CodeCompanion, Emacs' agent-shell) start it and speak
//! ACP (protocol version 1, JSON-RPC) on its stdin and stdout.
//!
//! The agent is a client of [`hone_server`]: `session/new` and `session/load` open hone
//! sessions in the editor's `cwd`, `session/prompt` is a `user.message` whose events become
//! `session/update`s (message and thought chunks, tool calls with kind, title, absolute
//! locations and diffs, the guided step as a plan), every approval hone's policy asks for
//! is a `session/request_permission`, `session/cancel` cancels the turn (the prompt ends
//! with `cancelled`), and the session's modes are hone's approval modes. Nothing but the
//! protocol is written to stdout; it returns when stdin closes.

mod agent;
mod diff_text;
mod files;
mod mcp;
mod updates;

pub use agent::serve;
