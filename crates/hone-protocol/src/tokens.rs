//! hone's one token estimate, for every model without a tokenizer of its own in hone (the
//! context manager's budget, the repo map's cut, the window asked of Ollama).
//!
//! Calibration (`crates/hone-context/tests/estimate_calibration.rs`, which keeps these
//! numbers true): against OpenAI's `o200k_base` on hone's own sources
//! (Nov 2026: 489 Rust files, 4.0 MB, 955 k tokens) the estimate is 1.17 × the real count
//! (per file: 1.11 at the 5th percentile, 1.23 at the 95th, 0.90 at the lowest, a table of
//! Python names), and the same against `cl100k_base`; on the Markdown documentation 1.09
//! (1.06 on the README and manual of 2026-11-26, mostly tables). The estimates it replaced
//! were 1.51 × (one token per six-letter piece and per symbol) and 1.20 × with a wider
//! spread (bytes ÷ 3.5: 1.05–1.34; bytes per real token average 4.19 on this code).
//! Providers report real counts; hone-context's `Calibration` corrects the estimate by them
//! as a session goes.

/// Tokens assumed for one image.
pub const IMAGE_TOKENS: usize = 1_000;

/// Characters a word piece may have before it counts as another token.
const PIECE_CHARS: usize = 8;
/// Punctuation characters in a row that count as one token (`();`, `::`, `->` merge).
const SYMBOLS_PER_TOKEN: usize = 2;

/// Estimated tokens of `text` for a BPE tokenizer, a little above the real count on code
/// and prose. Per line: one token for the line break, one per two punctuation or non-ASCII
/// characters in a row, and one per word piece (identifiers split at case changes and
/// digits; pieces longer than eight characters count once per eight); indentation and
/// spaces merge into the next token. Lines are counted independently, so the estimate of
/// concatenated lines is the sum of theirs.
pub fn estimate_tokens(text: &str) -> usize {
    text.split_inclusive('\n').map(line_tokens).sum()
}

fn line_tokens(line: &str) -> usize {
    let mut tokens = usize::from(line.ends_with('\n'));
    let mut piece_len = 0;
    let mut symbols = 0;
    let mut previous: Option<char> = None;
    for c in line.chars() {
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
            symbols = 0;
        } else {
            piece_len = 0;
            if c.is_whitespace() {
                symbols = 0;
            } else {
                tokens += usize::from(symbols % SYMBOLS_PER_TOKEN == 0);
                symbols += 1;
            }
        }
        previous = Some(c);
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_cost_about_one_token_per_piece_and_symbol_pair() {
        // async, get, (, key, :, string, ):, Promise, <, Value, >, newline
        assert_eq!(
            estimate_tokens("    async get(key: string): Promise<Value>\n"),
            12
        );
    }

    #[test]
    fn identifiers_split_at_case_changes_and_length() {
        assert_eq!(estimate_tokens("createStore"), 2);
        assert_eq!(estimate_tokens("abcdefghijklm"), 2);
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
