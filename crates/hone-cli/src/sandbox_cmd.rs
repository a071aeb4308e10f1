//! `hone sandbox [--mode MODE] [--allow-network] [--writable PATH]... -- CMD ARGS...`: runs
//! one command under the OS sandbox (`hone_sandbox::Helper`). hone runs every model command
//! through it (with `--exec`, so the command replaces the helper and keeps its process id).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use hone_sandbox::{Helper, HelperOptions, Limits, SandboxMode, SandboxPolicy};

use crate::cli::GlobalArgs;

/// `hone sandbox`.
#[derive(Debug, Args)]
pub struct SandboxArgs {
    /// How much the command may write: read-only (only the --writable paths and its private
    /// TMPDIR), workspace-write (also the current directory; the default) or off.
    #[arg(long, value_name = "MODE")]
    pub mode: Option<SandboxMode>,

    /// Let the command use the network (default: no TCP, no internet sockets).
    #[arg(long)]
    pub allow_network: bool,

    /// Another directory the command may write under (repeatable).
    #[arg(long = "writable", value_name = "PATH")]
    pub writable: Vec<PathBuf>,

    /// Another directory the command may read where namespaces hide it (the home
    /// directory's toolchains are readable already; relative to the home; repeatable).
    #[arg(long = "readable", value_name = "PATH")]
    pub readable: Vec<PathBuf>,

    /// Run without namespaces: Landlock and seccomp only (the command sees every file and
    /// process, as on systems without user namespaces).
    #[arg(long)]
    pub no_namespaces: bool,

    /// Run the command on a copy-on-write view of the current directory whose changes land
    /// in DIR/upper (an empty private directory with `upper` and `work` in it; hone makes
    /// one for every command it runs). Needs namespaces; the project is left unchanged.
    #[arg(long = "overlay-dir", value_name = "DIR")]
    pub overlay_dir: Option<PathBuf>,

    /// A directory of the current directory written straight through the copy-on-write
    /// view (relative; repeatable; with --overlay-dir).
    #[arg(long = "passthrough", value_name = "PATH", requires = "overlay_dir")]
    pub passthrough: Vec<PathBuf>,

    /// CPU seconds the command may use (0: no limit; default 3600).
    #[arg(long = "limit-cpu", value_name = "SECONDS")]
    pub limit_cpu: Option<u64>,

    /// Address space the command may use, in MiB (0: no limit, the default).
    #[arg(long = "limit-memory", value_name = "MIB")]
    pub limit_memory: Option<u64>,

    /// Processes the user may have while the command runs (0: no limit; default 4096).
    #[arg(long = "limit-processes", value_name = "N")]
    pub limit_processes: Option<u64>,

    /// Print the rules applied to stderr before running the command.
    #[arg(long)]
    pub explain: bool,

    /// Replace hone with the command instead of waiting for it: no note on failure and no
    /// private temporary directory (hone passes its own with --writable and TMPDIR).
    #[arg(long)]
    pub exec: bool,

    /// The command and its arguments, after `--`.
    #[arg(value_name = "COMMAND", required = true, num_args = 1.., last = true)]
    pub command: Vec<OsString>,
}

/// Runs the command under the sandbox and returns its exit code.
pub(crate) fn run(global: &GlobalArgs, args: &SandboxArgs) -> ExitCode {
    // The command runs where it was started (or in -C DIR), not at the repository root.
    let workdir = match crate::place(global).map(|place| place.working_dir) {
        Ok(dir) => dir,
        Err(error) => {
            eprintln!("hone sandbox: {}", error.message);
            return ExitCode::from(hone_sandbox::SETUP_FAILED);
        }
    };
    let options = HelperOptions {
        policy: SandboxPolicy {
            mode: args
                .mode
                .or(global.sandbox)
                .unwrap_or(SandboxMode::WorkspaceWrite),
            writable_roots: args.writable.clone(),
            network: args.allow_network,
            readable_roots: args.readable.clone(),
            limits: limits(args),
            namespaces: !args.no_namespaces,
            overlay: args
                .overlay_dir
                .clone()
                .map(|dir| hone_sandbox::overlay::Overlay {
                    dir,
                    passthrough: args.passthrough.clone(),
                }),
        },
        workdir,
        command: args.command.clone(),
        exec: args.exec,
    };
    let result = Helper::new(options).and_then(|helper| {
        if args.explain || global.verbose > 0 {
            for line in helper.explain().lines() {
                eprintln!("hone sandbox: {line}");
            }
        }
        helper.run()
    });
    match result {
        Ok(exit) => {
            if let Some(note) = exit.note {
                eprintln!("hone sandbox: {note}");
            }
            ExitCode::from(exit.code)
        }
        Err(error) => {
            eprintln!("hone sandbox: {error}");
            ExitCode::from(error.exit_code())
        }
    }
}

/// The limits from the flags, the defaults where none is given.
fn limits(args: &SandboxArgs) -> Limits {
    let defaults = Limits::default();
    let pick = |flag: Option<u64>, default| flag.map_or(default, Limits::parse_value);
    Limits {
        cpu_seconds: pick(args.limit_cpu, defaults.cpu_seconds),
        memory_mb: pick(args.limit_memory, defaults.memory_mb),
        processes: pick(args.limit_processes, defaults.processes),
    }
}
