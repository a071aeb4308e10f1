//! The engine's values as the front-end protocol (`hone-api`) carries them.

use hone_protocol::{ErrorCategory, HoneError, Usage};

/// A call's arguments for `tool.requested`: the JSON the model sent, or its raw text as a
/// string when it is not JSON.
pub(crate) fn arguments(raw: &str) -> serde_json::Value {
    serde_json::from_str(raw).unwrap_or_else(|_| serde_json::Value::String(raw.to_string()))
}

/// `usage` for events.
pub(crate) fn usage(usage: Usage) -> hone_api::Usage {
    hone_api::Usage {
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        cached_input_tokens: usage.cached_input_tokens,
        reasoning_tokens: usage.reasoning_tokens,
    }
}

/// `usage` as the session store records it.
pub(crate) fn stored_usage(usage: hone_api::Usage) -> Usage {
    Usage {
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        cached_input_tokens: usage.cached_input_tokens,
        reasoning_tokens: usage.reasoning_tokens,
    }
}

/// `error` for events.
pub fn error_info(error: HoneError) -> hone_api::ErrorInfo {
    hone_api::ErrorInfo {
        category: match error.category {
            ErrorCategory::Config => hone_api::ErrorCategory::Config,
            ErrorCategory::Auth => hone_api::ErrorCategory::Auth,
            ErrorCategory::Network => hone_api::ErrorCategory::Network,
            ErrorCategory::RateLimit => hone_api::ErrorCategory::RateLimit,
            ErrorCategory::Provider => hone_api::ErrorCategory::Provider,
            ErrorCategory::Validation => hone_api::ErrorCategory::Validation,
            ErrorCategory::Tool => hone_api::ErrorCategory::Tool,
            ErrorCategory::Cancelled => hone_api::ErrorCategory::Cancelled,
            ErrorCategory::Storage => hone_api::ErrorCategory::Storage,
        },
        message: error.message,
        provider_detail: error.provider_detail,
    }
}

/// An event's error as the engine's error (for exit codes and error lines).
pub fn hone_error(info: &hone_api::ErrorInfo) -> HoneError {
    let category = match info.category {
        hone_api::ErrorCategory::Config => ErrorCategory::Config,
        hone_api::ErrorCategory::Auth => ErrorCategory::Auth,
        hone_api::ErrorCategory::Network => ErrorCategory::Network,
        hone_api::ErrorCategory::RateLimit => ErrorCategory::RateLimit,
        hone_api::ErrorCategory::Provider => ErrorCategory::Provider,
        hone_api::ErrorCategory::Validation => ErrorCategory::Validation,
        hone_api::ErrorCategory::Tool => ErrorCategory::Tool,
        hone_api::ErrorCategory::Cancelled => ErrorCategory::Cancelled,
        hone_api::ErrorCategory::Storage => ErrorCategory::Storage,
    };
    let error = HoneError::new(category, info.message.clone());
    match &info.provider_detail {
        Some(detail) => error.with_detail(detail.clone()),
        None => error,
    }
}

/// Who summarised, for `context.compacted`.
pub(crate) fn compaction_method(
    method: hone_context::CompactionMethod,
) -> hone_api::CompactionMethod {
    match method {
        hone_context::CompactionMethod::Model => hone_api::CompactionMethod::Model,
        hone_context::CompactionMethod::Rules => hone_api::CompactionMethod::Rules,
    }
}

/// A tracked file for `files.tracked`.
pub(crate) fn tracked_info(info: hone_context::TrackedInfo) -> hone_api::TrackedInfo {
    hone_api::TrackedInfo {
        path: info.path,
        mode: match info.mode {
            hone_context::TrackMode::Full => hone_api::TrackMode::Full,
            hone_context::TrackMode::Outline => hone_api::TrackMode::Outline,
        },
        tokens: u64::try_from(info.tokens).unwrap_or(u64::MAX),
    }
}

/// An undo stack entry for `undo.stack`.
pub(crate) fn undo_entry(entry: hone_memory::UndoEntry) -> hone_api::UndoEntry {
    hone_api::UndoEntry {
        seq: entry.seq,
        summary: entry.summary,
        paths: entry.paths,
        session_id: entry.session_id,
        applied_ms: entry.applied_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_keep_category_message_and_detail_both_ways() {
        let error = HoneError::new(ErrorCategory::RateLimit, "slow down")
            .with_detail("429 Too Many Requests");
        let info = error_info(error.clone());
        assert_eq!(info.category, hone_api::ErrorCategory::RateLimit);
        assert_eq!(
            info.provider_detail.as_deref(),
            Some("429 Too Many Requests")
        );
        assert_eq!(hone_error(&info), error);
    }

    #[test]
    fn arguments_are_json_when_they_parse() {
        assert_eq!(arguments(r#"{"path":"a.rs"}"#)["path"], "a.rs");
        assert_eq!(arguments("not json"), serde_json::json!("not json"));
    }

    #[test]
    fn usage_converts_both_ways() {
        let used = Usage {
            input_tokens: 10,
            output_tokens: 4,
            cached_input_tokens: 2,
            reasoning_tokens: 1,
        };
        assert_eq!(stored_usage(usage(used)), used);
    }
}
