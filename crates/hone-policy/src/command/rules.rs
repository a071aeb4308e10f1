//! User rules from `[permissions]`: a command prefix (`cargo test`) or a glob over a
//! command's words (`git log *`), matched against every simple command after wrappers
//! are unwrapped, quotes removed and the program reduced to its base name.

use globset::{Glob, GlobMatcher};

use crate::PolicyError;

/// The words of one simple command as rules see them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CommandWords {
    /// The program's base name, then the arguments.
    words: Vec<String>,
    /// The program as written (without a leading `./`) when it contains a `/`.
    path: Option<String>,
}

impl CommandWords {
    /// Words as written; the first is the program.
    pub(crate) fn new(mut words: Vec<String>) -> Self {
        let path = words
            .first()
            .filter(|program| program.contains('/'))
            .map(|program| without_dot_slash(program).to_string());
        if let Some(program) = words.first_mut() {
            *program = base_name(program).to_string();
        }
        Self { words, path }
    }

    /// The program's base name, then the arguments.
    pub(crate) fn words(&self) -> &[String] {
        &self.words
    }

    /// The program's base name (`rm` for `/bin/rm`).
    pub(crate) fn program(&self) -> &str {
        self.words.first().map_or("", String::as_str)
    }

    /// Whether the program is a relative path (`./ls`, `scripts/x`): a file of the project,
    /// not the system program of the same name.
    pub(crate) fn runs_project_file(&self) -> bool {
        self.path
            .as_deref()
            .is_some_and(|path| !path.starts_with('/'))
    }

    /// The words with the program as written.
    fn with_path(&self) -> Option<Vec<String>> {
        let path = self.path.clone()?;
        Some(
            std::iter::once(path)
                .chain(self.words.iter().skip(1).cloned())
                .collect(),
        )
    }
}

fn without_dot_slash(path: &str) -> &str {
    let mut path = path;
    while let Some(rest) = path.strip_prefix("./") {
        path = rest;
    }
    path
}

fn base_name(program: &str) -> &str {
    program
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|name| !name.is_empty())
        .unwrap_or(program)
}

/// Characters of shell syntax that have no place in a rule.
const SHELL_SYNTAX: &[char] = &[';', '|', '&', '<', '>', '(', ')', '$', '`', '\'', '"', '\n'];

/// One allow or deny rule.
#[derive(Debug, Clone)]
pub(crate) struct Rule {
    source: String,
    pattern: Pattern,
    /// The rule names its program by path (`./scripts/check.sh`).
    program_path: bool,
}

#[derive(Debug, Clone)]
enum Pattern {
    Prefix(Vec<String>),
    /// The pattern, and for `git log *` also `git log` alone.
    Glob(Vec<GlobMatcher>),
}

