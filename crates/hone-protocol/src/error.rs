//! The one typed error every layer of hone reports.

use serde::{Deserialize, Serialize};

pub use hone_api::ErrorCategory;

/// A categorised error: a message for the user plus, when a provider answered,
/// what it said (status and body excerpt) for diagnosis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct HoneError {
    /// What kind of failure this is.
    pub category: ErrorCategory,
    /// One actionable sentence for the user.
    pub message: String,
    /// What the provider said, verbatim or trimmed, when it said anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_detail: Option<String>,
}

impl HoneError {
    /// An error of `category` with `message` and no provider detail.
    pub fn new(category: ErrorCategory, message: impl Into<String>) -> Self {
        Self {
            category,
            message: message.into(),
            provider_detail: None,
        }
    }

    /// Attaches what the provider said.
    #[must_use]
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.provider_detail = Some(detail.into());
        self
    }

    /// The error with the secrets in its message and in what the provider said redacted
    /// (a server may echo the key it rejected).
    #[must_use]
    pub fn redacted(mut self, redactor: &crate::Redactor) -> Self {
        self.message = redactor.redact(&self.message).into_owned();
        if let Some(detail) = &mut self.provider_detail {
            *detail = redactor.redact(detail).into_owned();
        }
        self
    }

    /// A configuration error.
    pub fn config(message: impl Into<String>) -> Self {
        Self::new(ErrorCategory::Config, message)
    }

    /// A failure of the session store or the code index.
    pub fn storage(message: impl Into<String>) -> Self {
        Self::new(ErrorCategory::Storage, message)
    }

    /// A network error.
    pub fn network(message: impl Into<String>) -> Self {
        Self::new(ErrorCategory::Network, message)
    }

    /// A provider error.
    pub fn provider(message: impl Into<String>) -> Self {
        Self::new(ErrorCategory::Provider, message)
    }

    /// A validation error.
    pub fn validation(message: impl Into<String>) -> Self {
        Self::new(ErrorCategory::Validation, message)
    }

    /// The error reported when the user cancels.
    pub fn cancelled() -> Self {
        Self::new(ErrorCategory::Cancelled, "cancelled by the user")
    }

    /// True when trying the same request again may succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self.category,
            ErrorCategory::Network | ErrorCategory::RateLimit | ErrorCategory::Provider
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_the_message_and_detail_is_kept_apart() {
        let error = HoneError::new(ErrorCategory::Auth, "OPENAI_API_KEY was rejected")
            .with_detail("401: invalid key");
        assert_eq!(error.to_string(), "OPENAI_API_KEY was rejected");
        let json = serde_json::to_value(&error).unwrap();
        assert_eq!(json["category"], "auth");
        assert_eq!(json["provider_detail"], "401: invalid key");
    }

    #[test]
    fn only_transient_categories_are_retryable() {
        assert!(HoneError::network("x").is_retryable());
        assert!(HoneError::new(ErrorCategory::RateLimit, "x").is_retryable());
        assert!(!HoneError::config("x").is_retryable());
        assert!(!HoneError::storage("x").is_retryable());
        assert!(!HoneError::cancelled().is_retryable());
    }
}
