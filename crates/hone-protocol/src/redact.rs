//! Keeping secrets out of what hone sends to the model, logs, stores, exports and prints.
//!
//! One rule, [`Redactor::redact`], replaces with `[REDACTED]`:
//! - the secret values hone holds (API keys, secret-looking environment variables) and, as a
//!   backstop, their encoded forms: base64 (standard and URL-safe, at every alignment inside a
//!   longer encoding), hexadecimal and reversed;
//! - values shaped like secrets whoever holds them: known key prefixes (`sk-`, `ghp_`,
//!   `AKIA`, `AIza`, `xoxb-`, `glpat-`, `hf_`, …), private-key blocks, the credentials of an
//!   `Authorization` header, and high-entropy values assigned to a name with `KEY`, `TOKEN`,
//!   `SECRET`, `PASSWORD` or `CREDENTIAL` in it (`API_KEY=…`, `"secret": "…"`).
//!
//! ```
//! use hone_protocol::Redactor;
//!
//! let redactor = Redactor::with_secrets(["my-own-key-1234567890"]);
//! assert_eq!(redactor.redact("key: my-own-key-1234567890"), "key: [REDACTED]");
//! assert_eq!(
//!     redactor.redact("GITHUB_TOKEN=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"),
//!     "GITHUB_TOKEN=[REDACTED]"
//! );
//! ```

use std::borrow::Cow;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, MatchKind};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
use regex::{Captures, Regex};

use crate::{ContentBlock, Message};

/// What a secret is replaced with.
pub const REDACTED: &str = "[REDACTED]";

/// Known values shorter than this are not redacted: they would mangle ordinary text and
/// cannot be real keys.
const MIN_SECRET: usize = 6;
/// Encoded forms are searched for secrets at least this long, and only fragments at least
/// this long, so they cannot match by chance.
const MIN_ENCODED: usize = 12;

/// Replaces secrets in text (see the module documentation).
#[derive(Debug, Clone)]
pub struct Redactor {
    /// The known values with their encoded forms, longest first; `None` when there are none.
    known: Option<AhoCorasick>,
}

impl Default for Redactor {
    fn default() -> Self {
        Self::new()
    }
}

impl Redactor {
    /// Redacts values shaped like secrets only.
    #[must_use]
    pub fn new() -> Self {
        Self { known: None }
    }

    /// Redacts `secrets` (the values hone holds) and their encoded forms, besides every
    /// value shaped like a secret. Values shorter than 6 characters are left alone.
    #[must_use]
    pub fn with_secrets<S: AsRef<str>>(secrets: impl IntoIterator<Item = S>) -> Self {
        let mut forms: Vec<String> = Vec::new();
        for secret in secrets {
            let secret = secret.as_ref().trim();
            if secret.chars().count() < MIN_SECRET {
                continue;
            }
            forms.push(secret.to_string());
            if secret.len() >= MIN_ENCODED {
                forms.extend(encoded_forms(secret.as_bytes()));
            }
        }
        forms.sort_by_key(|form| std::cmp::Reverse(form.len()));
        forms.dedup();
        let known = if forms.is_empty() {
            None
        } else {
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(&forms)
                .ok()
        };
        Self { known }
    }

    /// `text` with every secret replaced by `[REDACTED]`.
    #[must_use]
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut text = Cow::Borrowed(text);
        if let Some(known) = &self.known
            && known.is_match(text.as_ref())
        {
            text = Cow::Owned(known.replace_all(&text, &vec![REDACTED; known.patterns_len()]));
        }
        for rule in [redact_prefixed, redact_headers, redact_assignments] {
            if let Cow::Owned(changed) = rule(&text) {
                text = Cow::Owned(changed);
            }
        }
        text
    }

    /// `message` with the secrets in its text, reasoning, tool calls' arguments and tool
    /// results redacted (what the session store keeps).
    #[must_use]
    pub fn redact_message(&self, message: &Message) -> Message {
        let mut message = message.clone();
        for block in &mut message.content {
            let text = match block {
                ContentBlock::Text { text } | ContentBlock::Thinking { text, .. } => text,
                ContentBlock::ToolCall(call) => &mut call.arguments,
                ContentBlock::ToolResult(result) => &mut result.content,
                ContentBlock::Image(_) => continue,
            };
            if let Cow::Owned(redacted) = self.redact(text) {
                *text = redacted;
            }
        }
        message
    }
}

