//! The `hone` executable: clap parsing (`cli`), dispatch, printing and exit codes, and
//! nothing that builds providers, stores or indexes (that is `hone-runtime`'s, and what a
//! command prints is built there or in the library it comes from, so every face says the
//! same thing).
//!
//! - `place` is the one project-root discovery every command uses (`-C DIR` is where the
//!   search starts; `hone sandbox` keeps the working directory).
//! - `exec` opens its session through `Runtime::start_session` and prints what the runtime's
//!   `report` texts and `RunEnd` say; `status_line` draws its live line on a terminal;
//!   `tui_cmd` hands the `Runtime` to `hone_tui::run_on`.
//! - `terminal` is the runtime's `Interaction` on a terminal (its questions on stdin/stderr,
//!   the progress of `hone model pull`, `hone: warning:` lines).
//! - `ask`, `models` and `doctor` use the runtime's provider factory, probe and report;
//!   `sessions_cmd`, `undo_cmd`, `context_cmd` and `index_cmd` print what the runtime's store,
//!   reports and index runs return; `model_cmd`, `mcp_cmd` and `eval_cmd` print
//!   `hone_models::report`, hone-mcp's report lines and `hone_eval::report`; `sandbox_cmd`
//!   hands its flags to `hone_sandbox::Helper`.
//! - `term` holds the conventions every command follows (`--color`/`NO_COLOR`, `--quiet`, a
//!   closed stdout as a quiet exit 141); `input` joins the prompt words with piped stdin;
//!   `help_cmd` generates completions and manual pages from the same clap definition; `exit`
//!   prints an error's one line and exits with `hone_runtime::exit_code`, one table for every
//!   command.

mod acp_cmd;
mod app_server_cmd;
mod approve;
mod ask;
mod cli;
mod config_cmd;
mod context_cmd;
mod custom_command;
mod diff;
mod doctor;
mod eval_cmd;
mod exec;
mod exit;
mod help_cmd;
mod index_cmd;
mod input;
mod json_lines;
mod lsp_cmd;
mod mcp_cmd;
mod model_cmd;
mod models;
mod plan_mode;
mod rewind_cmd;
mod sandbox_cmd;
mod sessions_cmd;
mod signals;
mod status_line;
mod term;
mod terminal;
mod tui_cmd;
mod undo_cmd;
mod web_cmd;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use hone_config::{CliOverrides, Config, ConfigSources};
use hone_protocol::HoneError;

use crate::cli::{Cli, Command, GlobalArgs};

/// mimalloc serves every allocation of the process: Rust's, and with its `override` feature
/// the C libraries' too. tree-sitter allocates and frees a node at a time, and under glibc's
/// `malloc` that cost a cold index a tenth of its time (`malloc_consolidate` after each
/// freed tree). mimalloc 3 holds freed memory for a second before returning it to the OS, so
/// the embedded engine's large per-call buffers are reused rather than faulted in again (the
/// reason mimalloc 2, which returns it after 10 ms, was left out). Measured side by side in
/// `docs/benchmarks.md`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // Started again by `hone sandbox` as the init of a command's namespaces.
    if let Some(code) = hone_sandbox::init_stage() {
        return ExitCode::from(code);
    }
    let cli = Cli::parse();
    term::init(cli.global.color, cli.global.quiet);
    if let Some(Command::Sandbox(args)) = &cli.command {
        // Before any runtime thread exists: the restrictions hold for this thread and what
        // it starts.
        return sandbox_cmd::run(&cli.global, args);
    }
    // Other processes of the user (a command in the Landlock-only fallback included) cannot
    // read hone's environment, where API keys live, nor trace it. Best effort: where the
    // kernel refuses, the namespaces still hide hone from commands.
    let _protected = hone_sandbox::protect_process();
    if cli.command.is_some() {
        // The terminal UI logs to a file instead (tui_cmd).
        init_logging(cli.global.verbose);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: could not start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(error) => exit::report(&error),
    }
}

