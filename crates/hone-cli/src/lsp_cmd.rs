//! `hone lsp`: hone as a language server on stdin and stdout, for inline completion and
//! quick refactors in editors (docs/editors.md).

use std::process::ExitCode;
use std::sync::Arc;

use hone_protocol::HoneError;
use hone_runtime::{RuntimeOptions, Unattended};
use hone_server::Server;

use crate::cli::GlobalArgs;

/// Serves the editor until it exits; then the sessions are shut down and stored.
pub(crate) async fn run(global: &GlobalArgs) -> Result<ExitCode, HoneError> {
    let place = crate::place(global)?;
    let mut options = RuntimeOptions::from_process(place.root, crate::overrides(global));
    options.working_dir = Some(place.working_dir);
    // stdin and stdout carry the protocol: the runtime never asks, warnings go to the log.
    let server = Server::open(options, Arc::new(Unattended))?;
    hone_lsp::serve(server).await;
    Ok(ExitCode::SUCCESS)
}