/// The base64 (standard and URL-safe, each at the three alignments a value can have inside
/// a longer encoding), hexadecimal and reversed forms of `secret`.
fn encoded_forms(secret: &[u8]) -> Vec<String> {
    let mut forms = Vec::new();
    for offset in 0..3_usize {
        let mut padded = vec![0_u8; offset];
        padded.extend_from_slice(secret);
        // Characters carrying only the secret's bits: from the first one that starts at or
        // after its first bit to the last one that ends at or before its last bit.
        let first = (offset * 8).div_ceil(6);
        let end = ((offset + secret.len()) * 8) / 6;
        for engine in [&STANDARD_NO_PAD, &URL_SAFE_NO_PAD] {
            let encoded = engine.encode(&padded);
            if let Some(inner) = encoded.get(first..end)
                && inner.len() >= MIN_ENCODED
            {
                forms.push(inner.to_string());
            }
        }
    }
    let hex: String = secret.iter().map(|byte| format!("{byte:02x}")).collect();
    forms.push(hex.to_uppercase());
    forms.push(hex);
    if let Ok(text) = std::str::from_utf8(secret) {
        forms.push(text.chars().rev().collect());
    }
    forms
}

/// Values with a vendor's key prefix, and private-key blocks.
static PREFIXED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?x)
        \bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}   # OpenAI, Anthropic
        | \bsk_(?:live|test)_[A-Za-z0-9]{16,}                   # Stripe
        | \bgh[pousr]_[A-Za-z0-9]{30,}                          # GitHub
        | \bgithub_pat_[A-Za-z0-9_]{30,}
        | \bglpat-[A-Za-z0-9_-]{20,}                            # GitLab
        | \bxox[abposr]-[A-Za-z0-9-]{10,}                       # Slack
        | \b(?:AKIA|ASIA)[0-9A-Z]{16}\b                         # AWS access key ids
        | \bAIza[0-9A-Za-z_-]{35}                               # Google
        | \bhf_[A-Za-z0-9]{30,}                                 # Hugging Face
        | \bgsk_[A-Za-z0-9]{30,}                                # Groq
        | \bxai-[A-Za-z0-9]{30,}                                # xAI
        | \bnpm_[A-Za-z0-9]{30,}                                # npm
        | \bpypi-[A-Za-z0-9_-]{30,}                             # PyPI
        | -----BEGIN[A-Z\ ]*PRIVATE\ KEY-----[\s\S]*?(?:-----END[A-Z\ ]*PRIVATE\ KEY-----|\z)
        ",
    )
    .ok()
});

/// The credentials of an authorization header or its like, the scheme kept.
static HEADERS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)\b((?:proxy-)?authorization|x-api-key|api-key|x-goog-api-key)(["']?\s*[:=]\s*["']?)((?:bearer|basic|token)\s+)?([A-Za-z0-9._~+/=-]{8,})"#,
    )
    .ok()
});

