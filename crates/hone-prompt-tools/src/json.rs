//! JSON helpers behind the parser: an incremental bracket scanner, the early
//! "could this object be a call" check, and turning parsed JSON into calls.

use std::collections::HashSet;

use serde_json::{Map, Value};

/// A recognised call: tool name and raw JSON arguments.
pub(crate) type RawCall = (String, String);

/// Keys a fenced or bare call object may have; any other key (a `description`, say,
/// when the model echoes a tool schema) means the object is not a call.
const CALL_KEYS: &[&str] = &["name", "arguments", "parameters", "id", "type"];

/// Keys of the OpenAI-style wrapper `{"type": "function", "function": {…}}`.
const WRAPPER_KEYS: &[&str] = &["function", "type", "id"];

/// Keys a call object may start with; an object starting with any other key is
/// released as text at once instead of being held until it closes.
const FIRST_KEYS: &[&str] = &["name", "arguments", "parameters", "id", "type", "function"];

/// Outcome of scanning a JSON value for its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScanEvent {
    /// The value ends just before this byte offset.
    Complete(usize),
    /// The input ends before the value does.
    NeedMore,
    /// A `<` outside any string sits at this offset (only when asked to stop there).
    Lt(usize),
}

/// Finds where a JSON object or array ends by counting brackets outside strings,
/// resuming where it stopped so held-back input is never rescanned.
///
/// It is deliberately lax: it does not check the JSON is valid, only balanced, so
/// that malformed model output still finds its end.
#[derive(Debug, Clone, Default)]
pub(crate) struct JsonScan {
    pos: usize,
    depth: usize,
    in_string: bool,
    escape: bool,
}

impl JsonScan {
    /// A scanner whose value starts (with `{` or `[`) at byte `pos`.
    pub(crate) fn at(pos: usize) -> Self {
        Self {
            pos,
            ..Self::default()
        }
    }

    /// Scans on from where the last call stopped.
    pub(crate) fn advance(&mut self, bytes: &[u8], stop_at_lt: bool) -> ScanEvent {
        while let Some(&byte) = bytes.get(self.pos) {
            if self.in_string {
                if self.escape {
                    self.escape = false;
                } else if byte == b'\\' {
                    self.escape = true;
                } else if byte == b'"' {
                    self.in_string = false;
                }
            } else {
                match byte {
                    b'"' => self.in_string = true,
                    b'{' | b'[' => self.depth += 1,
                    b'}' | b']' => {
                        self.depth = self.depth.saturating_sub(1);
                        if self.depth == 0 {
                            self.pos += 1;
                            return ScanEvent::Complete(self.pos);
                        }
                    }
                    b'<' if stop_at_lt => return ScanEvent::Lt(self.pos),
                    _ => {}
                }
            }
            self.pos += 1;
        }
        ScanEvent::NeedMore
    }

    /// Steps over the byte the scanner stopped at (after [`ScanEvent::Lt`]).
    pub(crate) fn skip(&mut self) {
        self.pos += 1;
    }
}

/// Whether a held-back candidate can still turn out to be a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// It can: keep reading.
    Accept,
    /// It cannot: release it as text.
    Reject,
    /// Too little input to tell.
    Undecided,
}

/// Index of the first byte at or after `from` that is not JSON whitespace.
pub(crate) fn skip_ws(bytes: &[u8], from: usize) -> usize {
    let mut index = from;
    while matches!(bytes.get(index), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        index += 1;
    }
    index
}

/// Judges a JSON prefix starting with `{` (or `[{` when `allow_array`) by its first
/// key: a call object starts with one of a few keys, so `{"compilerOptions": …}` or
/// `{ hello` is released as text without waiting for the closing brace.
///
/// The answer never changes from Accept or Reject as more input arrives.
pub(crate) fn first_key_verdict(text: &str, allow_array: bool) -> Verdict {
    let bytes = text.as_bytes();
    let mut index = 0;
    if allow_array && bytes.first() == Some(&b'[') {
        index = skip_ws(bytes, 1);
        match bytes.get(index) {
            None => return Verdict::Undecided,
            Some(b'{') => {}
            Some(_) => return Verdict::Reject,
        }
    }
    if bytes.get(index) != Some(&b'{') {
        return Verdict::Reject;
    }
    index = skip_ws(bytes, index + 1);
    match bytes.get(index) {
        None => return Verdict::Undecided,
        Some(b'"') => {}
        Some(_) => return Verdict::Reject,
    }
    let key_start = index + 1;
    let mut key_end = key_start;
    while let Some(&byte) = bytes.get(key_end) {
        if byte == b'"' {
            break;
        }
        key_end += 1;
    }
    let key = &text[key_start..key_end];
    if key_end < bytes.len() {
        if FIRST_KEYS.contains(&key) {
            Verdict::Accept
        } else {
            Verdict::Reject
        }
    } else if FIRST_KEYS
        .iter()
        .any(|candidate| candidate.starts_with(key))
    {
        Verdict::Undecided
    } else {
        Verdict::Reject
    }
}

