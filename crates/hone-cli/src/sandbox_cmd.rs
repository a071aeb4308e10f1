//! `hone sandbox [--mode MODE] [--allow-network] [--writable PATH]... -- CMD ARGS...`: runs
//! one command under the OS sandbox. hone runs every model command through it (with
//! `--exec`, so the command replaces the helper and keeps its process id).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use hone_sandbox::{SandboxMode, SandboxPolicy};

use crate::cli::GlobalArgs;

/// Exit code when the sandbox could not be set up (the command never ran).
const SETUP_FAILED: u8 = 125;
/// Exit code when the command could not be started.
const NOT_STARTED: u8 = 127;

/// `hone sandbox`.
#[derive(Debug, Args)]
pub struct SandboxArgs {
    /// How much the command may write: read-only (only the --writable paths),
    /// workspace-write (the current directory and the --writable paths; the default) or off.
    #[arg(long, value_name = "MODE")]
    pub mode: Option<SandboxMode>,

    /// Let the command use the network (default: no TCP, no internet sockets).
    #[arg(long)]
    pub allow_network: bool,

    /// Another directory the command may write under (repeatable).
    #[arg(long = "writable", value_name = "PATH")]
    pub writable: Vec<PathBuf>,

    /// Print the rules applied to stderr before running the command.
    #[arg(long)]
    pub explain: bool,

    /// Replace hone with the command instead of waiting for it (no note on failure).
    #[arg(long)]
    pub exec: bool,

    /// The command and its arguments, after `--`.
    #[arg(value_name = "COMMAND", required = true, num_args = 1.., last = true)]
    pub command: Vec<OsString>,
}

/// Runs the command under the sandbox and returns its exit code.
pub(crate) fn run(global: &GlobalArgs, args: &SandboxArgs) -> ExitCode {
    let workdir = match crate::project_dir(global).and_then(|dir| {
        std::path::absolute(&dir).map_err(|error| {
            hone_protocol::HoneError::config(format!("cannot resolve {}: {error}", dir.display()))
        })
    }) {
        Ok(dir) => dir,
        Err(error) => {
            eprintln!("hone sandbox: {}", error.message);
            return ExitCode::from(SETUP_FAILED);
        }
    };
    let policy = SandboxPolicy {
        mode: args
            .mode
            .or(global.sandbox)
            .unwrap_or(SandboxMode::WorkspaceWrite),
        writable_roots: args.writable.clone(),
        network: args.allow_network,
    };
    if args.explain || global.verbose > 0 {
        for line in policy.describe(&workdir).lines() {
            eprintln!("hone sandbox: {line}");
        }
    }
    let mut command = match hone_sandbox::prepare(&policy, &workdir, &args.command) {
        Ok(command) => command,
        Err(error) => {
            eprintln!("hone sandbox: {error}; run the command with `--mode off` to go without");
            return ExitCode::from(SETUP_FAILED);
        }
    };
    command.current_dir(&workdir);
    let program = args.command.first().map_or_else(String::new, |program| {
        program.to_string_lossy().into_owned()
    });
    if args.exec {
        return exec(command, &program);
    }
    match command.status() {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(status) => {
            let code = exit_code(&status);
            if policy.mode != SandboxMode::Off {
                eprintln!("{}", failure_note(&program, code, &policy, &workdir));
            }
            ExitCode::from(code)
        }
        Err(error) => {
            eprintln!("hone sandbox: could not run `{program}`: {error}");
            ExitCode::from(NOT_STARTED)
        }
    }
}

#[cfg(unix)]
fn exec(mut command: std::process::Command, program: &str) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let error = command.exec();
    eprintln!("hone sandbox: could not run `{program}`: {error}");
    ExitCode::from(NOT_STARTED)
}

#[cfg(not(unix))]
fn exec(mut command: std::process::Command, program: &str) -> ExitCode {
    match command.status() {
        Ok(status) => ExitCode::from(exit_code(&status)),
        Err(error) => {
            eprintln!("hone sandbox: could not run `{program}`: {error}");
            ExitCode::from(NOT_STARTED)
        }
    }
}

/// The exit code to pass on: the command's, or 128 + the signal that killed it.
fn exit_code(status: &std::process::ExitStatus) -> u8 {
    if let Some(code) = status.code() {
        return u8::try_from(code).unwrap_or(1);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return u8::try_from(128 + signal).unwrap_or(1);
        }
    }
    1
}

/// What to tell the user when the sandboxed command failed: the rules it ran under and how
/// to loosen them.
fn failure_note(program: &str, code: u8, policy: &SandboxPolicy, workdir: &Path) -> String {
    let writable: Vec<String> = policy
        .writable_paths(workdir)
        .iter()
        .map(|path| path.display().to_string())
        .collect();
    let writable = if writable.is_empty() {
        "nowhere".to_string()
    } else {
        format!("only under {}", writable.join(", "))
    };
    let network = if policy.network { "on" } else { "off" };
    format!(
        "hone sandbox: `{program}` exited with code {code} inside the sandbox (mode {}: writes \
         {writable}; network {network}). If it failed with \"Permission denied\", \"Operation not \
         permitted\" or \"Read-only file system\", the sandbox blocked it: add --writable PATH or \
         --allow-network, or use --mode off.",
        policy.mode
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_failure_note_names_mode_roots_network_and_the_ways_out() {
        let policy = SandboxPolicy {
            mode: SandboxMode::WorkspaceWrite,
            writable_roots: vec!["/tmp/private".into()],
            network: false,
        };
        let note = failure_note("touch", 1, &policy, Path::new("/proj"));
        for part in [
            "`touch` exited with code 1",
            "mode workspace-write",
            "only under /proj, /tmp/private",
            "network off",
            "--mode off",
        ] {
            assert!(note.contains(part), "{part} missing from {note}");
        }
        let read_only = failure_note(
            "x",
            2,
            &SandboxPolicy::new(SandboxMode::ReadOnly),
            Path::new("/proj"),
        );
        assert!(read_only.contains("writes nowhere"), "{read_only}");
    }
}
