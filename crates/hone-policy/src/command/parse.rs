//! The shell parser: tokens to lists of pipelines of simple commands.
//!
//! Only the structure that matters for classification is kept: which simple commands
//! run, which of them are connected by pipes, and which redirections apply to them.
//! `&&`, `||`, `;`, `&` and line breaks all just separate pipelines. Reserved words of
//! compound commands (`if`, `then`, `do`, `done`, `!`…) are skipped so that the
//! commands inside them are seen. Parsing never fails: problems are recorded and
//! parsing resumes at the next token.

use std::iter::Peekable;
use std::vec::IntoIter;

use super::lexer::{self, Op, Redirect, Token, Word};

/// Commands separated by `;`, `&`, `&&`, `||` or line breaks.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Script {
    /// The pipelines in order.
    pub(crate) pipelines: Vec<Pipeline>,
}

/// Stages connected by `|`: each stage reads what the one before it writes.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Pipeline {
    /// The stages in order.
    pub(crate) stages: Vec<Stage>,
}

/// One stage of a pipeline.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    /// A simple command.
    Simple(SimpleCommand),
    /// A subshell `( … )` or group `{ …; }`, with redirections applying to all of it.
    Group {
        /// The commands inside.
        body: Script,
        /// Redirections after the closing `)` or `}`.
        redirects: Vec<Redirect>,
    },
}

/// Assignments, words and redirections of one simple command.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct SimpleCommand {
    /// Leading `NAME=value` words.
    pub(crate) assignments: Vec<Word>,
    /// The program and its arguments.
    pub(crate) words: Vec<Word>,
    /// Redirections, wherever they appeared.
    pub(crate) redirects: Vec<Redirect>,
}

/// A parsed command line and the problems met while lexing and parsing it.
#[derive(Debug)]
pub(crate) struct Parsed {
    /// What was understood.
    pub(crate) script: Script,
    /// Problems, as phrases ("a single quote is never closed").
    pub(crate) problems: Vec<String>,
}

/// Lexes and parses `source`.
pub(crate) fn parse(source: &str) -> Parsed {
    let lexed = lexer::lex(source);
    let mut parser = Parser {
        tokens: lexed.tokens.into_iter().peekable(),
        problems: lexed.problems,
        depth: 0,
    };
    let script = parser.script(Closer::End);
    Parsed {
        script,
        problems: parser.problems,
    }
}

/// Reserved words that open or continue compound commands; the command after them is
/// what runs.
/// How deeply `( … )` and `{ …; }` may nest; deeper groups are read as flat lists.
const MAX_GROUP_DEPTH: usize = 64;

