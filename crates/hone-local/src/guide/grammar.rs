//! The grammar of one tool call: what follows `<tool_call>` up to `</tool_call>`.

use hone_protocol::ToolSpec;
use serde_json::{Value, json};

/// The closing tag of a call.
pub(crate) const CLOSE_TAG: &str = "</tool_call>";

/// A tool as the grammar offers it: its name and the schema its arguments must match.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolSchema {
    pub(crate) name: String,
    pub(crate) arguments: Value,
}

impl ToolSchema {
    /// The tool's own schema, made strict: an object schema that lists its properties
    /// and says nothing about others allows no others (small models invent names).
    pub(crate) fn strict(tool: &ToolSpec) -> Self {
        let mut arguments = tool.parameters.clone();
        match arguments.as_object_mut() {
            Some(object) if object.contains_key("properties") => {
                object
                    .entry("additionalProperties")
                    .or_insert(Value::Bool(false));
            }
            Some(_) => {}
            None => arguments = any_object(),
        }
        Self {
            name: tool.name.clone(),
            arguments,
        }
    }

    /// The same tool with any JSON object as arguments (for a schema the grammar
    /// compiler does not support).
    pub(crate) fn loose(&self) -> Self {
        Self {
            name: self.name.clone(),
            arguments: any_object(),
        }
    }
}

fn any_object() -> Value {
    json!({"type": "object"})
}

/// A Lark grammar (llguidance's dialect) for the text after `<tool_call>`: a newline, the
/// call `{"name": <one of tools>, "arguments": <that tool's arguments>}` on one line in
/// the model's own spacing, a newline and the closing tag — the token `close` when the
/// vocabulary has it, else its text.
pub(crate) fn call_grammar(tools: &[ToolSchema], close: Option<u32>) -> String {
    let alternatives: Vec<Value> = tools
        .iter()
        .map(|tool| {
            json!({
                "type": "object",
                "properties": {
                    "name": {"const": tool.name},
                    "arguments": tool.arguments,
                },
                "required": ["name", "arguments"],
                "additionalProperties": false,
            })
        })
        .collect();
    let schema = json!({
        "anyOf": alternatives,
        "x-guidance": {
            "whitespace_flexible": false,
            "item_separator": ", ",
            "key_separator": ": ",
        },
    });
    let close = match close {
        Some(id) => format!("<[{id}]>"),
        None => format!("{:?}", CLOSE_TAG),
    };
    format!("start: \"\\n\" call \"\\n\" {close}\ncall: %json {schema}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(parameters: Value) -> ToolSpec {
        ToolSpec {
            name: "read_file".into(),
            description: String::new(),
            parameters,
        }
    }

    #[test]
    fn listed_properties_become_the_only_ones_allowed() {
        let strict = ToolSchema::strict(&spec(json!({
            "type": "object",
            "properties": {"path": {"type": "string"}},
        })));
        assert_eq!(strict.arguments["additionalProperties"], json!(false));
        // An explicit choice is kept.
        let open = ToolSchema::strict(&spec(json!({
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "additionalProperties": true,
        })));
        assert_eq!(open.arguments["additionalProperties"], json!(true));
        // Not a schema object at all: any object.
        assert_eq!(
            ToolSchema::strict(&spec(Value::Null)).arguments,
            any_object()
        );
        assert_eq!(strict.loose().arguments, any_object());
    }

    #[test]
    fn the_grammar_names_each_tool_and_the_closing_token() {
        let tools = [
            ToolSchema::strict(&spec(json!({"type": "object"}))),
            ToolSchema {
                name: "run".into(),
                arguments: any_object(),
            },
        ];
        let grammar = call_grammar(&tools, Some(151_658));
        assert!(grammar.starts_with("start: \"\\n\" call \"\\n\" <[151658]>\n"));
        assert!(grammar.contains(r#"{"const":"read_file"}"#), "{grammar}");
        assert!(grammar.contains(r#"{"const":"run"}"#), "{grammar}");
        let text_close = call_grammar(&tools, None);
        assert!(text_close.contains("\"</tool_call>\""), "{text_close}");
    }
}
