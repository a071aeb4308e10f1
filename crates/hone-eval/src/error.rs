//! What can go wrong loading a suite or preparing a task.

use std::path::PathBuf;

/// An error of the evaluation harness.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The suite directory cannot be read.
    #[error("cannot read the suite {}: {source}", path.display())]
    ReadSuite {
        /// The suite directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A task asked for by name is not in the suite.
    #[error("no task `{name}` in {} (a task is a directory with a task.toml)", suite.display())]
    NoSuchTask {
        /// The name asked for.
        name: String,
        /// The suite directory.
        suite: PathBuf,
    },
    /// The suite holds no task.
    #[error("{} holds no tasks (directories with a task.toml and a repo/)", suite.display())]
    EmptySuite {
        /// The suite directory.
        suite: PathBuf,
    },
    /// A `task.toml` cannot be read or is not valid.
    #[error("{}: {message}", path.display())]
    TaskFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// A task has no `repo/` directory.
    #[error("task {task} has no repo/ directory")]
    NoRepo {
        /// The task's name.
        task: String,
    },
    /// A task has no `solution/` directory.
    #[error("task {task} has no solution/ directory")]
    NoSolution {
        /// The task's name.
        task: String,
    },
    /// The working copy's temporary directory cannot be created.
    #[error("cannot create a temporary directory: {0}")]
    TempDir(std::io::Error),
    /// A file or directory of the task cannot be copied.
    #[error("cannot copy {}: {source}", path.display())]
    Copy {
        /// What was being copied.
        path: PathBuf,
        /// Why it failed.
        source: std::io::Error,
    },
    /// git cannot be run.
    #[error("cannot run git: {0}")]
    Git(std::io::Error),
    /// A git command failed in the working copy.
    #[error("git {args} failed in {}", repo.display())]
    GitFailed {
        /// Its arguments.
        args: String,
        /// The working copy's repository.
        repo: PathBuf,
    },
    /// The `hone exec` child process cannot be started.
    #[error("cannot start hone exec: {0}")]
    Start(std::io::Error),
}

impl EvalError {
    /// Whether the suite itself is at fault (a missing or malformed task), rather than the
    /// system it runs on.
    pub fn is_invalid_suite(&self) -> bool {
        matches!(
            self,
            Self::ReadSuite { .. }
                | Self::NoSuchTask { .. }
                | Self::EmptySuite { .. }
                | Self::TaskFile { .. }
                | Self::NoRepo { .. }
                | Self::NoSolution { .. }
        )
    }
}
