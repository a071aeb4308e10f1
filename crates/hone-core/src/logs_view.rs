//! The audit logs read back for a face (`logs.read`): this session's lines of `comms.jsonl`
//! or `tools.jsonl` (and their rotated copies), each with a one-line summary. The files are
//! opened through `hone_fs` (no symlink followed, regular files only), only their tail is
//! read, every line is redacted again with the session's secrets, and one answer stays
//! bounded in size.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use hone_api::{Event, LogEntry, LogKind};
use hone_protocol::HoneError;
use serde_json::Value;

use crate::audit::AuditLog;
use crate::session::Agent;

/// Entries returned when the request sets no limit.
const DEFAULT_LIMIT: u32 = 200;
/// The most entries one answer holds.
const MAX_LIMIT: u32 = 1_000;
/// The most bytes read from the end of each log file.
const MAX_READ_BYTES: u64 = 32 * 1024 * 1024;
/// A line larger than this is listed without its content.
const MAX_ENTRY_BYTES: usize = 256 * 1024;
/// The most content bytes one answer carries; older entries are left out past it.
const MAX_ANSWER_BYTES: usize = 4 * 1024 * 1024;
/// The length of a summary's quoted text.
const SNIPPET_CHARS: usize = 80;

impl Agent {
    /// Handles [`hone_api::Request::ReadLogs`].
    pub(crate) fn show_logs(&self, kind: LogKind, after_ms: Option<u64>, limit: Option<u32>) {
        let limit = limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT) as usize;
        match read_logs(&self.audit, kind, after_ms, limit) {
            Ok(event) => self.emit(event),
            Err(message) => self.emit(Event::Error {
                error: crate::api::error_info(HoneError::validation(message)),
            }),
        }
    }
}

/// The session's entries of the `kind` log after `after_ms`, the newest `limit` of them.
fn read_logs(
    audit: &AuditLog,
    kind: LogKind,
    after_ms: Option<u64>,
    limit: usize,
) -> Result<Event, String> {
    let Some(dir) = audit.dir() else {
        return Ok(Event::LogEntries {
            kind,
            entries: Vec::new(),
            truncated: false,
            enabled: false,
        });
    };
    let name = match kind {
        LogKind::Comms => "comms",
        LogKind::Tools => "tools",
    };
    let mut entries = Vec::new();
    for file in [format!("{name}.1.jsonl"), format!("{name}.jsonl")] {
        let text = tail(&dir.join(&file))
            .map_err(|error| format!("cannot read the audit log {file}: {error}"))?;
        for raw in text.lines() {
            let redacted = audit.redact(raw);
            let Ok(line) = serde_json::from_str::<Value>(&redacted) else {
                continue;
            };
            let time_ms = line["time_ms"].as_u64().unwrap_or(0);
            if audit.is_own(&line) && after_ms.is_none_or(|after| time_ms > after) {
                entries.push(entry(kind, line, time_ms, redacted.len()));
            }
        }
    }
    let mut truncated = entries.len() > limit;
    entries.drain(..entries.len().saturating_sub(limit));
    // The newest entries first within the answer's budget; older ones left out past it.
    let mut budget = MAX_ANSWER_BYTES;
    let mut kept = entries.len();
    for (index, entry) in entries.iter().enumerate().rev() {
        let size = if entry.entry.is_some() {
            usize::try_from(entry.bytes).unwrap_or(usize::MAX)
        } else {
            0
        };
        if size > budget {
            kept = entries.len() - index - 1;
            truncated = true;
            break;
        }
        budget -= size;
    }
    entries.drain(..entries.len() - kept);
    Ok(Event::LogEntries {
        kind,
        entries,
        truncated,
        enabled: true,
    })
}

