//! What can go wrong with models, with messages that say what to do.

use std::path::PathBuf;

/// A model store, download or conversion failure.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// Neither `HONE_DATA_DIR` nor a platform data directory is available.
    #[error("no data directory for models: set HONE_DATA_DIR to a writable directory")]
    NoDataDir,
    /// The name is not in the catalog (and, where a path is allowed, not an existing file).
    #[error("unknown model `{name}`: expected one of {known}{path_hint}")]
    UnknownModel {
        /// The name as given.
        name: String,
        /// Catalog names, comma-separated.
        known: String,
        /// ` or a path to a .gguf file` where paths are accepted, else empty.
        path_hint: &'static str,
    },
    /// The model is in the catalog but has not been downloaded.
    #[error("the local model `{name}` is not downloaded ({size}): run `hone model pull {name}`")]
    NotDownloaded {
        /// Catalog name.
        name: String,
        /// Download size, human-readable.
        size: String,
    },
    /// A file is present but does not match what was downloaded and verified.
    #[error(
        "the model file {path} failed verification ({reason}); it will not be loaded: run \
         `hone model pull {name}` to fetch it again"
    )]
    Unverified {
        /// Catalog name.
        name: String,
        /// The file.
        path: PathBuf,
        /// What did not match.
        reason: String,
    },
    /// A downloaded file has the wrong size or checksum; the partial file was removed.
    #[error(
        "the download of `{name}` from {source_name} is corrupt ({detail}); the partial file \
         was removed, run `hone model pull {name}` to retry"
    )]
    Corrupt {
        /// Catalog name.
        name: String,
        /// Where it came from.
        source_name: String,
        /// What did not match (size or sha256, with the expected value).
        detail: String,
    },
    /// A file given to `hone model import` is not a catalog model's file.
    #[error(
        "{path} is not the file of {expected} ({detail}); it was not imported (set `[local] \
         model` to a GGUF's path to use a model outside the catalog)"
    )]
    NotCatalogFile {
        /// The file as given.
        path: PathBuf,
        /// `catalog model NAME`, or `any catalog model` when none was named.
        expected: String,
        /// What did not match.
        detail: String,
    },
    /// Every source failed.
    #[error(transparent)]
    Unreachable(Box<Unreachable>),
    /// Another process is pulling the same model.
    #[error(
        "another hone is already pulling `{name}` (lock {lock}); wait for it to finish and retry"
    )]
    Busy {
        /// Catalog name.
        name: String,
        /// The lock file.
        lock: PathBuf,
    },
    /// Converting the file to Q8_0 failed.
    #[error("could not convert {path} to Q8_0: {detail}")]
    Convert {
        /// The source file.
        path: PathBuf,
        /// What went wrong.
        detail: String,
    },
    /// The manifest cannot be read or written.
    #[error(
        "the model manifest {path} is unreadable ({detail}); delete it and run `hone model pull` again"
    )]
    Manifest {
        /// The manifest file.
        path: PathBuf,
        /// What went wrong.
        detail: String,
    },
    /// A file operation failed.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done (`cannot write`, …).
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A blocking task (hashing, conversion) could not finish.
    #[error("an internal task failed: {0}")]
    Task(String),
}

impl ModelError {
    /// An [`ModelError::Io`] for `path`.
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        Self::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

/// The details of [`ModelError::Unreachable`]: what was tried and why each source failed.
#[derive(Debug, thiserror::Error)]
#[error(
    "could not download `{name}`: neither source is reachable.\n  \
     Hugging Face ({url}): {hf_error}\n  \
     pip ({pip_command}): {pip_error}\n\
     Check the network or proxy settings, or try the pip command by hand; a file \
     downloaded by hand is checked and registered by `hone model import FILE --name {name}` (or \
     placed at {target} and verified by `hone model pull {name}`)"
)]
pub struct Unreachable {
    /// Catalog name.
    pub name: String,
    /// The Hugging Face URL tried.
    pub url: String,
    /// Why Hugging Face failed.
    pub hf_error: String,
    /// The first pip command, as typed by hand.
    pub pip_command: String,
    /// Why pip failed.
    pub pip_error: String,
    /// Where the file belongs.
    pub target: PathBuf,
}
