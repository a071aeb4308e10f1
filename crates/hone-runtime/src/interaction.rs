//! What the runtime needs from the person in front of a front end: the answer to the
//! model-download offer, the download itself (with whatever progress the front end
//! shows), and warnings. The runtime never reads or writes the terminal itself.

use std::path::PathBuf;

use futures::future::BoxFuture;
use hone_models::{ModelError, ModelStore};
use hone_protocol::HoneError;

/// A front end's answers and output, as the runtime asks for them.
pub trait Interaction: Send + Sync {
    /// Whether to download `model` now; `problem` says why it cannot be loaded (not
    /// downloaded, or the file no longer verifies). Only an explicit yes counts; a front
    /// end that cannot ask answers `false`.
    fn offer_pull(&self, model: &str, problem: &ModelError) -> bool;

    /// Downloads `model` into `store` and returns the verified file (called after
    /// [`Interaction::offer_pull`] said yes).
    fn pull<'a>(
        &'a self,
        store: &'a ModelStore,
        model: &'a str,
    ) -> BoxFuture<'a, Result<PathBuf, HoneError>>;

    /// A warning worth the user's attention (without a `warning:` prefix).
    fn warn(&self, message: &str);

    /// What to do with a first index of `files` new files, more than
    /// `hone_index::LARGE_REPOSITORY_FILES` or in the home directory (`home`). A front end
    /// that cannot ask leaves it for later (the runtime warns).
    fn large_index(&self, files: usize, home: bool) -> IndexChoice {
        let _ = (files, home);
        IndexChoice::Later
    }
}

/// The answer to [`Interaction::large_index`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexChoice {
    /// Build it now, in the background.
    Now,
    /// Build it when the model first calls an index tool.
    Later,
    /// Not in this session.
    Skip,
}

/// Never asks, never downloads; warnings go to the log.
#[derive(Debug, Clone, Copy, Default)]
pub struct Unattended;

impl Interaction for Unattended {
    fn offer_pull(&self, _model: &str, _problem: &ModelError) -> bool {
        false
    }

    fn pull<'a>(
        &'a self,
        _store: &'a ModelStore,
        model: &'a str,
    ) -> BoxFuture<'a, Result<PathBuf, HoneError>> {
        let error = HoneError::config(format!("`{model}` cannot be downloaded from here"));
        Box::pin(async move { Err(error) })
    }

    fn warn(&self, message: &str) {
        tracing::warn!("{message}");
    }
}
