//! Loading: reading the files and layering files, environment and flags with provenance.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::agent::{AgentBuilder, AgentLayer, AgentSettings};
use crate::checks_settings::ChecksLayers;
use crate::context_settings::ContextLayers;
use crate::default_provider::default_provider;
use crate::error::ConfigError;
use crate::file::{self, FileConfig, FileRole, NetworkSection, ProviderSection};
use crate::index_settings::IndexLayers;
use crate::local_settings::LocalLayers;
use crate::logs_settings::LogsLayers;
use crate::memory_settings::MemoryLayers;
use crate::preset::{MaxTokensField, ToolMode};
use crate::profiles::{MergedProfile, ProfileLayers};
use crate::provider::NetworkConfig;
use crate::roles_settings::{RoleValue, role_profile};
use crate::sandbox_settings::SandboxLayers;
use crate::source::{Source, Sourced};
use crate::sources::{CliOverrides, ConfigSources, Env, HONE_CONFIG_ENV};
use crate::suggest::closest;
use crate::trust::ProjectTrust;

/// The effective configuration: every layer merged, each value remembering its source.
///
/// Use [`Config::provider`] for the settings of the selected provider instance and
/// [`Config::render_show`] for a printable listing.
#[derive(Debug, Clone)]
pub struct Config {
    pub(crate) selection: Selection,
    pub(crate) instances: BTreeMap<String, InstanceSettings>,
    pub(crate) network: NetworkSettings,
    pub(crate) context_windows: BTreeMap<String, Sourced<u32>>,
    pub(crate) env: Env,
    pub(crate) files: Vec<FileEntry>,
    pub(crate) trust: ProjectTrust,
    pub(crate) agent: AgentSettings,
    pub(crate) index: IndexLayers,
    pub(crate) local: LocalLayers,
    pub(crate) memory: MemoryLayers,
    pub(crate) logs: LogsLayers,
    pub(crate) sandbox: SandboxLayers,
    pub(crate) checks: ChecksLayers,
    pub(crate) context: ContextLayers,
    pub(crate) roles: crate::roles_settings::RolesLayers,
    pub(crate) mcp: crate::mcp_settings::McpLayers,
    pub(crate) hooks: crate::hooks_settings::HookLayers,
    pub(crate) profiles: ProfileLayers,
    pub(crate) store: crate::store_settings::StoreLayers,
    /// Settings of an untrusted project file dropped by the `untrusted` module, in words.
    pub(crate) untrusted_ignored: Vec<String>,
}

/// A configuration file that was looked for.
#[derive(Debug, Clone)]
pub(crate) struct FileEntry {
    /// `Source::UserFile` or `Source::ProjectFile` with its path.
    pub(crate) source: Source,
    pub(crate) path: PathBuf,
    pub(crate) found: bool,
}

/// The top-level choice after layering: which instance, and overrides that apply to it only.
#[derive(Debug, Clone)]
pub(crate) struct Selection {
    pub(crate) provider: Sourced<String>,
    pub(crate) model: Option<Sourced<String>>,
    pub(crate) base_url: Option<Sourced<String>>,
    pub(crate) profile: Option<Sourced<String>>,
    pub(crate) tool_mode: Option<Sourced<ToolMode>>,
    pub(crate) context_window: Option<Sourced<u32>>,
}

/// A `[providers.NAME]` instance merged over the user and project files.
#[derive(Debug, Clone, Default)]
pub(crate) struct InstanceSettings {
    pub(crate) kind: Option<Sourced<String>>,
    pub(crate) base_url: Option<Sourced<String>>,
    pub(crate) api_key_env: Option<Sourced<String>>,
    pub(crate) api_key_file: Option<Sourced<PathBuf>>,
    pub(crate) model: Option<Sourced<String>>,
    pub(crate) headers: BTreeMap<String, Sourced<String>>,
    pub(crate) api_version: Option<Sourced<String>>,
    pub(crate) tool_mode: Option<Sourced<ToolMode>>,
    pub(crate) context_window: Option<Sourced<u32>>,
    pub(crate) stream_usage: Option<Sourced<bool>>,
    pub(crate) max_tokens_field: Option<Sourced<MaxTokensField>>,
}

