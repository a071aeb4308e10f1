//! Turning errors into one clear stderr line and their category's exit code
//! (`hone_runtime::exit_code`).

use std::process::ExitCode;

use hone_api::display;
use hone_protocol::HoneError;

/// The single line printed for `error`: the message, then what the provider said, both
/// with their control characters shown (a server's error body is not hone's text).
pub(crate) fn line(error: &HoneError) -> String {
    let mut text = format!("error: {}", display::flat(&error.message));
    if let Some(detail) = &error.provider_detail {
        let detail = display::flat(detail);
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
    ExitCode::from(hone_runtime::exit_code(error.category))
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
        let hostile = HoneError::provider("bad\x1b]0;t\x07").with_detail("\r\x1b[2Kok");
        assert_eq!(line(&hostile), r"error: bad\x1b]0;t\x07 [\r\x1b[2Kok]");
    }
}
