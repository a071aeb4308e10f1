//! What an untrusted project's `.hone/config.toml` may not set.
//!
//! A cloned repository must not decide who answers, with which model file, nor make every
//! request larger or every turn longer. Unless the project is trusted (`trusted_projects` in
//! the user file), its file's
//!
//! - provider choice is ignored: `provider`, `profile` and a `provider` inside its
//!   `[profiles.NAME]`, and the `[roles]` it assigns;
//! - its profiles' request bodies (`[profiles.NAME.body]`) and `system_prompt` are ignored,
//!   and its `.hone/agents/` profile files are not read;
//! - model files are ignored: a `model` (top-level, `[local]`, `[roles]`, `[context]
//!   compaction_model`) that is a path to a file rather than a catalog or API model name;
//! - limits may only go down: `max_tool_rounds`, `[context] instructions_max_bytes`,
//!   `localize_budget_tokens` and `recent_turns`, `[checks] max_repair_rounds`,
//!   `[index] map_budget` and `[local] context_size` count only when they do not exceed what
//!   the user file, the environment and the flags chose (or the default).
//!
//! Its `base_url`s are covered by the trust rule of the `trust` module, its `[sandbox]`,
//! `[mcp_servers]`, `allow` rules and `approval` by their own modules. Everything ignored is
//! listed by [`Config::ignored_project_settings`], shown by `hone config show` and named once
//! when a session starts.

use std::fmt::Display;

use crate::file::FileConfig;
use crate::load::Config;

/// Removes from `file`, an untrusted project's file, every setting it may not set, given
/// `below`, the configuration without it. Returns the ignored settings, in words.
pub(crate) fn restrict(file: &mut FileConfig, below: &Config) -> Vec<String> {
    let mut ignored = Vec::new();
    if let Some(provider) = file.provider.take() {
        ignored.push(format!("provider = {provider:?} (chooses the provider)"));
    }
    if let Some(profile) = file.profile.take() {
        ignored.push(format!(
            "profile = {profile:?} (chooses the provider and model)"
        ));
    }
    if let Some(model) = file.model.take_if(|model| is_model_file(model)) {
        ignored.push(format!("model = {model:?} (chooses a model file)"));
    }
    for (name, profile) in &mut file.profiles {
        profile.restrict_untrusted(name, &mut ignored);
    }
    cap(
        &mut file.agent.max_tool_rounds,
        below.max_tool_rounds(),
        "max_tool_rounds",
        &mut ignored,
    );
    file.roles.restrict_untrusted(below, &mut ignored);
    file.local
        .restrict_untrusted(&below.local_settings(), &mut ignored);
    file.context
        .restrict_untrusted(&below.context_settings(), &mut ignored);
    file.checks
        .restrict_untrusted(&below.checks_settings(), &mut ignored);
    file.index
        .restrict_untrusted(&below.index_settings(), &mut ignored);
    file.store.restrict_untrusted(&mut ignored);
    ignored
}

/// Clears `slot` and records it under `key` when it raises a limit above `below`.
pub(crate) fn cap<T: PartialOrd + Display>(
    slot: &mut Option<T>,
    below: T,
    key: &str,
    ignored: &mut Vec<String>,
) {
    if let Some(value) = slot.take_if(|value| *value > below) {
        ignored.push(format!("{key} = {value} (raises the limit of {below})"));
    }
}

/// Whether a `model` value names a file rather than a catalog or API model (API names such
/// as `meta-llama/llama-3.1-8b` may hold a slash): it is absolute, starts with `~` or `.`, or
/// ends in `.gguf`.
pub(crate) fn is_model_file(model: &str) -> bool {
    let model = model.trim();
    std::path::Path::new(model).is_absolute()
        || model.starts_with(['/', '\\', '~', '.'])
        || model.to_ascii_lowercase().ends_with(".gguf")
}

impl Config {
    /// Settings of the project file ignored because the project is not trusted, in words
    /// (`provider = "openai" (chooses the provider)`): those of this module, of `[sandbox]` and
    /// `[mcp_servers]`, and its `allow` rules and loosening `approval`.
    pub fn ignored_project_settings(&self) -> Vec<String> {
        let mut ignored = self.untrusted_ignored.clone();
        ignored.extend(
            self.agent
                .ignored_approvals
                .iter()
                .map(|mode| format!("approval = {:?} (loosens approval)", mode.value.as_str())),
        );
        ignored.extend(
            self.agent
                .ignored_allow
                .iter()
                .map(|rule| format!("[permissions] allow = {:?}", rule.value)),
        );
        ignored.extend(
            self.sandbox_settings()
                .ignored
                .into_iter()
                .map(|setting| format!("[sandbox] {setting}")),
        );
        ignored.extend(
            self.mcp_settings()
                .ignored
                .into_iter()
                .map(|name| format!("[mcp_servers.{name}]")),
        );
        let hooks = self.hooks_settings().ignored;
        if hooks > 0 {
            ignored.push(format!(
                "[[hooks]] ({hooks} hook(s) that would run commands)"
            ));
        }
        ignored
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_files_are_told_from_model_names() {
        for file in [
            "/models/x.gguf",
            "~/m.gguf",
            "./m.gguf",
            "models/model.GGUF",
            "\\\\server\\m",
        ] {
            assert!(is_model_file(file), "{file}");
        }
        for name in [
            "qwen2.5-coder-1.5b",
            "gpt-4.1",
            "meta-llama/llama-3.1-8b",
            "llama3:8b",
        ] {
            assert!(!is_model_file(name), "{name}");
        }
    }

    #[test]
    fn only_raised_limits_are_capped() {
        let mut ignored = Vec::new();
        let mut lower = Some(10_u32);
        cap(&mut lower, 25, "max_tool_rounds", &mut ignored);
        assert_eq!(lower, Some(10));
        let mut equal = Some(25_u32);
        cap(&mut equal, 25, "max_tool_rounds", &mut ignored);
        assert_eq!(equal, Some(25));
        assert!(ignored.is_empty());
        let mut higher = Some(1000_u32);
        cap(&mut higher, 25, "max_tool_rounds", &mut ignored);
        assert_eq!(higher, None);
        assert_eq!(ignored, ["max_tool_rounds = 1000 (raises the limit of 25)"]);
    }
}
