//! One evaluation task: `task.toml`, the repository snapshot `repo/` and the reference
//! solution `solution/`; a suite is a directory of them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::EvalError;

/// The agent's time limit when `task.toml` does not set one.
const DEFAULT_TIMEOUT_SECS: u64 = 600;

/// `task.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskFile {
    /// What the agent is asked.
    pub prompt: String,
    /// Shell command run in the repository afterwards; the task is solved when it exits 0.
    pub check: String,
    /// The agent's time limit in seconds.
    pub timeout: Option<u64>,
    /// The task's main language.
    #[serde(default)]
    pub language: String,
    /// Free-form tags (`bugfix`, `rename`, `no-file-named`, …).
    #[serde(default)]
    pub tags: Vec<String>,
}

/// A task of a suite.
#[derive(Debug, Clone)]
pub struct Task {
    /// Its directory's name.
    pub name: String,
    /// Its directory.
    pub dir: PathBuf,
    /// Its `task.toml`.
    pub file: TaskFile,
}

impl Task {
    /// The agent's time limit.
    pub fn timeout(&self) -> Duration {
        Duration::from_secs(self.file.timeout.unwrap_or(DEFAULT_TIMEOUT_SECS))
    }
}

/// The tasks of the suite at `suite`, by name; `only` keeps the named ones (all when
/// empty) and names one that does not exist as an error.
pub fn load_suite(suite: &Path, only: &[String]) -> Result<Vec<Task>, EvalError> {
    let entries = std::fs::read_dir(suite).map_err(|source| EvalError::ReadSuite {
        path: suite.to_path_buf(),
        source,
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
        return Err(EvalError::NoSuchTask {
            name: missing.clone(),
            suite: suite.to_path_buf(),
        });
    }
    if tasks.is_empty() {
        return Err(EvalError::EmptySuite {
            suite: suite.to_path_buf(),
        });
    }
    Ok(tasks)
}

fn load_task(dir: &Path, name: String) -> Result<Task, EvalError> {
    let path = dir.join("task.toml");
    let text = std::fs::read_to_string(&path).map_err(|error| EvalError::TaskFile {
        path: path.clone(),
        message: error.to_string(),
    })?;
    let file: TaskFile = toml::from_str(&text).map_err(|error| EvalError::TaskFile {
        path: path.clone(),
        message: error.message().trim().to_string(),
    })?;
    if !dir.join("repo").is_dir() {
        return Err(EvalError::NoRepo { task: name });
    }
    Ok(Task {
        name,
        dir: dir.to_path_buf(),
        file,
    })
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
        assert!(error.to_string().contains("no task `c-task`"), "{error}");
    }

    #[test]
    fn bad_task_files_are_named() {
        let suite = tempfile::tempdir().unwrap();
        write(&suite.path().join("t/task.toml"), "prompt = \"x\"\n");
        write(&suite.path().join("t/repo/a.py"), "");
        let error = load_suite(suite.path(), &[]).unwrap_err();
        assert!(error.to_string().contains("task.toml"), "{error}");
        assert!(error.to_string().contains("check"), "{error}");
        let empty = tempfile::tempdir().unwrap();
        assert!(load_suite(empty.path(), &[]).is_err());
    }
}
