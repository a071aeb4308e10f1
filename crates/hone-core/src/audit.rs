//! Audit logs under `<root>/.hone/logs/`: every model request and response (`comms.jsonl`),
//! every tool call with its full result (`tools.jsonl`), and every approved command as a
//! script (`commands/`). Secrets (the values hone holds, their encoded forms and values shaped
//! like secrets: `hone_protocol::Redactor`) are redacted from every line; logging never fails a
//! turn.
//!
//! The logs stay small: a request records only the messages that are new since the
//! session's previous request (`messages_from` says how many earlier ones it repeats), and
//! the system prompt and tool schemas only when they change. A log that would grow past
//! half of [`set_max_bytes`]'s cap is renamed to `NAME.1.jsonl` (replacing the previous
//! copy) and started afresh, so each log with its copy stays under the cap.
//!
//! The files are opened through `hone_fs`: a `.hone` that is a symlink turns logging off
//! with a warning, and no log file that is a symlink (committed to the repository, say) is
//! followed.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use hone_protocol::{ChatRequest, Outcome, Redactor};
use serde_json::{Value, json};

/// Directory of the audit logs, relative to the project root.
pub const AUDIT_DIR: &str = ".hone/logs";

/// The default cap of each log with its rotated copy: 20 MiB (`[logs] max_mb`).
pub const DEFAULT_MAX_BYTES: u64 = 20 * 1024 * 1024;

static MAX_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_MAX_BYTES);

/// Sets the cap of each audit log with its rotated copy for this process (`[logs] max_mb`;
/// the front end calls it once after loading the configuration).
pub fn set_max_bytes(bytes: u64) {
    MAX_BYTES.store(bytes.max(1024), Ordering::Relaxed);
}

/// What the previous request of the session logged, to log only what changed.
#[derive(Default)]
struct Logged {
    system: Option<u64>,
    tools: Option<u64>,
    messages: Vec<u64>,
}

/// Writes the audit logs of one session.
pub(crate) struct AuditLog {
    dir: Option<PathBuf>,
    redactor: Redactor,
    /// This run's id (`MILLIS-PID-N`), in every line.
    session: String,
    /// The saved session's id, in every line when the session is saved: its entries are
    /// found again after a resume.
    saved: Option<String>,
    scripts: AtomicU64,
    logged: Mutex<Logged>,
    /// The cap of each log with its rotated copy, fixed when the session starts.
    max_bytes: u64,
}

impl AuditLog {
    /// Logs under `root/.hone/logs` when `enabled`, redacting `secrets` (shorter than 6
    /// characters they are not: they would mangle ordinary text and cannot be real keys) and
    /// every value shaped like a secret.
    pub(crate) fn new(root: &Path, enabled: bool, secrets: Vec<String>) -> Self {
        let dir = if enabled { log_dir(root) } else { None };
        // Unique within the process too: sessions may start in the same millisecond.
        static STARTED: AtomicU64 = AtomicU64::new(0);
        let session = format!(
            "{}-{}-{}",
            now_millis(),
            std::process::id(),
            STARTED.fetch_add(1, Ordering::Relaxed)
        );
        Self {
            dir,
            redactor: Redactor::with_secrets(secrets),
            session,
            saved: None,
            scripts: AtomicU64::new(0),
            logged: Mutex::new(Logged::default()),
            max_bytes: MAX_BYTES.load(Ordering::Relaxed),
        }
    }

    /// Names the saved session in every line (`session_id`).
    pub(crate) fn for_saved_session(mut self, id: Option<String>) -> Self {
        self.saved = id;
        self
    }

    /// The directory of the logs, `None` when logging is off.
    pub(crate) fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Whether a logged line belongs to this session: this run's, or the saved session's.
    pub(crate) fn is_own(&self, line: &Value) -> bool {
        line["session"].as_str() == Some(self.session.as_str())
            || self
                .saved
                .as_deref()
                .is_some_and(|saved| line["session_id"].as_str() == Some(saved))
    }

