//! The inside of one word: quotes, escapes, `$'…'`, parameter and arithmetic expansion,
//! and command substitutions, whose text is kept for classification.

use super::{Lexer, MAX_NESTING, Word};

impl Lexer {
    /// Reads one word, up to an unquoted blank or operator.
    pub(super) fn word(&mut self) -> Word {
        let mut word = WordBuilder::default();
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\r' | '\n' | ';' | '&' | '|' | '(' | ')' => break,
                '<' | '>' if self.peek_at(1) == Some('(') => self.substitution(&mut word, 2),
                '<' | '>' => break,
                '\\' => {
                    self.pos += 1;
                    match self.peek() {
                        Some('\n') => self.pos += 1,
                        Some(escaped) => {
                            word.mark_quoted();
                            word.text.push(escaped);
                            self.pos += 1;
                        }
                        None => word.text.push('\\'),
                    }
                }
                '\'' => {
                    self.pos += 1;
                    word.mark_quoted();
                    self.single_quoted(&mut word);
                }
                '"' => {
                    self.pos += 1;
                    word.mark_quoted();
                    if !self.double_quoted(&mut word, Some('"')) {
                        self.problem("a double quote is never closed");
                    }
                }
                '$' => self.dollar(&mut word, false),
                '`' => self.backticks(&mut word),
                '{' => {
                    word.open_brace = true;
                    word.text.push(c);
                    self.pos += 1;
                }
                '}' => {
                    word.braces |= word.open_brace;
                    word.text.push(c);
                    self.pos += 1;
                }
                _ => {
                    word.text.push(c);
                    self.pos += 1;
                }
            }
        }
        word.finish()
    }

    fn single_quoted(&mut self, word: &mut WordBuilder) {
        while let Some(c) = self.peek() {
            self.pos += 1;
            if c == '\'' {
                return;
            }
            word.text.push(c);
        }
        self.problem("a single quote is never closed");
    }

    /// Reads a double-quoted body up to `close` (or to the end when `None`, for the bodies of
    /// here-documents and `${…}`). Returns whether `close` was found.
    fn double_quoted(&mut self, word: &mut WordBuilder, close: Option<char>) -> bool {
        while let Some(c) = self.peek() {
            if Some(c) == close {
                self.pos += 1;
                return true;
            }
            match c {
                '\\' => match self.peek_at(1) {
                    Some('\n') => self.pos += 2,
                    Some(escaped @ ('$' | '`' | '"' | '\\')) => {
                        word.text.push(escaped);
                        self.pos += 2;
                    }
                    _ => {
                        word.text.push('\\');
                        self.pos += 1;
                    }
                },
                '$' => self.dollar(word, true),
                '`' => self.backticks(word),
                _ => {
                    word.text.push(c);
                    self.pos += 1;
                }
            }
        }
        close.is_none()
    }

    fn dollar(&mut self, word: &mut WordBuilder, in_double_quotes: bool) {
        match self.peek_at(1) {
            Some('(') if self.peek_at(2) == Some('(') => self.arithmetic(word),
            Some('(') => self.substitution(word, 2),
            Some('{') => self.braced_parameter(word),
            Some('\'') if !in_double_quotes => {
                self.pos += 2;
                word.mark_quoted();
                self.ansi_c_quoted(word);
            }
            Some('"') if !in_double_quotes => self.pos += 1,
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                word.mark_expanded();
                word.text.push('$');
                self.pos += 1;
                while let Some(c) = self
                    .peek()
                    .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
                {
                    word.text.push(c);
                    self.pos += 1;
                }
            }
            Some(c) if c.is_ascii_digit() || "@*#?-$!".contains(c) => {
                word.mark_expanded();
                word.text.push('$');
                word.text.push(c);
                self.pos += 2;
            }
            _ => {
                word.text.push('$');
                self.pos += 1;
            }
        }
    }

    /// `$(…)`, `<(…)` or `>(…)`; `opening` is the width of the opening marker.
    fn substitution(&mut self, word: &mut WordBuilder, opening: usize) {
        let marker = self.text(self.pos, self.pos + opening);
        self.pos += opening;
        let start = self.pos;
        let closed = if self.nesting >= MAX_NESTING {
            self.problem("substitutions are nested too deeply to be analysed");
            self.skip_to_close_paren()
        } else {
            let mut inner = Lexer {
                chars: std::mem::take(&mut self.chars),
                pos: self.pos,
                nesting: self.nesting + 1,
                problems: Vec::new(),
                here_documents: Vec::new(),
            };
            let (_, closed) = inner.tokens(true);
            self.chars = std::mem::take(&mut inner.chars);
            self.pos = inner.pos;
            for problem in inner.problems {
                self.problem(&problem);
            }
            closed
        };
        let end = if closed { self.pos - 1 } else { self.pos };
        if !closed {
            self.problem(&format!("a `{marker}` is never closed"));
        }
        let inner = self.text(start, end);
        word.mark_expanded();
        word.text.push_str(&format!("{marker}{inner})"));
        word.substitutions.push(inner);
    }

    /// Fallback past the nesting limit: finds the matching `)` by counting parentheses.
    fn skip_to_close_paren(&mut self) -> bool {
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => return true,
                ')' => depth -= 1,
                _ => {}
            }
        }
        false
    }

    /// `$((…))` is arithmetic when its parentheses close with `))`; otherwise it is a
    /// command substitution that starts with a subshell, `$( (…) )`.
    fn arithmetic(&mut self, word: &mut WordBuilder) {
        let body_start = self.pos + 3;
        let mut depth = 0usize;
        let mut index = body_start;
        let mut end = None;
        while let Some(&c) = self.chars.get(index) {
            match c {
                '(' => depth += 1,
                ')' if depth > 0 => depth -= 1,
                ')' => {
                    if self.chars.get(index + 1) == Some(&')') {
                        end = Some(index);
                    }
                    break;
                }
                _ => {}
            }
            index += 1;
        }
        let Some(end) = end else {
            self.substitution(word, 2);
            return;
        };
        let body = self.text(body_start, end);
        self.pos = end + 2;
        word.mark_expanded();
        word.text.push_str(&format!("$(({body}))"));
        let found = self.scan_expansions(&body);
        word.substitutions.extend(found);
    }

    fn braced_parameter(&mut self, word: &mut WordBuilder) {
        let body_start = self.pos + 2;
        let mut depth = 1usize;
        let mut index = body_start;
        while let Some(&c) = self.chars.get(index) {
            match c {
                '\\' => index += 1,
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            index += 1;
        }
        if depth > 0 {
            self.problem("a `${` is never closed");
        }
        let body = self.text(body_start, index);
        self.pos = (index + 1).min(self.chars.len());
        word.mark_expanded();
        word.text.push_str(&format!("${{{body}}}"));
        let found = self.scan_expansions(&body);
        word.substitutions.extend(found);
    }

    fn backticks(&mut self, word: &mut WordBuilder) {
        self.pos += 1;
        let mut inner = String::new();
        let mut closed = false;
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                '`' => {
                    closed = true;
                    break;
                }
                '\\' => match self.peek() {
                    Some(escaped @ ('`' | '\\' | '$')) => {
                        inner.push(escaped);
                        self.pos += 1;
                    }
                    _ => inner.push('\\'),
                },
                _ => inner.push(c),
            }
        }
        if !closed {
            self.problem("a backtick is never closed");
        }
        word.mark_expanded();
        word.text.push_str(&format!("`{inner}`"));
        word.substitutions.push(inner);
    }

    fn ansi_c_quoted(&mut self, word: &mut WordBuilder) {
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                '\'' => return,
                '\\' => {
                    if let Some(decoded) = self.ansi_c_escape() {
                        word.text.push(decoded);
                    }
                }
                _ => word.text.push(c),
            }
        }
        self.problem("a `$'` quote is never closed");
    }

    /// Decodes the escape after a backslash in `$'…'`; `None` for `\0` and invalid codes.
    fn ansi_c_escape(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        let simple = match c {
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' | '?' => Some(c),
            _ => None,
        };
        if simple.is_some() {
            return simple;
        }
        let (radix, max_digits, mut value) = match c {
            '0'..='7' => (8, 2, c.to_digit(8)?),
            'x' => (16, 2, 0),
            'u' => (16, 4, 0),
            'U' => (16, 8, 0),
            'c' => {
                let control = self.peek()?;
                self.pos += 1;
                return char::from_u32(u32::from(control as u8 & 0x1f));
            }
            _ => {
                self.pos -= 1;
                return Some('\\');
            }
        };
        for _ in 0..max_digits {
            let Some(digit) = self.peek().and_then(|d| d.to_digit(radix)) else {
                break;
            };
            value = value.saturating_mul(radix).saturating_add(digit);
            self.pos += 1;
        }
        char::from_u32(value).filter(|decoded| *decoded != '\0')
    }

    /// The command substitutions inside text that expands like a double-quoted string.
    pub(super) fn scan_expansions(&mut self, text: &str) -> Vec<String> {
        let mut inner = Lexer::new(text, self.nesting + 1);
        let mut word = WordBuilder::default();
        inner.double_quoted(&mut word, None);
        for problem in inner.problems {
            self.problem(&problem);
        }
        word.substitutions
    }
}

