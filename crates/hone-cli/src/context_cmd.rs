//! `hone context`: the project instructions and chosen files as one markdown document.

use std::process::ExitCode;

use clap::Args;
use hone_context::TrackMode;
use hone_protocol::HoneError;
use hone_runtime::document::write_context;

use crate::cli::GlobalArgs;

/// `hone context`.
#[derive(Debug, Args)]
pub struct ContextArgs {
    /// Files to include: paths, directories or globs such as `src/**/*.rs` (relative to the
    /// project root; .gitignore is honoured). Without any, only the instructions.
    #[arg(value_name = "GLOB")]
    pub globs: Vec<String>,

    /// Outlines (declarations only) instead of full contents.
    #[arg(long)]
    pub summary: bool,
}

/// Runs `hone context [GLOB…] [--summary]`.
pub(crate) fn run(global: &GlobalArgs, args: &ContextArgs) -> Result<ExitCode, HoneError> {
    let place = crate::place(global)?;
    let config = crate::load_config(global)?;
    let mode = if args.summary {
        TrackMode::Outline
    } else {
        TrackMode::Full
    };
    let mut warn = |line: &str| eprintln!("hone: warning: {line}");
    let document = write_context(
        &config,
        &place.root,
        &place.working_dir,
        &args.globs,
        mode,
        &mut warn,
    )?;
    print!("{}", document.text);
    eprintln!(
        "hone: saved {} ({} instruction file(s), {} file(s), ~{} tokens)",
        document.saved.display(),
        document.instruction_files,
        document.files,
        document.tokens
    );
    Ok(ExitCode::SUCCESS)
}
