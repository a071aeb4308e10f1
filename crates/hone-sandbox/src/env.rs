//! Which environment variables a child process must not see.

use std::collections::BTreeSet;
use std::ffi::OsStr;

/// Name endings (upper case) that mark a variable as a secret, besides the known key
/// variables: `*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`, and the like.
pub const SECRET_PATTERNS: [&str; 11] = [
    "_API_KEY",
    "_APIKEY",
    "_TOKEN",
    "_SECRET",
    "_SECRET_KEY",
    "_SECRET_ACCESS_KEY",
    "_ACCESS_KEY",
    "_PRIVATE_KEY",
    "_PASSWORD",
    "_PASSWD",
    "_CREDENTIALS",
];

/// Names (upper case) that are secrets on their own.
const SECRET_NAMES: [&str; 4] = ["API_KEY", "TOKEN", "PASSWORD", "SECRET"];

/// Values shorter than this are not collected for redaction: they would mangle ordinary
/// text and cannot be real keys.
const MIN_REDACTED_LENGTH: usize = 8;

/// Decides which environment variables are secrets: the known key variables (every
/// vendor's, every configured `api_key_env`) and names matching [`SECRET_PATTERNS`],
/// except the names the user lets through.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecretScrub {
    known: BTreeSet<String>,
    passthrough: BTreeSet<String>,
}

impl SecretScrub {
    /// A scrub of the `known` key variables and the generic patterns, letting the
    /// `passthrough` names through.
    pub fn new<K, P>(known: K, passthrough: P) -> Self
    where
        K: IntoIterator,
        K::Item: Into<String>,
        P: IntoIterator,
        P::Item: Into<String>,
    {
        Self {
            known: known.into_iter().map(Into::into).collect(),
            passthrough: passthrough.into_iter().map(Into::into).collect(),
        }
    }

    /// Whether a variable named `name` must be kept from child processes.
    pub fn is_secret(&self, name: &str) -> bool {
        if self.passthrough.contains(name) {
            return false;
        }
        if self.known.contains(name) {
            return true;
        }
        let upper = name.to_ascii_uppercase();
        SECRET_NAMES.contains(&upper.as_str())
            || upper.contains("API_KEY")
            || SECRET_PATTERNS
                .iter()
                .any(|pattern| upper.ends_with(pattern))
    }

    /// The names among `vars` (an environment, e.g. `std::env::vars_os()`) to remove
    /// from a child's environment, sorted.
    pub fn names_to_remove<I, N, V>(&self, vars: I) -> Vec<String>
    where
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        let mut names: Vec<String> = vars
            .into_iter()
            .filter_map(|(name, _)| name.as_ref().to_str().map(str::to_string))
            .filter(|name| self.is_secret(name))
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// The values of the secret variables among `vars` that are long enough to be keys, to
    /// redact wherever hone writes text (logs, events, the session store). Passed-through
    /// names are included: letting a variable through to commands does not make it fit to
    /// log.
    pub fn values_to_redact<I, N, V>(&self, vars: I) -> Vec<String>
    where
        I: IntoIterator<Item = (N, V)>,
        N: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        let everything = Self {
            known: self.known.clone(),
            passthrough: BTreeSet::new(),
        };
        let mut values: Vec<String> = vars
            .into_iter()
            .filter(|(name, _)| {
                name.as_ref()
                    .to_str()
                    .is_some_and(|name| everything.is_secret(name))
            })
            .filter_map(|(_, value)| value.as_ref().to_str().map(str::to_string))
            .filter(|value| value.trim().len() >= MIN_REDACTED_LENGTH)
            .collect();
        values.sort();
        values.dedup();
        values
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scrub() -> SecretScrub {
        SecretScrub::new(["ANTHROPIC_API_KEY", "MY_LLM_KEY"], ["CI_JOB_TOKEN"])
    }

    #[test]
    fn known_variables_and_generic_patterns_are_secrets() {
        let scrub = scrub();
        for name in [
            "ANTHROPIC_API_KEY",
            "MY_LLM_KEY",
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_SESSION_TOKEN",
            "DB_PASSWORD",
            "stripe_secret",
            "OPENAI_API_KEY_2",
            "TOKEN",
        ] {
            assert!(scrub.is_secret(name), "{name}");
        }
    }

    #[test]
    fn ordinary_variables_and_passthrough_names_are_kept() {
        let scrub = scrub();
        for name in [
            "PATH",
            "HOME",
            "TOKENIZERS_PARALLELISM",
            "SSH_AUTH_SOCK",
            "CI_JOB_TOKEN",
            "KEYBOARD",
        ] {
            assert!(!scrub.is_secret(name), "{name}");
        }
    }

    #[test]
    fn names_to_remove_come_from_the_environment_given() {
        let vars = [
            ("PATH", "/bin"),
            ("OPENAI_API_KEY", "sk-1"),
            ("GITHUB_TOKEN", "ghp"),
            ("CI_JOB_TOKEN", "x"),
        ];
        assert_eq!(
            scrub().names_to_remove(vars),
            ["GITHUB_TOKEN", "OPENAI_API_KEY"]
        );
    }

    #[test]
    fn values_to_redact_skip_short_values_but_include_passthrough_names() {
        let vars = [
            ("PATH", "/usr/local/bin:/bin"),
            ("ANTHROPIC_API_KEY", "sk-ant-canary-123"),
            ("SOME_TOKEN", "1"),
            ("CI_JOB_TOKEN", "job-token-abcdef"),
        ];
        assert_eq!(
            scrub().values_to_redact(vars),
            ["job-token-abcdef", "sk-ant-canary-123"]
        );
    }
}
