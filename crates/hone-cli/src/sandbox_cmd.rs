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
    let mut policy = SandboxPolicy {
        mode: args
            .mode
            .or(global.sandbox)
            .unwrap_or(SandboxMode::WorkspaceWrite),
        writable_roots: args.writable.clone(),
        network: args.allow_network,
    };
    // Without --exec the command gets a private, writable TMPDIR, removed when it ends
    // (compilers and test runners need one; /tmp itself is not writable).
    let temp = if args.exec || policy.mode == SandboxMode::Off {
        None
    } else {
        match tempfile::Builder::new().prefix("hone-sandbox-").tempdir() {
            Ok(temp) => {
                policy.writable_roots.push(temp.path().to_path_buf());
                Some(temp)
            }
            Err(error) => {
                eprintln!("hone sandbox: could not create a temporary directory: {error}");
                return ExitCode::from(SETUP_FAILED);
            }
        }
    };
    if args.explain || global.verbose > 0 {
        for line in policy.describe(&workdir).lines() {
            eprintln!("hone sandbox: {line}");
        }
    }
    let program = args.command.first().map_or_else(String::new, |program| {
        program.to_string_lossy().into_owned()
    });
    if args.exec {
        return match start(&policy, &workdir, &args.command, None) {
            Ok(command) => exec(command, &program),
            Err(code) => code,
        };
    }
    // The restrictions hold for the thread that applies them and what it starts: a thread
    // of its own leaves this one free to remove the temporary directory afterwards.
    let status = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let mut command = start(
                    &policy,
                    &workdir,
                    &args.command,
                    temp.as_ref().map(tempfile::TempDir::path),
                )?;
                command.status().map_err(|error| {
                    eprintln!("hone sandbox: could not run `{program}`: {error}");
                    ExitCode::from(NOT_STARTED)
                })
            })
            .join()
            .unwrap_or_else(|_| Err(ExitCode::from(SETUP_FAILED)))
    });
    match status {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(status) => {
            let code = exit_code(&status);
            if policy.mode != SandboxMode::Off {
                eprintln!("{}", failure_note(&program, code, &policy, &workdir));
            }
            ExitCode::from(code)
        }
        Err(code) => code,
    }
}

/// Applies `policy` to the calling thread and returns the command to start from it, in
/// `workdir`, with `TMPDIR` set to `temp` when given; on failure, the exit code after the
/// reason was printed.
fn start(
    policy: &SandboxPolicy,
    workdir: &Path,
    argv: &[OsString],
    temp: Option<&Path>,
) -> Result<std::process::Command, ExitCode> {
    let mut command = hone_sandbox::prepare(policy, workdir, argv).map_err(|error| {
        eprintln!("hone sandbox: {error}; run the command with `--mode off` to go without");
        ExitCode::from(SETUP_FAILED)
    })?;
    command.current_dir(workdir);
    if let Some(temp) = temp {
        command.env("TMPDIR", temp);
    }
    Ok(command)
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
