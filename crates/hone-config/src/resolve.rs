//! Resolving one provider instance: preset defaults ← user ← project ← env ← CLI, per field.

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::ConfigError;
use crate::load::{Config, InstanceSettings};
use crate::preset::{AZURE_DEFAULT_API_VERSION, Preset, WireApi, preset, preset_names};
use crate::provider::{ApiKey, ProviderConfig};
use crate::source::{Source, Sourced};
use crate::suggest::closest;

/// A resolved instance and where each of its fields came from.
#[derive(Debug, Clone)]
pub(crate) struct Resolution {
    pub(crate) config: ProviderConfig,
    pub(crate) sources: FieldSources,
}

/// Provenance of the fields of a [`ProviderConfig`].
#[derive(Debug, Clone)]
pub(crate) struct FieldSources {
    pub(crate) kind: Source,
    pub(crate) base_url: Source,
    pub(crate) model: Source,
    pub(crate) api_key: Option<Source>,
    pub(crate) headers: BTreeMap<String, Source>,
    pub(crate) api_version: Option<Source>,
    pub(crate) tool_mode: Source,
    pub(crate) context_window: Option<Source>,
    pub(crate) stream_usage: Source,
    pub(crate) max_tokens_field: Source,
}

/// The outcome of looking for an instance's key.
struct FoundKey {
    key: Option<ApiKey>,
    /// The environment variable consulted, if any.
    variable: Option<String>,
    source: Option<Source>,
}

/// `slot`'s value and source, or `default` from `fallback`.
fn pick<T: Clone>(slot: Option<&Sourced<T>>, default: T, fallback: &Source) -> (T, Source) {
    match slot {
        Some(sourced) => (sourced.value.clone(), sourced.source.clone()),
        None => (default, fallback.clone()),
    }
}

/// A base URL without trailing slashes; must be http(s) unless empty.
fn normalize_base_url(value: &str, origin: &Source) -> Result<String, ConfigError> {
    let trimmed = value.trim().trim_end_matches('/');
    if trimmed.is_empty() || trimmed.starts_with("http://") || trimmed.starts_with("https://") {
        Ok(trimmed.to_string())
    } else {
        Err(ConfigError::InvalidBaseUrl {
            value: value.to_string(),
            origin: origin.clone(),
        })
    }
}

/// The base URL a preset's conventional variable means, e.g. `OLLAMA_HOST=127.0.0.1` →
/// `http://127.0.0.1:11434`, `AZURE_OPENAI_ENDPOINT=https://r.openai.azure.com` →
/// `https://r.openai.azure.com/openai/deployments/MODEL`.
fn conventional_base_url(preset: &Preset, value: &str, model: &str) -> String {
    let value = value.trim_end_matches('/');
    match preset.name {
        "ollama" => {
            let (scheme, rest) = value.split_once("://").unwrap_or(("http", value));
            let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
            let has_port = authority.rsplit_once(':').is_some_and(|(_, port)| {
                !port.is_empty() && port.chars().all(|c| c.is_ascii_digit())
            });
            let port = if has_port || scheme != "http" {
                ""
            } else {
                ":11434"
            };
            let path = if path.is_empty() {
                String::new()
            } else {
                format!("/{path}")
            };
            format!("{scheme}://{authority}{port}{path}")
        }
        "azure" if !value.contains("/openai/") => format!("{value}/openai/deployments/{model}"),
        _ => value.to_string(),
    }
}

impl Config {
    /// Settings of the selected provider instance, ready for the provider layer.
    ///
    /// Fails when the provider is unknown, needs a key that is not set, (Azure) lacks its
    /// deployment URL, or would send a key to a remote URL set by an untrusted project file
    /// ([`ConfigError::UntrustedProjectBaseUrl`]).
    pub fn provider(&self) -> Result<ProviderConfig, ConfigError> {
        self.provider_named(&self.selection.provider.value)
    }

