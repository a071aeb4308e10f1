//! Word text helpers: brace expansion, quoting words for display, shortening for messages.

/// At most this many words come out of one brace expansion; the rest is not analysed.
const MAX_BRACE_WORDS: usize = 64;

/// Expands unquoted brace alternatives the way bash does before running a command:
/// `{rm,-rf,x}` is three words, `-{r,f}` is `-r -f`. Sequences (`{1..3}`) stay as written.
pub(crate) fn expand_braces(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    expand_into(text, &mut out);
    out
}

fn expand_into(text: &str, out: &mut Vec<String>) {
    if out.len() >= MAX_BRACE_WORDS {
        return;
    }
    match first_alternation(text) {
        Some((open, close, commas)) => {
            let mut start = open + 1;
            for cut in commas.into_iter().chain(std::iter::once(close)) {
                let expanded = format!(
                    "{}{}{}",
                    &text[..open],
                    &text[start..cut],
                    &text[close + 1..]
                );
                expand_into(&expanded, out);
                start = cut + 1;
            }
        }
        None => out.push(text.to_string()),
    }
}

/// The first `{…}` with a comma at its own level: byte offsets of `{`, `}` and the commas.
fn first_alternation(text: &str) -> Option<(usize, usize, Vec<usize>)> {
    let bytes = text.as_bytes();
    for (open, _) in text.match_indices('{') {
        let mut depth = 0usize;
        let mut commas = Vec::new();
        for (index, byte) in bytes.iter().enumerate().skip(open + 1) {
            match byte {
                b'{' => depth += 1,
                b',' if depth == 0 => commas.push(index),
                b'}' if depth == 0 => {
                    if !commas.is_empty() {
                        return Some((open, index, commas));
                    }
                    break;
                }
                b'}' => depth -= 1,
                _ => {}
            }
        }
    }
    None
}

/// Words joined for display, quoted where the shell would need it.
pub(crate) fn display(words: &[String]) -> String {
    words
        .iter()
        .map(|word| quote(word, true))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A word for display: single-quoted when it is literal text that needs quoting,
/// double-quoted when it still contains expansions (`"$(date +%s)"`). Glob characters
/// stay unquoted, as they were most likely written.
pub(crate) fn quote(word: &str, literal: bool) -> String {
    if !literal {
        let process_substitution = word.starts_with("<(") || word.starts_with(">(");
        return if word.contains(char::is_whitespace) && !process_substitution {
            format!("\"{word}\"")
        } else {
            word.to_string()
        };
    }
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,{}*?[]~^".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// `text` cut to a length that fits in a one-line message.
pub(crate) fn shorten(text: &str) -> String {
    const MAX_CHARS: usize = 80;
    if text.chars().count() <= MAX_CHARS {
        return text.to_string();
    }
    let kept: String = text.chars().take(MAX_CHARS - 1).collect();
    format!("{kept}…")
}

/// An absolute path with `.`, `..` and repeated `/` resolved lexically.
pub(crate) fn normalise_absolute(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    format!("/{}", parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brace_alternatives_become_separate_words() {
        assert_eq!(expand_braces("{rm,-rf,/}"), ["rm", "-rf", "/"]);
        assert_eq!(expand_braces("-{r,f}"), ["-r", "-f"]);
        assert_eq!(expand_braces("a{b,c{d,e}}f"), ["abf", "acdf", "acef"]);
        assert_eq!(expand_braces("x{1..3}"), ["x{1..3}"]);
        assert_eq!(expand_braces("{}"), ["{}"]);
        assert_eq!(expand_braces("{a}{b,c}"), ["{a}b", "{a}c"]);
    }

    #[test]
    fn brace_expansion_is_bounded() {
        let text = "{a,b}".repeat(20);
        assert_eq!(expand_braces(&text).len(), MAX_BRACE_WORDS);
    }

    #[test]
    fn display_quotes_only_what_needs_it() {
        let words = ["git", "commit", "-m", "rm -rf", "it's"].map(String::from);
        assert_eq!(display(&words), r#"git commit -m 'rm -rf' 'it'\''s'"#);
        assert_eq!(display(&[String::new()]), "''");
        assert_eq!(quote("$(date +%s)", false), "\"$(date +%s)\"");
        assert_eq!(quote("$HOME", false), "$HOME");
        assert_eq!(quote("<(ls a)", false), "<(ls a)");
        assert_eq!(quote("$HOME", true), "'$HOME'");
        assert_eq!(quote("*.rs", true), "*.rs");
    }

    #[test]
    fn long_text_is_shortened_with_an_ellipsis() {
        let long = "x".repeat(200);
        assert_eq!(shorten(&long).chars().count(), 80);
        assert_eq!(shorten("short"), "short");
    }

    #[test]
    fn absolute_paths_are_normalised_lexically() {
        assert_eq!(normalise_absolute("//etc/./passwd"), "/etc/passwd");
        assert_eq!(normalise_absolute("/tmp/../etc/x"), "/etc/x");
        assert_eq!(normalise_absolute("/../.."), "/");
    }
}
