//! Token estimates for code-like text.

/// Characters a word piece may have before it counts as another token.
const PIECE_CHARS: usize = 6;

/// Estimated tokens of `text` for a BPE tokenizer on code, usually a little above the real
/// count. Per line: one token for the indentation, one for the line break, one per
/// punctuation or non-ASCII character, and one per word piece (identifiers split at case
/// changes and digits; pieces longer than six characters count once per six). Lines are
/// counted independently, so the estimate of concatenated lines is the sum of theirs.
pub fn estimate_tokens(text: &str) -> usize {
    text.split_inclusive('\n').map(line_tokens).sum()
}

fn line_tokens(line: &str) -> usize {
    let content = line.trim_start_matches([' ', '\t']);
    let mut tokens = usize::from(content.len() != line.len()) + usize::from(line.ends_with('\n'));
    let mut piece_len = 0;
    let mut previous: Option<char> = None;
    for c in content.chars() {
        if c.is_ascii_alphanumeric() {
            let boundary = piece_len == 0
                || (c.is_ascii_uppercase() && previous.is_some_and(|p| p.is_ascii_lowercase()))
                || (c.is_ascii_digit() != previous.is_some_and(|p| p.is_ascii_digit()));
            if boundary {
                tokens += 1;
                piece_len = 0;
            } else if piece_len % PIECE_CHARS == 0 {
                tokens += 1;
            }
            piece_len += 1;
        } else {
            piece_len = 0;
            tokens += usize::from(!c.is_whitespace());
        }
        previous = Some(c);
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_cost_about_one_token_per_piece_and_symbol() {
        // indent, async, get, (, key, :, string, ), :, Prom-ise, <, Value, >, newline
        assert_eq!(
            estimate_tokens("    async get(key: string): Promise<Value>\n"),
            15
        );
    }

    #[test]
    fn identifiers_split_at_case_changes_and_length() {
        assert_eq!(estimate_tokens("createStore"), 2);
        assert_eq!(estimate_tokens("abcdefghijklm"), 3);
        assert_eq!(estimate_tokens("v2"), 2);
    }

    #[test]
    fn estimates_add_up_over_lines() {
        let a = "src/a.ts:\n  function f(x: number): string\n";
        let b = "src/b.ts\n";
        assert_eq!(
            estimate_tokens(&format!("{a}{b}")),
            estimate_tokens(a) + estimate_tokens(b)
        );
    }
}