    /// Settings of the provider instance `name` (a preset or a `[providers.NAME]`), e.g. for
    /// `hone models --provider NAME`. The top-level `model`, `--model`, `--base-url` and
    /// profile options apply only when `name` is the selected provider. Fails like
    /// [`Config::provider`].
    pub fn provider_named(&self, name: &str) -> Result<ProviderConfig, ConfigError> {
        let resolution = self.resolve(name)?;
        self.check_resolution(&resolution)?;
        Ok(resolution.config)
    }

    /// Problems that make a resolved instance unusable or unsafe to use.
    pub(crate) fn check_resolution(&self, resolution: &Resolution) -> Result<(), ConfigError> {
        check_usable(&resolution.config)?;
        self.check_trust(resolution)
    }

    /// Resolves `name` with provenance, without checking that it is usable.
    pub(crate) fn resolve(&self, name: &str) -> Result<Resolution, ConfigError> {
        let selected = (name == self.selection.provider.value).then_some(&self.selection);
        let settings = self.instances.get(name);
        let (preset, kind_source) = self.kind_of(name, settings, selected.is_some())?;
        let empty = InstanceSettings::default();
        let settings = settings.unwrap_or(&empty);
        let preset_source = Source::Preset(preset.name.to_string());
        let mut config = ProviderConfig::from_preset(preset);
        config.name = name.to_string();

        let local_model = self
            .local
            .model
            .as_ref()
            .filter(|_| preset.wire == WireApi::Local);
        let (default_model, default_model_source) = match local_model {
            Some(model) => (model.value.clone(), model.source.clone()),
            None => (config.model.clone(), preset_source.clone()),
        };
        let (mut model, mut model_source) = pick(
            settings.model.as_ref(),
            default_model,
            &default_model_source,
        );
        if let Some(chosen) = selected.and_then(|selection| selection.model.as_ref()) {
            (model, model_source) = (chosen.value.clone(), chosen.source.clone());
        }

        let (mut base_url, mut base_url_source) = pick(
            settings.base_url.as_ref(),
            config.base_url.clone(),
            &preset_source,
        );
        if let Some(var) = preset.base_url_env
            && let Some(value) = self.env.get(var)
            && (name == preset.name || settings.base_url.is_none())
        {
            base_url = conventional_base_url(preset, value, &model);
            base_url_source = Source::Env(var.to_string());
        }
        if let Some(chosen) = selected.and_then(|selection| selection.base_url.as_ref()) {
            (base_url, base_url_source) = (chosen.value.clone(), chosen.source.clone());
        }
        config.base_url = normalize_base_url(&base_url, &base_url_source)?;

        let found_key = self.find_key(preset, settings)?;
        config.api_key = found_key.key;
        config.api_key_env = found_key.variable;

        config.headers = settings
            .headers
            .iter()
            .map(|(header, value)| (header.clone(), value.value.clone()))
            .collect();
        let header_sources = settings
            .headers
            .iter()
            .map(|(header, value)| (header.clone(), value.source.clone()))
            .collect();

        let mut api_version_source = None;
        if let Some(version) = &settings.api_version {
            config.api_version = Some(version.value.clone());
            api_version_source = Some(version.source.clone());
        } else if preset.name == "azure" {
            config.api_version = Some(AZURE_DEFAULT_API_VERSION.to_string());
            api_version_source = Some(preset_source.clone());
        }

        let profile_tool_mode = selected.and_then(|selection| selection.tool_mode.as_ref());
        let (tool_mode, tool_mode_source) = pick(
            profile_tool_mode.or(settings.tool_mode.as_ref()),
            config.tool_mode,
            &Source::Default,
        );
        config.tool_mode = tool_mode;

        let context_window = selected
            .and_then(|selection| selection.context_window.as_ref())
            .or(settings.context_window.as_ref())
            .or_else(|| self.context_windows.get(&model));
        config.context_window = context_window.map(|tokens| tokens.value);

        let (stream_usage, stream_usage_source) = pick(
            settings.stream_usage.as_ref(),
            config.stream_usage,
            &preset_source,
        );
        config.stream_usage = stream_usage;
        let (max_tokens_field, max_tokens_field_source) = pick(
            settings.max_tokens_field.as_ref(),
            config.max_tokens_field,
            &preset_source,
        );
        config.max_tokens_field = max_tokens_field;
        config.model = model;
        config.network = self.network();

        Ok(Resolution {
            config,
            sources: FieldSources {
                kind: kind_source,
                base_url: base_url_source,
                model: model_source,
                api_key: found_key.source,
                headers: header_sources,
                api_version: api_version_source,
                tool_mode: tool_mode_source,
                context_window: context_window.map(|tokens| tokens.source.clone()),
                stream_usage: stream_usage_source,
                max_tokens_field: max_tokens_field_source,
            },
        })
    }

