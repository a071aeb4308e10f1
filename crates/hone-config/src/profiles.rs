//! Profiles: `[profiles.NAME]` in the configuration files and `agents/NAME.toml` files,
//! merged over the files and resolved through `extends`.
//!
//! A profile is defined, lowest first, by the user file's `[profiles.NAME]`, the user's
//! `agents/NAME.toml` (next to the user file: `~/.config/hone/agents/`), the project file's
//! `[profiles.NAME]` and, for a trusted project only, `<project>/.hone/agents/NAME.toml`; each
//! key layers on its own. `extends = "BASE"` puts the profile `BASE` (itself resolved) under
//! it: the profile's own keys win, `body` tables merge key by key. A chain that comes back to
//! itself, or names an undefined profile, is refused when the configuration is loaded.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hone_protocol::{
    GenerationSettings, SystemPrompt, SystemPromptMode, THINKING_LEVELS, Thinking,
};

use crate::error::ConfigError;
use crate::load::Config;
use crate::preset::ToolMode;
use crate::profile_section::{MAX_PROFILE_TOKENS, ProfileSection};
use crate::source::{Source, Sourced};
use crate::suggest::closest;

/// The directory of profile files, next to the user file and in a project's `.hone`.
pub const AGENTS_DIR: &str = "agents";

/// A profile after `extends` is resolved.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProfileSettings {
    /// The provider instance; `None`: the session's.
    pub provider: Option<String>,
    /// The model; `None`: the provider's.
    pub model: Option<String>,
    /// Reasoning, sampling, output limit, caching and extra body fields.
    pub generation: GenerationSettings,
    /// The system prompt it sets.
    pub system_prompt: Option<SystemPrompt>,
    /// The only tools offered (`tools`); `None`: every tool.
    pub tools: Option<Vec<String>>,
    /// Tools never offered (`disabled_tools`).
    pub disabled_tools: Vec<String>,
}

/// One profile merged over the files, before or after `extends` is resolved.
#[derive(Debug, Clone, Default)]
pub(crate) struct MergedProfile {
    extends: Option<Extends>,
    pub(crate) provider: Option<Sourced<String>>,
    pub(crate) model: Option<Sourced<String>>,
    pub(crate) tool_mode: Option<Sourced<ToolMode>>,
    pub(crate) context_window: Option<Sourced<u32>>,
    generation: GenerationSettings,
    system_prompt: Option<Sourced<String>>,
    system_prompt_mode: Option<SystemPromptMode>,
    tools: Option<Vec<String>>,
    disabled_tools: Option<Vec<String>>,
}

/// A profile's `extends` and where it is written.
#[derive(Debug, Clone)]
struct Extends {
    name: String,
    path: PathBuf,
    line: usize,
    column: usize,
}

/// Replaces `slot` when `value` is set, tagging it with `source`.
fn set<T>(slot: &mut Option<Sourced<T>>, value: Option<T>, source: &Source) {
    if let Some(value) = value {
        *slot = Some(Sourced::new(value, source.clone()));
    }
}

/// Takes `over` where it is set.
fn or<T: Clone>(over: &Option<T>, under: &Option<T>) -> Option<T> {
    over.clone().or_else(|| under.clone())
}

impl MergedProfile {
    /// Layers `section`, defined in `source`, over this profile.
    fn merge(&mut self, name: &str, section: ProfileSection, source: &Source) {
        let source = Source::Profile {
            name: name.to_string(),
            defined_in: Box::new(source.clone()),
        };
        let checked = section.checked;
        if let (Some(extends), Some((path, line, column))) = (section.extends, checked.extends_at) {
            self.extends = Some(Extends {
                name: extends.into_inner(),
                path,
                line,
                column,
            });
        }
        set(&mut self.provider, section.provider, &source);
        set(&mut self.model, section.model, &source);
        set(&mut self.tool_mode, section.tool_mode, &source);
        set(&mut self.context_window, section.context_window, &source);
        set(&mut self.system_prompt, section.system_prompt, &source);
        self.system_prompt_mode = checked.system_prompt_mode.or(self.system_prompt_mode);
        self.tools = section.tools.or(self.tools.take());
        self.disabled_tools = section.disabled_tools.or(self.disabled_tools.take());
        self.generation = self.generation.overlaid(&GenerationSettings {
            thinking: checked.thinking,
            temperature: checked.temperature,
            top_p: checked.top_p,
            max_output_tokens: checked.max_output_tokens,
            cache: checked.cache,
            extra_body: checked.body,
        });
    }