/// Escapes raw control characters (newlines, tabs…) inside JSON strings, the most
/// common way small models break JSON when writing file contents. `None` when
/// there was nothing to fix.
fn escape_raw_controls(text: &str) -> Option<String> {
    let mut fixed = String::with_capacity(text.len() + 16);
    let mut in_string = false;
    let mut escape = false;
    let mut changed = false;
    for character in text.chars() {
        if in_string {
            if escape {
                escape = false;
            } else {
                match character {
                    '\\' => escape = true,
                    '"' => in_string = false,
                    '\n' | '\r' | '\t' | '\u{0}'..='\u{1f}' => {
                        changed = true;
                        match character {
                            '\n' => fixed.push_str("\\n"),
                            '\r' => fixed.push_str("\\r"),
                            '\t' => fixed.push_str("\\t"),
                            other => fixed.push_str(&format!("\\u{:04x}", u32::from(other))),
                        }
                        continue;
                    }
                    _ => {}
                }
            }
        } else if character == '"' {
            in_string = true;
        }
        fixed.push(character);
    }
    changed.then_some(fixed)
}

/// Parses one JSON value, retrying with raw control characters escaped, then repaired
/// ([`hone_protocol::repair_json`]).
pub(crate) fn parse_value(text: &str) -> Option<Value> {
    serde_json::from_str(text)
        .ok()
        .or_else(|| escape_raw_controls(text).and_then(|fixed| serde_json::from_str(&fixed).ok()))
        .or_else(|| hone_protocol::repair_json(text))
}

/// Parses whitespace-separated JSON values; the flag says whether the whole text parsed.
fn parse_sequence(text: &str) -> (Vec<Value>, bool) {
    let mut values = Vec::new();
    for item in serde_json::Deserializer::from_str(text).into_iter::<Value>() {
        match item {
            Ok(value) => values.push(value),
            Err(_) => return (values, false),
        }
    }
    (values, true)
}

/// [`parse_sequence`], retrying with raw control characters escaped; when not even a
/// first value parses, the text repaired as one value ([`hone_protocol::repair_json`]).
fn parse_values(text: &str) -> (Vec<Value>, bool) {
    let (values, complete) = parse_sequence(text);
    if complete {
        return (values, complete);
    }
    let (values, complete) = match escape_raw_controls(text) {
        Some(fixed) => {
            let (fixed_values, fixed_complete) = parse_sequence(&fixed);
            if fixed_complete || fixed_values.len() > values.len() {
                (fixed_values, fixed_complete)
            } else {
                (values, complete)
            }
        }
        None => (values, complete),
    };
    if values.is_empty()
        && let Some(repaired) = hone_protocol::repair_json(text)
    {
        return (vec![repaired], true);
    }
    (values, complete)
}

/// The raw arguments text for an `arguments`/`parameters` value: objects are
/// serialised, a JSON-encoded string is unwrapped, missing or null becomes `{}`.
fn arguments_text(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => "{}".to_owned(),
        Some(Value::String(text)) => {
            let trimmed = text.trim();
            if trimmed.is_empty() {
                "{}".to_owned()
            } else if serde_json::from_str::<Value>(trimmed).is_ok() {
                trimmed.to_owned()
            } else {
                parse_value(trimmed).map_or_else(|| text.clone(), sorted_text)
            }
        }
        Some(other) => sorted_text(other.clone()),
    }
}

/// Compact JSON text with object keys sorted, whether or not serde_json keeps insertion
/// order (its `preserve_order` feature, which a dependency elsewhere in a build can turn on).
fn sorted_text(mut value: Value) -> String {
    value.sort_all_objects();
    value.to_string()
}

