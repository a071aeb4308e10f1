//! Reading the prompt from arguments or stdin.

use std::io::{IsTerminal, Read};

use hone_protocol::HoneError;

/// The prompt from `words`, or from stdin when none (or `-`) is given.
pub(crate) fn prompt_text(words: &[String]) -> Result<String, HoneError> {
    let joined = words.join(" ");
    let from_stdin = joined.is_empty() || joined == "-";
    let text = if from_stdin {
        if std::io::stdin().is_terminal() {
            return Err(HoneError::validation(
                "no prompt: pass it as an argument (hone exec \"…\") or pipe it on stdin",
            ));
        }
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|error| {
                HoneError::validation(format!("could not read the prompt from stdin: {error}"))
            })?;
        text
    } else {
        joined
    };
    if text.trim().is_empty() {
        return Err(HoneError::validation("the prompt is empty"));
    }
    Ok(text)
}
