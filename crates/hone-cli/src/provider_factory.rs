//! Building the selected provider: the embedded model in-process (`hone-local`), every other
//! kind through `hone_providers::build_provider`.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;

use hone_config::{Config, LocalSettings, ProviderConfig, WireApi};
use hone_local::{LocalOptions, LocalProvider};
use hone_models::{ModelError, ModelStore, catalog_entry, human_bytes};
use hone_protocol::HoneError;
use hone_providers::Provider;

use crate::model_cmd::{model_error, pull_with_progress};

/// Whether the command may ask questions on the terminal (stdin and stderr are terminals and
/// the output is not machine-readable).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prompting {
    /// Ask before pulling a missing model.
    Allowed,
    /// Never ask; fail with the command to run instead.
    Never,
}

impl Prompting {
    /// `Allowed` when stdin and stderr are terminals and `machine_output` is false.
    pub(crate) fn detect(machine_output: bool) -> Self {
        if !machine_output && std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
            Self::Allowed
        } else {
            Self::Never
        }
    }
}

/// The provider `settings` describe. For kind `local` the model (a catalog name, resolved to
/// its verified file, or a path to a GGUF file) is loaded on a blocking thread with the
/// `[local]` settings of `config`; a catalog model that is not downloaded is pulled first
/// when `prompting` allows asking and the user agrees.
pub(crate) async fn build(
    config: &Config,
    settings: ProviderConfig,
    prompting: Prompting,
) -> Result<Arc<dyn Provider>, HoneError> {
    if settings.wire != WireApi::Local {
        return hone_providers::build_provider(settings);
    }
    let path = local_model_path(&settings.model, prompting).await?;
    let options = local_options(&config.local_settings());
    let name = settings.model.clone();
    let shown = path.display().to_string();
    let loaded = tokio::task::spawn_blocking(move || LocalProvider::load(&path, &name, options))
        .await
        .map_err(|error| HoneError::provider(format!("loading the local model failed: {error}")))?
        .map_err(|error| {
            HoneError::config(format!("cannot load the local model {shown}: {error}"))
        })?;
    Ok(loaded)
}

/// The file to load for `model`, pulling a missing catalog model when allowed.
async fn local_model_path(model: &str, prompting: Prompting) -> Result<PathBuf, HoneError> {
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
            if prompting == Prompting::Allowed && ask_to_pull(model, &error)? {
                return pull_with_progress(&store, model).await;
            }
            Err(model_error(error))
        }
        Err(error) => Err(model_error(error)),
    }
}

/// Asks on the terminal whether to pull `model`; only an explicit yes counts.
fn ask_to_pull(model: &str, problem: &ModelError) -> Result<bool, HoneError> {
    let size = catalog_entry(model).map_or_else(String::new, |entry| {
        format!(" ({})", human_bytes(entry.size))
    });
    let question = match problem {
        ModelError::NotDownloaded { .. } => {
            format!(
                "hone: the local model `{model}`{size} is not downloaded yet. Download it now? [y/N] "
            )
        }
        _ => format!("hone: {problem}\nhone: download `{model}`{size} again now? [y/N] "),
    };
    eprint!("{question}");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|error| HoneError::validation(format!("cannot read the answer: {error}")))?;
    Ok(matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
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
            ..LocalSettings::default()
        });
        assert!(!options.constrained_tools);
        assert_eq!(options.threads, Some(3));
        assert_eq!(options.temperature, 0.0);
        assert_eq!(options.context_size, defaults.context_size);
        assert_eq!(options.seed, defaults.seed);
    }

    #[test]
    fn the_config_default_model_is_the_catalog_default() {
        assert_eq!(hone_config::LOCAL_DEFAULT_MODEL, hone_models::DEFAULT_MODEL);
        assert!(catalog_entry(hone_config::LOCAL_DEFAULT_MODEL).is_some());
    }
}
