//! Audit logs under `<root>/.hone/logs/`: every model request and response (`comms.jsonl`),
//! every tool call with its full result (`tools.jsonl`), and every approved command as a
//! script (`commands/`). Known secrets are redacted from every line; logging never fails a turn.

use std::fs::OpenOptions;
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
        let dir = enabled.then(|| root.join(AUDIT_DIR));
        if let Some(dir) = &dir
            && std::fs::create_dir_all(dir).is_ok()
        {
            // The logs hold code and prompts: keep them out of the repository.
            let _ = std::fs::write(dir.join(".gitignore"), "*\n");
        }
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
        let dir = self.dir.as_ref()?.join("commands");
        std::fs::create_dir_all(&dir).ok()?;
        let number = self.scripts.fetch_add(1, Ordering::Relaxed) + 1;
        let path = dir.join(format!("{}-{number:03}.sh", self.session));
        let script = format!(
            "#!/bin/sh\n# approved by the user or policy in hone session {}\n{}\n",
            self.session,
            self.redact(command)
        );
        std::fs::write(&path, script).ok()?;
        Some(path)
    }

    fn append(&self, file: &str, line: Value) {
        let Some(dir) = &self.dir else { return };
        let text = self.redact(&line.to_string());
        let result = OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(file))
            .and_then(|mut handle| writeln!(handle, "{text}"));
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
}
