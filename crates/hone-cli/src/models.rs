//! `hone models`: what the provider offers, with context windows.

use std::process::ExitCode;

use hone_protocol::HoneError;

use crate::cli::{GlobalArgs, ModelsArgs};

/// Runs `hone models`.
pub(crate) async fn run(global: &GlobalArgs, args: &ModelsArgs) -> Result<ExitCode, HoneError> {
    let config = crate::load_config(global)?;
    let settings = config.provider()?;
    let provider_name = settings.name.clone();
    let configured_model = settings.model.clone();
    let never = crate::terminal::Terminal::never_asking();
    let provider = hone_runtime::provider::build(&config, settings, &never).await?;
    let mut models = provider.list_models().await?;
    for model in &mut models {
        if model.context_window.is_none() {
            model.context_window = config.known_context_window(&model.id);
        }
    }
    if args.json {
        let text = serde_json::to_string_pretty(&models).map_err(|error| {
            HoneError::provider(format!("could not encode the model list: {error}"))
        })?;
        println!("{text}");
        return Ok(ExitCode::SUCCESS);
    }
    if models.is_empty() {
        println!("provider `{provider_name}` lists no models");
        return Ok(ExitCode::SUCCESS);
    }
    let width = models.iter().map(|model| model.id.len()).max().unwrap_or(0);
    println!("{:width$}  {:>10}  NAME", "MODEL", "CONTEXT");
    for model in &models {
        let marker = if model.id == configured_model {
            " (configured)"
        } else {
            ""
        };
        let window = model
            .context_window
            .map_or_else(|| "?".to_string(), |window| window.to_string());
        let name = model.display_name.as_deref().unwrap_or("");
        let label = format!("{name}{marker}");
        println!("{:width$}  {window:>10}  {}", model.id, label.trim_start());
    }
    Ok(ExitCode::SUCCESS)
}