    /// The preset instance `name` is based on, and where its kind came from.
    fn kind_of(
        &self,
        name: &str,
        settings: Option<&InstanceSettings>,
        selected: bool,
    ) -> Result<(&'static Preset, Source), ConfigError> {
        if let Some(kind) = settings.and_then(|settings| settings.kind.as_ref()) {
            return preset(&kind.value)
                .map(|preset| (preset, kind.source.clone()))
                .ok_or_else(|| ConfigError::UnknownKind {
                    instance: name.to_string(),
                    kind: kind.value.clone(),
                    origin: kind.source.clone(),
                    suggestion: closest(&kind.value, preset_names()),
                });
        }
        if let Some(preset) = preset(name) {
            return Ok((preset, Source::Preset(name.to_string())));
        }
        if settings.is_some() {
            return Err(ConfigError::MissingKind {
                instance: name.to_string(),
            });
        }
        Err(ConfigError::UnknownProvider {
            name: name.to_string(),
            origin: selected.then(|| self.selection.provider.source.clone()),
            suggestion: closest(
                name,
                self.instance_names()
                    .chain(preset_names().map(|preset| -> &str { preset })),
            ),
            configured: self.instance_names().map(str::to_string).collect(),
        })
    }

    /// The key, the variable consulted for it, and where it came from.
    ///
    /// `api_key_env` names the variable (else the preset's conventional one, unless an
    /// `api_key_file` is configured); `api_key_file` is read when the variable is unset.
    fn find_key(
        &self,
        preset: &Preset,
        settings: &InstanceSettings,
    ) -> Result<FoundKey, ConfigError> {
        let variable = match (&settings.api_key_env, &settings.api_key_file) {
            (Some(configured), _) => Some(configured.value.clone()),
            (None, Some(_)) => None,
            (None, None) => preset.api_key_env.map(str::to_string),
        };
        if let Some(name) = &variable
            && let Some(value) = self.env.get(name)
        {
            return Ok(FoundKey {
                key: Some(ApiKey::new(value)),
                source: Some(Source::Env(name.clone())),
                variable,
            });
        }
        if let Some(file) = &settings.api_key_file {
            let key = read_key_file(&file.value)?;
            let source = Source::KeyFile {
                path: file.value.clone(),
                configured_in: Box::new(file.source.clone()),
            };
            return Ok(FoundKey {
                key: Some(key),
                variable,
                source: Some(source),
            });
        }
        Ok(FoundKey {
            key: None,
            variable,
            source: None,
        })
    }
}

/// The first line of `path`, trimmed.
fn read_key_file(path: &Path) -> Result<ApiKey, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::KeyFile {
        path: path.to_path_buf(),
        source,
    })?;
    let key = text.lines().next().unwrap_or("").trim();
    if key.is_empty() {
        return Err(ConfigError::EmptyKeyFile {
            path: path.to_path_buf(),
        });
    }
    Ok(ApiKey::new(key))
}

/// Problems that make a resolved instance unusable.
fn check_usable(config: &ProviderConfig) -> Result<(), ConfigError> {
    if config.kind == "azure" && config.base_url.is_empty() {
        return Err(ConfigError::AzureBaseUrl {
            provider: config.name.clone(),
        });
    }
    if config.key_required && config.api_key.is_none() {
        return Err(ConfigError::MissingApiKey {
            provider: config.name.clone(),
            variable: config.api_key_env.clone(),
        });
    }
    Ok(())
}
