//! The TUI's errors.

use hone_protocol::HoneError;

/// Why the TUI could not run.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// The terminal could not be set up or drawn to.
    #[error("terminal error: {0}")]
    Terminal(String),
    /// The first session could not start (configuration, provider).
    #[error("{}", .0.message)]
    Session(HoneError),
}
