//! The engine's values as the front-end protocol (`hone-api`) carries them.

use hone_protocol::HoneError;

/// A call's arguments for `tool.requested`: the JSON the model sent, or its raw text as a
/// string when it is not JSON.
pub(crate) fn arguments(raw: &str) -> serde_json::Value {
    serde_json::from_str(raw).unwrap_or_else(|_| serde_json::Value::String(raw.to_string()))
}

/// `error` for events.
pub fn error_info(error: HoneError) -> hone_api::ErrorInfo {
    hone_api::ErrorInfo {
        category: error.category,
        message: error.message,
        provider_detail: error.provider_detail,
    }
}

/// An event's error as the engine's error (for exit codes and error lines).
pub fn hone_error(info: &hone_api::ErrorInfo) -> HoneError {
    let error = HoneError::new(info.category, info.message.clone());
    match &info.provider_detail {
        Some(detail) => error.with_detail(detail.clone()),
        None => error,
    }
}

#[cfg(test)]
mod tests {
    use hone_protocol::ErrorCategory;

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
}