/// `[network]` merged over the files.
#[derive(Debug, Clone, Default)]
pub(crate) struct NetworkSettings {
    pub(crate) max_retries: Option<Sourced<u32>>,
    pub(crate) retry_base_delay_ms: Option<Sourced<u64>>,
    pub(crate) retry_max_delay_ms: Option<Sourced<u64>>,
    pub(crate) idle_timeout_secs: Option<Sourced<u64>>,
    pub(crate) connect_timeout_secs: Option<Sourced<u64>>,
    pub(crate) header_timeout_secs: Option<Sourced<u64>>,
}

/// The top-level keys one layer sets.
#[derive(Debug, Default)]
struct Choice {
    provider: Option<Sourced<String>>,
    model: Option<Sourced<String>>,
    base_url: Option<Sourced<String>>,
    profile: Option<Sourced<String>>,
    /// `[roles] chat`: the session's profile (or model) when no layer selects a profile.
    chat: Option<Sourced<RoleValue>>,
    agent: AgentLayer,
}

/// Replaces `slot` when `value` is set, tagging it with `source`.
fn set<T>(slot: &mut Option<Sourced<T>>, value: Option<T>, source: &Source) {
    if let Some(value) = value {
        *slot = Some(Sourced::new(value, source.clone()));
    }
}

/// `path` with `~/` expanded and relative paths taken relative to `base` (the config file's directory).
pub(crate) fn resolve_path(path: &str, base: &Path) -> PathBuf {
    base.join(expand_home(path))
}

/// `path` with a leading `~/` replaced by the home directory; other paths unchanged.
///
/// ```
/// assert_eq!(hone_config::expand_home("/a/~/b"), std::path::Path::new("/a/~/b"));
/// ```
pub fn expand_home(path: &str) -> PathBuf {
    if let Some(rest) = path.strip_prefix("~/")
        && let Some(home) = dirs::home_dir()
    {
        return home.join(rest);
    }
    PathBuf::from(path)
}

impl InstanceSettings {
    fn merge(&mut self, section: ProviderSection, source: &Source, base: &Path) {
        set(&mut self.kind, section.kind, source);
        set(&mut self.base_url, section.base_url, source);
        set(&mut self.api_key_env, section.api_key_env, source);
        let key_file = section.api_key_file.map(|path| resolve_path(&path, base));
        set(&mut self.api_key_file, key_file, source);
        set(&mut self.model, section.model, source);
        for (name, value) in section.headers {
            self.headers
                .insert(name, Sourced::new(value, source.clone()));
        }
        set(&mut self.api_version, section.api_version, source);
        set(&mut self.tool_mode, section.tool_mode, source);
        set(&mut self.context_window, section.context_window, source);
        set(&mut self.stream_usage, section.stream_usage, source);
        set(&mut self.max_tokens_field, section.max_tokens_field, source);
    }
}

impl NetworkSettings {
    fn merge(&mut self, section: NetworkSection, source: &Source) {
        set(&mut self.max_retries, section.max_retries, source);
        set(
            &mut self.retry_base_delay_ms,
            section.retry_base_delay_ms,
            source,
        );
        set(
            &mut self.retry_max_delay_ms,
            section.retry_max_delay_ms,
            source,
        );
        set(
            &mut self.idle_timeout_secs,
            section.idle_timeout_secs,
            source,
        );
        set(
            &mut self.connect_timeout_secs,
            section.connect_timeout_secs,
            source,
        );
        set(
            &mut self.header_timeout_secs,
            section.header_timeout_secs,
            source,
        );
    }

