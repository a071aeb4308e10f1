//! `hone models`: what the provider offers, with context windows.

use std::process::ExitCode;

use hone_protocol::HoneError;
use hone_runtime::provider::{list_models, models_table};

use crate::cli::{GlobalArgs, ModelsArgs};

/// Runs `hone models`.
pub(crate) async fn run(global: &GlobalArgs, args: &ModelsArgs) -> Result<ExitCode, HoneError> {
    let config = crate::load_config(global)?;
    let settings = config.provider()?;
    let never = crate::terminal::Terminal::never_asking();
    let models = list_models(&config, &never).await?;
    if args.json {
        let text = hone_api::display::json_pretty(&models).map_err(|error| {
            HoneError::provider(format!("could not encode the model list: {error}"))
        })?;
        println!("{text}");
    } else if models.is_empty() {
        println!("provider `{}` lists no models", settings.name);
    } else {
        print!("{}", models_table(&models, &settings.model));
    }
    Ok(ExitCode::SUCCESS)
}
