//! `hone doctor`: which providers this machine can use right now.

use std::process::ExitCode;

use hone_protocol::HoneError;

use crate::cli::GlobalArgs;

/// The exit code when no provider is usable: a configuration problem (as a missing key is).
const NOTHING_USABLE: u8 = 2;

/// Runs `hone doctor`: succeeds when at least one provider is usable now, exits 2 otherwise
/// (the report says what to do).
pub(crate) async fn run(global: &GlobalArgs) -> Result<ExitCode, HoneError> {
    let config = crate::load_config(global)?;
    let never = crate::terminal::Terminal::never_asking();
    let report = hone_runtime::doctor::report(&config, &never).await;
    print!("{}", report.text);
    Ok(if report.usable.is_empty() {
        ExitCode::from(NOTHING_USABLE)
    } else {
        ExitCode::SUCCESS
    })
}
