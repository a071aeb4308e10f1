//! One compact line per tool call: `read_file src/auth.ts 32-50`, `run_command cargo test`.

use serde_json::Value;

use crate::format::one_line;

/// The keys whose values say what a call is about, most telling first.
const SUBJECT_KEYS: &[&str] = &[
    "command", "path", "from", "pattern", "query", "name", "symbol", "file", "glob", "id",
    "message",
];

/// `name` followed by the call's main arguments, at most `limit` characters.
pub(crate) fn describe(name: &str, arguments: &str, limit: usize) -> String {
    let Ok(Value::Object(args)) = serde_json::from_str::<Value>(arguments) else {
        let raw = one_line(arguments, limit);
        return if raw.is_empty() || raw == "{}" {
            name.to_string()
        } else {
            one_line(&format!("{name} {raw}"), limit)
        };
    };
    let mut parts = vec![name.to_string()];
    for key in SUBJECT_KEYS {
        if let Some(value) = args.get(*key).and_then(scalar) {
            parts.push(value);
            if *key == "from"
                && let Some(to) = args.get("to").and_then(scalar)
            {
                parts.push(format!("→ {to}"));
            }
            break;
        }
    }
    let start = args.get("start_line").and_then(Value::as_u64);
    let end = args.get("end_line").and_then(Value::as_u64);
    match (start, end) {
        (Some(start), Some(end)) => parts.push(format!("{start}-{end}")),
        (Some(start), None) => parts.push(format!("{start}-")),
        (None, Some(end)) => parts.push(format!("-{end}")),
        (None, None) => {}
    }
    one_line(&parts.join(" "), limit)
}

/// A `tool.requested` event's arguments as the text the model sent.
pub(crate) fn raw_arguments(arguments: &Value) -> String {
    match arguments {
        Value::String(raw) => raw.clone(),
        other => other.to_string(),
    }
}

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(text) if !text.trim().is_empty() => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_show_path_and_range() {
        let line = describe(
            "read_file",
            r#"{"path":"src/auth.ts","start_line":32,"end_line":50}"#,
            80,
        );
        assert_eq!(line, "read_file src/auth.ts 32-50");
    }

    #[test]
    fn commands_moves_and_bad_json() {
        assert_eq!(
            describe("run_command", r#"{"command":"cargo test -p x"}"#, 80),
            "run_command cargo test -p x"
        );
        assert_eq!(
            describe("move_file", r#"{"from":"a.rs","to":"b.rs"}"#, 80),
            "move_file a.rs → b.rs"
        );
        assert_eq!(describe("list_dir", "{}", 80), "list_dir");
        assert_eq!(
            describe("read_file", "{\"path\": ", 80),
            "read_file {\"path\":"
        );
        assert_eq!(
            describe("run_command", r#"{"command":"a\nb"}"#, 80),
            "run_command a b"
        );
    }
}
