//! `hone config …`.

use std::process::ExitCode;

use hone_protocol::HoneError;

use crate::cli::{ConfigCommand, GlobalArgs};

/// Runs `hone config show|example`.
pub(crate) fn run(global: &GlobalArgs, command: &ConfigCommand) -> Result<ExitCode, HoneError> {
    match command {
        ConfigCommand::Show => {
            let config = crate::load_config(global)?;
            print!("{}", config.render_show());
        }
        ConfigCommand::Example => print!("{}", hone_config::EXAMPLE_CONFIG),
    }
    Ok(ExitCode::SUCCESS)
}
