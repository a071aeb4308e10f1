//! Shell command classification: a command line is tokenized and parsed like the shell
//! would, every simple command in it (including those inside `$(…)`, `bash -c`, `eval`,
//! `find -exec` and behind wrappers such as `env`, `timeout` and `xargs`) is classified
//! as allowed, asking or denied, and the most restrictive class wins.

mod allow;
mod analysis;
mod args;
mod context;
mod deny;
mod git;
mod lexer;
mod parse;
mod reads;
mod rules;
mod text;
mod walk;
mod wrappers;

pub(crate) use analysis::{Analysis, Leaf};
pub(crate) use rules::Rule;

use rules::RuleSet;

use crate::{PathGuard, PolicyError};

/// How a command is treated before the approval mode is considered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CommandClass {
    /// Known to only read: runs without asking (except in read-only mode).
    Allow,
    /// Needs the user's approval unless the mode or a session grant allows it.
    Ask,
    /// Never runs, in any mode.
    Deny,
}

/// The classification of a whole command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandVerdict {
    /// The most restrictive class among the command's parts.
    pub class: CommandClass,
    /// Why, as a sentence for the user and the model (``"`rm -rf x` is denied: recursive deletion"``).
    pub reason: String,
    /// Every simple command that would run, as text, after wrappers are unwrapped.
    pub sub_commands: Vec<String>,
}

/// Classifies shell commands with the built-in allow and deny lists plus the user's rules.
///
/// ```
/// use hone_policy::{CommandClass, CommandPolicy};
///
/// let policy = CommandPolicy::new(&["cargo test".into()], &["npm run deploy".into()])?;
/// assert_eq!(policy.classify("git status && rg TODO src").class, CommandClass::Allow);
/// assert_eq!(policy.classify("cargo test --workspace").class, CommandClass::Allow);
/// assert_eq!(policy.classify("npm install").class, CommandClass::Ask);
/// let verdict = policy.classify("ls; bash -c 'rm -rf build'");
/// assert_eq!(verdict.class, CommandClass::Deny);
/// assert_eq!(verdict.sub_commands, ["ls", "rm -rf build"]);
/// # Ok::<(), hone_policy::PolicyError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct CommandPolicy {
    rules: RuleSet,
    /// The project whose paths stay inside; without it paths are judged by their text.
    project: Option<PathGuard>,
}

impl CommandPolicy {
    /// The built-in lists plus the user's rules. A rule is a command prefix (`cargo test`,
    /// `npm run lint`) or, when it contains `*`, `?` or `[`, a glob (`git log *`), matched
    /// against the words of each simple command with the program reduced to its base name.
    /// A trailing ` *` also matches the prefix alone. Deny rules beat allow rules and the
    /// built-in allow list; allow rules never override the built-in deny list.
    pub fn new(extra_allow: &[String], extra_deny: &[String]) -> Result<Self, PolicyError> {
        Ok(Self {
            rules: RuleSet::new(extra_allow, extra_deny)?,
            project: None,
        })
    }

    /// Judges the paths commands read against this project: symlinks are resolved,
    /// `.honeignore` is honoured, and `cd`/`git -C` into a nested git repository asks.
    /// Without it, `~`, absolute paths and `..` that climbs out ask.
    pub fn with_project(mut self, guard: PathGuard) -> Self {
        self.project = Some(guard);
        self
    }

    /// Classifies a command line. Never panics: input that cannot be fully parsed
    /// (unclosed quotes, stray parentheses) asks, unless a denied command is still
    /// recognisable in it, which denies.
    pub fn classify(&self, command: &str) -> CommandVerdict {
        self.analyse(command).verdict()
    }

    /// Every simple command of `command` with its class, for session grants.
    pub(crate) fn analyse(&self, command: &str) -> Analysis {
        walk::analyse(&self.rules, self.project.as_ref(), command)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(allow: &[&str], deny: &[&str]) -> CommandPolicy {
        let strings = |rules: &[&str]| {
            rules
                .iter()
                .map(|rule| (*rule).to_string())
                .collect::<Vec<_>>()
        };
        CommandPolicy::new(&strings(allow), &strings(deny)).unwrap()
    }

    #[test]
    fn user_allow_rules_work_as_prefix_and_as_glob() {
        let policy = policy(&["cargo test", "npm run lint*", "make *"], &[]);
        assert_eq!(
            policy.classify("cargo test --workspace").class,
            CommandClass::Allow
        );
        assert_eq!(policy.classify("cargo build").class, CommandClass::Ask);
        assert_eq!(
            policy.classify("npm run lint:fix").class,
            CommandClass::Allow
        );
        assert_eq!(policy.classify("make").class, CommandClass::Allow);
        let verdict = policy.classify("timeout 60 cargo test");
        assert_eq!(verdict.class, CommandClass::Allow);
        assert!(
            verdict.reason.contains("your rule `cargo test`"),
            "{verdict:?}"
        );
    }

    #[test]
    fn user_deny_rules_work_as_prefix_and_as_glob_and_beat_the_allow_list() {
        let policy = policy(&[], &["git log", "cat *.env"]);
        let verdict = policy.classify("git status; git log -p");
        assert_eq!(verdict.class, CommandClass::Deny);
        assert!(
            verdict.reason.contains("denied by your rule `git log`"),
            "{verdict:?}"
        );
        assert_eq!(policy.classify("cat prod.env").class, CommandClass::Deny);
        assert_eq!(policy.classify("cat README.md").class, CommandClass::Allow);
    }

    #[test]
    fn a_deny_rule_beats_an_allow_rule_for_the_same_command() {
        let policy = policy(&["npm run *"], &["npm run deploy"]);
        assert_eq!(policy.classify("npm run build").class, CommandClass::Allow);
        assert_eq!(
            policy.classify("npm run deploy --prod").class,
            CommandClass::Deny
        );
    }

    #[test]
    fn deny_rules_also_see_wrappers_and_what_they_run() {
        let policy = policy(&[], &["bash", "curl"]);
        assert_eq!(policy.classify("bash -c 'ls'").class, CommandClass::Deny);
        assert_eq!(
            policy.classify("env /usr/bin/curl x").class,
            CommandClass::Deny
        );
    }

    #[test]
    fn allow_rules_never_override_the_built_in_deny_list_or_output_checks() {
        let policy = policy(&["git *", "rm *", "*"], &[]);
        assert_eq!(
            policy.classify("git push --force").class,
            CommandClass::Deny
        );
        assert_eq!(policy.classify("rm -rf x").class, CommandClass::Deny);
        assert_eq!(
            policy.classify("git log > out.txt").class,
            CommandClass::Ask
        );
        assert_eq!(
            policy.classify("anything at all").class,
            CommandClass::Allow
        );
    }

    #[test]
    fn invalid_rules_are_reported_with_the_rule() {
        let error = CommandPolicy::new(&["ls && rm".into()], &[]).unwrap_err();
        assert!(matches!(&error, PolicyError::InvalidRule { rule, .. } if rule == "ls && rm"));
    }
}