impl Rule {
    /// Parses a configured rule: a command prefix, or a glob when it contains `*`, `?` or `[`.
    pub(crate) fn parse(text: &str) -> Result<Self, PolicyError> {
        let invalid = |reason: String| PolicyError::InvalidRule {
            rule: text.to_string(),
            reason,
        };
        let words: Vec<String> = text.split_whitespace().map(String::from).collect();
        if words.is_empty() {
            return Err(invalid(
                "the rule is empty; write a command prefix such as `cargo test`".into(),
            ));
        }
        if let Some(found) = text.chars().find(|c| SHELL_SYNTAX.contains(c)) {
            return Err(invalid(format!(
                "`{found}` is shell syntax; a rule is one command's prefix or a glob over its words, e.g. `cargo test` or `git log *`"
            )));
        }
        if !text.contains(['*', '?', '[']) {
            return Ok(Self::from_prefix(words));
        }
        let joined = words.join(" ");
        let mut patterns = vec![joined.clone()];
        if let Some(bare) = joined.strip_suffix(" *") {
            patterns.push(bare.to_string());
        }
        let matchers = patterns
            .iter()
            .map(|pattern| Glob::new(pattern).map(|glob| glob.compile_matcher()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| invalid(format!("not a valid glob: {error}")))?;
        Ok(Self {
            source: text.trim().to_string(),
            program_path: words[0].contains('/'),
            pattern: Pattern::Glob(matchers),
        })
    }

    /// A prefix of whitespace-separated words, taken literally (session grants); `None`
    /// when there are no words.
    pub(crate) fn prefix(text: &str) -> Option<Self> {
        let words: Vec<String> = text.split_whitespace().map(String::from).collect();
        (!words.is_empty()).then(|| Self::from_prefix(words))
    }

    fn from_prefix(mut words: Vec<String>) -> Self {
        let source = words.join(" ");
        let program_path = words[0].contains('/');
        if program_path {
            words[0] = without_dot_slash(&words[0]).to_string();
        }
        Self {
            source,
            pattern: Pattern::Prefix(words),
            program_path,
        }
    }

    /// The rule as written.
    pub(crate) fn source(&self) -> &str {
        &self.source
    }

    fn matches(&self, words: &[String], program_by_base_name: bool) -> bool {
        match &self.pattern {
            Pattern::Prefix(prefix) => {
                words.len() >= prefix.len()
                    && prefix
                        .iter()
                        .zip(words)
                        .enumerate()
                        .all(|(index, (expected, word))| {
                            if index == 0 && program_by_base_name {
                                base_name(expected) == word
                            } else {
                                expected == word
                            }
                        })
            }
            Pattern::Glob(matchers) => {
                let joined = words.join(" ");
                matchers.iter().any(|matcher| matcher.is_match(&joined))
            }
        }
    }

    /// Deny rules catch the program however it is written: `rm` also denies `/bin/rm`
    /// and `./rm`, and `/usr/bin/curl` also denies `curl`.
    pub(crate) fn denies(&self, command: &CommandWords) -> bool {
        self.matches(command.words(), true)
            || command
                .with_path()
                .is_some_and(|words| self.matches(&words, false))
    }

    /// Allow rules are strict about paths: `cat` allows `cat` and `/bin/cat` but not a
    /// project file `./cat`, which only a rule naming that path (`./cat`) allows.
    pub(crate) fn allows(&self, command: &CommandWords) -> bool {
        if self.program_path {
            command
                .with_path()
                .is_some_and(|words| self.matches(&words, false))
        } else {
            !command.runs_project_file() && self.matches(command.words(), false)
        }
    }
}

/// The configured allow and deny rules.
#[derive(Debug, Clone, Default)]
pub(crate) struct RuleSet {
    allow: Vec<Rule>,
    deny: Vec<Rule>,
}

impl RuleSet {
    /// Parses both lists; the first invalid rule is the error.
    pub(crate) fn new(allow: &[String], deny: &[String]) -> Result<Self, PolicyError> {
        let parse = |rules: &[String]| {
            rules
                .iter()
                .map(|rule| Rule::parse(rule))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(Self {
            allow: parse(allow)?,
            deny: parse(deny)?,
        })
    }

    /// The first deny rule matching `command`.
    pub(crate) fn denying(&self, command: &CommandWords) -> Option<&str> {
        self.deny
            .iter()
            .find(|rule| rule.denies(command))
            .map(Rule::source)
    }

    /// The first allow rule matching `command`.
    pub(crate) fn allowing(&self, command: &CommandWords) -> Option<&str> {
        self.allow
            .iter()
            .find(|rule| rule.allows(command))
            .map(Rule::source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(line: &str) -> CommandWords {
        CommandWords::new(line.split_whitespace().map(String::from).collect())
    }

    fn rule(text: &str) -> Rule {
        Rule::parse(text).unwrap()
    }

    #[test]
    fn programs_are_matched_by_base_name() {
        let words = command("/usr/bin/git status");
        assert_eq!(words.words(), ["git", "status"]);
        assert!(!words.runs_project_file());
        assert!(command("./ls").runs_project_file());
        assert_eq!(command("./ls").program(), "ls");
    }

    #[test]
    fn prefix_rules_match_whole_words() {
        let cargo_test = rule("cargo  test");
        assert!(cargo_test.allows(&command("cargo test --all")));
        assert!(cargo_test.allows(&command("/usr/bin/cargo test")));
        assert!(!cargo_test.allows(&command("cargo testing")));
        assert!(!cargo_test.allows(&command("cargo")));
        assert_eq!(cargo_test.source(), "cargo test");
    }

    #[test]
    fn glob_rules_match_the_joined_words_and_a_trailing_star_also_matches_nothing() {
        let log = rule("git log *");
        assert!(log.allows(&command("git log --oneline -5")));
        assert!(log.allows(&command("git log")));
        assert!(!log.allows(&command("git logs")));
        let lint = rule("npm run lint*");
        assert!(lint.allows(&command("npm run lint:fix")));
        assert!(rule("make ?").allows(&command("make x")));
    }

    #[test]
    fn allow_rules_do_not_cover_project_files_with_the_same_name() {
        assert!(!rule("cat").allows(&command("./cat x")));
        assert!(rule("./scripts/check.sh").allows(&command("scripts/check.sh --fast")));
        assert!(rule("scripts/check.sh").allows(&command("./scripts/check.sh")));
        assert!(!rule("./scripts/check.sh").allows(&command("check.sh")));
    }

    #[test]
    fn deny_rules_match_the_program_however_it_is_written() {
        assert!(rule("curl").denies(&command("/usr/bin/curl x")));
        assert!(rule("curl").denies(&command("./curl x")));
        assert!(rule("/usr/bin/curl").denies(&command("curl x")));
        assert!(rule("npm run deploy*").denies(&command("npm run deploy-prod")));
    }

    #[test]
    fn invalid_rules_explain_what_to_write() {
        for text in ["", "   ", "ls; rm", "a | b", "$(x)", "echo 'x'"] {
            let error = Rule::parse(text).unwrap_err().to_string();
            assert!(error.contains("cargo test"), "{text}: {error}");
        }
        assert!(Rule::parse("git log [").is_err());
    }

    #[test]
    fn session_prefixes_are_taken_literally() {
        let grant = Rule::prefix("make [x]").unwrap();
        assert!(grant.allows(&command("make [x] y")));
        assert!(Rule::prefix("  ").is_none());
    }

    #[test]
    fn the_first_matching_rule_is_reported() {
        let rules = RuleSet::new(
            &["cargo *".into(), "cargo test".into()],
            &["cargo publish".into()],
        )
        .unwrap();
        assert_eq!(rules.allowing(&command("cargo test")), Some("cargo *"));
        assert_eq!(
            rules.denying(&command("cargo publish")),
            Some("cargo publish")
        );
        assert_eq!(rules.denying(&command("cargo test")), None);
        assert!(RuleSet::new(&["ok".into()], &["bad;".into()]).is_err());
    }
}
