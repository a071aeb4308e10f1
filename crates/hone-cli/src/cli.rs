//! Command-line syntax.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// hone: a local-first AI coding agent that works with any LLM.
#[derive(Debug, Parser)]
#[command(name = "hone", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// Options shared by every command.
    #[command(flatten)]
    pub global: GlobalArgs,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Options shared by every command.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Run as if started in DIR (the project root; its .hone/config.toml is read).
    #[arg(short = 'C', long = "cd", value_name = "DIR", global = true)]
    pub project_dir: Option<PathBuf>,

    /// Provider instance to use: a preset (openai, anthropic, gemini, ollama, lmstudio, …)
    /// or a [providers.NAME] from the configuration.
    #[arg(long, value_name = "NAME", global = true)]
    pub provider: Option<String>,

    /// Model to use instead of the provider's configured one.
    #[arg(long, value_name = "MODEL", global = true)]
    pub model: Option<String>,

    /// Base URL of the provider's API (e.g. http://localhost:1234/v1).
    #[arg(long, value_name = "URL", global = true)]
    pub base_url: Option<String>,

    /// Named profile from the configuration ([profiles.NAME]).
    #[arg(long, value_name = "NAME", global = true)]
    pub profile: Option<String>,

    /// Log diagnostics to stderr (repeat for more: -v info, -vv debug).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
}

/// hone's commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Send one prompt to the model and stream the answer (no tools).
    Ask(AskArgs),
    /// Run the agent on a task, headless: it reads, edits and runs commands as the
    /// approval mode allows, then answers.
    Exec(ExecArgs),
    /// List the models the provider offers.
    Models(ModelsArgs),
    /// Build or update the code index (.hone/index.db), or show its status.
    Index(IndexArgs),
    /// Print the repo map: the project's most important files with their outlines, cut to a
    /// token budget.
    Map(MapArgs),
    /// Find symbol definitions by name (substring, case-insensitive).
    Symbols(SymbolsArgs),
    /// Show a file's project imports, or with --reverse the files that import it.
    Deps(DepsArgs),
    /// Inspect the configuration.
    #[command(subcommand)]
    Config(ConfigCommand),
}

/// `hone ask`.
#[derive(Debug, Args)]
pub struct AskArgs {
    /// The prompt; read from stdin when omitted or `-`.
    #[arg(value_name = "PROMPT", num_args = 0.., trailing_var_arg = true)]
    pub prompt: Vec<String>,

    /// Print one JSON event per line instead of text.
    #[arg(long)]
    pub json: bool,

    /// System prompt.
    #[arg(long, value_name = "TEXT")]
    pub system: Option<String>,

    /// Upper bound on generated tokens.
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,
}

/// `hone exec`.
#[derive(Debug, Args)]
pub struct ExecArgs {
    /// The task; read from stdin when omitted or `-`.
    #[arg(value_name = "PROMPT", num_args = 0.., trailing_var_arg = true)]
    pub prompt: Vec<String>,

    /// What runs without asking: read-only, ask (default), auto-edit (edits run, commands
    /// ask) or full-auto (everything except denied commands). Without a terminal, anything
    /// that would ask is refused.
    #[arg(long, value_name = "MODE")]
    pub approval: Option<String>,

    /// Tool rounds before the model is told to answer (default 25).
    #[arg(long, value_name = "N")]
    pub max_rounds: Option<u32>,

    /// Print one JSON event per line on stdout.
    #[arg(long)]
    pub json: bool,
}

/// `hone index`.
#[derive(Debug, Args)]
pub struct IndexArgs {
    /// `status` shows the index without updating it.
    #[command(subcommand)]
    pub command: Option<IndexCommand>,

    /// Print the summary as JSON.
    #[arg(long, global = true)]
    pub json: bool,

    /// Keep running after the update, re-indexing files as they change (one line per
    /// update) until Ctrl-C.
    #[arg(long)]
    pub watch: bool,
}

/// `hone index …` subcommands.
#[derive(Debug, Subcommand)]
pub enum IndexCommand {
    /// Show what the index holds without updating it.
    Status,
}

/// `hone map`.
#[derive(Debug, Args)]
pub struct MapArgs {
    /// Token budget of the map.
    #[arg(long, default_value_t = 8000)]
    pub budget: usize,

    /// Rank these files (paths) or identifiers (names) higher; repeatable.
    #[arg(long, value_name = "PATH|NAME")]
    pub focus: Vec<String>,
}

/// `hone symbols`.
#[derive(Debug, Args)]
pub struct SymbolsArgs {
    /// Part of a symbol name.
    pub query: String,

    /// At most this many results.
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
}

/// `hone deps`.
#[derive(Debug, Args)]
pub struct DepsArgs {
    /// File path relative to the project root.
    pub path: String,

    /// Show the files that import PATH instead.
    #[arg(long)]
    pub reverse: bool,
}

/// `hone models`.
#[derive(Debug, Args)]
pub struct ModelsArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// `hone config …`.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the effective configuration, secrets masked, with where each value came from.
    Show,
    /// Print a commented example configuration file.
    Example,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn global_flags_work_after_the_subcommand() {
        let cli = Cli::parse_from(["hone", "ask", "--provider", "groq", "hi", "there"]);
        assert_eq!(cli.global.provider.as_deref(), Some("groq"));
        let Command::Ask(ask) = cli.command else {
            panic!("ask expected")
        };
        assert_eq!(ask.prompt, ["hi", "there"]);
    }
}
