//! What can go wrong while managing the context.

use std::path::Path;

/// A context-manager error; every message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum ContextError {
    /// Even with every older message trimmed, the request does not fit the window.
    #[error(
        "the request needs about {needed} tokens (system prompt, tools, task memory and the \
         latest message) but only {budget} fit the model's {window}-token context window; \
         use a model with a larger window, set `context_window` for the provider, or send a \
         shorter message"
    )]
    WindowTooSmall {
        /// Estimated tokens of what cannot be trimmed.
        needed: usize,
        /// Tokens available for the prompt (the window minus room for the answer).
        budget: usize,
        /// The model's context window.
        window: u32,
    },
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A tracked path leaves the project.
    #[error("`{0}` is outside the project; give a path or glob relative to the project root")]
    OutsideRoot(String),
    /// A glob pattern is malformed.
    #[error("invalid pattern {0}")]
    Pattern(String),
    /// A tracked file is binary.
    #[error("`{0}` is a binary file and cannot be tracked")]
    Binary(String),
    /// A saved context state could not be read back.
    #[error("the saved context state is unreadable ({0}); the session continues with a fresh one")]
    State(String),
}

impl ContextError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        ContextError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}
