//! Turning errors into one clear stderr line and a category-specific exit code.

use std::process::ExitCode;

use hone_protocol::{ErrorCategory, HoneError};

/// Exit code for each error category, so scripts can tell failures apart.
pub(crate) fn code_for(category: ErrorCategory) -> u8 {
    match category {
        ErrorCategory::Config => 2,
        ErrorCategory::Auth => 4,
        ErrorCategory::Network => 5,
        ErrorCategory::RateLimit => 6,
        ErrorCategory::Provider => 7,
        ErrorCategory::Validation => 8,
        ErrorCategory::Tool => 3,
        ErrorCategory::Storage => 9,
        ErrorCategory::Cancelled => 130,
    }
}

/// The single line printed for `error`: the message, then what the provider said.
pub(crate) fn line(error: &HoneError) -> String {
    let mut text = format!("error: {}", error.message);
    if let Some(detail) = &error.provider_detail {
        let detail = detail.replace(['\n', '\r'], " ");
        let shown: String = detail.chars().take(300).collect();
        let ellipsis = if detail.chars().count() > 300 {
            "…"
        } else {
            ""
        };
        text.push_str(&format!(" [{shown}{ellipsis}]"));
    }
    text
}

/// Prints `error` on stderr and returns its exit code.
pub(crate) fn report(error: &HoneError) -> ExitCode {
    eprintln!("{}", line(error));
    ExitCode::from(code_for(error.category))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_is_single_and_keeps_the_detail_short() {
        let error =
            HoneError::network("could not connect").with_detail(format!("a\nb{}", "x".repeat(400)));
        let text = line(&error);
        assert!(!text.contains('\n'));
        assert!(text.starts_with("error: could not connect [a b"));
        assert!(text.ends_with("…]"));
    }

    #[test]
    fn categories_have_distinct_exit_codes() {
        let categories = [
            ErrorCategory::Config,
            ErrorCategory::Auth,
            ErrorCategory::Network,
            ErrorCategory::RateLimit,
            ErrorCategory::Provider,
            ErrorCategory::Validation,
            ErrorCategory::Tool,
            ErrorCategory::Storage,
            ErrorCategory::Cancelled,
        ];
        let mut codes: Vec<_> = categories
            .iter()
            .map(|category| code_for(*category))
            .collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), categories.len());
    }
}
