//! What can go wrong while turning configuration and a project into a session.

use hone_protocol::HoneError;

/// A runtime failure. Front ends turn it into a [`HoneError`] (`From`), whose category
/// picks the exit code, or word the session errors their own way.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// Configuration, provider, index or store trouble, already categorised.
    #[error("{}", .0.message)]
    Hone(#[from] HoneError),
    /// `resume last`, and the project has no saved session.
    #[error("no saved session for {project} to resume")]
    NoSessionToResume {
        /// The project's key.
        project: String,
    },
    /// `hone --continue`, and the project has no conversation held in the terminal UI.
    #[error("no earlier conversation in {project} to continue (`hone` starts a new one)")]
    NoConversation {
        /// The project's key.
        project: String,
    },
    /// The session to resume, fork or delete was saved for another project.
    #[error("session {id} belongs to {project}")]
    OtherProject {
        /// The session's id.
        id: String,
        /// The project it belongs to.
        project: String,
    },
}

impl From<hone_config::ConfigError> for RuntimeError {
    fn from(error: hone_config::ConfigError) -> Self {
        Self::Hone(error.into())
    }
}

impl From<hone_memory::MemoryError> for RuntimeError {
    fn from(error: hone_memory::MemoryError) -> Self {
        Self::Hone(store_error(error))
    }
}

impl From<RuntimeError> for HoneError {
    fn from(error: RuntimeError) -> Self {
        match error {
            RuntimeError::Hone(error) => error,
            other @ (RuntimeError::NoSessionToResume { .. }
            | RuntimeError::NoConversation { .. }
            | RuntimeError::OtherProject { .. }) => HoneError::config(other.to_string()),
        }
    }
}

/// A store error as a one-line error of its category (storage, exit code 9; a bad id, 2).
pub fn store_error(error: hone_memory::MemoryError) -> HoneError {
    HoneError::from(error)
}

/// A model-store error as hone reports it: network trouble for failed downloads,
/// configuration problems otherwise.
pub fn model_error(error: hone_models::ModelError) -> HoneError {
    match error {
        hone_models::ModelError::Unreachable(_) => HoneError::network(error.to_string()),
        other => HoneError::config(other.to_string()),
    }
}

/// An index error as a one-line error of its category (storage, or configuration for a bad
/// root, pattern or scope).
pub(crate) fn index_error(error: hone_index::IndexError) -> HoneError {
    HoneError::from(error)
}
