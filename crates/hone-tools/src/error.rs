//! Tool errors: messages written for the model, saying what went wrong and what to do next.

/// What kind of failure a tool call hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolErrorKind {
    /// The arguments were missing, of the wrong type or contradictory.
    InvalidArguments,
    /// A path does not exist (the message suggests close matches).
    NotFound,
    /// The path guard refused a path.
    PathRefused,
    /// The file changed since the model read it (or since the edit was planned).
    Conflict,
    /// The model must read the file before this kind of write.
    NotRead,
    /// An edit could not be placed (no match, several matches, identical text…).
    EditFailed,
    /// The file system failed.
    Io,
    /// A command could not be started or failed to run.
    Command,
}

/// A tool failure with a message for the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    /// What kind of failure.
    pub kind: ToolErrorKind,
    /// What went wrong and what to do next.
    pub message: String,
}

impl ToolError {
    /// An error of `kind`.
    pub fn new(kind: ToolErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    /// Invalid arguments.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ToolErrorKind::InvalidArguments, message)
    }

    /// A file-system failure.
    pub fn io(message: impl Into<String>) -> Self {
        Self::new(ToolErrorKind::Io, message)
    }
}

impl From<hone_policy::PathError> for ToolError {
    fn from(error: hone_policy::PathError) -> Self {
        Self::new(ToolErrorKind::PathRefused, error.to_string())
    }
}
