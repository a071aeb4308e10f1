//! Audit logs under `<root>/.hone/logs/`: every model request and response (`comms.jsonl`),
//! every tool call with its full result (`tools.jsonl`), and every approved command as a
//! script (`commands/`). Known secrets are redacted from every line; logging never fails a turn.
//!
//! The files are opened through `hone_fs`: a `.hone` that is a symlink turns logging off
//! with a warning, and no log file that is a symlink (committed to the repository, say) is
//! followed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

/// Directory of the audit logs, relative to the project root.
pub const AUDIT_DIR: &str = ".hone/logs";

/// Writes the audit logs of one session.
pub(crate) struct AuditLog {
    dir: Option<PathBuf>,
    secrets: Vec<String>,
    session: String,
    scripts: AtomicU64,
}

impl AuditLog {
    /// Logs under `root/.hone/logs` when `enabled`. Secrets shorter than 6 characters are
    /// not redacted (they would mangle ordinary text and cannot be real keys).
    pub(crate) fn new(root: &Path, enabled: bool, secrets: Vec<String>) -> Self {
        let dir = if enabled { log_dir(root) } else { None };
        let session = format!("{}-{}", now_millis(), std::process::id());
        Self {
            dir,
            secrets: secrets
                .into_iter()
                .filter(|secret| secret.len() >= 6)
                .collect(),
            session,
            scripts: AtomicU64::new(0),
        }
    }

    /// Appends one model exchange (request or response) to `comms.jsonl`.
    pub(crate) fn comms(&self, direction: &str, payload: Value) {
        self.append(
            "comms.jsonl",
            json!({ "time_ms": now_millis(), "session": self.session, "direction": direction, "payload": payload }),
        );
    }

    /// Appends one tool call and its full result to `tools.jsonl`.
    pub(crate) fn tool(
        &self,
        call_id: &str,
        name: &str,
        arguments: &str,
        output: &str,
        is_error: bool,
    ) {
        self.append(
            "tools.jsonl",
            json!({
                "time_ms": now_millis(),
                "session": self.session,
                "call_id": call_id,
                "tool": name,
                "arguments": arguments,
                "output": output,
                "is_error": is_error,
            }),
        );
    }

    /// Saves an approved command as a script file and returns its path.
    pub(crate) fn command_script(&self, command: &str) -> Option<PathBuf> {
        let dir = hone_fs::create_dir_inside(self.dir.as_ref()?, Path::new("commands")).ok()?;
        let number = self.scripts.fetch_add(1, Ordering::Relaxed) + 1;
        let path = dir.join(format!("{}-{number:03}.sh", self.session));
        let script = format!(
            "#!/bin/sh\n# approved by the user or policy in hone session {}\n{}\n",
            self.session,
            self.redact(command)
        );
        hone_fs::replace_regular(&path, script.as_bytes()).ok()?;
        Some(path)
    }

    fn append(&self, file: &str, line: Value) {
        let Some(dir) = &self.dir else { return };
        let text = self.redact(&line.to_string());
        let result =
            hone_fs::open_append(&dir.join(file)).and_then(|mut handle| writeln!(handle, "{text}"));
        if let Err(error) = result {
            tracing::warn!(%error, file, "could not write the audit log");
        }
    }

    /// `text` with every known secret replaced by `[REDACTED]`.
    pub(crate) fn redact(&self, text: &str) -> String {
        let mut redacted = text.to_string();
        for secret in &self.secrets {
            redacted = redacted.replace(secret.as_str(), "[REDACTED]");
        }
        redacted
    }
}

/// `root/.hone/logs`, created through real directories only, with a `.gitignore` that
/// keeps the logs out of the repository; `None` (after a warning) when that is not safe.
fn log_dir(root: &Path) -> Option<PathBuf> {
    let result = hone_fs::hone_dir(root)
        .and_then(|_| hone_fs::create_dir_inside(root, Path::new(AUDIT_DIR)));
    let dir = match result {
        Ok(dir) => dir,
        Err(error) => {
            tracing::warn!(%error, "audit logging is off");
            eprintln!("hone: warning: audit logs are not written: {error}");
            return None;
        }
    };
    // The logs hold code and prompts: keep them out of the repository.
    if let Err(error) = hone_fs::replace_regular(&dir.join(".gitignore"), b"*\n") {
        tracing::warn!(%error, "the audit logs' .gitignore was not written");
    }
    Some(dir)
}

fn now_millis() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted_from_every_log() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(
            dir.path(),
            true,
            vec!["sk-secret-123456".into(), "abc".into()],
        );
        log.comms(
            "request",
            json!({"note": "key sk-secret-123456 here", "abc": 1}),
        );
        log.tool("c1", "run_command", "{}", "echo sk-secret-123456", false);
        let script = log
            .command_script("curl -H 'Authorization: sk-secret-123456' x")
            .unwrap();
        let comms = std::fs::read_to_string(dir.path().join(".hone/logs/comms.jsonl")).unwrap();
        let tools = std::fs::read_to_string(dir.path().join(".hone/logs/tools.jsonl")).unwrap();
        let script = std::fs::read_to_string(script).unwrap();
        for text in [&comms, &tools, &script] {
            assert!(!text.contains("sk-secret-123456"), "{text}");
            assert!(text.contains("[REDACTED]"), "{text}");
        }
        assert!(comms.contains("\"abc\""), "short secrets are not redacted");
        assert_eq!(
            std::fs::read_to_string(dir.path().join(".hone/logs/.gitignore")).unwrap(),
            "*\n"
        );
    }

    #[test]
    fn disabled_logs_write_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(dir.path(), false, Vec::new());
        log.comms("request", json!({}));
        assert!(log.command_script("ls").is_none());
        assert!(!dir.path().join(".hone").exists());
    }

    #[test]
    fn symlinked_log_files_and_gitignore_are_not_followed() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let logs = root.join(".hone/logs");
        std::fs::create_dir_all(&logs).unwrap();
        let outside = dir.path().join("outside");
        std::fs::write(&outside, "canary\n").unwrap();
        symlink("../../../outside", logs.join("comms.jsonl")).unwrap();
        symlink("../../../outside", logs.join(".gitignore")).unwrap();
        let log = AuditLog::new(&root, true, Vec::new());
        log.comms("request", json!({"x": 1}));
        log.tool("c1", "read_file", "{}", "out", false);
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "canary\n");
        assert!(logs.join("tools.jsonl").is_file());
    }

    #[test]
    fn a_hone_dir_that_is_a_symlink_turns_logging_off() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, root.join(".hone")).unwrap();
        let log = AuditLog::new(&root, true, Vec::new());
        log.comms("request", json!({"x": 1}));
        assert!(log.command_script("ls").is_none());
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    }
}
