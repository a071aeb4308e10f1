//! JSON with comments and trailing commas (`tsconfig.json`, `jsconfig.json`).

use serde_json::Value;

/// Parses JSONC: `//` and `/* */` comments and trailing commas are allowed.
pub(crate) fn parse(text: &str) -> Option<Value> {
    serde_json::from_str(&to_json(text)).ok()
}

/// `text` without comments and trailing commas.
fn to_json(text: &str) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    let mut escaped = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '/' if chars.peek() == Some(&'/') => {
                for skipped in chars.by_ref() {
                    if skipped == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut previous = ' ';
                for skipped in chars.by_ref() {
                    if previous == '*' && skipped == '/' {
                        break;
                    }
                    previous = skipped;
                }
            }
            '}' | ']' => {
                let content_end = out.trim_end().len();
                if out[..content_end].ends_with(',') {
                    out.remove(content_end - 1);
                }
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_are_tolerated() {
        let text = "{\n // paths\n \"a\": [\"x/*\", ], /* block */ \"b\": \"http://y\",\n}";
        let value = parse(text).unwrap_or_default();
        assert_eq!(value["a"][0], "x/*");
        assert_eq!(value["b"], "http://y");
    }

    #[test]
    fn comment_markers_inside_strings_are_kept() {
        let value = parse(r#"{"a": "/* not */ // kept", "b": "q\"//"}"#).unwrap_or_default();
        assert_eq!(value["a"], "/* not */ // kept");
        assert_eq!(value["b"], "q\"//");
    }
}
