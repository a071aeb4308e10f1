//! Reading the prompt from arguments and stdin.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;

use hone_api::ImageAttachment;
use hone_protocol::HoneError;

/// The prompt: `words`, followed by what was piped on stdin (`cat log | hone ask "why"`);
/// with no words (or `-`), stdin alone.
pub(crate) fn prompt_text(words: &[String]) -> Result<String, HoneError> {
    let stdin = std::io::stdin();
    let piped = if stdin.is_terminal() {
        None
    } else {
        let mut text = String::new();
        stdin.lock().read_to_string(&mut text).map_err(|error| {
            HoneError::config(format!("could not read the prompt from stdin: {error}"))
        })?;
        Some(text)
    };
    combine(words, piped)
}

/// The prompt with its `@path` mentions `expanded`, and the images the message carries: those
/// `--image` names (read as given, relative to the working directory), then the mentioned
/// ones. stderr names each attachment (not with `--quiet`) and each mention that could not be
/// attached; an `--image` that cannot be read is an error.
pub(crate) fn attach_mentions(
    expanded: hone_context::at_mentions::Expanded,
    image_files: &[PathBuf],
) -> Result<(String, Vec<ImageAttachment>), HoneError> {
    let mut images = image_files
        .iter()
        .map(|path| {
            hone_context::images::read_image_file(path)
                .map_err(|error| HoneError::config(format!("--image: {error}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if !crate::term::quiet() {
        for path in image_files {
            eprintln!("hone: attached {} (image)", path.display());
        }
        for attached in &expanded.attached {
            eprintln!("hone: attached {}", attached.describe());
        }
    }
    for problem in &expanded.problems {
        eprintln!("hone: warning: {problem}");
    }
    images.extend(expanded.images);
    Ok((expanded.text, images))
}

/// Joins the words and the piped text: the words first, a blank line, then the piped text.
fn combine(words: &[String], piped: Option<String>) -> Result<String, HoneError> {
    let joined = words.join(" ");
    let from_stdin_only = joined.is_empty() || joined == "-";
    let text = match (from_stdin_only, piped) {
        (true, None) => {
            return Err(HoneError::config(
                "no prompt: pass it as an argument (hone exec \"…\") or pipe it on stdin",
            ));
        }
        (true, Some(piped)) => piped,
        (false, Some(piped)) if !piped.trim().is_empty() => {
            format!("{joined}\n\n{}", piped.trim_end())
        }
        (false, _) => joined,
    };
    if text.trim().is_empty() {
        return Err(HoneError::config("the prompt is empty"));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &[&str]) -> Vec<String> {
        text.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn words_and_piped_text_are_sent_together() {
        let text = combine(&words(&["why", "fails?"]), Some("line 1\nline 2\n".into())).unwrap();
        assert_eq!(text, "why fails?\n\nline 1\nline 2");
    }

    #[test]
    fn empty_stdin_leaves_the_words_alone() {
        assert_eq!(combine(&words(&["hi"]), Some(String::new())).unwrap(), "hi");
        assert_eq!(combine(&words(&["hi"]), None).unwrap(), "hi");
    }

    #[test]
    fn a_dash_or_no_words_reads_stdin_only() {
        assert_eq!(
            combine(&words(&["-"]), Some("task".into())).unwrap(),
            "task"
        );
        assert_eq!(combine(&[], Some("task".into())).unwrap(), "task");
    }

    #[test]
    fn nothing_at_all_is_a_usage_error() {
        let error = combine(&[], None).unwrap_err();
        assert_eq!(error.category, hone_protocol::ErrorCategory::Config);
        assert!(combine(&[], Some("  \n".into())).is_err());
    }
}