    /// The merged settings over [`NetworkConfig::default`].
    pub(crate) fn resolve(&self) -> NetworkConfig {
        let defaults = NetworkConfig::default();
        let millis = |slot: &Option<Sourced<u64>>, default: Duration| {
            slot.as_ref()
                .map_or(default, |value| Duration::from_millis(value.value))
        };
        let secs = |slot: &Option<Sourced<u64>>, default: Duration| {
            slot.as_ref()
                .map_or(default, |value| Duration::from_secs(value.value))
        };
        NetworkConfig {
            max_retries: self
                .max_retries
                .as_ref()
                .map_or(defaults.max_retries, |value| value.value),
            retry_base_delay: millis(&self.retry_base_delay_ms, defaults.retry_base_delay),
            retry_max_delay: millis(&self.retry_max_delay_ms, defaults.retry_max_delay),
            idle_timeout: secs(&self.idle_timeout_secs, defaults.idle_timeout),
            connect_timeout: secs(&self.connect_timeout_secs, defaults.connect_timeout),
            header_timeout: secs(&self.header_timeout_secs, defaults.header_timeout),
        }
    }
}

impl Selection {
    /// Applies one layer's choices. Choosing a different provider drops the model, base URL
    /// and profile options chosen for the previous one: they belong to the provider chosen
    /// with them.
    fn apply(
        &mut self,
        provider: Option<Sourced<String>>,
        model: Option<Sourced<String>>,
        base_url: Option<Sourced<String>>,
    ) {
        if let Some(provider) = provider {
            if provider.value != self.provider.value {
                self.model = None;
                self.base_url = None;
                self.tool_mode = None;
                self.context_window = None;
            }
            self.provider = provider;
        }
        if model.is_some() {
            self.model = model;
        }
        if base_url.is_some() {
            self.base_url = base_url;
        }
    }
}

/// Accumulates files in precedence order.
#[derive(Default)]
struct Builder {
    instances: BTreeMap<String, InstanceSettings>,
    profiles: ProfileLayers,
    network: NetworkSettings,
    context_windows: BTreeMap<String, Sourced<u32>>,
    choices: Vec<Choice>,
    files: Vec<FileEntry>,
    trusted_projects: Option<Sourced<Vec<String>>>,
    agent: AgentBuilder,
    index: IndexLayers,
    local: LocalLayers,
    memory: MemoryLayers,
    logs: LogsLayers,
    sandbox: SandboxLayers,
    checks: ChecksLayers,
    context: ContextLayers,
    roles: crate::roles_settings::RolesLayers,
    mcp: crate::mcp_settings::McpLayers,
    hooks: crate::hooks_settings::HookLayers,
    store: crate::store_settings::StoreLayers,
    untrusted_ignored: Vec<String>,
}

impl Builder {
    /// Reads one file; `required` makes a missing file an error. `untrusted` is the
    /// configuration without this file when it is an untrusted project's: what it may not set
    /// is then dropped (see the `untrusted` module).
    fn add_file(
        &mut self,
        path: &Path,
        source: Source,
        required: bool,
        untrusted: Option<&Config>,
    ) -> Result<(), ConfigError> {
        let role = match source {
            Source::ProjectFile(_) => FileRole::Project,
            _ => FileRole::User,
        };
        let file = file::read(path, role)?;
        if file.is_none() && required {
            return Err(ConfigError::MissingUserFile {
                path: path.to_path_buf(),
            });
        }
        self.files.push(FileEntry {
            source: source.clone(),
            path: path.to_path_buf(),
            found: file.is_some(),
        });
        if let Some(mut file) = file {
            if let Some(below) = untrusted {
                self.untrusted_ignored = crate::untrusted::restrict(&mut file, below);
            }
            let base = path.parent().unwrap_or(Path::new("."));
            self.merge(file, &source, base);
        }
        Ok(())
    }