/// A value assigned to a name that says it is secret (`API_KEY=…`, `"password": "…"`).
static ASSIGNMENTS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)\b([A-Za-z0-9_.-]*(?:key|token|secret|passw(?:or)?d|pwd|credential)s?)(["']?\s*[:=]\s*["']?)([^\s"'`,;<>(){}\[\]$\\]{6,})"#,
    )
    .ok()
});

fn redact_prefixed(text: &str) -> Cow<'_, str> {
    match PREFIXED.as_ref() {
        Some(regex) => regex.replace_all(text, REDACTED),
        None => Cow::Borrowed(text),
    }
}

fn redact_headers(text: &str) -> Cow<'_, str> {
    match HEADERS.as_ref() {
        Some(regex) => regex.replace_all(text, |captures: &Captures<'_>| {
            format!(
                "{}{}{}{REDACTED}",
                &captures[1],
                &captures[2],
                captures.get(3).map_or("", |scheme| scheme.as_str())
            )
        }),
        None => Cow::Borrowed(text),
    }
}

fn redact_assignments(text: &str) -> Cow<'_, str> {
    match ASSIGNMENTS.as_ref() {
        Some(regex) => regex.replace_all(text, |captures: &Captures<'_>| {
            let (name, value) = (&captures[1], &captures[3]);
            if looks_secret(name, value) {
                format!("{name}{}{REDACTED}", &captures[2])
            } else {
                captures[0].to_string()
            }
        }),
        None => Cow::Borrowed(text),
    }
}

/// Whether `value`, assigned to `name`, is a secret rather than code or a setting: any
/// password of 6 characters or more that is not a placeholder; for keys, tokens and
/// secrets, a value of 12 characters or more with digits and letters (or both cases) whose
/// characters are varied enough (3 bits of entropy each) to be random.
fn looks_secret(name: &str, value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    let placeholder = [
        "xxx",
        "***",
        "changeme",
        "your",
        "example",
        "redacted",
        "placeholder",
    ];
    if placeholder.iter().any(|word| lower.contains(word)) || value.contains("..") {
        return false;
    }
    let name = name.to_ascii_lowercase();
    if name.contains("pass") || name.contains("pwd") {
        return true;
    }
    let digits = value.chars().any(|c| c.is_ascii_digit());
    let upper = value.chars().any(|c| c.is_ascii_uppercase());
    let lower_case = value.chars().any(|c| c.is_ascii_lowercase());
    let mixed = usize::from(digits) + usize::from(upper) + usize::from(lower_case) >= 2;
    value.len() >= 12 && mixed && entropy(value) >= 3.0
}

/// Shannon entropy of `value`'s characters, in bits per character.
fn entropy(value: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    for c in value.chars() {
        *counts.entry(c).or_insert(0_u32) += 1;
    }
    let total = value.chars().count() as f64;
    counts
        .values()
        .map(|&count| {
            let p = f64::from(count) / total;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-test-0123456789abcdefXYZ";

    fn redacted(text: &str) -> String {
        Redactor::with_secrets([KEY]).redact(text).into_owned()
    }

    #[test]
    fn a_known_value_is_redacted_wherever_it_stands() {
        assert_eq!(redacted(&format!("a{KEY}b")), "a[REDACTED]b");
        assert_eq!(
            Redactor::with_secrets(["abc"]).redact("abc"),
            "abc",
            "too short to be a key"
        );
    }

    #[test]
    fn base64_of_a_known_value_is_redacted_at_every_alignment() {
        for prefix in ["", "x", "xy", "key=", "API_KEY=\"", "line\n"] {
            for suffix in ["", "\n", "!!"] {
                let printed = format!("{prefix}{KEY}{suffix}");
                for encoded in [
                    STANDARD_NO_PAD.encode(&printed),
                    base64::engine::general_purpose::STANDARD.encode(&printed),
                    URL_SAFE_NO_PAD.encode(&printed),
                ] {
                    let shown = redacted(&encoded);
                    assert!(
                        shown.contains(REDACTED),
                        "{printed:?} as {encoded}: {shown}"
                    );
                    // What is left cannot give the key back.
                    assert!(shown.len() < encoded.len(), "{shown}");
                }
            }
        }
    }

    #[test]
    fn hex_and_reversed_forms_of_a_known_value_are_redacted() {
        let hex: String = KEY.bytes().map(|byte| format!("{byte:02x}")).collect();
        assert_eq!(redacted(&hex), REDACTED);
        assert_eq!(redacted(&hex.to_uppercase()), REDACTED);
        let reversed: String = KEY.chars().rev().collect();
        assert_eq!(redacted(&format!("rev: {reversed}")), "rev: [REDACTED]");
    }

    #[test]
    fn vendor_prefixes_and_private_keys_are_redacted_without_being_known() {
        let redactor = Redactor::new();
        for secret in [
            "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345",
            "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx",
            "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
            "glpat-AbCdEfGhIjKlMnOpQrSt",
            "xoxb-123456789012-abcdefABCDEF",
            "AKIAIOSFODNN7EXAMPLE",
            "AIzaSyA-1234567890abcdefghijklmnopqrstu",
            "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345",
            "sk_live_AbCdEfGhIjKlMnOp1234",
        ] {
            assert_eq!(
                redactor.redact(&format!("x {secret} y")),
                "x [REDACTED] y",
                "{secret}"
            );
        }
        let pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----\n";
        assert_eq!(redactor.redact(pem), "[REDACTED]\n");
        // A task's name is not a key.
        assert_eq!(
            redactor.redact("the task-runner-abcdefghijklmnopqrstuv"),
            "the task-runner-abcdefghijklmnopqrstuv"
        );
    }

    #[test]
    fn authorization_headers_keep_their_scheme() {
        let redactor = Redactor::new();
        assert_eq!(
            redactor.redact("Authorization: Bearer abc.DEF-123_456"),
            "Authorization: Bearer [REDACTED]"
        );
        assert_eq!(
            redactor.redact(r#"{"x-api-key":"0123456789abcdef"}"#),
            r#"{"x-api-key":"[REDACTED]"}"#
        );
    }

    #[test]
    fn secret_looking_values_next_to_secret_names_are_redacted() {
        let redactor = Redactor::new();
        for (text, shown) in [
            ("API_KEY=Zm9vYmFyYmF6MTIzNDU2", "API_KEY=[REDACTED]"),
            (
                "export STRIPE_SECRET=\"k9Lp2QwX7zR4tY8u\"",
                "export STRIPE_SECRET=\"[REDACTED]\"",
            ),
            (
                r#"{"auth_token": "a1b2c3d4e5f6g7h8i9"}"#,
                r#"{"auth_token": "[REDACTED]"}"#,
            ),
            ("DB_PASSWORD=hunter22", "DB_PASSWORD=[REDACTED]"),
        ] {
            assert_eq!(redactor.redact(text), shown, "{text}");
        }
    }

    #[test]
    fn code_and_settings_near_secret_names_are_left_alone() {
        let redactor = Redactor::new();
        for text in [
            "let token = parser.next_token();",
            "max_tokens: 4096",
            "api_key = os.environ[\"OPENAI_API_KEY\"]",
            "API_KEY=${OPENAI_API_KEY}",
            "api_key_env = \"OPENAI_API_KEY\"",
            "SECRET_KEY=changeme-in-production",
            "password: <your password>",
            "keyboard_layout = us-international",
            "the tokenizer splits words",
        ] {
            assert_eq!(redactor.redact(text), text);
        }
    }

    #[test]
    fn a_message_is_redacted_block_by_block() {
        let mut message = Message::assistant(format!("the key is {KEY}"));
        message
            .content
            .push(ContentBlock::ToolCall(crate::ToolCall {
                id: "c1".into(),
                name: "write_file".into(),
                arguments: format!("{{\"path\": \".env\", \"content\": \"API_KEY={KEY}\"}}"),
            }));
        let redacted = Redactor::with_secrets([KEY]).redact_message(&message);
        let json = serde_json::to_string(&redacted).unwrap();
        assert!(!json.contains(KEY), "{json}");
        assert_eq!(redacted.text(), "the key is [REDACTED]");
        let arguments = redacted
            .tool_calls()
            .next()
            .unwrap()
            .parse_arguments()
            .unwrap();
        assert_eq!(arguments["content"], "API_KEY=[REDACTED]");
    }

    #[test]
    fn redacting_twice_changes_nothing_more() {
        let redactor = Redactor::with_secrets([KEY]);
        let once = redactor
            .redact(&format!("Authorization: Bearer {KEY}\nAPI_KEY={KEY}"))
            .into_owned();
        assert_eq!(redactor.redact(&once), once);
        assert!(!once.contains(KEY), "{once}");
    }
}
