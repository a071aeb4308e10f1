//! The one provider factory: the embedded model in-process (`hone-local`), every other
//! kind through `hone_providers::build_provider`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hone_config::{Config, LocalSettings, ProviderConfig, WireApi};
use hone_local::{LocalOptions, LocalProvider};
use hone_models::{ModelError, ModelStore};
use hone_protocol::HoneError;
use hone_providers::Provider;

use crate::error::model_error;
use crate::interaction::Interaction;

/// The provider `settings` describe. For kind `local` the model (a catalog name, resolved to
/// its verified file, or a path to a GGUF file) is loaded on a blocking thread with the
/// `[local]` settings of `config`; a catalog model that is not downloaded is pulled first
/// when `interaction` offers it and the user agrees.
pub async fn build(
    config: &Config,
    settings: ProviderConfig,
    interaction: &dyn Interaction,
) -> Result<Arc<dyn Provider>, HoneError> {
    if settings.wire != WireApi::Local {
        return hone_providers::build_provider(settings);
    }
    Ok(build_local(config, &settings.model, interaction).await?)
}

/// The embedded engine with `model` (a catalog name or a GGUF path) and the `[local]`
/// settings of `config`, as [`build`] loads it, typed: for what only the embedded engine
/// does (fill-in-the-middle for `hone lsp`).
pub async fn build_local(
    config: &Config,
    model: &str,
    interaction: &dyn Interaction,
) -> Result<Arc<LocalProvider>, HoneError> {
    let path = local_model_path(model, interaction).await?;
    let options = local_options(&config.local_settings());
    let name = model.to_string();
    let shown = path.display().to_string();
    let loaded = tokio::task::spawn_blocking(move || LocalProvider::load(&path, &name, options))
        .await
        .map_err(|error| HoneError::provider(format!("loading the local model failed: {error}")))?
        .map_err(|error| {
            HoneError::config(format!("cannot load the local model {shown}: {error}"))
        })?;
    Ok(loaded)
}

/// The file to load for `model`, pulling a missing catalog model when the user agrees.
async fn local_model_path(
    model: &str,
    interaction: &dyn Interaction,
) -> Result<PathBuf, HoneError> {
    let store = ModelStore::open_default().map_err(model_error)?;
    let resolved = {
        let (store, model) = (store.clone(), model.to_string());
        tokio::task::spawn_blocking(move || store.resolve(&model))
            .await
            .map_err(|error| HoneError::provider(format!("checking the model failed: {error}")))?
    };
    match resolved {
        Ok(resolved) => Ok(resolved.path().to_path_buf()),
        Err(error @ (ModelError::NotDownloaded { .. } | ModelError::Unverified { .. })) => {
            if interaction.offer_pull(model, &error) {
                return interaction.pull(&store, model).await;
            }
            Err(model_error(error))
        }
        Err(error) => Err(model_error(error)),
    }
}

/// The selected provider's models (`hone models`), each with its context window (the
/// provider's, else the configuration's table); the provider never asks `interaction`
/// anything it cannot answer alone.
pub async fn list_models(
    config: &Config,
    interaction: &dyn Interaction,
) -> Result<Vec<hone_providers::ModelInfo>, HoneError> {
    let provider = build(config, config.provider()?, interaction).await?;
    let mut models = provider.list_models().await?;
    for model in &mut models {
        if model.context_window.is_none() {
            model.context_window = config.known_context_window(&model.id);
        }
    }
    Ok(models)
}

/// `hone models`' table: id, context window and display name, the configured model marked.
pub fn models_table(models: &[hone_providers::ModelInfo], configured: &str) -> String {
    let width = models.iter().map(|model| model.id.len()).max().unwrap_or(0);
    let mut out = format!("{:width$}  {:>10}  NAME\n", "MODEL", "CONTEXT");
    for model in models {
        let marker = if model.id == configured {
            " (configured)"
        } else {
            ""
        };
        let window = model
            .context_window
            .map_or_else(|| "?".to_string(), |window| window.to_string());
        let name = model.display_name.as_deref().unwrap_or("");
        let label = format!("{name}{marker}");
        out.push_str(&format!(
            "{:width$}  {window:>10}  {}\n",
            model.id,
            label.trim_start()
        ));
    }
    out
}

/// `(base URL, number of models or why not)` for the server instance `name`, asked once
/// (no retries) with `timeout` for connecting and for the answer.
pub async fn probe(
    config: &Config,
    name: &str,
    timeout: Duration,
) -> (String, Result<usize, String>) {
    let mut settings = match config.provider_named(name) {
        Ok(settings) => settings,
        Err(error) => return (String::new(), Err(error.to_string())),
    };
    let url = settings.base_url.clone();
    settings.network.max_retries = 0;
    settings.network.connect_timeout = timeout.min(settings.network.connect_timeout);
    let provider = match hone_providers::build_provider(settings) {
        Ok(provider) => provider,
        Err(error) => return (url, Err(error.message)),
    };
    let listed = tokio::time::timeout(timeout, provider.list_models()).await;
    let result = match listed {
        Ok(Ok(models)) => Ok(models.len()),
        Ok(Err(error)) => Err(first_line(&error.message)),
        Err(_) => Err(format!("no answer within {}s", timeout.as_secs())),
    };
    (url, result)
}

/// The first line of `text`.
fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").to_string()
}

/// The engine options: `[local]` over the local provider's defaults.
fn local_options(settings: &LocalSettings) -> LocalOptions {
    let defaults = LocalOptions::default();
    LocalOptions {
        threads: settings.threads.or(defaults.threads),
        context_size: settings.context_size.unwrap_or(defaults.context_size),
        temperature: settings.temperature.unwrap_or(defaults.temperature),
        top_p: settings.top_p.or(defaults.top_p),
        seed: settings.seed.unwrap_or(defaults.seed),
        constrained_tools: settings
            .constrained_tools
            .unwrap_or(defaults.constrained_tools),
        speculative_decoding: settings
            .speculative_decoding
            .unwrap_or(defaults.speculative_decoding),
        prompt_cache: if settings.prompt_cache.unwrap_or(true) {
            hone_config::data_dir().map(|dir| dir.join("prompt-cache"))
        } else {
            None
        },
        ..defaults
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_settings_override_only_what_they_set() {
        let defaults = LocalOptions::default();
        let options = local_options(&LocalSettings {
            threads: Some(3),
            temperature: Some(0.0),
            constrained_tools: Some(false),
            prompt_cache: Some(false),
            ..LocalSettings::default()
        });
        assert_eq!(options.prompt_cache, None);
        assert!(!options.constrained_tools);
        assert_eq!(options.threads, Some(3));
        assert_eq!(options.temperature, 0.0);
        assert_eq!(options.context_size, defaults.context_size);
        assert_eq!(options.seed, defaults.seed);
    }

    #[test]
    fn the_config_default_model_is_the_catalog_default() {
        assert_eq!(hone_config::LOCAL_DEFAULT_MODEL, hone_models::DEFAULT_MODEL);
        assert!(hone_models::catalog_entry(hone_config::LOCAL_DEFAULT_MODEL).is_some());
    }
}