async fn run(cli: Cli) -> Result<ExitCode, HoneError> {
    let Some(command) = cli.command else {
        return tui_cmd::run(&cli.global, &cli.tui).await;
    };
    tui_cmd::reject_with_command(&cli.tui)?;
    match command {
        Command::Ask(args) => ask::run(&cli.global, args).await,
        Command::Exec(args) => Ok(exec::run(&cli.global, args).await),
        Command::Models(args) => models::run(&cli.global, &args).await,
        Command::Model(command) => model_cmd::run(&cli.global, &command).await,
        Command::Doctor => doctor::run(&cli.global).await,
        Command::Index(args) => index_cmd::run_index(&cli.global, &args).await,
        Command::Map(args) => index_cmd::run_map(&cli.global, &args),
        Command::Symbols(args) => index_cmd::run_symbols(&cli.global, &args),
        Command::Deps(args) => index_cmd::run_deps(&cli.global, &args),
        Command::Config(command) => config_cmd::run(&cli.global, &command),
        Command::Sessions(command) => sessions_cmd::run(&cli.global, &command),
        Command::Undo(args) => undo_cmd::run(&cli.global, &args),
        Command::Context(args) => context_cmd::run(&cli.global, &args),
        Command::Sandbox(args) => Ok(sandbox_cmd::run(&cli.global, &args)),
        Command::Eval(args) => eval_cmd::run(&cli.global, &args).await,
        Command::Completions(args) => Ok(help_cmd::completions(&args)),
        Command::Man(args) => help_cmd::man(&args),
        Command::Mcp(command) => mcp_cmd::run(&cli.global, &command).await,
        Command::AppServer => app_server_cmd::run(&cli.global).await,
        Command::Acp => acp_cmd::run(&cli.global).await,
        Command::Web(args) => web_cmd::run(&cli.global, &args).await,
        Command::Lsp => lsp_cmd::run(&cli.global).await,
    }
}

/// Where the user is and the project they are in: the search for the repository root (the
/// nearest ancestor holding `.git`) starts at `-C DIR`, else at the current directory.
pub(crate) fn place(global: &GlobalArgs) -> Result<hone_runtime::ProjectPlace, HoneError> {
    let start = match &global.project_dir {
        Some(dir) if dir.is_dir() => dir.clone(),
        Some(dir) => {
            return Err(HoneError::config(format!(
                "-C {}: not a directory",
                dir.display()
            )));
        }
        None => std::env::current_dir().map_err(|error| {
            HoneError::config(format!("cannot read the current directory: {error}"))
        })?,
    };
    hone_runtime::ProjectPlace::discover(&start)
}

/// The project root every command works on ([`place`]); `.hone/` lives there.
pub(crate) fn project_dir(global: &GlobalArgs) -> Result<PathBuf, HoneError> {
    Ok(place(global)?.root)
}

/// The configuration overrides given by the global flags.
pub(crate) fn overrides(global: &GlobalArgs) -> CliOverrides {
    CliOverrides {
        provider: global.provider.clone(),
        model: global.model.clone(),
        base_url: global.base_url.clone(),
        profile: global.profile.clone(),
        sandbox: global.sandbox,
        ..CliOverrides::default()
    }
}

/// Loads the layered configuration for the project the user pointed at.
pub(crate) fn load_config(global: &GlobalArgs) -> Result<Config, HoneError> {
    load_config_with(global, overrides(global))
}

/// Loads the configuration with explicit overrides (commands with extra flags).
pub(crate) fn load_config_with(
    global: &GlobalArgs,
    overrides: CliOverrides,
) -> Result<Config, HoneError> {
    let sources = ConfigSources::from_process(Some(project_dir(global)?));
    let config = hone_config::load(&sources, &overrides)?;
    hone_core::set_audit_max_bytes(config.log_max_bytes());
    Ok(config)
}

/// Logs go to stderr, only when asked for with `-v` or `HONE_LOG`, so they never mix
/// with answers on stdout.
fn init_logging(verbose: u8) {
    let default_level = match verbose {
        0 => return init_from_env(),
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::new(format!(
        "hone={default_level},hone_providers={default_level},hone_config={default_level}"
    ));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(term::color_stderr())
        .with_writer(std::io::stderr)
        .try_init();
}

fn init_from_env() {
    if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_env("HONE_LOG") {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_ansi(term::color_stderr())
            .with_writer(std::io::stderr)
            .try_init();
    }
}