/// One call from one object. With `known` (fenced or bare JSON) the object must
/// name a known tool, carry `arguments` or `parameters` and nothing but call keys;
/// without it (inside `<tool_call>` tags) any object with a `name` is a call, and
/// when it has no `arguments` its other keys are taken as the arguments.
fn call_from_object(map: &Map<String, Value>, known: Option<&HashSet<String>>) -> Option<RawCall> {
    if let Some(Value::Object(function)) = map.get("function")
        && !map.contains_key("name")
    {
        if known.is_some() && !map.keys().all(|key| WRAPPER_KEYS.contains(&key.as_str())) {
            return None;
        }
        return call_from_object(function, known);
    }
    let Some(Value::String(name)) = map.get("name") else {
        return None;
    };
    let name = name.trim();
    if name.is_empty() {
        return None;
    }
    let arguments = map.get("arguments").or_else(|| map.get("parameters"));
    match known {
        Some(known) => {
            let only_call_keys = map.keys().all(|key| CALL_KEYS.contains(&key.as_str()));
            (known.contains(name) && arguments.is_some() && only_call_keys)
                .then(|| (name.to_owned(), arguments_text(arguments)))
        }
        None => {
            let arguments = match arguments {
                Some(arguments) => arguments_text(Some(arguments)),
                None => {
                    let rest: Map<String, Value> = map
                        .iter()
                        .filter(|(key, _)| !matches!(key.as_str(), "name" | "id" | "type"))
                        .map(|(key, value)| (key.clone(), value.clone()))
                        .collect();
                    sorted_text(Value::Object(rest))
                }
            };
            Some((name.to_owned(), arguments))
        }
    }
}

