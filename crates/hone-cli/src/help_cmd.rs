//! `hone completions SHELL` and `hone man`: generated from the command-line definition.

use std::process::ExitCode;

use clap::{Args, CommandFactory};
use hone_protocol::HoneError;

use crate::cli::Cli;

/// `hone completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// Prints the completion script for `args.shell` on stdout.
pub(crate) fn completions(args: &CompletionsArgs) -> ExitCode {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "hone", &mut script);
    print_bytes(&script)
}

/// `hone man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write hone.1 and one page per command (hone-exec.1, …) into DIR instead.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<std::path::PathBuf>,
}

/// Prints the manual page of `hone` (roff) on stdout, or writes every page into `--dir`.
pub(crate) fn man(args: &ManArgs) -> Result<ExitCode, HoneError> {
    let command = Cli::command();
    let failed = |error: std::io::Error| {
        HoneError::config(format!("could not write the manual pages: {error}"))
    };
    if let Some(dir) = &args.dir {
        std::fs::create_dir_all(dir).map_err(failed)?;
        clap_mangen::generate_to(command, dir).map_err(failed)?;
        eprintln!("hone: manual pages written to {}", dir.display());
        return Ok(ExitCode::SUCCESS);
    }
    let mut page = Vec::new();
    clap_mangen::Man::new(command)
        .render(&mut page)
        .map_err(failed)?;
    Ok(print_bytes(&page))
}

fn print_bytes(bytes: &[u8]) -> ExitCode {
    match crate::term::write_stdout(&String::from_utf8_lossy(bytes)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => crate::exit::report(&HoneError::config(format!(
            "could not write to stdout: {error}"
        ))),
    }
}
