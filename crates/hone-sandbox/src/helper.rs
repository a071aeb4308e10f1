//! The `hone sandbox` helper: runs one command under a [`SandboxPolicy`], with a private
//! temporary directory unless the command replaces the helper (`exec`). The front end
//! parses the arguments and prints; nothing here writes to the terminal.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

#[cfg(target_os = "linux")]
use crate::linux::namespaces::NamespaceError;
use crate::{SandboxError, SandboxMode, SandboxPolicy};

/// Exit code when the sandbox could not be set up (the command never ran).
pub const SETUP_FAILED: u8 = 125;
/// Exit code when the command could not be started.
pub const NOT_STARTED: u8 = 127;

/// What the helper is asked to run.
#[derive(Debug, Clone)]
pub struct HelperOptions {
    /// The rules (the private temporary directory is added to its writable roots).
    pub policy: SandboxPolicy,
    /// The working directory, absolute.
    pub workdir: PathBuf,
    /// The command and its arguments.
    pub command: Vec<OsString>,
    /// Replace the current process with the command instead of waiting for it: no private
    /// temporary directory and no failure note.
    pub exec: bool,
}

/// Why the command did not run.
#[derive(Debug, thiserror::Error)]
pub enum HelperError {
    /// The private temporary directory could not be created.
    #[error("could not create a temporary directory: {0}")]
    TempDir(std::io::Error),
    /// The sandbox could not be set up.
    #[error("{0}; run the command with `--mode off` to go without")]
    Sandbox(#[from] SandboxError),
    /// The command could not be started.
    #[error("could not run `{program}`: {source}")]
    Start {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// The thread that runs the command stopped unexpectedly.
    #[error("the sandboxed thread stopped unexpectedly")]
    Thread,
}

impl HelperError {
    /// The helper's exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Start { .. } => NOT_STARTED,
            _ => SETUP_FAILED,
        }
    }
}

/// How the command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelperExit {
    /// The exit code to pass on: the command's, or 128 + the signal that killed it.
    pub code: u8,
    /// When a sandboxed command failed: the rules it ran under and how to loosen them.
    pub note: Option<String>,
}

/// The helper, ready to run its command.
#[derive(Debug)]
pub struct Helper {
    options: HelperOptions,
    temp: Option<tempfile::TempDir>,
}

impl Helper {
    /// Prepares the run: without `exec` (and unless the sandbox is off) the command gets a
    /// private, writable `TMPDIR`, removed when it ends (compilers and test runners need
    /// one; `/tmp` itself is not writable).
    pub fn new(mut options: HelperOptions) -> Result<Self, HelperError> {
        let temp = if options.exec || options.policy.mode == SandboxMode::Off {
            None
        } else {
            let temp = tempfile::Builder::new()
                .prefix("hone-sandbox-")
                .tempdir()
                .map_err(HelperError::TempDir)?;
            options
                .policy
                .writable_roots
                .push(temp.path().to_path_buf());
            Some(temp)
        };
        Ok(Self { options, temp })
    }

    /// The rules applied, one line each.
    pub fn explain(&self) -> String {
        self.options.policy.describe(&self.options.workdir)
    }

    /// Runs the command and returns how it ended. With `exec` the command replaces this
    /// process, so this returns only when it could not be started.
    pub fn run(self) -> Result<HelperExit, HelperError> {
        let HelperOptions {
            policy,
            workdir,
            command: argv,
            exec,
        } = &self.options;
        let program = argv.first().map_or_else(String::new, |program| {
            program.to_string_lossy().into_owned()
        });
        let start_error = |source| HelperError::Start {
            program: program.clone(),
            source,
        };
        let mut fallback = None;
        #[cfg(target_os = "linux")]
        if policy.mode != SandboxMode::Off && policy.namespaces {
            // Descriptors hone's own parent left open must not reach the command.
            close_fds::set_fds_cloexec(3, &[]);
            let temp = self.temp.as_ref().map(tempfile::TempDir::path);
            match crate::linux::namespaces::run(policy, workdir, argv, temp) {
                Ok(code) => return Ok(self.exit(code, &program)),
                // Writing straight to the project would leave hone believing the command
                // changed nothing.
                Err(NamespaceError::Unavailable(reason)) if policy.copy_on_write().is_some() => {
                    return Err(HelperError::Sandbox(SandboxError::Unavailable(format!(
                        "{reason}; the copy-on-write view needs namespaces"
                    ))));
                }
                Err(NamespaceError::Unavailable(reason)) => fallback = Some(reason),
                Err(NamespaceError::Setup(error)) => return Err(error.into()),
                Err(NamespaceError::Start(source)) => {
                    return Err(HelperError::Start {
                        program: "the sandbox's init".to_string(),
                        source,
                    });
                }
            }
        }
        if *exec {
            return exec_command(start(policy, workdir, argv, None)?).map_err(start_error);
        }
        // The restrictions hold for the thread that applies them and what it starts: a
        // thread of its own leaves this one free to remove the temporary directory after.
        let temp = self.temp.as_ref().map(tempfile::TempDir::path);
        let status = std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    start(policy, workdir, argv, temp)?
                        .status()
                        .map_err(start_error)
                })
                .join()
                .unwrap_or(Err(HelperError::Thread))
        })?;
        let mut exit = self.exit(exit_code(&status), &program);
        if let Some(reason) = fallback {
            let fell_back = format!("{reason}: the command ran under Landlock and seccomp only");
            exit.note = Some(match exit.note {
                Some(note) => format!("{fell_back}\n{note}"),
                None => fell_back,
            });
        }
        Ok(exit)
    }

    /// How a run that ended with `code` is reported: with the failure note unless it
    /// succeeded, the sandbox is off or the helper was to replace itself.
    fn exit(&self, code: u8, program: &str) -> HelperExit {
        let policy = &self.options.policy;
        HelperExit {
            code,
            note: (code != 0 && policy.mode != SandboxMode::Off && !self.options.exec)
                .then(|| failure_note(program, code, policy, &self.options.workdir)),
        }
    }
}