/// Calls from one value: an object, or a non-empty array whose every item is a call.
fn calls_from_value(value: &Value, known: Option<&HashSet<String>>) -> Option<Vec<RawCall>> {
    match value {
        Value::Object(map) => call_from_object(map, known).map(|call| vec![call]),
        Value::Array(items) if !items.is_empty() => items
            .iter()
            .map(|item| match item {
                Value::Object(map) => call_from_object(map, known),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// Calls inside `<tool_call>` tags, leniently: one or more JSON values (text after
/// the last parsable one is dropped); failing that, the first `"name": "…"` found
/// with the raw inner text as arguments; `None` when not even a name is there.
pub(crate) fn tagged_calls(inner: &str) -> Option<Vec<RawCall>> {
    let trimmed = inner.trim();
    if trimmed.is_empty() {
        return None;
    }
    let (values, _) = parse_values(trimmed);
    let mut calls = Vec::new();
    for value in &values {
        match calls_from_value(value, None) {
            Some(found) => calls.extend(found),
            None => break,
        }
    }
    if !calls.is_empty() {
        return Some(calls);
    }
    scan_name(trimmed).map(|name| vec![(name, trimmed.to_owned())])
}

/// Calls from untagged JSON (a fence's content or a bare object): every value in
/// the text must be a call to a known tool, or there are none.
pub(crate) fn untagged_calls(text: &str, known: &HashSet<String>) -> Option<Vec<RawCall>> {
    let (values, complete) = parse_values(text.trim());
    if !complete || values.is_empty() {
        return None;
    }
    let mut calls = Vec::new();
    for value in &values {
        calls.extend(calls_from_value(value, Some(known))?);
    }
    Some(calls)
}

/// The first `"name": "<string>"` in possibly malformed JSON, found without a regex.
/// Single quotes (`'name': 'read_file'`, a Python dict) are accepted too.
pub(crate) fn scan_name(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut search = 0;
    while let Some(found) = text[search..].find("name") {
        let key_start = search + found;
        let after = key_start + "name".len();
        search = after;
        let quote = match key_start
            .checked_sub(1)
            .and_then(|before| bytes.get(before))
        {
            Some(&quote @ (b'"' | b'\'')) => quote,
            _ => continue,
        };
        if bytes.get(after) != Some(&quote) {
            continue;
        }
        let mut index = skip_ws(bytes, after + 1);
        if bytes.get(index) != Some(&b':') {
            continue;
        }
        index = skip_ws(bytes, index + 1);
        let value_quote = match bytes.get(index) {
            Some(&quote @ (b'"' | b'\'')) => quote,
            _ => continue,
        };
        let start = index + 1;
        let mut end = start;
        let mut escape = false;
        while let Some(&byte) = bytes.get(end) {
            if escape {
                escape = false;
            } else if byte == b'\\' {
                escape = true;
            } else if byte == value_quote {
                break;
            }
            end += 1;
        }
        if end >= bytes.len() {
            return None;
        }
        let decoded = (value_quote == b'"')
            .then(|| serde_json::from_str::<String>(&text[index..=end]).ok())
            .flatten();
        let name = decoded.unwrap_or_else(|| text[start..end].to_owned());
        let name = name.trim();
        if !name.is_empty() {
            return Some(name.to_owned());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(names: &[&str]) -> HashSet<String> {
        names.iter().map(|name| (*name).to_owned()).collect()
    }

    #[test]
    fn scanner_finds_the_end_of_an_object_across_calls_and_ignores_braces_in_strings() {
        let text = r#"{"a": "}{\"", "b": [1, {"c": 2}]} tail"#;
        let mut scan = JsonScan::at(0);
        assert_eq!(
            scan.advance(&text.as_bytes()[..10], false),
            ScanEvent::NeedMore
        );
        let end = text.find(" tail").unwrap();
        assert_eq!(
            scan.advance(text.as_bytes(), false),
            ScanEvent::Complete(end)
        );
    }

    #[test]
    fn scanner_stops_at_a_less_than_sign_outside_strings_only_when_asked() {
        let text = r#"{"a": "<x>", <"#;
        let mut scan = JsonScan::at(0);
        assert_eq!(
            scan.advance(text.as_bytes(), true),
            ScanEvent::Lt(text.len() - 1)
        );
        scan.skip();
        assert_eq!(scan.advance(text.as_bytes(), true), ScanEvent::NeedMore);
    }

    #[test]
    fn first_key_decides_whether_an_object_may_be_a_call() {
        assert_eq!(first_key_verdict("{", false), Verdict::Undecided);
        assert_eq!(first_key_verdict("{\n  \"na", false), Verdict::Undecided);
        assert_eq!(first_key_verdict("{\"name\"", false), Verdict::Accept);
        assert_eq!(first_key_verdict("{\"arguments\"", false), Verdict::Accept);
        assert_eq!(first_key_verdict("{\"co", false), Verdict::Reject);
        assert_eq!(first_key_verdict("{ hello", false), Verdict::Reject);
        assert_eq!(first_key_verdict("[{\"name\"", true), Verdict::Accept);
        assert_eq!(first_key_verdict("[{\"name\"", false), Verdict::Reject);
        assert_eq!(first_key_verdict("[1, 2]", true), Verdict::Reject);
    }

    #[test]
    fn raw_newlines_inside_strings_are_repaired() {
        let value = parse_value("{\"content\": \"a\nb\"}").unwrap();
        assert_eq!(value["content"], "a\nb");
    }

    #[test]
    fn arguments_given_as_a_json_string_are_unwrapped() {
        let calls = tagged_calls(r#"{"name": "t", "arguments": "{\"x\": 1}"}"#).unwrap();
        assert_eq!(calls, vec![("t".to_owned(), "{\"x\": 1}".to_owned())]);
    }

    #[test]
    fn tagged_objects_without_arguments_use_their_other_keys() {
        let calls = tagged_calls(r#"{"name": "read_file", "path": "a.rs"}"#).unwrap();
        assert_eq!(
            calls,
            vec![("read_file".to_owned(), "{\"path\":\"a.rs\"}".to_owned())]
        );
    }

    #[test]
    fn openai_style_function_wrappers_are_understood() {
        let text = r#"{"type": "function", "function": {"name": "t", "arguments": {}}}"#;
        assert_eq!(
            untagged_calls(text, &known(&["t"])).unwrap(),
            vec![("t".to_owned(), "{}".to_owned())]
        );
    }

    #[test]
    fn untagged_objects_must_name_a_known_tool_and_hold_only_call_keys() {
        let known = known(&["read_file"]);
        assert!(untagged_calls(r#"{"name": "read_file", "arguments": {}}"#, &known).is_some());
        assert!(untagged_calls(r#"{"name": "other", "arguments": {}}"#, &known).is_none());
        assert!(untagged_calls(r#"{"name": "read_file"}"#, &known).is_none());
        let schema = r#"{"name": "read_file", "description": "d", "parameters": {}}"#;
        assert!(untagged_calls(schema, &known).is_none());
        let mixed = r#"[{"name": "read_file", "arguments": {}}, {"name": "x", "arguments": {}}]"#;
        assert!(untagged_calls(mixed, &known).is_none());
    }

    #[test]
    fn a_name_is_found_in_malformed_json() {
        assert_eq!(
            scan_name(r#"{"arguments": {"a": 1, "name" : "read_file""#).as_deref(),
            Some("read_file")
        );
        assert_eq!(
            scan_name(r#"{"name": 3, "x": {"name": "t\u0031"}}"#).as_deref(),
            Some("t1")
        );
        assert_eq!(scan_name(r#"{"name": "unterminated"#), None);
        assert_eq!(scan_name("no name here"), None);
        assert_eq!(
            scan_name("{'name': 'read_file', 'arguments': {}}").as_deref(),
            Some("read_file")
        );
    }
}