    fn merge(&mut self, file: FileConfig, source: &Source, base: &Path) {
        let mut choice = Choice {
            agent: self.agent.merge_file(&file, source),
            ..Choice::default()
        };
        set(&mut choice.provider, file.provider, source);
        set(&mut choice.model, file.model, source);
        set(&mut choice.profile, file.profile, source);
        set(&mut choice.chat, file.roles.chat().cloned(), source);
        self.choices.push(choice);
        for (name, section) in file.providers {
            self.instances
                .entry(name)
                .or_default()
                .merge(section, source, base);
        }
        self.profiles.merge(file.profiles, source);
        self.network.merge(file.network, source);
        self.index.merge(&file.index, source);
        self.local.merge(file.local, source);
        self.memory.merge(&file.memory, source);
        self.logs.merge(&file.logs, source);
        self.sandbox.merge(&file.sandbox, source, base);
        self.checks.merge(&file.checks, source);
        self.context.merge(&file.context, source);
        self.roles.merge(&file.roles, source);
        self.mcp.merge(&file.mcp_servers, source, base);
        self.hooks.merge(&file.hooks, source);
        self.store.merge(&file.store, source);
        if let Some(listed) = file.trusted_projects {
            let entries = listed
                .into_inner()
                .into_iter()
                .map(|entry| entry.into_inner());
            self.trusted_projects = Some(Sourced::new(entries.collect(), source.clone()));
        }
        for (model, tokens) in file.context_windows {
            self.context_windows
                .insert(model, Sourced::new(tokens, source.clone()));
        }
    }

    /// Layers the top-level choices over `default` (the provider used when no layer selects
    /// one); the selected profile sits just below the layer selecting it.
    fn select(&self, default: Sourced<String>) -> Result<Selection, ConfigError> {
        let mut selection = Selection {
            provider: default,
            model: None,
            base_url: None,
            profile: None,
            tool_mode: None,
            context_window: None,
        };
        let selected = self.profile_choice();
        for (index, choice) in self.choices.iter().enumerate() {
            if let Some((_, name)) = selected.as_ref().filter(|(at, _)| *at == index) {
                // The layer's own provider first, so that a profile without a provider
                // applies to it rather than being dropped as belonging to another provider.
                selection.apply(choice.provider.clone(), None, None);
                let profile = self.profile(name)?;
                selection.apply(profile.provider.clone(), profile.model.clone(), None);
                if profile.tool_mode.is_some() {
                    selection.tool_mode = profile.tool_mode.clone();
                }
                if profile.context_window.is_some() {
                    selection.context_window = profile.context_window.clone();
                }
                selection.profile = Some(name.clone());
            }
            let (provider, model) = match (&choice.chat, selected.is_some()) {
                (Some(chat), false) => chat_model(chat, choice, &self.profiles),
                _ => (choice.provider.clone(), choice.model.clone()),
            };
            selection.apply(provider, model, choice.base_url.clone());
        }
        Ok(selection)
    }

    /// The selected profile and the index of the layer selecting it: the last layer with a
    /// `profile`, else the last file whose `[roles] chat` names a profile.
    fn profile_choice(&self) -> Option<(usize, Sourced<String>)> {
        if let Some(index) = self
            .choices
            .iter()
            .rposition(|choice| choice.profile.is_some())
        {
            return Some((index, self.choices[index].profile.clone()?));
        }
        self.choices
            .iter()
            .enumerate()
            .rev()
            .find_map(|(index, choice)| {
                let chat = choice.chat.as_ref()?;
                let name = role_profile(&chat.value, &self.profiles)?;
                Some((index, Sourced::new(name.to_string(), chat.source.clone())))
            })
    }

    fn profile(&self, name: &Sourced<String>) -> Result<MergedProfile, ConfigError> {
        self.profiles
            .resolve(&name.value)?
            .ok_or_else(|| ConfigError::UnknownProfile {
                name: name.value.clone(),
                origin: name.source.clone(),
                suggestion: closest(&name.value, self.profiles.names()),
                known: self.profiles.names().map(str::to_string).collect(),
            })
    }

