//! Errors of the permission policy.

/// Why a mode name or a configured rule was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    /// The approval mode name is not one of the four modes.
    #[error(
        "unknown approval mode `{given}`; expected one of: read-only, ask, auto-edit, full-auto"
    )]
    UnknownMode {
        /// The name as given.
        given: String,
    },
    /// A `[permissions]` allow or deny rule cannot be used.
    #[error("invalid rule `{rule}`: {reason}")]
    InvalidRule {
        /// The rule as written in the configuration.
        rule: String,
        /// What is wrong with it and what to write instead.
        reason: String,
    },
}
