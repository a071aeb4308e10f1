//! `hone config show`: the effective configuration with provenance, secrets masked.

use std::fmt::Write as _;

use crate::load::Config;
use crate::preset::{MaxTokensField, ToolMode};
use crate::provider::ApiKey;
use crate::resolve::Resolution;
use crate::source::{Source, Sourced};

/// One value of the effective configuration, as `hone config show` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShownValue {
    /// Table the value belongs to (`providers.work`, `network`, …); empty for top-level keys.
    pub section: String,
    /// Key within the section, in TOML syntax (quoted when needed).
    pub key: String,
    /// The value in TOML syntax with secrets masked, or a `not set (…)` note.
    pub value: String,
    /// Where the value came from; `None` when it is not set.
    pub source: Option<Source>,
}

/// Top-level keys that `render_show` lists under `# agent` rather than with the selection.
const AGENT_KEYS: [&str; 2] = ["approval", "max_tool_rounds"];

/// Keys `render_show` explains that a configuration file cannot set (they follow from others).
const DERIVED_KEYS: [&str; 1] = ["wire"];

/// `text` as a TOML basic string.
fn quote(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for character in text.chars() {
        match character {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            '\t' => quoted.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(quoted, "\\u{:04X}", u32::from(c));
            }
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

/// `key` as a TOML key: bare when possible, quoted otherwise.
fn toml_key(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if bare { key.to_string() } else { quote(key) }
}

/// Whether a header's value is probably a credential.
fn is_secret_header(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    [
        "auth",
        "key",
        "token",
        "secret",
        "cookie",
        "password",
        "signature",
    ]
    .iter()
    .any(|word| name.contains(word))
}

fn tool_mode_name(mode: ToolMode) -> &'static str {
    match mode {
        ToolMode::Native => "native",
        ToolMode::Prompt => "prompt",
    }
}

fn max_tokens_field_name(field: MaxTokensField) -> &'static str {
    match field {
        MaxTokensField::MaxTokens => "max_tokens",
        MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
    }
}

/// Collects values of one section.
struct Section<'a> {
    name: String,
    values: &'a mut Vec<ShownValue>,
}

impl Section<'_> {
    fn push(&mut self, key: &str, value: String, source: Option<Source>) {
        self.values.push(ShownValue {
            section: self.name.clone(),
            key: key.to_string(),
            value,
            source,
        });
    }

    /// A number that falls back to hone's default.
    fn number<T: ToString>(
        &mut self,
        key: &str,
        slot: Option<&Sourced<T>>,
        default: impl ToString,
    ) {
        match slot {
            Some(sourced) => {
                self.push(key, sourced.value.to_string(), Some(sourced.source.clone()))
            }
            None => self.push(key, default.to_string(), Some(Source::Default)),
        }
    }
}

impl Config {
    /// The effective configuration, value by value, with provenance and secrets masked:
    /// the selection, `trusted_projects`, `approval` and `max_tool_rounds`, the selected
    /// provider's resolved fields, `[network]`, `[permissions]` (one value per rule in effect,
    /// `[]` when a list is empty), `[context_windows]` and `[index]`.
    pub fn shown_values(&self) -> Vec<ShownValue> {
        let mut values = Vec::new();
        let mut top = Section {
            name: String::new(),
            values: &mut values,
        };
        let selection = &self.selection;
        top.push(
            "provider",
            quote(&selection.provider.value),
            Some(selection.provider.source.clone()),
        );
        match &selection.profile {
            Some(profile) => top.push(
                "profile",
                quote(&profile.value),
                Some(profile.source.clone()),
            ),
            None => top.push("profile", "not set".to_string(), None),
        }
        match &self.trust.listed {
            Some(listed) => {
                let entries: Vec<String> = listed.value.iter().map(|entry| quote(entry)).collect();
                top.push(
                    "trusted_projects",
                    format!("[{}]", entries.join(", ")),
                    Some(listed.source.clone()),
                );
            }
            None => top.push("trusted_projects", "not set".to_string(), None),
        }
        let agent = &self.agent;
        top.push(
            "approval",
            quote(agent.approval.value.as_str()),
            Some(agent.approval.source.clone()),
        );
        top.push(
            "max_tool_rounds",
            agent.max_tool_rounds.value.to_string(),
            Some(agent.max_tool_rounds.source.clone()),
        );
        if let Ok(resolution) = self.resolve(&selection.provider.value) {
            self.show_provider(&resolution, &mut values);
        }
        let network = &self.network;
        let defaults = crate::NetworkConfig::default();
        let mut section = Section {
            name: "network".to_string(),
            values: &mut values,
        };
        section.number(
            "max_retries",
            network.max_retries.as_ref(),
            defaults.max_retries,
        );
        section.number(
            "retry_base_delay_ms",
            network.retry_base_delay_ms.as_ref(),
            defaults.retry_base_delay.as_millis(),
        );
        section.number(
            "retry_max_delay_ms",
            network.retry_max_delay_ms.as_ref(),
            defaults.retry_max_delay.as_millis(),
        );
        section.number(
            "idle_timeout_secs",
            network.idle_timeout_secs.as_ref(),
            defaults.idle_timeout.as_secs(),
        );
        section.number(
            "connect_timeout_secs",
            network.connect_timeout_secs.as_ref(),
            defaults.connect_timeout.as_secs(),
        );
        section.number(
            "header_timeout_secs",
            network.header_timeout_secs.as_ref(),
            defaults.header_timeout.as_secs(),
        );
        let mut section = Section {
            name: "permissions".to_string(),
            values: &mut values,
        };
        for (key, rules) in [
            ("allow", &self.agent.allow),
            ("deny", &self.agent.deny),
            ("secret_files", &self.agent.secret_files),
        ] {
            if rules.is_empty() {
                section.push(key, "[]".to_string(), None);
            }
            for rule in rules {
                section.push(key, quote(&rule.value), Some(rule.source.clone()));
            }
        }
        let mut section = Section {
            name: "context_windows".to_string(),
            values: &mut values,
        };
        for (model, tokens) in &self.context_windows {
            section.push(
                &toml_key(model),
                tokens.value.to_string(),
                Some(tokens.source.clone()),
            );
        }
        self.show_index(&mut values);
        self.local.show(&mut values);
        self.show_memory(&mut values);
        self.show_logs(&mut values);
        self.show_store(&mut values);
        self.show_sandbox(&mut values);
        self.show_checks(&mut values);
        self.show_context(&mut values);
        self.show_roles(&mut values);
        values
    }

