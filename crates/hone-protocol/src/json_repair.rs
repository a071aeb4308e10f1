//! Repair of the almost-JSON models write in tool calls, for text strict parsing refused.
//!
//! Small models break JSON in a few ways: raw newlines and tabs inside strings, quotes of
//! the code they quote left unescaped (a Python `"""docstring"""`, `print("hi")`), `\'`
//! escapes, trailing commas, single quotes, Python's `True`/`None`, a missing closing
//! brace. [`repair_json`] first fixes the strings in place, reading each `"` inside a
//! string as the string's end only where the JSON around it continues (a `,` and the next
//! key, a closing bracket, the end); what that does not fix goes to `llm_json` (a port of
//! the Python `json_repair`). A repair is refused rather than guessed when the text ends
//! inside a string or before a value (the answer was cut off: completing it would write
//! half a file) or when
//! the result has keys no call would have (empty, or holding quotes or brackets: the
//! repair misread the text).

use serde_json::Value;

/// The JSON value `text` was meant to be, or `None` when it cannot be repaired safely.
/// Call it only after strict parsing failed: valid JSON is returned as it is, but a valid
/// call should never come this way.
pub fn repair_json(text: &str) -> Option<Value> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        return Some(value);
    }
    let fixed = fix_strings(text);
    if let Ok(value) = serde_json::from_str::<Value>(&fixed) {
        return plausible(value);
    }
    // Cut off before a value (`{"path": `): completing it would be a guess.
    if text.ends_with([':', ',', '{', '[']) {
        return None;
    }
    // The quotes read as written (single-quoted strings, a missing comma), then as fixed.
    let controls_escaped = escape_controls(text);
    [controls_escaped.as_str(), fixed.as_str()]
        .into_iter()
        .filter(|candidate| !ends_inside_string(candidate))
        .find_map(|candidate| {
            llm_json::loads(candidate, &llm_json::RepairOptions::default())
                .ok()
                .and_then(plausible)
        })
}

/// `value` unless one of its keys shows a misread (see the module docs).
fn plausible(value: Value) -> Option<Value> {
    fn keys_ok(value: &Value) -> bool {
        match value {
            Value::Object(map) => map.iter().all(|(key, value)| {
                !key.trim().is_empty()
                    && key.len() <= 100
                    && !key.contains(|c: char| c.is_control() || "\"'\\(){}[]<>;".contains(c))
                    && keys_ok(value)
            }),
            Value::Array(items) => items.iter().all(keys_ok),
            _ => true,
        }
    }
    keys_ok(&value).then_some(value)
}

/// What the scanner is inside of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Container {
    Object,
    Array,
}

impl Container {
    fn closer(self) -> char {
        match self {
            Self::Object => '}',
            Self::Array => ']',
        }
    }
}

/// Escapes raw control characters and the quotes that cannot end their string, and turns
/// invalid escapes into what they meant (`\'` → `'`, `\d` → `\\d`).
fn fix_strings(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 16);
    let mut stack: Vec<Container> = Vec::new();
    // In an object: whether the next string is a key.
    let mut expects_key = false;
    let mut index = 0;
    while index < chars.len() {
        let character = chars[index];
        match character {
            '{' => {
                stack.push(Container::Object);
                expects_key = true;
            }
            '[' => {
                stack.push(Container::Array);
                expects_key = false;
            }
            '}' | ']' => {
                stack.pop();
                expects_key = false;
            }
            ',' => expects_key = stack.last() == Some(&Container::Object),
            ':' => expects_key = false,
            '"' => {
                let key = expects_key && stack.last() == Some(&Container::Object);
                out.push('"');
                index = copy_string(&chars, index + 1, key, &stack, &mut out);
                continue;
            }
            _ => {}
        }
        out.push(character);
        index += 1;
    }
    out
}

