//! `hone config …`.

use std::process::ExitCode;

use hone_protocol::HoneError;

use crate::cli::{ConfigCommand, GlobalArgs};

/// Runs `hone config show|example`.
pub(crate) fn run(global: &GlobalArgs, command: &ConfigCommand) -> Result<ExitCode, HoneError> {
    match command {
        ConfigCommand::Show { toml } => {
            let config = crate::load_config(global)?;
            if *toml {
                print!("{}", config.render_toml());
            } else {
                print!("{}", config.render_show());
            }
        }
        ConfigCommand::Example => print!("{}", hone_config::EXAMPLE_CONFIG),
    }
    Ok(ExitCode::SUCCESS)
}