    fn show_provider(&self, resolution: &Resolution, values: &mut Vec<ShownValue>) {
        let config = &resolution.config;
        let sources = &resolution.sources;
        let preset_source = Source::Preset(config.kind.clone());
        let mut section = Section {
            name: format!("providers.{}", toml_key(&config.name)),
            values,
        };
        section.push("kind", quote(&config.kind), Some(sources.kind.clone()));
        section.push(
            "wire",
            quote(config.wire.as_str()),
            Some(preset_source.clone()),
        );
        if config.wire == crate::WireApi::Local {
            // In-process: no URL, key or wire options; the engine settings are under [local].
            section.push("model", quote(&config.model), Some(sources.model.clone()));
            return;
        }
        section.push(
            "base_url",
            quote(&config.base_url),
            Some(sources.base_url.clone()),
        );
        section.push("model", quote(&config.model), Some(sources.model.clone()));
        let key_value = match (&config.api_key, &config.api_key_env) {
            (Some(key), _) => quote(&key.masked()),
            (None, Some(variable)) if config.key_required => format!("not set (set {variable})"),
            (None, Some(variable)) => format!("not set (optional: {variable})"),
            (None, None) if config.key_required => {
                "not set (set api_key_env or api_key_file)".to_string()
            }
            (None, None) => "not set (not needed)".to_string(),
        };
        section.push("api_key", key_value, sources.api_key.clone());
        for (name, value) in &config.headers {
            let shown = if is_secret_header(name) {
                ApiKey::new(value.as_str()).masked()
            } else {
                value.clone()
            };
            let source = sources.headers.get(name).cloned();
            section.push(
                &format!("headers.{}", toml_key(name)),
                quote(&shown),
                source,
            );
        }
        if let Some(version) = &config.api_version {
            section.push("api_version", quote(version), sources.api_version.clone());
        }
        section.push(
            "tool_mode",
            quote(tool_mode_name(config.tool_mode)),
            Some(sources.tool_mode.clone()),
        );
        let known = config
            .context_window
            .map(|tokens| (tokens, sources.context_window.clone()))
            .or_else(|| {
                crate::known_context_window(&config.model)
                    .map(|tokens| (tokens, Some(Source::KnownModels)))
            });
        match known {
            Some((tokens, source)) => section.push("context_window", tokens.to_string(), source),
            None => section.push(
                "context_window",
                "unknown (set context_window or [context_windows])".to_string(),
                None,
            ),
        }
        section.push(
            "stream_usage",
            config.stream_usage.to_string(),
            Some(sources.stream_usage.clone()),
        );
        section.push(
            "max_tokens_field",
            quote(max_tokens_field_name(config.max_tokens_field)),
            Some(sources.max_tokens_field.clone()),
        );
    }

    /// The effective configuration as a readable TOML-like listing with `# from …` comments,
    /// whether the project is trusted, problems with the selected provider, the agent settings
    /// and permission rules (with the project settings ignored for lack of trust), and the
    /// files that were looked for. Secrets are masked.
    pub fn render_show(&self) -> String {
        let values = self.shown_values();
        let mut out = String::from("# effective hone configuration (secrets masked)\n");
        for group in values.chunk_by(|a, b| a.section == b.section) {
            let section = group[0].section.as_str();
            if !section.is_empty() {
                let _ = write!(out, "\n[{section}]\n");
            }
            if section.is_empty() {
                let (agent, selection): (Vec<ShownValue>, Vec<ShownValue>) = group
                    .iter()
                    .cloned()
                    .partition(|value| AGENT_KEYS.contains(&value.key.as_str()));
                render_group(&selection, &mut out);
                self.render_trust(&mut out);
                self.render_problem(&mut out);
                out.push_str("\n# agent (top-level keys)\n");
                render_group(&agent, &mut out);
                self.render_ignored_approvals(&mut out);
                self.render_ignored_untrusted(&mut out);
            } else {
                render_group(group, &mut out);
            }
            if section == "permissions" {
                self.render_ignored_allow(&mut out);
            }
        }
        out.push_str("\n# files:\n");
        if self.files.is_empty() {
            out.push_str("#   none\n");
        }
        for file in &self.files {
            let status = if file.found { "loaded" } else { "not found" };
            let _ = writeln!(out, "#   {} ({status})", file.source);
        }
        out
    }

