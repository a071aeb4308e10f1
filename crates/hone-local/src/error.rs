//! What can go wrong when loading or running a local model.

use std::path::PathBuf;

use hone_protocol::{ErrorCategory, HoneError};

/// A failure of the local inference engine.
#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    /// The model file could not be opened or read.
    #[error("cannot read the model file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a GGUF model hone can run.
    #[error("{path} is not a usable model: {reason}")]
    InvalidModel {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The chat template in the model file could not be compiled or rendered.
    #[error("the model's chat template failed: {0}")]
    Template(String),
    /// Text could not be tokenized or tokens decoded.
    #[error("tokenizer error: {0}")]
    Tokenizer(String),
    /// The prompt does not fit the context window.
    #[error(
        "the prompt has {prompt_tokens} tokens but the local model's context holds {context_size}; \
         shorten the conversation or raise the context size"
    )]
    ContextOverflow {
        /// Tokens in the prompt.
        prompt_tokens: usize,
        /// The configured context size.
        context_size: usize,
    },
    /// The model failed while computing.
    #[error("local inference failed: {0}")]
    Inference(String),
    /// The request was cancelled.
    #[error("cancelled")]
    Cancelled,
}

impl LocalError {
    /// Wraps a candle error raised while computing.
    pub(crate) fn inference(error: impl std::fmt::Display) -> Self {
        LocalError::Inference(error.to_string())
    }
}

impl From<LocalError> for HoneError {
    fn from(error: LocalError) -> Self {
        let category = match &error {
            LocalError::Io { .. } | LocalError::InvalidModel { .. } => ErrorCategory::Config,
            LocalError::ContextOverflow { .. } => ErrorCategory::Validation,
            LocalError::Template(_) | LocalError::Tokenizer(_) | LocalError::Inference(_) => {
                ErrorCategory::Provider
            }
            LocalError::Cancelled => return HoneError::cancelled(),
        };
        HoneError::new(category, error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_map_to_categories_a_front_end_can_act_on() {
        let missing = LocalError::Io {
            path: "/models/x.gguf".into(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        };
        let hone: HoneError = missing.into();
        assert_eq!(hone.category, ErrorCategory::Config);
        assert!(hone.message.contains("/models/x.gguf"), "{}", hone.message);

        let overflow: HoneError = LocalError::ContextOverflow {
            prompt_tokens: 9000,
            context_size: 8192,
        }
        .into();
        assert_eq!(overflow.category, ErrorCategory::Validation);
        assert!(overflow.message.contains("9000"));

        let cancelled: HoneError = LocalError::Cancelled.into();
        assert_eq!(cancelled.category, ErrorCategory::Cancelled);
    }
}
