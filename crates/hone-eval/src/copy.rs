//! The working copies tasks are run in: the snapshot (and the solution) copied into a
//! temporary directory and committed to a new git repository.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::{EvalError, Task};

/// The check command's time limit.
const CHECK_TIMEOUT: Duration = Duration::from_secs(300);

/// A fresh working copy of `task`'s snapshot: `repo/` copied into a temporary directory,
/// then (with `solution`) `solution/` copied over it, committed to a new git repository.
pub struct WorkingCopy {
    dir: tempfile::TempDir,
}

impl WorkingCopy {
    /// Copies the snapshot (and the solution) and commits it.
    pub fn new(task: &Task, solution: bool) -> Result<Self, EvalError> {
        let dir = tempfile::Builder::new()
            .prefix(&format!("hone-eval-{}-", task.name))
            .tempdir()
            .map_err(EvalError::TempDir)?;
        let repo = dir.path().join("repo");
        copy_tree(&task.dir.join("repo"), &repo)?;
        if solution {
            let overlay = task.dir.join("solution");
            if !overlay.is_dir() {
                return Err(EvalError::NoSolution {
                    task: task.name.clone(),
                });
            }
            copy_tree(&overlay, &repo)?;
        }
        for args in [
            &["init", "-q"][..],
            &["add", "-A"],
            &[
                "-c",
                "user.name=hone eval",
                "-c",
                "user.email=eval@hone.invalid",
                "commit",
                "-qm",
                "task snapshot",
            ],
        ] {
            let status = std::process::Command::new("git")
                .args(args)
                .current_dir(&repo)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .map_err(EvalError::Git)?;
            if !status.success() {
                return Err(EvalError::GitFailed {
                    args: args.join(" "),
                    repo: repo.clone(),
                });
            }
        }
        Ok(Self { dir })
    }

    /// The repository.
    pub fn repo(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    /// Where nested builds (`cargo test`) put their output, outside the repository and
    /// apart from any shared target directory.
    fn build_dir(&self) -> PathBuf {
        self.dir.path().join("build")
    }

    /// Keeps the directory on disk and returns its path.
    pub fn keep(self) -> PathBuf {
        self.dir.keep()
    }

    /// Runs `command` in the repository; `Ok(true)` when it exits 0, with the output's
    /// last lines.
    pub async fn run_check(&self, command: &str) -> (bool, String) {
        let mut child = tokio::process::Command::new("sh");
        child
            .arg("-c")
            .arg(command)
            .current_dir(self.repo())
            .env("CARGO_TARGET_DIR", self.build_dir())
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(Stdio::null())
            .kill_on_drop(true);
        let started = Instant::now();
        match tokio::time::timeout(CHECK_TIMEOUT, child.output()).await {
            Ok(Ok(output)) => {
                let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
                text.push_str(&String::from_utf8_lossy(&output.stderr));
                (output.status.success(), last_lines(&text, 15))
            }
            Ok(Err(error)) => (false, format!("cannot run the check: {error}")),
            Err(_) => (
                false,
                format!(
                    "the check timed out after {} s",
                    started.elapsed().as_secs()
                ),
            ),
        }
    }
}

/// Copies the directory `from` into `to` (created), files and directories; symbolic
/// links are skipped.
fn copy_tree(from: &Path, to: &Path) -> Result<(), EvalError> {
    let failed = |path: &Path, source: std::io::Error| EvalError::Copy {
        path: path.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(to).map_err(|error| failed(to, error))?;
    for entry in std::fs::read_dir(from).map_err(|error| failed(from, error))? {
        let entry = entry.map_err(|error| failed(from, error))?;
        let kind = entry
            .file_type()
            .map_err(|error| failed(&entry.path(), error))?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target).map_err(|error| failed(&entry.path(), error))?;
        }
    }
    Ok(())
}

/// The last `count` non-empty lines of `text`.
fn last_lines(text: &str, count: usize) -> String {
    let lines: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    lines[lines.len().saturating_sub(count)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load_suite;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[tokio::test]
    async fn working_copies_overlay_the_solution_and_run_checks() {
        let suite = tempfile::tempdir().unwrap();
        write(
            &suite.path().join("t/task.toml"),
            "prompt = \"x\"\ncheck = \"grep -q fixed a.txt\"\n",
        );
        write(&suite.path().join("t/repo/a.txt"), "broken\n");
        write(&suite.path().join("t/repo/sub/b.txt"), "kept\n");
        write(&suite.path().join("t/solution/a.txt"), "fixed\n");
        let task = load_suite(suite.path(), &[]).unwrap().remove(0);
        let copy = WorkingCopy::new(&task, false).unwrap();
        assert!(copy.repo().join(".git").is_dir());
        assert!(copy.repo().join("sub/b.txt").is_file());
        assert!(!copy.run_check(&task.file.check).await.0);
        let solved = WorkingCopy::new(&task, true).unwrap();
        assert!(solved.run_check(&task.file.check).await.0);
        assert!(solved.repo().join("sub/b.txt").is_file());
    }
}