    /// Appends a model request to `comms.jsonl`: the messages new since the previous
    /// request, and the system prompt and tool schemas when they changed.
    pub(crate) fn request(&self, direction: &str, request: &ChatRequest) {
        if self.dir.is_none() {
            return;
        }
        let messages: Vec<Value> = request
            .messages
            .iter()
            .map(|message| serde_json::to_value(message).unwrap_or_default())
            .collect();
        let hashes: Vec<u64> = messages
            .iter()
            .map(|message| hash_of(&message.to_string()))
            .collect();
        let system = request.system.as_ref().map(hash_of);
        let tools = hash_of(
            &serde_json::to_value(&request.tools)
                .unwrap_or_default()
                .to_string(),
        );
        let mut logged = self
            .logged
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let from = logged
            .messages
            .iter()
            .zip(&hashes)
            .take_while(|(old, new)| old == new)
            .count();
        let mut payload = json!({
            "model": request.model,
            "messages_from": from,
            "messages": messages[from..],
            "tool_names": request.tools.iter().map(|tool| tool.name.as_str()).collect::<Vec<_>>(),
        });
        if logged.system != system {
            payload["system"] = json!(request.system);
        }
        if logged.tools != Some(tools) {
            payload["tools"] = serde_json::to_value(&request.tools).unwrap_or_default();
        }
        for (key, value) in [
            ("max_tokens", json!(request.max_tokens)),
            ("temperature", json!(request.temperature)),
        ] {
            if !value.is_null() {
                payload[key] = value;
            }
        }
        *logged = Logged {
            system,
            tools: Some(tools),
            messages: hashes,
        };
        drop(logged);
        self.comms(direction, payload);
    }

    /// Appends one model exchange (request or response) to `comms.jsonl`.
    pub(crate) fn comms(&self, direction: &str, payload: Value) {
        self.append(
            "comms.jsonl",
            self.line(json!({ "time_ms": now_millis(), "session": self.session, "direction": direction, "payload": payload })),
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
            self.line(json!({
                "time_ms": now_millis(),
                "session": self.session,
                "call_id": call_id,
                "tool": name,
                "arguments": arguments,
                "output": output,
                "is_error": is_error,
            })),
        );
    }

    /// `line` with the saved session's id, when there is one.
    fn line(&self, mut line: Value) -> Value {
        if let Some(saved) = &self.saved {
            line["session_id"] = json!(saved);
        }
        line
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
        rotate_if_full(dir, file, text.len() as u64 + 1, self.max_bytes);
        let result =
            hone_fs::open_append(&dir.join(file)).and_then(|mut handle| writeln!(handle, "{text}"));
        if let Err(error) = result {
            tracing::warn!(%error, file, "could not write the audit log");
        }
    }

    /// `text` with every secret replaced by `[REDACTED]`.
    pub(crate) fn redact(&self, text: &str) -> String {
        self.redactor.redact(text).into_owned()
    }

    /// The session's redactor, for what is stored besides the logs.
    pub(crate) fn redactor(&self) -> &Redactor {
        &self.redactor
    }
}

/// An outcome as JSON: `{"status": "completed", "stop_reason": …}`, `{"status": "failed",
/// "error": {…}}`, `{"status": "cancelled"}`, or null when the response ended without one.
pub(crate) fn outcome_json(outcome: Option<&Outcome>) -> Value {
    match outcome {
        Some(Outcome::Completed(stop)) => json!({"status": "completed", "stop_reason": stop}),
        Some(Outcome::Failed(error)) => json!({"status": "failed", "error": error}),
        Some(Outcome::Cancelled) => json!({"status": "cancelled"}),
        None => Value::Null,
    }
}

