//! The shell tokenizer: command text to words, operators and redirections.
//!
//! It follows POSIX/bash quoting closely enough that what it reports as a word is what
//! the shell would run: quotes and backslashes are removed (`r''m` and `\rm` are `rm`),
//! `$'…'` escapes are decoded, and the text of every command substitution (`$(…)`,
//! backticks, `<(…)`, also inside double quotes, `${…}` and here-documents) is kept so
//! that it can be parsed and classified in turn. It never fails: problems (an unclosed
//! quote, a redirection without a target) are recorded and lexing goes on.
//!
//! This file splits the input into tokens; [`words`] reads the inside of one word.

mod words;

/// How deeply substitutions may nest inside one another before the rest is not analysed.
pub(crate) const MAX_NESTING: usize = 16;

/// One shell word after quote removal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Word {
    /// The text after quote removal; expansions stay as written (`$HOME`, `$(date)`).
    pub(crate) text: String,
    /// Some part was quoted or escaped.
    pub(crate) quoted: bool,
    /// Some part is only known at run time (parameter, arithmetic or command expansion).
    pub(crate) expanded: bool,
    /// Length in bytes of the leading part of `text` written without quotes or expansions.
    pub(crate) plain_len: usize,
    /// Unquoted braces (`{a,b}`) that the shell may expand into several words.
    pub(crate) braces: bool,
    /// Source text of every command substitution inside the word.
    pub(crate) substitutions: Vec<String>,
}

impl Word {
    /// Whether the word is exactly `keyword`, unquoted (`if`, `{`, `}`…).
    pub(crate) fn is_keyword(&self, keyword: &str) -> bool {
        !self.quoted && !self.expanded && self.text == keyword
    }

    /// The variable name when the word is an assignment (`NAME=value`, `NAME+=value`).
    pub(crate) fn assigned_name(&self) -> Option<&str> {
        let equals = self.text.find('=')?;
        if equals >= self.plain_len {
            return None;
        }
        let name = self.text[..equals]
            .strip_suffix('+')
            .unwrap_or(&self.text[..equals]);
        let mut chars = name.chars();
        let starts_well = chars
            .next()
            .is_some_and(|first| first.is_ascii_alphabetic() || first == '_');
        (starts_well && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')).then_some(name)
    }
}

/// A control operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// `;` (also `;;`, `;&` of `case`).
    Semi,
    /// `&` (background).
    Amp,
    /// `&&`.
    And,
    /// `||`.
    Or,
    /// `|` or `|&`.
    Pipe,
    /// A line break.
    Newline,
    /// `(`.
    Open,
    /// `)`.
    Close,
}

impl Op {
    /// The operator as written, for messages.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Op::Semi => ";",
            Op::Amp => "&",
            Op::And => "&&",
            Op::Or => "||",
            Op::Pipe => "|",
            Op::Newline => "line break",
            Op::Open => "(",
            Op::Close => ")",
        }
    }
}

/// What a redirection does with its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RedirectKind {
    /// `<`.
    Read,
    /// `>`, `>|`, `&>`.
    Write,
    /// `>>`, `&>>`.
    Append,
    /// `<>`.
    ReadWrite,
    /// `>&target`: a descriptor number, `-`, or (bash) a file name.
    DuplicateOutput,
    /// `<&target`.
    DuplicateInput,
    /// `<<` and `<<-`: the target is the delimiter.
    HereDocument,
    /// `<<<`.
    HereString,
}

/// A redirection with its target word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Redirect {
    /// What it does.
    pub(crate) kind: RedirectKind,
    /// The file, descriptor or delimiter.
    pub(crate) target: Word,
    /// The body of a here-document, as written.
    pub(crate) body: String,
}

/// One token of a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token {
    /// A word.
    Word(Word),
    /// A control operator.
    Op(Op),
    /// A redirection.
    Redirect(Redirect),
}

