//! One evaluation task: `task.toml`, the repository snapshot `repo/`, the reference
//! solution `solution/`, and the working copies they are run in.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use hone_protocol::HoneError;
use serde::Deserialize;

/// The agent's time limit when `task.toml` does not set one.
const DEFAULT_TIMEOUT_SECS: u64 = 600;

/// The check command's time limit.
const CHECK_TIMEOUT: Duration = Duration::from_secs(300);

/// `task.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TaskFile {
    /// What the agent is asked.
    pub(crate) prompt: String,
    /// Shell command run in the repository afterwards; the task is solved when it exits 0.
    pub(crate) check: String,
    /// The agent's time limit in seconds.
    pub(crate) timeout: Option<u64>,
    /// The task's main language.
    #[serde(default)]
    pub(crate) language: String,
    /// Free-form tags (`bugfix`, `rename`, `no-file-named`, …).
    #[serde(default)]
    pub(crate) tags: Vec<String>,
}

/// A task of a suite.
#[derive(Debug, Clone)]
pub(crate) struct Task {
    /// Its directory's name.
    pub(crate) name: String,
    /// Its directory.
    pub(crate) dir: PathBuf,
    /// Its `task.toml`.
    pub(crate) file: TaskFile,
}

impl Task {
    /// The agent's time limit.
    pub(crate) fn timeout(&self) -> Duration {
        Duration::from_secs(self.file.timeout.unwrap_or(DEFAULT_TIMEOUT_SECS))
    }
}

/// The tasks of the suite at `suite`, by name; `only` keeps the named ones (all when
/// empty) and names one that does not exist as an error.
pub(crate) fn load_suite(suite: &Path, only: &[String]) -> Result<Vec<Task>, HoneError> {
    let entries = std::fs::read_dir(suite).map_err(|error| {
        HoneError::validation(format!(
            "cannot read the suite {}: {error}",
            suite.display()
        ))
    })?;
    let mut tasks = Vec::new();
    for entry in entries.flatten() {
        let dir = entry.path();
        if !dir.join("task.toml").is_file() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        if !only.is_empty() && !only.contains(&name) {
            continue;
        }
        tasks.push(load_task(&dir, name)?);
    }
    tasks.sort_by(|a, b| a.name.cmp(&b.name));
    if let Some(missing) = only
        .iter()
        .find(|name| !tasks.iter().any(|task| &task.name == *name))
    {
        return Err(HoneError::validation(format!(
            "no task `{missing}` in {} (a task is a directory with a task.toml)",
            suite.display()
        )));
    }
    if tasks.is_empty() {
        return Err(HoneError::validation(format!(
            "{} holds no tasks (directories with a task.toml and a repo/)",
            suite.display()
        )));
    }
    Ok(tasks)
}

fn load_task(dir: &Path, name: String) -> Result<Task, HoneError> {
    let path = dir.join("task.toml");
    let text = std::fs::read_to_string(&path)
        .map_err(|error| HoneError::validation(format!("{}: {error}", path.display())))?;
    let file: TaskFile = toml::from_str(&text).map_err(|error| {
        HoneError::validation(format!("{}: {}", path.display(), error.message().trim()))
    })?;
    if !dir.join("repo").is_dir() {
        return Err(HoneError::validation(format!(
            "task {name} has no repo/ directory"
        )));
    }
    Ok(Task {
        name,
        dir: dir.to_path_buf(),
        file,
    })
}

/// A fresh working copy of `task`'s snapshot: `repo/` copied into a temporary directory,
/// then (with `solution`) `solution/` copied over it, committed to a new git repository.
pub(crate) struct WorkingCopy {
    dir: tempfile::TempDir,
}

impl WorkingCopy {
    /// Copies the snapshot (and the solution) and commits it.
    pub(crate) fn new(task: &Task, solution: bool) -> Result<Self, HoneError> {
        let dir = tempfile::Builder::new()
            .prefix(&format!("hone-eval-{}-", task.name))
            .tempdir()
            .map_err(|error| tool_error(format!("cannot create a temporary directory: {error}")))?;
        let repo = dir.path().join("repo");
        copy_tree(&task.dir.join("repo"), &repo)?;
        if solution {
            let overlay = task.dir.join("solution");
            if !overlay.is_dir() {
                return Err(HoneError::validation(format!(
                    "task {} has no solution/ directory",
                    task.name
                )));
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
                .map_err(|error| tool_error(format!("cannot run git: {error}")))?;
            if !status.success() {
                return Err(tool_error(format!(
                    "git {} failed in {}",
                    args.join(" "),
                    repo.display()
                )));
            }
        }
        Ok(Self { dir })
    }

    /// The repository.
    pub(crate) fn repo(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    /// Where nested builds (`cargo test`) put their output, outside the repository and
    /// apart from any shared target directory.
    fn build_dir(&self) -> PathBuf {
        self.dir.path().join("build")
    }

    /// Keeps the directory on disk and returns its path.
    pub(crate) fn keep(self) -> PathBuf {
        self.dir.keep()
    }

    /// Runs `command` in the repository; `Ok(true)` when it exits 0, with the output's
    /// last lines.
    pub(crate) async fn run_check(&self, command: &str) -> (bool, String) {
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
pub(crate) fn copy_tree(from: &Path, to: &Path) -> Result<(), HoneError> {
    let failed = |path: &Path, error: std::io::Error| {
        tool_error(format!("cannot copy {}: {error}", path.display()))
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

fn tool_error(message: String) -> HoneError {
    HoneError::new(hone_protocol::ErrorCategory::Tool, message)
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

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn suites_load_sorted_and_filtered() {
        let suite = tempfile::tempdir().unwrap();
        for name in ["b-task", "a-task"] {
            write(
                &suite.path().join(name).join("task.toml"),
                "prompt = \"fix it\"\ncheck = \"true\"\nlanguage = \"python\"\ntags = [\"x\"]\n",
            );
            write(&suite.path().join(name).join("repo/a.py"), "x = 1\n");
        }
        std::fs::create_dir_all(suite.path().join("not-a-task")).unwrap();
        let tasks = load_suite(suite.path(), &[]).unwrap();
        let names: Vec<&str> = tasks.iter().map(|task| task.name.as_str()).collect();
        assert_eq!(names, ["a-task", "b-task"]);
        assert_eq!(
            tasks[0].timeout(),
            Duration::from_secs(DEFAULT_TIMEOUT_SECS)
        );
        let only = load_suite(suite.path(), &["b-task".into()]).unwrap();
        assert_eq!(only.len(), 1);
        let error = load_suite(suite.path(), &["c-task".into()]).unwrap_err();
        assert!(
            error.message.contains("no task `c-task`"),
            "{}",
            error.message
        );
    }

    #[test]
    fn bad_task_files_are_named() {
        let suite = tempfile::tempdir().unwrap();
        write(&suite.path().join("t/task.toml"), "prompt = \"x\"\n");
        write(&suite.path().join("t/repo/a.py"), "");
        let error = load_suite(suite.path(), &[]).unwrap_err();
        assert!(error.message.contains("task.toml"), "{}", error.message);
        assert!(error.message.contains("check"), "{}", error.message);
        let empty = tempfile::tempdir().unwrap();
        assert!(load_suite(empty.path(), &[]).is_err());
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