fn hash_of(value: &impl Hash) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// Renames `dir/file` to its `.1` copy when `adding` more bytes would take it past half the
/// cap. A missing file, or one that is not a regular file, is left alone.
fn rotate_if_full(dir: &Path, file: &str, adding: u64, max_bytes: u64) {
    let path = dir.join(file);
    let Ok(metadata) = std::fs::symlink_metadata(&path) else {
        return;
    };
    if !metadata.is_file() || metadata.len() + adding <= max_bytes / 2 {
        return;
    }
    let rotated = dir.join(match file.strip_suffix(".jsonl") {
        Some(stem) => format!("{stem}.1.jsonl"),
        None => format!("{file}.1"),
    });
    if let Err(error) = std::fs::rename(&path, &rotated) {
        tracing::warn!(%error, file, "could not rotate the audit log");
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
        // Encoded forms of a known secret, and values shaped like secrets, are redacted too.
        log.tool(
            "c2",
            "run_command",
            "{}",
            "c2stc2VjcmV0LTEyMzQ1Ng== GH_TOKEN=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
            false,
        );
        let tools = std::fs::read_to_string(dir.path().join(".hone/logs/tools.jsonl")).unwrap();
        assert!(!tools.contains("c2stc2VjcmV0LTEyMzQ1Ng"), "{tools}");
        assert!(!tools.contains("ghp_aBcDeF"), "{tools}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join(".hone/logs/.gitignore")).unwrap(),
            "*\n"
        );
    }

    fn lines(path: &Path) -> Vec<Value> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    #[test]
    fn a_request_logs_only_what_changed_since_the_previous_one() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(dir.path(), true, Vec::new());
        let mut request = ChatRequest::new("m", "first question");
        request.system = Some("the system prompt".into());
        log.request("request", &request);
        request
            .messages
            .push(hone_protocol::Message::assistant("an answer"));
        request
            .messages
            .push(hone_protocol::Message::user("second"));
        log.request("request", &request);
        let logged = lines(&dir.path().join(".hone/logs/comms.jsonl"));
        let (first, second) = (&logged[0]["payload"], &logged[1]["payload"]);
        assert_eq!(first["messages_from"], 0);
        assert_eq!(first["system"], "the system prompt");
        assert_eq!(second["messages_from"], 1);
        assert_eq!(second["messages"].as_array().unwrap().len(), 2);
        assert!(second.get("system").is_none(), "unchanged: {second}");
        assert!(second.get("tools").is_none(), "unchanged: {second}");
    }

    #[test]
    fn outcomes_are_json_not_debug_text() {
        let failed = Outcome::Failed(hone_protocol::HoneError::network("down"));
        let value = outcome_json(Some(&failed));
        assert_eq!(value["status"], "failed");
        assert_eq!(value["error"]["message"], "down");
        assert_eq!(
            outcome_json(Some(&Outcome::Cancelled))["status"],
            "cancelled"
        );
        let done = outcome_json(Some(&Outcome::Completed(
            hone_protocol::StopReason::EndTurn,
        )));
        assert_eq!(done["stop_reason"], "end_turn");
        assert!(!done.to_string().contains("Completed("));
    }

    #[test]
    fn a_full_log_is_rotated_and_stays_under_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = AuditLog::new(dir.path(), true, Vec::new());
        log.max_bytes = 4_000;
        for index in 0..100 {
            log.tool(
                "c",
                "read_file",
                "{}",
                &format!("output {index} {}", "x".repeat(50)),
                false,
            );
        }
        let logs = dir.path().join(".hone/logs");
        let current = std::fs::metadata(logs.join("tools.jsonl")).unwrap().len();
        let rotated = std::fs::metadata(logs.join("tools.1.jsonl")).unwrap().len();
        assert!(current + rotated <= 4_000, "{current} + {rotated}");
        let last = lines(&logs.join("tools.jsonl"));
        assert!(
            last.last().unwrap()["output"]
                .as_str()
                .unwrap()
                .starts_with("output 99 "),
            "the newest line is kept"
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