/// The tokens of a command line and the problems met on the way.
#[derive(Debug, Default)]
pub(crate) struct Lexed {
    /// The tokens in order.
    pub(crate) tokens: Vec<Token>,
    /// Problems, as phrases ("a single quote is never closed").
    pub(crate) problems: Vec<String>,
}

/// Splits `source` into tokens.
pub(crate) fn lex(source: &str) -> Lexed {
    let mut lexer = Lexer::new(source, 0);
    let (tokens, _) = lexer.tokens(false);
    Lexed {
        tokens,
        problems: lexer.problems,
    }
}

/// A here-document whose body starts after the next line break.
struct PendingHereDocument {
    token: usize,
    delimiter: String,
    strip_tabs: bool,
    expands: bool,
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    nesting: usize,
    problems: Vec<String>,
    here_documents: Vec<PendingHereDocument>,
}

impl Lexer {
    fn new(source: &str, nesting: usize) -> Self {
        Self {
            chars: source.chars().collect(),
            pos: 0,
            nesting,
            problems: Vec::new(),
            here_documents: Vec::new(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    fn problem(&mut self, text: &str) {
        if !self.problems.iter().any(|known| known == text) {
            self.problems.push(text.to_string());
        }
    }

    fn text(&self, start: usize, end: usize) -> String {
        self.chars
            .get(start..end.min(self.chars.len()))
            .unwrap_or_default()
            .iter()
            .collect()
    }

    /// Lexes until the end, or (when `until_close`) until an unmatched `)`, which is consumed.
    /// Returns the tokens and whether that `)` was found.
    fn tokens(&mut self, until_close: bool) -> (Vec<Token>, bool) {
        let mut tokens = Vec::new();
        let mut depth = 0usize;
        loop {
            self.skip_blanks();
            let Some(c) = self.peek() else {
                return (tokens, false);
            };
            let next = self.peek_at(1);
            match c {
                '#' => self.skip_comment(),
                '\n' => {
                    self.pos += 1;
                    tokens.push(Token::Op(Op::Newline));
                    self.read_here_documents(&mut tokens);
                }
                ';' => {
                    self.pos += 1;
                    while matches!(self.peek(), Some(';' | '&')) {
                        self.pos += 1;
                    }
                    tokens.push(Token::Op(Op::Semi));
                }
                '&' if next == Some('&') => self.operator(&mut tokens, 2, Op::And),
                '&' if next == Some('>') => self.redirect(&mut tokens),
                '&' => self.operator(&mut tokens, 1, Op::Amp),
                '|' if next == Some('|') => self.operator(&mut tokens, 2, Op::Or),
                '|' if next == Some('&') => self.operator(&mut tokens, 2, Op::Pipe),
                '|' => self.operator(&mut tokens, 1, Op::Pipe),
                '(' => {
                    depth += 1;
                    self.operator(&mut tokens, 1, Op::Open);
                }
                ')' if until_close && depth == 0 => {
                    self.pos += 1;
                    return (tokens, true);
                }
                ')' => {
                    depth = depth.saturating_sub(1);
                    self.operator(&mut tokens, 1, Op::Close);
                }
                '<' | '>' if next != Some('(') => self.redirect(&mut tokens),
                c if c.is_ascii_digit() && self.descriptor_redirect_ahead() => {
                    self.redirect(&mut tokens);
                }
                _ => {
                    let word = self.word();
                    tokens.push(Token::Word(word));
                }
            }
        }
    }

    fn operator(&mut self, tokens: &mut Vec<Token>, width: usize, op: Op) {
        self.pos += width;
        tokens.push(Token::Op(op));
    }

    fn skip_blanks(&mut self) {
        loop {
            match (self.peek(), self.peek_at(1)) {
                (Some(' ' | '\t' | '\r'), _) => self.pos += 1,
                (Some('\\'), Some('\n')) => self.pos += 2,
                _ => return,
            }
        }
    }

    fn skip_comment(&mut self) {
        while self.peek().is_some_and(|c| c != '\n') {
            self.pos += 1;
        }
    }

    /// `2>file`, `10>&1`: digits directly followed by `<` or `>`.
    fn descriptor_redirect_ahead(&self) -> bool {
        let mut offset = 0;
        while self.peek_at(offset).is_some_and(|c| c.is_ascii_digit()) {
            offset += 1;
        }
        matches!(self.peek_at(offset), Some('<' | '>')) && self.peek_at(offset + 1) != Some('(')
    }

    fn redirect(&mut self, tokens: &mut Vec<Token>) {
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        let start = self.pos;
        let (kind, width) = match (self.peek(), self.peek_at(1), self.peek_at(2)) {
            (Some('&'), Some('>'), Some('>')) => (RedirectKind::Append, 3),
            (Some('&'), Some('>'), _) => (RedirectKind::Write, 2),
            (Some('>'), Some('>'), _) => (RedirectKind::Append, 2),
            (Some('>'), Some('|'), _) => (RedirectKind::Write, 2),
            (Some('>'), Some('&'), _) => (RedirectKind::DuplicateOutput, 2),
            (Some('<'), Some('<'), Some('<')) => (RedirectKind::HereString, 3),
            (Some('<'), Some('<'), Some('-')) => (RedirectKind::HereDocument, 3),
            (Some('<'), Some('<'), _) => (RedirectKind::HereDocument, 2),
            (Some('<'), Some('>'), _) => (RedirectKind::ReadWrite, 2),
            (Some('<'), Some('&'), _) => (RedirectKind::DuplicateInput, 2),
            (Some('<'), _, _) => (RedirectKind::Read, 1),
            _ => (RedirectKind::Write, 1),
        };
        self.pos += width;
        let operator = self.text(start, self.pos);
        self.skip_blanks();
        let target_follows = match self.peek() {
            None | Some('\n' | ';' | '&' | '|' | '(' | ')') => false,
            Some('<' | '>') => self.peek_at(1) == Some('('),
            Some(_) => true,
        };
        if !target_follows {
            self.problem(&format!("the redirection `{operator}` has no target"));
            return;
        }
        let target = self.word();
        if kind == RedirectKind::HereDocument {
            self.here_documents.push(PendingHereDocument {
                token: tokens.len(),
                delimiter: target.text.clone(),
                strip_tabs: operator.ends_with('-'),
                expands: !target.quoted,
            });
        }
        tokens.push(Token::Redirect(Redirect {
            kind,
            target,
            body: String::new(),
        }));
    }

    /// Consumes the bodies of the here-documents started on the line just ended.
    fn read_here_documents(&mut self, tokens: &mut [Token]) {
        for document in std::mem::take(&mut self.here_documents) {
            let mut body = String::new();
            while self.pos < self.chars.len() {
                let start = self.pos;
                while self.peek().is_some_and(|c| c != '\n') {
                    self.pos += 1;
                }
                let line = self.text(start, self.pos);
                self.pos += 1;
                let compared = if document.strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    &line
                };
                if compared == document.delimiter {
                    break;
                }
                body.push_str(&line);
                body.push('\n');
            }
            let found = if document.expands {
                self.scan_expansions(&body)
            } else {
                Vec::new()
            };
            if let Some(Token::Redirect(redirect)) = tokens.get_mut(document.token) {
                redirect.target.substitutions.extend(found);
                redirect.body = body;
            }
        }
    }
}

/// The texts of the words of `source` (test helper shared with [`words`]).
#[cfg(test)]
fn word_texts(source: &str) -> Vec<String> {
    lex(source)
        .tokens
        .into_iter()
        .filter_map(|token| match token {
            Token::Word(word) => Some(word.text),
            Token::Op(_) | Token::Redirect(_) => None,
        })
        .collect()
}

/// The single word `source` consists of (test helper shared with [`words`]).
#[cfg(test)]
fn only_word(source: &str) -> Word {
    let mut tokens = lex(source).tokens;
    assert_eq!(tokens.len(), 1, "{tokens:?}");
    match tokens.remove(0) {
        Token::Word(word) => word,
        other => panic!("not a word: {other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_split_words_even_without_spaces() {
        let tokens = lex("ls;pwd&&a||b|c&d").tokens;
        let ops: Vec<Op> = tokens
            .iter()
            .filter_map(|token| match token {
                Token::Op(op) => Some(*op),
                Token::Word(_) | Token::Redirect(_) => None,
            })
            .collect();
        assert_eq!(ops, [Op::Semi, Op::And, Op::Or, Op::Pipe, Op::Amp]);
    }

    #[test]
    fn redirections_take_their_target_word() {
        let tokens = lex("cmd 2>&1 >>log <in &>/dev/null <<<'text'").tokens;
        let kinds: Vec<(RedirectKind, String)> = tokens
            .into_iter()
            .filter_map(|token| match token {
                Token::Redirect(redirect) => Some((redirect.kind, redirect.target.text)),
                Token::Word(_) | Token::Op(_) => None,
            })
            .collect();
        assert_eq!(
            kinds,
            [
                (RedirectKind::DuplicateOutput, "1".to_string()),
                (RedirectKind::Append, "log".to_string()),
                (RedirectKind::Read, "in".to_string()),
                (RedirectKind::Write, "/dev/null".to_string()),
                (RedirectKind::HereString, "text".to_string()),
            ]
        );
    }

    #[test]
    fn here_document_bodies_are_skipped_and_expanding_ones_are_scanned() {
        let lexed = lex("cat <<EOF | sh\nrm -rf x; $(reboot)\nEOF\nls");
        assert!(lexed.problems.is_empty(), "{:?}", lexed.problems);
        assert_eq!(
            lexed.tokens.last(),
            Some(&Token::Word(Word {
                text: "ls".into(),
                plain_len: 2,
                ..Word::default()
            }))
        );
        let Some(Token::Redirect(redirect)) = lexed.tokens.get(1) else {
            panic!("{:?}", lexed.tokens);
        };
        assert_eq!(redirect.target.substitutions, ["reboot"]);
        let quoted = lex("cat <<'EOF'\n$(reboot)\nEOF\n").tokens;
        let Some(Token::Redirect(redirect)) = quoted.get(1) else {
            panic!("{quoted:?}");
        };
        assert!(redirect.target.substitutions.is_empty());
    }

    #[test]
    fn comments_end_the_line() {
        assert_eq!(word_texts("ls # rm -rf /\npwd"), ["ls", "pwd"]);
        assert_eq!(word_texts("a#b"), ["a#b"]);
    }

    #[test]
    fn unterminated_quotes_are_problems_not_panics() {
        for source in [
            "'abc", "\"abc", "`abc", "$(abc", "${abc", "$'abc", "ls >", "\\",
        ] {
            let lexed = lex(source);
            assert!(!lexed.problems.is_empty() || source == "\\", "{source}");
        }
        assert_eq!(word_texts("rm -rf 'x"), ["rm", "-rf", "x"]);
    }

    #[test]
    fn assignments_need_an_unquoted_name_and_equals_sign() {
        assert_eq!(only_word("FOO=1").assigned_name(), Some("FOO"));
        assert_eq!(only_word("PATH+=:x").assigned_name(), Some("PATH"));
        assert_eq!(only_word("A=\"b c\"").assigned_name(), Some("A"));
        assert_eq!(only_word("\"A=b\"").assigned_name(), None);
        assert_eq!(only_word("1A=b").assigned_name(), None);
        assert_eq!(only_word("--flag=x").assigned_name(), None);
    }

    #[test]
    fn deep_nesting_stops_at_the_limit_without_overflowing() {
        let source = format!("{}x{}", "$(".repeat(200), ")".repeat(200));
        let lexed = lex(&source);
        assert!(
            lexed
                .problems
                .iter()
                .any(|problem| problem.contains("nested too deeply"))
        );
    }
}
