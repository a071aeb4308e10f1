//! Rendering tools, calls and results as prompt text.

use hone_protocol::{ToolResult, ToolSpec};
use serde_json::Value;

use crate::parser::{TAG_CLOSE, TAG_OPEN};

/// `text` as a JSON string literal.
fn json_string(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

/// A call as the model is taught to write it:
/// `<tool_call>\n{"name": "…", "arguments": {…}}\n</tool_call>`.
///
/// Arguments that parse as JSON are embedded as they are (trimmed); empty
/// arguments become `{}`; anything else is embedded as a JSON string, so the
/// block stays valid JSON while keeping every character the model produced.
pub fn render_tool_call(name: &str, arguments_json: &str) -> String {
    let trimmed = arguments_json.trim();
    let arguments = if trimmed.is_empty() {
        "{}".to_owned()
    } else if serde_json::from_str::<Value>(trimmed).is_ok() {
        trimmed.to_owned()
    } else {
        json_string(arguments_json)
    };
    format!(
        "{TAG_OPEN}\n{{\"name\": {}, \"arguments\": {arguments}}}\n{TAG_CLOSE}",
        json_string(name)
    )
}

/// A tool result as fed back to the model:
/// `<tool_response>\n{"name": "…", "content": "…"}\n</tool_response>`, with
/// `"error": true` added when the tool failed.
pub fn render_tool_result(result: &ToolResult) -> String {
    let error = if result.is_error {
        ", \"error\": true"
    } else {
        ""
    };
    format!(
        "<tool_response>\n{{\"name\": {}, \"content\": {}{error}}}\n</tool_response>",
        json_string(&result.name),
        json_string(&result.content)
    )
}

/// One tool as a single JSON line: `{"name": …, "description": …, "parameters": …}`.
fn tool_line(tool: &ToolSpec) -> String {
    format!(
        "{{\"name\": {}, \"description\": {}, \"parameters\": {}}}",
        json_string(&tool.name),
        json_string(&tool.description),
        tool.parameters
    )
}

/// The `# Tools` section appended to the system prompt (Hermes/Qwen style): the
/// tools inside `<tools></tools>`, one JSON line each, and how to call them.
pub fn render_tools_prompt(tools: &[ToolSpec]) -> String {
    let lines: Vec<String> = tools.iter().map(tool_line).collect();
    format!(
        "# Tools\n\
         \n\
         You may call one or more tools to assist with the user query.\n\
         \n\
         You are provided with the tool signatures within <tools></tools> XML tags:\n\
         <tools>\n\
         {}\n\
         </tools>\n\
         \n\
         To call a tool, return a JSON object with the tool name and its arguments within {TAG_OPEN}{TAG_CLOSE} XML tags:\n\
         {TAG_OPEN}\n\
         {{\"name\": \"<tool-name>\", \"arguments\": {{<arguments as a JSON object>}}}}\n\
         {TAG_CLOSE}\n\
         \n\
         - Write one {TAG_OPEN} block per call; to make several calls, write several blocks one after another.\n\
         - Write the tags themselves, not a code block (no ``` fences around the call).\n\
         - After your tool calls, stop and wait: the results come back in the next message, \
         each within <tool_response></tool_response> tags.\n\
         - When no tool is needed, answer normally without any {TAG_OPEN} block.",
        lines.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_with_json_arguments_embeds_them_as_an_object() {
        assert_eq!(
            render_tool_call("read_file", " {\"path\": \"a.rs\"} "),
            "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.rs\"}}\n</tool_call>"
        );
    }

    #[test]
    fn a_call_with_empty_arguments_renders_an_empty_object() {
        assert!(render_tool_call("list_dir", "").contains("\"arguments\": {}}"));
    }

    #[test]
    fn a_call_with_broken_arguments_embeds_them_as_a_string() {
        let rendered = render_tool_call("read_file", "{\"path\": ");
        assert!(
            rendered.contains(r#""arguments": "{\"path\": "}"#),
            "{rendered}"
        );
    }

    #[test]
    fn a_result_is_a_json_line_inside_tool_response_tags() {
        let result = ToolResult {
            call_id: "call_0".into(),
            name: "read_file".into(),
            content: "fn main() {}\n".into(),
            is_error: false,
            effect: Default::default(),
        };
        assert_eq!(
            render_tool_result(&result),
            "<tool_response>\n{\"name\": \"read_file\", \"content\": \"fn main() {}\\n\"}\n</tool_response>"
        );
    }

    #[test]
    fn a_failed_result_is_marked_as_an_error() {
        let result = ToolResult {
            call_id: "call_0".into(),
            name: "read_file".into(),
            content: "no such file".into(),
            is_error: true,
            effect: Default::default(),
        };
        assert!(
            render_tool_result(&result).contains("\"content\": \"no such file\", \"error\": true}")
        );
    }

    #[test]
    fn the_tools_prompt_lists_each_tool_as_one_json_line() {
        let tools = [
            ToolSpec {
                name: "read_file".into(),
                description: "Read a \"file\"".into(),
                parameters: serde_json::json!({"type": "object", "properties": {"path": {"type": "string"}}}),
            },
            ToolSpec {
                name: "list_dir".into(),
                description: "List".into(),
                parameters: serde_json::json!({"type": "object"}),
            },
        ];
        let prompt = render_tools_prompt(&tools);
        assert!(prompt.starts_with("# Tools\n"));
        let inside = prompt
            .split("<tools>\n")
            .nth(1)
            .unwrap()
            .split("\n</tools>")
            .next()
            .unwrap();
        let lines: Vec<&str> = inside.lines().collect();
        assert_eq!(lines.len(), 2);
        let first: Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(first["name"], "read_file");
        assert_eq!(first["description"], "Read a \"file\"");
        assert_eq!(first["parameters"]["properties"]["path"]["type"], "string");
        assert!(lines[0].starts_with("{\"name\": \"read_file\", \"description\""));
        assert!(prompt.contains("<tool_call>\n{\"name\": \"<tool-name>\", \"arguments\": {"));
        assert!(prompt.contains("stop and wait"));
    }
}