#[derive(Default)]
struct WordBuilder {
    text: String,
    quoted: bool,
    expanded: bool,
    plain_len: Option<usize>,
    open_brace: bool,
    braces: bool,
    substitutions: Vec<String>,
}

impl WordBuilder {
    fn mark_quoted(&mut self) {
        self.quoted = true;
        self.plain_len.get_or_insert(self.text.len());
    }

    fn mark_expanded(&mut self) {
        self.expanded = true;
        self.plain_len.get_or_insert(self.text.len());
    }

    fn finish(self) -> Word {
        let plain_len = self.plain_len.unwrap_or(self.text.len());
        Word {
            text: self.text,
            quoted: self.quoted,
            expanded: self.expanded,
            plain_len,
            braces: self.braces,
            substitutions: self.substitutions,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{only_word, word_texts};

    #[test]
    fn quotes_and_escapes_are_removed() {
        assert_eq!(
            word_texts(r#"r''m -"r"f \/ 'a b' "c\"d""#),
            ["rm", "-rf", "/", "a b", "c\"d"]
        );
        assert_eq!(word_texts(r"\rm x\ y"), ["rm", "x y"]);
        assert!(only_word("r''m").quoted);
    }

    #[test]
    fn ansi_c_strings_are_decoded() {
        assert_eq!(only_word(r"$'\x72\155'").text, "rm");
        assert_eq!(only_word(r"$'a\tb\'c'").text, "a\tb'c");
        assert_eq!(only_word(r"$'\u0073udo'").text, "sudo");
    }

    #[test]
    fn command_substitutions_are_collected_in_and_out_of_double_quotes() {
        let word = only_word(r#"a$(rm -rf "x)")b"#);
        assert_eq!(word.substitutions, [r#"rm -rf "x)""#]);
        assert!(word.expanded);
        let word = only_word(r#""$(sudo id) `whoami`""#);
        assert_eq!(word.substitutions, ["sudo id", "whoami"]);
        let word = only_word("'$(not run)'");
        assert!(word.substitutions.is_empty());
        assert!(!word.expanded);
    }

    #[test]
    fn nested_substitutions_find_their_own_closing_parenthesis() {
        let word = only_word("$(echo $(date) (x))");
        assert_eq!(word.substitutions, ["echo $(date) (x)"]);
    }

    #[test]
    fn arithmetic_is_not_a_command_but_its_substitutions_are() {
        let word = only_word("$((1 + $(wc -l < f)))");
        assert_eq!(word.substitutions, ["wc -l < f"]);
        let word = only_word("$((cd x) && ls)");
        assert_eq!(word.substitutions, ["(cd x) && ls"]);
    }

    #[test]
    fn parameter_expansions_mark_the_word_and_keep_inner_substitutions() {
        let word = only_word("${X:-$(reboot)}");
        assert!(word.expanded);
        assert_eq!(word.substitutions, ["reboot"]);
        assert!(only_word("$HOME/x").expanded);
        assert!(!only_word("a$").expanded);
    }

    #[test]
    fn unquoted_brace_groups_are_flagged() {
        assert!(only_word("{rm,-rf,x}").braces);
        assert!(!only_word("'{a,b}'").braces);
        assert!(!only_word("{").braces);
    }
}