    /// The effective values as plain TOML, without provenance or comments: what is not set
    /// is left out, so the text loads as a configuration file.
    pub fn render_toml(&self) -> String {
        let values = self.shown_values();
        let mut out = String::new();
        for group in values.chunk_by(|a, b| a.section == b.section) {
            let set: Vec<&ShownValue> = group
                .iter()
                .filter(|value| !is_unset(value) && !DERIVED_KEYS.contains(&value.key.as_str()))
                .collect();
            let section = group[0].section.as_str();
            if set.is_empty() {
                continue;
            }
            if !section.is_empty() {
                let _ = write!(out, "\n[{section}]\n");
            }
            for value in set {
                let _ = writeln!(out, "{} = {}", value.key, value.value);
            }
        }
        out.trim_start().to_string()
    }

    /// A comment saying whether the project is in the user file's `trusted_projects`.
    fn render_trust(&self, out: &mut String) {
        let Some(project_dir) = &self.trust.project_dir else {
            return;
        };
        let status = if self.trust.trusted {
            "trusted (listed in trusted_projects)"
        } else {
            "not trusted (its .hone/config.toml may not send requests to remote URLs it sets, \
             choose the provider or a model file, raise limits, allow commands or loosen \
             approval)"
        };
        let _ = writeln!(out, "# project {}: {status}", project_dir.display());
    }

    /// `# ignored:` comments for approvals of an untrusted project that would loosen the mode.
    fn render_ignored_approvals(&self, out: &mut String) {
        for ignored in &self.agent.ignored_approvals {
            let _ = writeln!(
                out,
                "# ignored: approval = {} from {} (the project is not trusted: it may only \
                 tighten approval)",
                quote(ignored.value.as_str()),
                ignored.source
            );
        }
    }

    /// `# ignored:` comments for what an untrusted project may not set (provider choice, model
    /// files, raised limits).
    fn render_ignored_untrusted(&self, out: &mut String) {
        for ignored in &self.untrusted_ignored {
            let _ = writeln!(
                out,
                "# ignored: {ignored} from the project file (the project is not trusted)"
            );
        }
    }

    /// `# ignored:` comments for `allow` rules of an untrusted project.
    fn render_ignored_allow(&self, out: &mut String) {
        for ignored in &self.agent.ignored_allow {
            let _ = writeln!(
                out,
                "# ignored: allow = {} from {} (the project is not trusted: list it in \
                 trusted_projects to honour its allow rules)",
                quote(&ignored.value),
                ignored.source
            );
        }
    }

    /// A comment describing why the selected provider cannot be used, if it cannot.
    fn render_problem(&self, out: &mut String) {
        let problem = self
            .resolve(&self.selection.provider.value)
            .and_then(|resolution| self.check_resolution(&resolution));
        if let Err(error) = problem {
            let _ = writeln!(out, "# problem: {error}");
        }
    }
}

/// Whether `value` is a `not set (…)` note rather than a TOML value.
fn is_unset(value: &ShownValue) -> bool {
    value.value.starts_with("not set")
}

/// Writes `key = value  # from source` lines, comments aligned; a value that is not set
/// becomes a comment, so the output stays TOML.
fn render_group(group: &[ShownValue], out: &mut String) {
    let lines: Vec<String> = group
        .iter()
        .map(|value| {
            let prefix = if is_unset(value) { "# " } else { "" };
            format!("{prefix}{} = {}", value.key, value.value)
        })
        .collect();
    let width = lines
        .iter()
        .map(|line| line.chars().count())
        .max()
        .unwrap_or(0)
        .min(48);
    for (line, value) in lines.iter().zip(group) {
        match &value.source {
            Some(source) => {
                let _ = writeln!(out, "{line:<width$}  # from {source}");
            }
            None => {
                let _ = writeln!(out, "{line}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_escapes_like_toml() {
        assert_eq!(quote("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
        assert_eq!(quote("\u{1b}"), "\"\\u001B\"");
        assert_eq!(toml_key("OpenAI-Organization"), "OpenAI-Organization");
        assert_eq!(toml_key("my.model"), "\"my.model\"");
    }

    #[test]
    fn credential_headers_are_recognised() {
        assert!(is_secret_header("Authorization"));
        assert!(is_secret_header("X-Api-Key"));
        assert!(is_secret_header("x-auth-token"));
        assert!(!is_secret_header("OpenAI-Organization"));
    }
}