    /// This profile over `base`, the profile it extends.
    fn over(&self, base: &Self) -> Self {
        Self {
            extends: self.extends.clone(),
            provider: or(&self.provider, &base.provider),
            model: or(&self.model, &base.model),
            tool_mode: or(&self.tool_mode, &base.tool_mode),
            context_window: or(&self.context_window, &base.context_window),
            generation: base.generation.overlaid(&self.generation),
            system_prompt: or(&self.system_prompt, &base.system_prompt),
            system_prompt_mode: self.system_prompt_mode.or(base.system_prompt_mode),
            tools: or(&self.tools, &base.tools),
            disabled_tools: or(&self.disabled_tools, &base.disabled_tools),
        }
    }

    /// The public view.
    pub(crate) fn settings(&self) -> ProfileSettings {
        ProfileSettings {
            provider: self.provider.as_ref().map(|value| value.value.clone()),
            model: self.model.as_ref().map(|value| value.value.clone()),
            generation: self.generation.clone(),
            system_prompt: self.system_prompt.as_ref().map(|text| SystemPrompt {
                text: text.value.clone(),
                mode: self.system_prompt_mode.unwrap_or_default(),
            }),
            tools: self.tools.clone(),
            disabled_tools: self.disabled_tools.clone().unwrap_or_default(),
        }
    }
}

/// Every profile merged over the files, by name.
#[derive(Debug, Clone, Default)]
pub(crate) struct ProfileLayers {
    profiles: BTreeMap<String, MergedProfile>,
    /// `--thinking`, over the selected profile's.
    cli_thinking: Option<Thinking>,
}

impl ProfileLayers {
    /// Takes `--thinking` (trimmed; empty is unset), refused when it is not a level or budget.
    pub(crate) fn set_cli_thinking(&mut self, value: Option<&str>) -> Result<(), ConfigError> {
        let Some(value) = value.map(str::trim).filter(|value| !value.is_empty()) else {
            return Ok(());
        };
        let thinking = Thinking::parse(value)
            .filter(|thinking| thinking.budget_tokens().unwrap_or(0) <= MAX_PROFILE_TOKENS);
        match thinking {
            Some(thinking) => {
                self.cli_thinking = Some(thinking);
                Ok(())
            }
            None => Err(ConfigError::InvalidValue {
                key: "thinking".to_string(),
                value: value.to_string(),
                origin: Source::Cli("--thinking".to_string()),
                expected: format!(
                    "expected one of {} or a token budget up to {MAX_PROFILE_TOKENS}{}",
                    THINKING_LEVELS.join(", "),
                    closest(value, THINKING_LEVELS)
                        .map(|name| format!(". Did you mean `{name}`?"))
                        .unwrap_or_default()
                ),
            }),
        }
    }

    /// Layers a file's profiles, read from `source`.
    pub(crate) fn merge(&mut self, sections: BTreeMap<String, ProfileSection>, source: &Source) {
        for (name, section) in sections {
            let profile = self.profiles.entry(name.clone()).or_default();
            profile.merge(&name, section, source);
        }
    }

