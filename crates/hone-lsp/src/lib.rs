//! hone as a language server (`hone lsp`): inline completion and quick refactors in any
//! editor with an LSP client (Neovim, Helix, Zed, Emacs, Kate, Qt Creator, VS Code through
//! a generic client), over stdio.
//!
//! - **Completion**: `textDocument/inlineCompletion` (LSP 3.18) and classic
//!   `textDocument/completion` items, from the model of `[roles] completion` (unset: the
//!   embedded small catalog model, whose engine reuses the cache of the previous request).
//!   The model is asked to fill the middle: the code around the cursor within a budget,
//!   with the definitions of the names near the cursor from the code index above it
//!   (`context`), and chunks of the other recently opened and edited documents before it
//!   (`ring`); its answer is cut at the end of the block and never repeats what follows
//!   the cursor (`trim`). A newer request or `$/cancelRequest` cancels a running one;
//!   answers are cached by position (`complete`).
//! - **Quick refactors**: code actions ("hone: refactor…", "hone: explain", "hone: add
//!   tests", "hone: fix this diagnostic") whose `workspace/executeCommand` runs one agent
//!   turn through hone-server and applies its change to the editor's buffers with
//!   `workspace/applyEdit` (`actions`).
//! - **Workspace symbols** from the code index; `didSave` brings the index up to date.
//!
//! Documents outside the project get no completion and no code action: hone reads
//! nothing from them. The server is a client of [`hone_server`] like every face; nothing
//! but the protocol is written to stdout.

mod actions;
mod complete;
mod context;
mod documents;
mod edits;
mod model;
mod ring;
mod server;
mod symbols;
mod trim;
mod wire;

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use hone_server::{Client, Server};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::Mutex as AsyncMutex;
use tower_lsp_server::LspService;

pub use model::DEFAULT_COMPLETION_MODEL;

use crate::complete::Completer;
use crate::model::CompletionModel;
use crate::server::HoneLsp;

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Serves one editor on stdin and stdout until it exits or stdin closes; then hone's
/// sessions are shut down and stored.
pub async fn serve(server: Arc<Server>) {
    serve_on(server, tokio::io::stdin(), tokio::io::stdout()).await;
}

/// [`serve`] on any pair of byte streams (tests drive it in process).
pub async fn serve_on<I, O>(server: Arc<Server>, input: I, output: O)
where
    I: AsyncRead + Unpin,
    O: AsyncWrite,
{
    let runtime = server.default_runtime();
    let root = runtime.root().to_path_buf();
    let (completer, completer_problem) = match CompletionModel::from_config(runtime) {
        Ok(model) => (Some(Completer::new(model)), None),
        Err(error) => (None, Some(error.to_string())),
    };
    let (hone, events) = Client::connect(&server);
    let (service, socket) = LspService::build(move |editor| HoneLsp {
        editor,
        hone,
        events: AsyncMutex::new(events),
        root,
        documents: documents::Documents::default(),
        ring: ring::Ring::default(),
        completer,
        completer_problem,
    })
    .custom_method("textDocument/inlineCompletion", HoneLsp::inline_completion)
    .finish();
    tower_lsp_server::Server::new(input, output, socket)
        .serve(service)
        .await;
    server.idle().await;
}