const SKIPPED_KEYWORDS: &[&str] = &[
    "!", "if", "then", "elif", "else", "fi", "do", "done", "while", "until", "esac",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Closer {
    End,
    Paren,
    Brace,
}

struct Parser {
    tokens: Peekable<IntoIter<Token>>,
    problems: Vec<String>,
    depth: usize,
}

impl Parser {
    fn problem(&mut self, text: String) {
        if !self.problems.contains(&text) {
            self.problems.push(text);
        }
    }

    fn peek_op(&mut self) -> Option<Op> {
        match self.tokens.peek() {
            Some(Token::Op(op)) => Some(*op),
            Some(Token::Word(_) | Token::Redirect(_)) | None => None,
        }
    }

    fn skip_newlines(&mut self) {
        while self.peek_op() == Some(Op::Newline) {
            self.tokens.next();
        }
    }

    /// Whether a command can start at the next token.
    fn command_follows(&mut self) -> bool {
        match self.tokens.peek() {
            None => false,
            Some(Token::Op(op)) => *op == Op::Open,
            Some(Token::Word(_) | Token::Redirect(_)) => true,
        }
    }

    fn script(&mut self, closer: Closer) -> Script {
        let mut script = Script::default();
        loop {
            let Some(token) = self.tokens.peek() else {
                match closer {
                    Closer::End => {}
                    Closer::Paren => self.problem("a `(` is never closed".into()),
                    Closer::Brace => self.problem("a `{` is never closed".into()),
                }
                return script;
            };
            match token {
                Token::Op(Op::Semi | Op::Amp | Op::Newline) => {
                    self.tokens.next();
                }
                Token::Op(Op::Close) => {
                    self.tokens.next();
                    if closer == Closer::Paren {
                        return script;
                    }
                    self.problem("unexpected `)`".into());
                }
                Token::Op(op @ (Op::And | Op::Or | Op::Pipe)) => {
                    let text = format!("`{}` is not preceded by a command", op.as_str());
                    self.tokens.next();
                    self.problem(text);
                }
                Token::Word(word) if closer == Closer::Brace && word.is_keyword("}") => {
                    self.tokens.next();
                    return script;
                }
                Token::Op(Op::Open) | Token::Word(_) | Token::Redirect(_) => {
                    let pipeline = self.pipeline();
                    script.pipelines.push(pipeline);
                    self.after_pipeline();
                }
            }
        }
    }

    /// Consumes `&&` / `||` after a pipeline and notes a missing separator.
    fn after_pipeline(&mut self) {
        match self.peek_op() {
            Some(op @ (Op::And | Op::Or)) => {
                self.tokens.next();
                self.skip_newlines();
                if !self.command_follows() {
                    self.problem(format!("`{}` is not followed by a command", op.as_str()));
                }
            }
            Some(Op::Open) => self.problem("unexpected `(`".into()),
            Some(Op::Semi | Op::Amp | Op::Newline | Op::Close | Op::Pipe) | None => {}
        }
    }

    fn pipeline(&mut self) -> Pipeline {
        let mut pipeline = Pipeline {
            stages: vec![self.stage()],
        };
        while self.peek_op() == Some(Op::Pipe) {
            self.tokens.next();
            self.skip_newlines();
            if !self.command_follows() {
                self.problem("`|` is not followed by a command".into());
                break;
            }
            pipeline.stages.push(self.stage());
        }
        pipeline
    }

    fn stage(&mut self) -> Stage {
        loop {
            match self.tokens.peek() {
                Some(Token::Word(word)) if SKIPPED_KEYWORDS.iter().any(|k| word.is_keyword(k)) => {
                    self.tokens.next();
                }
                Some(Token::Word(word)) if word.is_keyword("}") => {
                    self.tokens.next();
                    self.problem("unexpected `}`".into());
                }
                Some(Token::Word(word)) if word.is_keyword("{") => {
                    self.tokens.next();
                    return self.group(Closer::Brace);
                }
                Some(Token::Op(Op::Open)) => {
                    self.tokens.next();
                    return self.group(Closer::Paren);
                }
                Some(Token::Word(_) | Token::Redirect(_) | Token::Op(_)) | None => {
                    return Stage::Simple(self.simple());
                }
            }
        }
    }

    fn group(&mut self, closer: Closer) -> Stage {
        if self.depth >= MAX_GROUP_DEPTH {
            self.problem("groups are nested too deeply to be analysed".into());
            return Stage::Simple(SimpleCommand::default());
        }
        self.depth += 1;
        let body = self.script(closer);
        self.depth -= 1;
        let mut redirects = Vec::new();
        while let Some(Token::Redirect(_)) = self.tokens.peek() {
            if let Some(Token::Redirect(redirect)) = self.tokens.next() {
                redirects.push(redirect);
            }
        }
        Stage::Group { body, redirects }
    }

    fn simple(&mut self) -> SimpleCommand {
        let mut command = SimpleCommand::default();
        while let Some(Token::Word(_) | Token::Redirect(_)) = self.tokens.peek() {
            match self.tokens.next() {
                Some(Token::Word(word)) => {
                    if command.words.is_empty() && word.assigned_name().is_some() {
                        command.assignments.push(word);
                    } else {
                        command.words.push(word);
                    }
                }
                Some(Token::Redirect(redirect)) => command.redirects.push(redirect),
                Some(Token::Op(_)) | None => {}
            }
        }
        command
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words of every simple command, pipeline by pipeline, stage by stage.
    fn shape(source: &str) -> Vec<Vec<Vec<String>>> {
        fn walk(script: &Script) -> Vec<Vec<Vec<String>>> {
            script
                .pipelines
                .iter()
                .map(|pipeline| {
                    pipeline
                        .stages
                        .iter()
                        .flat_map(|stage| match stage {
                            Stage::Simple(command) => {
                                vec![command.words.iter().map(|w| w.text.clone()).collect()]
                            }
                            Stage::Group { body, .. } => walk(body).into_iter().flatten().collect(),
                        })
                        .collect()
                })
                .collect()
        }
        walk(&parse(source).script)
    }

    fn problems(source: &str) -> Vec<String> {
        parse(source).problems
    }

    #[test]
    fn lists_and_pipelines_are_separated() {
        assert_eq!(
            shape("a 1; b && c || d | e\nf &"),
            vec![
                vec![vec!["a", "1"]],
                vec![vec!["b"]],
                vec![vec!["c"]],
                vec![vec!["d"], vec!["e"]],
                vec![vec!["f"]],
            ]
            .into_iter()
            .map(|p| p
                .into_iter()
                .map(|s| s.into_iter().map(String::from).collect())
                .collect())
            .collect::<Vec<Vec<Vec<String>>>>()
        );
    }

    #[test]
    fn subshells_and_groups_keep_their_commands_and_redirections() {
        let parsed = parse("(cd x && rm -rf y) > out; { ls; } | sh");
        assert!(parsed.problems.is_empty(), "{:?}", parsed.problems);
        let Some(Stage::Group { body, redirects }) = parsed.script.pipelines[0].stages.first()
        else {
            panic!("{:?}", parsed.script);
        };
        assert_eq!(body.pipelines.len(), 2);
        assert_eq!(redirects[0].target.text, "out");
        assert_eq!(parsed.script.pipelines[1].stages.len(), 2);
    }

    #[test]
    fn assignments_are_only_recognised_before_the_program() {
        let parsed = parse("A=1 B=$(x) cmd C=2");
        let Some(Stage::Simple(command)) = parsed.script.pipelines[0].stages.first() else {
            panic!("{:?}", parsed.script);
        };
        assert_eq!(command.assignments.len(), 2);
        assert_eq!(command.words.len(), 2);
    }

    #[test]
    fn compound_command_keywords_are_skipped() {
        let shape = shape("if test -f x; then rm y; else ! ls; fi");
        let programs: Vec<&str> = shape
            .iter()
            .flatten()
            .filter_map(|words| words.first())
            .map(String::as_str)
            .collect();
        assert_eq!(programs, ["test", "rm", "ls"]);
        assert!(problems("while true; do date; done").is_empty());
    }

    #[test]
    fn syntax_errors_are_recorded_and_parsing_continues() {
        assert!(!problems("ls &&").is_empty());
        assert!(!problems("| ls").is_empty());
        assert!(!problems("(ls").is_empty());
        assert!(!problems("ls )").is_empty());
        assert!(!problems("f() { rm -rf x; }").is_empty());
        let shape = shape("f() { rm -rf x; }");
        assert!(
            shape
                .iter()
                .flatten()
                .any(|words| words.first().map(String::as_str) == Some("rm"))
        );
    }

    #[test]
    fn deeply_nested_groups_are_flattened_instead_of_overflowing() {
        let source = format!("{}rm -rf x{}", "(".repeat(100_000), ")".repeat(100_000));
        let parsed = parse(&source);
        assert!(
            parsed
                .problems
                .iter()
                .any(|problem| problem.contains("nested too deeply"))
        );
        let shape = shape(&source);
        assert!(
            shape
                .iter()
                .flatten()
                .any(|words| words.first().map(String::as_str) == Some("rm"))
        );
    }

    #[test]
    fn separators_alone_make_an_empty_script() {
        assert!(parse(" ;; \n ; ").script.pipelines.is_empty());
        assert!(parse("").script.pipelines.is_empty());
    }
}