/// Copies the string whose content starts at `start` into `out` with its closing quote,
/// and returns the index after it (the end of the input when it never closes).
fn copy_string(
    chars: &[char],
    start: usize,
    key: bool,
    stack: &[Container],
    out: &mut String,
) -> usize {
    let mut index = start;
    while let Some(&character) = chars.get(index) {
        match character {
            '\\' => {
                match chars.get(index + 1) {
                    Some(&next @ ('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't' | 'u')) => {
                        out.push('\\');
                        out.push(next);
                    }
                    Some('\'') => out.push('\''),
                    Some(&next) => {
                        out.push_str("\\\\");
                        push_escaped(next, out);
                    }
                    None => out.push_str("\\\\"),
                }
                index += 2;
            }
            '"' if ends_string(chars, index + 1, key, stack) => {
                out.push('"');
                return index + 1;
            }
            '"' => {
                out.push_str("\\\"");
                index += 1;
            }
            other => {
                push_escaped(other, out);
                index += 1;
            }
        }
    }
    index
}

/// Pushes `character`, escaped when it is a control character.
fn push_escaped(character: char, out: &mut String) {
    match character {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{0}'..='\u{1f}' => out.push_str(&format!("\\u{:04x}", u32::from(character))),
        other => out.push(other),
    }
}

/// Whether a `"` followed by `chars[after..]` closes its string (`stack`: the containers
/// it is in): a key's quote is followed by `:`; a value's by what the JSON can go on with.
fn ends_string(chars: &[char], after: usize, key: bool, stack: &[Container]) -> bool {
    if key {
        return chars.get(skip_whitespace(chars, after)) == Some(&':');
    }
    continues(chars, after, stack)
}

/// Whether `chars[from..]` goes on like the JSON after a value in `stack`: the end (a
/// missing closing bracket is forgiven), the closing bracket of the innermost container
/// followed by what may follow that, or a `,` and the next key (an object) or value (an
/// array).
fn continues(chars: &[char], from: usize, stack: &[Container]) -> bool {
    let next = skip_whitespace(chars, from);
    let Some(&character) = chars.get(next) else {
        return true;
    };
    let Some((&innermost, outer)) = stack.split_last() else {
        return false;
    };
    if character == innermost.closer() {
        return continues(chars, next + 1, outer);
    }
    if character != ',' {
        return false;
    }
    let then = skip_whitespace(chars, next + 1);
    match innermost {
        Container::Object => starts_key(chars, then),
        Container::Array => chars.get(then).is_some_and(|&c| {
            matches!(c, '"' | '{' | '[' | '-' | 't' | 'f' | 'n') || c.is_ascii_digit()
        }),
    }
}

/// Whether a `"name":` starts at `index`.
fn starts_key(chars: &[char], index: usize) -> bool {
    if chars.get(index) != Some(&'"') {
        return false;
    }
    let Some(length) = chars[index + 1..]
        .iter()
        .position(|&c| c == '"' || c == '\n')
    else {
        return false;
    };
    let close = index + 1 + length;
    chars.get(close) == Some(&'"') && chars.get(skip_whitespace(chars, close + 1)) == Some(&':')
}

fn skip_whitespace(chars: &[char], from: usize) -> usize {
    let mut index = from;
    while chars.get(index).is_some_and(|c| c.is_whitespace()) {
        index += 1;
    }
    index
}

/// `text` with raw control characters inside strings escaped (quotes read as written).
fn escape_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut in_string = false;
    let mut escape = false;
    for character in text.chars() {
        if in_string {
            if escape {
                escape = false;
            } else if character == '\\' {
                escape = true;
            } else if character == '"' {
                in_string = false;
            } else if character.is_control() {
                push_escaped(character, &mut out);
                continue;
            }
        } else if character == '"' {
            in_string = true;
        }
        out.push(character);
    }
    out
}

