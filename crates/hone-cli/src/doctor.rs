//! `hone doctor`: which providers this machine can use right now.

use std::process::ExitCode;

use hone_protocol::HoneError;

use crate::cli::GlobalArgs;

/// Runs `hone doctor`; always succeeds once the configuration loads.
pub(crate) async fn run(global: &GlobalArgs) -> Result<ExitCode, HoneError> {
    let config = crate::load_config(global)?;
    let never = crate::terminal::Terminal::never_asking();
    print!("{}", hone_runtime::doctor::report(&config, &never).await);
    Ok(ExitCode::SUCCESS)
}