    /// The defined profile names.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.profiles.keys().map(String::as_str)
    }

    /// Whether `name` is defined.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.profiles.contains_key(name)
    }

    /// The profiles `name` extends, nearest first, after `name` itself.
    pub(crate) fn chain(&self, name: &str) -> Result<Vec<String>, ConfigError> {
        let mut chain = vec![name.to_string()];
        let mut current = name;
        while let Some(profile) = self.profiles.get(current)
            && let Some(base) = &profile.extends
        {
            let at = |message: String| ConfigError::Parse {
                path: base.path.clone(),
                line: Some(base.line),
                column: Some(base.column),
                message,
            };
            if chain.contains(&base.name) {
                chain.push(base.name.clone());
                return Err(at(format!(
                    "profiles extend each other in a cycle: {}",
                    chain.join(" → ")
                )));
            }
            if !self.profiles.contains_key(&base.name) {
                let suggestion = closest(&base.name, self.names())
                    .map(|name| format!(". Did you mean `{name}`?"))
                    .unwrap_or_default();
                return Err(at(format!(
                    "`profiles.{current}.extends` names `{}`, which is not a defined profile{suggestion}",
                    base.name
                )));
            }
            chain.push(base.name.clone());
            current = &base.name;
        }
        Ok(chain)
    }

    /// Profile `name` with the profiles it extends merged under it; `None` when undefined.
    pub(crate) fn resolve(&self, name: &str) -> Result<Option<MergedProfile>, ConfigError> {
        if !self.profiles.contains_key(name) {
            return Ok(None);
        }
        let chain = self.chain(name)?;
        let resolved = chain
            .iter()
            .rev()
            .filter_map(|name| self.profiles.get(name))
            .fold(MergedProfile::default(), |base, profile| {
                profile.over(&base)
            });
        Ok(Some(resolved))
    }

    /// Checks every profile's `extends` chain.
    pub(crate) fn check(&self) -> Result<(), ConfigError> {
        for name in self.profiles.keys() {
            self.chain(name)?;
        }
        Ok(())
    }
}

/// The profiles of the `*.toml` files in `dir`, each named after its file; no files when the
/// directory does not exist. `read` reads one file (a project's are read without following
/// symbolic links).
pub(crate) fn read_agents_dir(
    dir: &Path,
    read: impl Fn(&Path) -> std::io::Result<String>,
) -> Result<Vec<(PathBuf, String, ProfileSection, String)>, ConfigError> {
    if std::fs::symlink_metadata(dir).is_ok_and(|meta| meta.file_type().is_symlink()) {
        return Err(ConfigError::Read {
            path: dir.to_path_buf(),
            source: std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "the profile directory is a symbolic link; hone reads profiles only from a real directory",
            ),
        });
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(ConfigError::Read {
                path: dir.to_path_buf(),
                source,
            });
        }
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    paths.sort();
    let mut profiles = Vec::new();
    for path in paths {
        let Some(name) = path.file_stem().and_then(|stem| stem.to_str()) else {
            continue;
        };
        let name = name.to_string();
        let text = read(&path).map_err(|source| ConfigError::Read {
            path: path.clone(),
            source,
        })?;
        let mut section: ProfileSection = toml::from_str(&text).map_err(|error| {
            let offset = error.span().map_or(0, |span| span.start);
            let message =
                crate::suggest::unknown_field_hint(error.message().trim_end().to_string());
            crate::file::error_at(&path, &text, offset, message)
        })?;
        crate::profile_section::validate(&path, &text, [(&name, &mut section)])?;
        profiles.push((path, name, section, text));
    }
    Ok(profiles)
}

impl Config {
    /// The names of the defined profiles.
    pub fn profile_names(&self) -> impl Iterator<Item = &str> {
        self.profiles.names()
    }

    /// Profile `name` with what it extends merged in; `None` when it is not defined.
    pub fn profile(&self, name: &str) -> Option<ProfileSettings> {
        self.profiles
            .resolve(name)
            .ok()
            .flatten()
            .map(|profile| profile.settings())
    }

    /// The request settings of the session: the selected profile's (none without one), with
    /// `--thinking` over them.
    pub fn generation(&self) -> GenerationSettings {
        let mut generation = self
            .selected_profile()
            .map(|profile| profile.generation)
            .unwrap_or_default();
        generation.thinking = self.profiles.cli_thinking.or(generation.thinking);
        generation
    }

    /// The system prompt the selected profile sets, if any.
    pub fn system_prompt(&self) -> Option<SystemPrompt> {
        self.selected_profile()
            .and_then(|profile| profile.system_prompt)
    }

    /// The tools the selected profile offers: `(only these, never these)`.
    pub fn tool_selection(&self) -> (Option<Vec<String>>, Vec<String>) {
        self.selected_profile()
            .map(|profile| (profile.tools, profile.disabled_tools))
            .unwrap_or_default()
    }

    fn selected_profile(&self) -> Option<ProfileSettings> {
        self.profile_name().and_then(|name| self.profile(name))
    }
}

#[cfg(test)]
mod tests;