    /// Reads the profile files of `dir` (`agents/NAME.toml`) as a layer from `source`'s kind
    /// of file; `project` reads them without following symbolic links.
    fn add_agents_dir(&mut self, dir: &Path, project: bool) -> Result<(), ConfigError> {
        let read = |path: &Path| {
            if project {
                hone_fs::read_to_string_regular(path)
            } else {
                std::fs::read_to_string(path)
            }
        };
        for (path, name, section, text) in crate::profiles::read_agents_dir(dir, read)? {
            let mut file = FileConfig::default();
            file.profiles.insert(name, section);
            crate::agent::validate(&path, &text, &mut file)?;
            let source = if project {
                Source::ProjectFile(path.clone())
            } else {
                Source::UserFile(path.clone())
            };
            self.merge(file, &source, dir);
        }
        Ok(())
    }
}

/// The provider and model of `choice`, a file's layer, with its `[roles] chat` model (when it
/// names no profile) in place of a `model` (and `provider`) the file leaves unset.
fn chat_model(
    chat: &Sourced<RoleValue>,
    choice: &Choice,
    profiles: &ProfileLayers,
) -> (Option<Sourced<String>>, Option<Sourced<String>>) {
    let own = (choice.provider.clone(), choice.model.clone());
    if choice.model.is_some() || role_profile(&chat.value, profiles).is_some() {
        return own;
    }
    let sourced = |value: &String| Some(Sourced::new(value.clone(), chat.source.clone()));
    match &chat.value {
        RoleValue::Name(model) | RoleValue::Profile(model) => (own.0, sourced(model)),
        RoleValue::Model { model, provider } => (
            own.0.or_else(|| provider.as_ref().and_then(sourced)),
            sourced(model),
        ),
    }
}

/// One layer of top-level choices from variables or flags.
fn choice_from(values: [(Option<&str>, Source); 4]) -> Choice {
    let [provider, model, base_url, profile] = values.map(|(value, source)| {
        value
            .map(str::trim)
            .filter(|value| !value.is_empty())
            .map(|value| Sourced::new(value.to_string(), source))
    });
    Choice {
        provider,
        model,
        base_url,
        profile,
        chat: None,
        agent: AgentLayer::default(),
    }
}

