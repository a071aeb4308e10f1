//! The runtime opened for the command line, and its questions and warnings on the
//! terminal: the offer to download a missing local model (with the progress bar of
//! `hone model pull`) and `hone: warning:` lines.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures::future::BoxFuture;
use hone_config::CliOverrides;
use hone_models::{ModelError, ModelStore};
use hone_protocol::HoneError;
use hone_runtime::{IndexChoice, Interaction, Runtime, RuntimeOptions, dialog};

use crate::cli::GlobalArgs;

/// The runtime for the project the user pointed at, with explicit overrides; its questions
/// and warnings go to `terminal`.
pub(crate) fn open_runtime(
    global: &GlobalArgs,
    overrides: CliOverrides,
    terminal: Arc<Terminal>,
) -> Result<Runtime, HoneError> {
    let place = crate::place(global)?;
    let mut options = RuntimeOptions::from_process(place.root, overrides);
    options.working_dir = Some(place.working_dir);
    Ok(Runtime::open(options, terminal)?)
}

/// The terminal as the runtime's [`Interaction`].
#[derive(Debug)]
pub(crate) struct Terminal {
    /// Whether the download offer may still be made on the terminal.
    may_ask: AtomicBool,
}

impl Terminal {
    /// Asks only when stdin and stderr are terminals and the output is not machine-readable.
    pub(crate) fn detect(machine_output: bool) -> Self {
        let may_ask =
            !machine_output && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
        Self {
            may_ask: AtomicBool::new(may_ask),
        }
    }

    /// Never asks.
    pub(crate) fn never_asking() -> Self {
        Self {
            may_ask: AtomicBool::new(false),
        }
    }

    /// No more questions (the terminal UI owns the screen from now on).
    pub(crate) fn stop_asking(&self) {
        self.may_ask.store(false, Ordering::SeqCst);
    }
}

impl Interaction for Terminal {
    fn offer_pull(&self, model: &str, problem: &ModelError) -> bool {
        self.may_ask.load(Ordering::SeqCst)
            && dialog::ask_to_pull(
                &mut std::io::stdin().lock(),
                &mut std::io::stderr(),
                model,
                problem,
            )
            .unwrap_or(false)
    }

    fn pull<'a>(
        &'a self,
        store: &'a ModelStore,
        model: &'a str,
    ) -> BoxFuture<'a, Result<PathBuf, HoneError>> {
        Box::pin(crate::model_cmd::pull_with_progress(store, model))
    }

    fn warn(&self, message: &str) {
        let message = hone_api::display::flat(message);
        crate::status_line::suspend(|| eprintln!("hone: warning: {message}"));
    }

    fn large_index(&self, files: usize, home: bool) -> IndexChoice {
        if !self.may_ask.load(Ordering::SeqCst) {
            return IndexChoice::Later;
        }
        dialog::ask_large_index(
            &mut std::io::stdin().lock(),
            &mut std::io::stderr(),
            files,
            home,
        )
        .unwrap_or(IndexChoice::Later)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_terminal_that_stopped_asking_declines_the_download() {
        let problem = ModelError::NotDownloaded {
            name: "qwen2.5-coder-1.5b".into(),
            size: "1 GB".into(),
        };
        assert!(!Terminal::never_asking().offer_pull("qwen2.5-coder-1.5b", &problem));
        let terminal = Terminal::detect(false);
        terminal.stop_asking();
        assert!(!terminal.offer_pull("qwen2.5-coder-1.5b", &problem));
    }
}
