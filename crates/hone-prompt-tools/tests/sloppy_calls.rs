//! Tool calls small models wrote with broken JSON, repaired by the parser (samples in the
//! shapes seen in hone's transcripts).
#![allow(missing_docs, clippy::unwrap_used)]

use hone_prompt_tools::{Parsed, ToolCallParser};
use serde_json::{Value, json};

fn calls(answer: &str) -> Vec<(String, Value)> {
    let mut parser = ToolCallParser::new(["edit_file", "write_file", "read_file"]);
    let mut parsed = parser.push(answer);
    parsed.extend(parser.finish());
    parsed
        .into_iter()
        .filter_map(|piece| match piece {
            Parsed::Call { name, arguments } => {
                Some((name, serde_json::from_str(&arguments).unwrap()))
            }
            Parsed::Text(_) => None,
        })
        .collect()
}

#[test]
fn a_docstring_with_unescaped_quotes_inside_tags_is_repaired() {
    let answer = r#"I will fix it.
<tool_call>
{"name": "edit_file", "arguments": {"path": "calc.py", "old_text": "def add(a, b):\n    """Return the sum."""\n    return a - b", "new_text": "def add(a, b):\n    """Return the sum."""\n    return a + b"}}
</tool_call>"#;
    assert_eq!(
        calls(answer),
        [(
            "edit_file".to_string(),
            json!({
                "path": "calc.py",
                "old_text": "def add(a, b):\n    \"\"\"Return the sum.\"\"\"\n    return a - b",
                "new_text": "def add(a, b):\n    \"\"\"Return the sum.\"\"\"\n    return a + b",
            })
        )]
    );
}

#[test]
fn quoted_strings_of_the_code_inside_a_fenced_call_are_repaired() {
    let answer = "```json\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"hello.js\", \"content\": \"console.log(\"hi\");\n\"}}\n```";
    assert_eq!(
        calls(answer),
        [(
            "write_file".to_string(),
            json!({"path": "hello.js", "content": "console.log(\"hi\");\n"})
        )]
    );
}

#[test]
fn trailing_commas_and_single_quoted_arguments_are_repaired() {
    let answer = "<tool_call>{\"name\": \"read_file\", \"arguments\": {'path': 'src/math.js', 'start_line': 1,},}</tool_call>";
    assert_eq!(
        calls(answer),
        [(
            "read_file".to_string(),
            json!({"path": "src/math.js", "start_line": 1})
        )]
    );
}

#[test]
fn a_valid_call_is_not_changed() {
    let answer = r#"<tool_call>{"name": "write_file", "arguments": {"path": "a.py", "content": "s = \"x\"  # \"\"\"\n"}}</tool_call>"#;
    let mut parser = ToolCallParser::new(["write_file"]);
    let mut parsed = parser.push(answer);
    parsed.extend(parser.finish());
    assert_eq!(
        parsed,
        [Parsed::Call {
            name: "write_file".into(),
            arguments: r#"{"content":"s = \"x\"  # \"\"\"\n","path":"a.py"}"#.into(),
        }]
    );
}