/// Loads the configuration from `sources`, with `cli` on top.
///
/// Precedence, highest first: command-line flags, environment (`HONE_PROVIDER`,
/// `HONE_MODEL`, `HONE_BASE_URL`, `HONE_PROFILE`, `HONE_APPROVAL`, `HONE_MAX_TOOL_ROUNDS`),
/// the project file, the user file, built-in defaults. Missing files are skipped (except a
/// `HONE_CONFIG` that names a missing file); invalid files, unknown keys, invalid agent
/// settings and an unknown profile are errors. Provider problems (unknown name, missing key)
/// are reported by [`Config::provider`].
pub fn load(sources: &ConfigSources, cli: &CliOverrides) -> Result<Config, ConfigError> {
    let env = Env::new(sources.env.clone());
    let mut builder = Builder::default();
    if let Some(path) = &sources.user_file {
        let required = env
            .get(HONE_CONFIG_ENV)
            .is_some_and(|named| Path::new(named) == path);
        builder.add_file(path, Source::UserFile(path.clone()), required, None)?;
        if let Some(dir) = path.parent() {
            builder.add_agents_dir(&dir.join(crate::profiles::AGENTS_DIR), false)?;
        }
    }
    if let Some(path) = sources.project_file() {
        let trusted = ProjectTrust::new(
            sources.project_dir.as_deref(),
            sources.user_file.as_deref(),
            builder.trusted_projects.clone(),
        )
        .trusted;
        // What the project file may set is judged against the configuration without it (and
        // without a profile selection, which may name a profile the project file defines).
        let below = if trusted || !path.is_file() {
            None
        } else {
            let mut without_project = ConfigSources {
                project_dir: None,
                ..sources.clone()
            };
            without_project.env.remove("HONE_PROFILE");
            let cli = CliOverrides {
                profile: None,
                ..cli.clone()
            };
            Some(load(&without_project, &cli)?)
        };
        builder.add_file(
            &path,
            Source::ProjectFile(path.clone()),
            false,
            below.as_ref(),
        )?;
        if trusted && let Some(project) = &sources.project_dir {
            let hone_dir = hone_fs::hone_dir(project).map_err(|source| ConfigError::Read {
                path: project.join(".hone"),
                source,
            })?;
            builder.add_agents_dir(&hone_dir.join(crate::profiles::AGENTS_DIR), true)?;
        }
    }
    builder.profiles.check()?;
    builder.roles.check(&builder.profiles)?;
    builder.agent.inherit_profile_approvals(&builder.profiles)?;
    let var = |name: &str| (env.get(name), Source::Env(name.to_string()));
    builder.choices.push(Choice {
        agent: AgentLayer::from_env(&env)?,
        ..choice_from([
            var("HONE_PROVIDER"),
            var("HONE_MODEL"),
            var("HONE_BASE_URL"),
            var("HONE_PROFILE"),
        ])
    });
    let flag = |name: &str| Source::Cli(name.to_string());
    builder.choices.push(Choice {
        agent: AgentLayer::from_cli(cli)?,
        ..choice_from([
            (cli.provider.as_deref(), flag("--provider")),
            (cli.model.as_deref(), flag("--model")),
            (cli.base_url.as_deref(), flag("--base-url")),
            (cli.profile.as_deref(), flag("--profile")),
        ])
    });
    builder.sandbox.set_cli(cli.sandbox);
    builder.profiles.set_cli_thinking(cli.thinking.as_deref())?;
    let selection = builder.select(default_provider(&env))?;
    let profile = builder.profile_choice();
    let trust = ProjectTrust::new(
        sources.project_dir.as_deref(),
        sources.user_file.as_deref(),
        builder.trusted_projects,
    );
    let agent = builder.agent.finish(
        builder.choices.iter().map(|choice| &choice.agent),
        profile
            .as_ref()
            .map(|(index, name)| (*index, name.value.as_str())),
        trust.trusted,
    );
    Ok(Config {
        selection,
        instances: builder.instances,
        network: builder.network,
        context_windows: builder.context_windows,
        env,
        files: builder.files,
        trust,
        agent,
        index: builder.index,
        local: builder.local,
        memory: builder.memory,
        logs: builder.logs,
        sandbox: builder.sandbox,
        checks: builder.checks,
        context: builder.context,
        roles: builder.roles,
        mcp: builder.mcp,
        hooks: builder.hooks,
        profiles: builder.profiles,
        store: builder.store,
        untrusted_ignored: builder.untrusted_ignored,
    })
}

impl Config {
    /// Name of the selected provider instance.
    pub fn provider_name(&self) -> &str {
        &self.selection.provider.value
    }

    /// Name of the selected profile, if any.
    pub fn profile_name(&self) -> Option<&str> {
        self.selection
            .profile
            .as_ref()
            .map(|name| name.value.as_str())
    }

    /// Names of the `[providers.NAME]` instances defined in the files.
    pub fn instance_names(&self) -> impl Iterator<Item = &str> {
        self.instances.keys().map(String::as_str)
    }

    /// Timeouts and retry policy from `[network]` over the defaults.
    pub fn network(&self) -> NetworkConfig {
        self.network.resolve()
    }

    /// The configuration files that were found and read, user file first.
    pub fn loaded_files(&self) -> impl Iterator<Item = &Path> {
        self.files
            .iter()
            .filter(|entry| entry.found)
            .map(|entry| entry.path.as_path())
    }

    /// The context window of `model`: `[context_windows]` (exact name) first, then the
    /// built-in table ([`crate::known_context_window`]).
    pub fn known_context_window(&self, model: &str) -> Option<u32> {
        self.context_windows
            .get(model)
            .map(|tokens| tokens.value)
            .or_else(|| crate::known_context_window(model))
    }
}

#[cfg(test)]
mod tests;