/// Applies `policy` to the calling thread and returns the command to start from it, in
/// `workdir`, with `TMPDIR` set to `temp` when given.
fn start(
    policy: &SandboxPolicy,
    workdir: &Path,
    argv: &[OsString],
    temp: Option<&Path>,
) -> Result<Command, HelperError> {
    let mut command = crate::prepare(policy, workdir, argv)?;
    command.current_dir(workdir);
    if policy.mode != SandboxMode::Off {
        command.env(crate::MARKER_VAR, crate::Isolation::Landlock.as_str());
    }
    if let Some(temp) = temp {
        command.env("TMPDIR", temp);
    }
    Ok(command)
}

#[cfg(unix)]
fn exec_command(mut command: Command) -> Result<HelperExit, std::io::Error> {
    use std::os::unix::process::CommandExt;
    Err(command.exec())
}

#[cfg(not(unix))]
fn exec_command(mut command: Command) -> Result<HelperExit, std::io::Error> {
    let status = command.status()?;
    Ok(HelperExit {
        code: exit_code(&status),
        note: None,
    })
}

/// The exit code to pass on: the command's, or 128 + the signal that killed it.
pub(crate) fn exit_code(status: &std::process::ExitStatus) -> u8 {
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
        "`{program}` exited with code {code} inside the sandbox (mode {}: writes {writable}; \
         network {network}). If it failed with \"Permission denied\", \"Operation not \
         permitted\" or \"Read-only file system\", the sandbox blocked it: add --writable PATH \
         or --allow-network, or use --mode off.",
        policy.mode
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(mode: SandboxMode, command: &[&str]) -> HelperOptions {
        HelperOptions {
            policy: SandboxPolicy::new(mode),
            workdir: std::env::temp_dir(),
            command: command.iter().map(OsString::from).collect(),
            exec: false,
        }
    }

    #[test]
    fn the_failure_note_names_mode_roots_network_and_the_ways_out() {
        let policy = SandboxPolicy {
            mode: SandboxMode::WorkspaceWrite,
            writable_roots: vec!["/tmp/private".into()],
            ..SandboxPolicy::new(SandboxMode::WorkspaceWrite)
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

    #[test]
    fn a_private_temporary_directory_is_writable_unless_exec_or_off() {
        let helper = Helper::new(options(SandboxMode::ReadOnly, &["true"])).unwrap();
        let temp = helper.temp.as_ref().unwrap().path().to_path_buf();
        assert_eq!(
            helper.options.policy.writable_roots,
            std::slice::from_ref(&temp)
        );
        assert!(helper.explain().contains(&temp.display().to_string()));
        let mut exec = options(SandboxMode::ReadOnly, &["true"]);
        exec.exec = true;
        assert!(Helper::new(exec).unwrap().temp.is_none());
        assert!(
            Helper::new(options(SandboxMode::Off, &["true"]))
                .unwrap()
                .temp
                .is_none()
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_command_exit_code_is_passed_on_and_a_missing_program_is_named() {
        let helper = Helper::new(options(SandboxMode::Off, &["sh", "-c", "exit 3"])).unwrap();
        assert_eq!(
            helper.run().unwrap(),
            HelperExit {
                code: 3,
                note: None
            }
        );
        let ok = Helper::new(options(SandboxMode::Off, &["true"])).unwrap();
        assert_eq!(ok.run().unwrap().code, 0);
        let missing = Helper::new(options(SandboxMode::Off, &["/nonexistent/program"]))
            .unwrap()
            .run()
            .unwrap_err();
        assert_eq!(missing.exit_code(), NOT_STARTED);
        assert!(
            missing.to_string().contains("/nonexistent/program"),
            "{missing}"
        );
        let empty = Helper::new(options(SandboxMode::Off, &[]))
            .unwrap()
            .run()
            .unwrap_err();
        assert_eq!(empty.exit_code(), SETUP_FAILED);
    }
}
