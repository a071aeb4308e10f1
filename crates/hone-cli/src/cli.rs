//! Command-line syntax.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// hone: a local-first AI coding agent that works with any LLM.
///
/// Without a command, hone opens its full-screen terminal UI.
#[derive(Debug, Parser)]
#[command(name = "hone", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// Options shared by every command.
    #[command(flatten)]
    pub global: GlobalArgs,

    /// Options of the terminal UI (no command).
    #[command(flatten)]
    pub tui: TuiArgs,

    /// What to do (none: open the terminal UI).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// `hone` without a command: the terminal UI.
#[derive(Debug, Args)]
pub struct TuiArgs {
    /// What runs without asking: read-only, ask (default), auto-edit (edits run, shown as
    /// diffs) or full-auto.
    #[arg(long = "approval", id = "tui_approval", value_name = "MODE")]
    pub approval: Option<String>,

    /// Continue a saved session: its id (or a unique start of it), or `last`. Without
    /// --resume or --new, the project's last session is continued when there is one.
    #[arg(
        long = "resume",
        id = "tui_resume",
        value_name = "ID|last",
        conflicts_with = "tui_new"
    )]
    pub resume: Option<String>,

    /// Start a new session instead of continuing the project's last one.
    #[arg(long = "new", id = "tui_new")]
    pub new: bool,

    /// Ring the terminal bell when a turn that took at least SECS ends.
    #[arg(long, value_name = "SECS")]
    pub bell_after: Option<u64>,
}

/// Options shared by every command.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Run as if started in DIR (the project root; its .hone/config.toml is read).
    #[arg(short = 'C', long = "cd", value_name = "DIR", global = true)]
    pub project_dir: Option<PathBuf>,

    /// Provider instance to use: a preset (local, openai, anthropic, gemini, ollama,
    /// lmstudio, …) or a [providers.NAME] from the configuration. Default: the first vendor
    /// whose API key variable is set, else `local` (the embedded model).
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

    /// How the commands the model runs are sandboxed: read-only, workspace-write or off
    /// (overrides `[sandbox] mode`).
    #[arg(long, value_name = "MODE", global = true)]
    pub sandbox: Option<hone_sandbox::SandboxMode>,

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
    /// Manage the embedded models that run inside hone (no server, no key).
    #[command(subcommand)]
    Model(ModelCommand),
    /// Report which providers are usable: API keys present, local servers reachable,
    /// embedded models downloaded and verified.
    Doctor,
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
    /// List, show, delete or export saved sessions.
    #[command(subcommand)]
    Sessions(crate::sessions_cmd::SessionsCommand),
    /// Take back the project's latest edits (all of the N or none), or list them.
    Undo(crate::undo_cmd::UndoArgs),
    /// Render the project instructions and files (in full or, with --summary, as outlines)
    /// as one markdown document for any chat UI; saved under .hone/context/ and printed.
    Context(crate::context_cmd::ContextArgs),
    /// Run one command under the OS sandbox (what hone does with every command the model
    /// runs): writes only under the current directory and --writable paths, no network.
    Sandbox(crate::sandbox_cmd::SandboxArgs),
    /// Run an evaluation suite: each task's repository snapshot gets one `hone exec` turn
    /// with the configured model, then the task's check decides whether it was solved.
    Eval(crate::eval_cmd::EvalArgs),
    /// MCP: list the configured servers (`list`), or serve hone to MCP clients (`serve`).
    #[command(subcommand)]
    Mcp(crate::mcp_cmd::McpCommand),
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

    /// Continue a saved session: its id (or a unique start of it), or `last` for this
    /// project's latest. The next word is taken as the session: write `--resume last
    /// "prompt"`; a bare `--resume` (at the end, or before another flag) means `last`.
    #[arg(long, value_name = "ID|last", num_args = 0..=1, default_missing_value = "last")]
    pub resume: Option<String>,

    /// Continue a copy of a saved session; the original stays as it was.
    #[arg(long, value_name = "ID", conflicts_with = "resume")]
    pub fork: Option<String>,

    /// Pin files into the context before the first turn: a path, directory or glob such as
    /// 'src/**/*.rs' (repeatable). They are refreshed whenever the agent changes them.
    #[arg(long = "file", value_name = "GLOB")]
    pub files: Vec<String>,
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

    /// Index only this sub-directory (relative to the project root); later updates keep to
    /// it. `--scope .` indexes the whole project again.
    #[arg(long, value_name = "DIR")]
    pub scope: Option<String>,

    /// Do not ask (or warn) before indexing more than 10,000 new files.
    #[arg(long, short = 'y')]
    pub yes: bool,
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
    /// Token budget of the map (default: `[index] map_budget`, 8000).
    #[arg(long, value_name = "N")]
    pub budget: Option<usize>,

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

/// `hone model …`.
#[derive(Debug, Subcommand)]
pub enum ModelCommand {
    /// Download a model (default: the configured one, else qwen2.5-coder-1.5b), verify its
    /// sha256 and print its path. Resumes an interrupted download.
    Pull {
        /// Catalog name (see `hone model list`).
        name: Option<String>,
    },
    /// List the catalog: size, whether each model is downloaded and verified, and its path.
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Delete a downloaded model (and any partial download).
    Rm {
        /// Catalog name.
        name: String,
    },
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
    fn no_command_opens_the_terminal_ui_with_its_flags() {
        let cli = Cli::parse_from(["hone", "--approval", "auto-edit", "--new", "-C", "/tmp"]);
        assert!(cli.command.is_none());
        assert_eq!(cli.tui.approval.as_deref(), Some("auto-edit"));
        assert!(cli.tui.new);
        assert!(Cli::try_parse_from(["hone", "--resume", "x", "--new"]).is_err());
        let exec = Cli::parse_from(["hone", "exec", "--approval", "full-auto", "go"]);
        assert!(exec.tui.approval.is_none(), "exec keeps its own --approval");
    }

    #[test]
    fn global_flags_work_after_the_subcommand() {
        let cli = Cli::parse_from(["hone", "ask", "--provider", "groq", "hi", "there"]);
        assert_eq!(cli.global.provider.as_deref(), Some("groq"));
        let Some(Command::Ask(ask)) = cli.command else {
            panic!("ask expected")
        };
        assert_eq!(ask.prompt, ["hi", "there"]);
    }
}
