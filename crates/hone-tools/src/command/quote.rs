//! POSIX shell quoting for text that the model supplies and hone puts into a command line.

/// Characters that never need quoting in a POSIX shell word.
fn is_plain(character: char) -> bool {
    character.is_ascii_alphanumeric() || "_-./:=@%+,".contains(character)
}

/// `text` as one shell word: unchanged when it is plain, otherwise single-quoted with
/// embedded single quotes written as `'\''`.
pub(crate) fn shell_quote(text: &str) -> String {
    if !text.is_empty() && text.chars().all(is_plain) {
        return text.to_string();
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_words_stay_unquoted() {
        assert_eq!(shell_quote("parser::tests"), "parser::tests");
        assert_eq!(shell_quote("src/a-b_c.rs"), "src/a-b_c.rs");
    }

    #[test]
    fn shell_syntax_is_single_quoted() {
        assert_eq!(shell_quote("foo; rm -rf /"), "'foo; rm -rf /'");
        assert_eq!(shell_quote("$(reboot)"), "'$(reboot)'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn embedded_single_quotes_cannot_close_the_quote() {
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn quoted_text_reaches_the_program_as_one_argument() {
        let hostile = "a' ; echo pwned; '$(id) \"b\"\n";
        let output = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("printf '%s' {}", shell_quote(hostile)))
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&output.stdout), hostile);
    }
}