/// Whether `text` ends inside a double-quoted string (quotes read as written).
fn ends_inside_string(text: &str) -> bool {
    let mut in_string = false;
    let mut escape = false;
    for character in text.chars() {
        if escape {
            escape = false;
        } else if in_string && character == '\\' {
            escape = true;
        } else if character == '"' {
            in_string = !in_string;
        }
    }
    in_string
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_python_docstring_left_unescaped_is_repaired() {
        let text = r#"{"path": "calc.py", "old_text": "def add(a, b):\n    """Add."""\n    return a - b", "new_text": "def add(a, b):\n    """Add."""\n    return a + b"}"#;
        assert!(serde_json::from_str::<Value>(text).is_err());
        assert_eq!(
            repair_json(text),
            Some(json!({
                "path": "calc.py",
                "old_text": "def add(a, b):\n    \"\"\"Add.\"\"\"\n    return a - b",
                "new_text": "def add(a, b):\n    \"\"\"Add.\"\"\"\n    return a + b",
            }))
        );
    }

    #[test]
    fn quoted_code_inside_a_value_keeps_its_quotes() {
        let cases = [
            (
                r#"{"path": "a.py", "content": "print("hi")\n"}"#,
                "print(\"hi\")\n",
            ),
            (
                r#"{"path": "a.js", "content": "const s = "a", t = "b";"}"#,
                "const s = \"a\", t = \"b\";",
            ),
            (
                r#"{"path": "a.json", "content": "{"a": [1, "}"]}"}"#,
                "{\"a\": [1, \"}\"]}",
            ),
        ];
        for (text, content) in cases {
            let value = repair_json(text).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(value["content"], content, "{text}");
            assert_eq!(value.as_object().map(|map| map.len()), Some(2), "{text}");
        }
    }

    #[test]
    fn raw_newlines_tabs_and_invalid_escapes_are_repaired() {
        let value = repair_json("{\"content\": \"a\n\tb\", \"re\": \"\\d+ it\\'s\"}").unwrap();
        assert_eq!(value["content"], "a\n\tb");
        assert_eq!(value["re"], "\\d+ it's");
    }

    #[test]
    fn trailing_commas_single_quotes_and_python_literals_are_repaired() {
        assert_eq!(
            repair_json(r#"{"path": "a.py", "start_line": 3,}"#),
            Some(json!({"path": "a.py", "start_line": 3}))
        );
        assert_eq!(
            repair_json("{'path': 'a.py', 'replace_all': True, 'x': None}"),
            Some(json!({"path": "a.py", "replace_all": true, "x": null}))
        );
        assert_eq!(
            repair_json(r#"{"path": "a.py", "content": 'x = "y"'}"#),
            Some(json!({"path": "a.py", "content": "x = \"y\""}))
        );
        assert_eq!(
            repair_json(r#"{"path": "a.py" "start_line": 3}"#),
            Some(json!({"path": "a.py", "start_line": 3}))
        );
    }

    #[test]
    fn a_missing_closing_brace_is_added() {
        assert_eq!(
            repair_json(r#"{"name": "edit_file", "arguments": {"path": "x.py", "old_text": "a"}"#),
            Some(json!({"name": "edit_file", "arguments": {"path": "x.py", "old_text": "a"}}))
        );
    }

    #[test]
    fn text_cut_off_inside_a_string_is_not_completed() {
        assert_eq!(
            repair_json(r#"{"path": "a.py", "content": "def f():\n    return"#),
            None
        );
        assert_eq!(repair_json(r#"{"path": "#), None);
        assert_eq!(repair_json(r#"{"path": "a.py","#), None);
    }

    #[test]
    fn valid_json_is_returned_unchanged_and_nothing_is_made_of_prose() {
        assert_eq!(
            repair_json(r#"{"a": "x\"y", "b": [1]}"#),
            Some(json!({"a": "x\"y", "b": [1]}))
        );
        assert_eq!(repair_json(""), None);
        assert_eq!(repair_json("   "), None);
    }

    #[test]
    fn a_misread_that_invents_keys_is_refused() {
        assert_eq!(plausible(json!({"": "x", "path": "a"})), None);
        assert_eq!(plausible(json!({"hi\")\\n": "", "path": "a"})), None);
        assert_eq!(
            plausible(json!({"a": [{"b": 1}], "Content-Type": "x"})),
            Some(json!({"a": [{"b": 1}], "Content-Type": "x"}))
        );
    }
}