/// The last [`MAX_READ_BYTES`] of `path` (from its first whole line), or nothing when it
/// does not exist; an error when it is a symlink or not a regular file.
fn tail(path: &Path) -> std::io::Result<String> {
    let mut file = match hone_fs::open_regular(path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(String::new()),
        Err(error) => return Err(error),
    };
    let length = file.metadata()?.len();
    let start = length.saturating_sub(MAX_READ_BYTES);
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::new();
    file.take(MAX_READ_BYTES).read_to_end(&mut bytes)?;
    if start > 0 {
        let first = bytes
            .iter()
            .position(|byte| *byte == b'\n')
            .map_or(0, |at| at + 1);
        bytes.drain(..first);
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// One logged line as an entry: its label, a summary, and its content when small enough.
fn entry(kind: LogKind, line: Value, time_ms: u64, bytes: usize) -> LogEntry {
    let (label, summary, is_error) = match kind {
        LogKind::Comms => comms_summary(&line),
        LogKind::Tools => (
            line["tool"].as_str().unwrap_or("tool").to_string(),
            tool_summary(&line),
            line["is_error"].as_bool().unwrap_or(false),
        ),
    };
    LogEntry {
        time_ms,
        label,
        summary,
        is_error,
        bytes: bytes as u64,
        entry: (bytes <= MAX_ENTRY_BYTES).then_some(line),
    }
}

/// A model request (`gpt-5 · 2 new messages · 14 tool schemas`) or response (`completed ·
/// 1840 in · 32 out · "Hello…"`).
fn comms_summary(line: &Value) -> (String, String, bool) {
    let direction = line["direction"].as_str().unwrap_or("exchange").to_string();
    let payload = &line["payload"];
    let mut parts = Vec::new();
    if direction.ends_with("request") {
        if let Some(model) = payload["model"].as_str() {
            parts.push(model.to_string());
        }
        let new = payload["messages"].as_array().map_or(0, Vec::len);
        parts.push(plural(new, "new message"));
        if payload
            .get("system")
            .is_some_and(|system| !system.is_null())
        {
            parts.push("system prompt".into());
        }
        if let Some(tools) = payload.get("tools").and_then(Value::as_array) {
            parts.push(plural(tools.len(), "tool schema"));
        }
        return (direction, parts.join(" · "), false);
    }
    let status = payload["outcome"]["status"].as_str().unwrap_or("ended");
    parts.push(status.to_string());
    if let Some(usage) = payload["usage"].as_object() {
        let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
        parts.push(format!(
            "{} in · {} out",
            count("input_tokens"),
            count("output_tokens")
        ));
    }
    let blocks = payload["message"]["content"].as_array();
    for call in blocks.into_iter().flatten() {
        if call["type"] == "tool_call" {
            parts.push(format!(
                "calls {}",
                call["name"].as_str().unwrap_or("a tool")
            ));
        }
    }
    let text = payload["text"].as_str().map(str::to_string).or_else(|| {
        blocks.map(|blocks| {
            blocks
                .iter()
                .filter(|block| block["type"] == "text")
                .filter_map(|block| block["text"].as_str())
                .collect::<String>()
        })
    });
    if let Some(text) = text.filter(|text| !text.trim().is_empty()) {
        parts.push(format!("“{}”", snippet(&text)));
    }
    if status == "failed"
        && let Some(message) = payload["outcome"]["error"]["message"].as_str()
    {
        parts.push(snippet(message));
    }
    (direction, parts.join(" · "), status == "failed")
}

/// A tool call: its arguments in brief and the size of its output.
fn tool_summary(line: &Value) -> String {
    let arguments = line["arguments"].as_str().unwrap_or_default();
    let brief = serde_json::from_str::<Value>(arguments)
        .ok()
        .and_then(|value| {
            ["path", "command", "pattern", "query", "name"]
                .iter()
                .find_map(|key| value[*key].as_str().map(str::to_string))
        })
        .unwrap_or_else(|| arguments.to_string());
    let output = line["output"].as_str().unwrap_or_default();
    format!("{} · {}", snippet(&brief), plural(output.len(), "byte"))
}

fn plural(count: usize, word: &str) -> String {
    format!("{count} {word}{}", if count == 1 { "" } else { "s" })
}

/// The first line of `text`, at most [`SNIPPET_CHARS`] characters.
fn snippet(text: &str) -> String {
    let line = text.trim().lines().next().unwrap_or_default();
    if line.chars().count() > SNIPPET_CHARS {
        let cut: String = line.chars().take(SNIPPET_CHARS - 1).collect();
        format!("{cut}…")
    } else if line.len() < text.trim().len() {
        format!("{line}…")
    } else {
        line.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn logged(dir: &Path, saved: Option<&str>) -> AuditLog {
        AuditLog::new(dir, true, vec!["sk-live-secret-value".into()])
            .for_saved_session(saved.map(str::to_string))
    }

    fn read(audit: &AuditLog, kind: LogKind, after: Option<u64>, limit: usize) -> Vec<LogEntry> {
        match read_logs(audit, kind, after, limit).unwrap() {
            Event::LogEntries { entries, .. } => entries,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn only_the_sessions_own_lines_are_read_with_summaries() {
        let dir = tempfile::tempdir().unwrap();
        let ours = logged(dir.path(), Some("s-1"));
        let other = logged(dir.path(), Some("s-2"));
        ours.tool(
            "c1",
            "read_file",
            r#"{"path":"src/main.rs"}"#,
            "fn main() {}",
            false,
        );
        other.tool("c2", "run_command", r#"{"command":"ls"}"#, "x", true);
        ours.comms(
            "response",
            json!({"message": {"role": "assistant", "content": [
                {"type": "text", "text": "Hello there\nsecond line"},
                {"type": "tool_call", "id": "c3", "name": "edit_file", "arguments": "{}"}]},
              "usage": {"input_tokens": 10, "output_tokens": 2},
              "outcome": {"status": "completed", "stop_reason": "tool_use"}}),
        );
        let tools = read(&ours, LogKind::Tools, None, 10);
        assert_eq!(tools.len(), 1, "{tools:?}");
        assert_eq!(tools[0].label, "read_file");
        assert_eq!(tools[0].summary, "src/main.rs · 12 bytes");
        assert!(!tools[0].is_error);
        assert_eq!(tools[0].entry.as_ref().unwrap()["call_id"], "c1");
        let comms = read(&ours, LogKind::Comms, None, 10);
        assert_eq!(comms[0].label, "response");
        assert_eq!(
            comms[0].summary,
            "completed · 10 in · 2 out · calls edit_file · “Hello there…”"
        );
        // A resumed run of the saved session finds the earlier run's lines; another
        // session's never.
        let resumed = logged(dir.path(), Some("s-1"));
        assert_eq!(read(&resumed, LogKind::Tools, None, 10).len(), 1);
        let others = read(&other, LogKind::Tools, None, 10);
        assert_eq!(others.len(), 1);
        assert!(others[0].is_error);
        // An unsaved session sees only its own run.
        let unsaved = logged(dir.path(), None);
        assert!(read(&unsaved, LogKind::Tools, None, 10).is_empty());
    }

    #[test]
    fn secrets_never_come_back_even_from_lines_written_unredacted() {
        let dir = tempfile::tempdir().unwrap();
        let audit = logged(dir.path(), Some("s-1"));
        audit.tool("c1", "run_command", "{}", "key sk-live-secret-value", false);
        // A line planted without redaction (by another program, or an older hone).
        let logs = dir.path().join(".hone/logs/tools.jsonl");
        let mut text = std::fs::read_to_string(&logs).unwrap();
        text.push_str(
            &json!({"time_ms": 1, "session": "x", "session_id": "s-1", "tool": "t",
                "arguments": "{}", "output": "sk-live-secret-value and \
                ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "is_error": false})
            .to_string(),
        );
        text.push('\n');
        std::fs::write(&logs, text).unwrap();
        let entries = read(&audit, LogKind::Tools, None, 10);
        assert_eq!(entries.len(), 2);
        let shown = serde_json::to_string(&entries).unwrap();
        assert!(!shown.contains("sk-live-secret-value"), "{shown}");
        assert!(!shown.contains("ghp_aBcDeF"), "{shown}");
        assert!(shown.contains("[REDACTED]"), "{shown}");
    }

    #[test]
    fn after_limit_and_size_bound_the_answer() {
        let dir = tempfile::tempdir().unwrap();
        let audit = logged(dir.path(), Some("s-1"));
        for index in 0..5 {
            audit.tool(&format!("c{index}"), "read_file", "{}", "out", false);
        }
        audit.tool(
            "big",
            "read_file",
            "{}",
            &"x".repeat(MAX_ENTRY_BYTES),
            false,
        );
        let all = read(&audit, LogKind::Tools, None, 100);
        assert_eq!(all.len(), 6);
        let big = all.last().unwrap();
        assert!(big.entry.is_none() && big.bytes > MAX_ENTRY_BYTES as u64);
        let Event::LogEntries {
            entries, truncated, ..
        } = read_logs(&audit, LogKind::Tools, None, 2).unwrap()
        else {
            panic!()
        };
        assert!(truncated);
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].entry.as_ref().unwrap()["call_id"], "c4");
        // Nothing newer than the newest entry.
        let newest = all.last().unwrap().time_ms;
        assert!(read(&audit, LogKind::Tools, Some(newest), 100).is_empty());
        assert_eq!(read(&audit, LogKind::Tools, Some(0), 100).len(), 6);
    }

    #[test]
    fn a_log_that_is_a_symlink_is_refused_and_logging_off_is_told() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let audit = logged(dir.path(), None);
        let outside = dir.path().join("outside.jsonl");
        std::fs::write(&outside, "{}\n").unwrap();
        symlink(&outside, dir.path().join(".hone/logs/comms.jsonl")).unwrap();
        let refused = read_logs(&audit, LogKind::Comms, None, 10).unwrap_err();
        assert!(refused.contains("symbolic link"), "{refused}");
        let off = AuditLog::new(dir.path(), false, Vec::new());
        assert!(matches!(
            read_logs(&off, LogKind::Tools, None, 10).unwrap(),
            Event::LogEntries { enabled: false, .. }
        ));
    }

    #[test]
    fn a_huge_log_is_read_from_its_tail_on_a_whole_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.jsonl");
        let line = format!("{}\n", "y".repeat(1023));
        let count = usize::try_from(MAX_READ_BYTES / 1024).unwrap() + 3;
        std::fs::write(&path, line.repeat(count)).unwrap();
        let text = tail(&path).unwrap();
        assert!(text.len() as u64 <= MAX_READ_BYTES);
        assert!(text.lines().all(|read| read.len() == 1023));
        assert!(tail(&dir.path().join("missing.jsonl")).unwrap().is_empty());
    }
}
