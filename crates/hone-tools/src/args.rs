//! Lenient, well-explained argument parsing: small models send numbers as strings,
//! booleans as `"true"` and forget arguments; each mistake gets a message that says
//! exactly what to send instead.

use serde_json::{Map, Value};

use crate::ToolError;

/// The arguments of one tool call.
pub struct Args<'a> {
    tool: &'a str,
    usage: &'a str,
    map: Map<String, Value>,
}

impl<'a> Args<'a> {
    /// Wraps `value` (must be a JSON object; `null` counts as empty) for `tool`, whose
    /// parameter summary (e.g. `{path, start_line?, end_line?}`) is quoted in errors.
    pub fn new(tool: &'a str, usage: &'a str, value: &Value) -> Result<Self, ToolError> {
        let map = match value {
            Value::Object(map) => map.clone(),
            Value::Null => Map::new(),
            other => {
                return Err(ToolError::invalid(format!(
                    "{tool} expects a JSON object of arguments {usage}, got {}",
                    describe(other)
                )));
            }
        };
        Ok(Self { tool, usage, map })
    }

    /// A required string argument.
    pub fn string(&self, name: &str) -> Result<String, ToolError> {
        self.opt_string(name)?.ok_or_else(|| self.missing(name))
    }

    /// An optional string argument (numbers and booleans are accepted as their text).
    pub fn opt_string(&self, name: &str) -> Result<Option<String>, ToolError> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(Value::Number(number)) => Ok(Some(number.to_string())),
            Some(Value::Bool(flag)) => Ok(Some(flag.to_string())),
            Some(other) => Err(self.wrong_type(name, "a string", other)),
        }
    }

    /// A required non-negative integer.
    pub fn integer(&self, name: &str) -> Result<u64, ToolError> {
        self.opt_integer(name)?.ok_or_else(|| self.missing(name))
    }

    /// An optional non-negative integer; accepts `12`, `12.0` and `"12"`.
    pub fn opt_integer(&self, name: &str) -> Result<Option<u64>, ToolError> {
        let value = match self.map.get(name) {
            None | Some(Value::Null) => return Ok(None),
            Some(value) => value,
        };
        let parsed = match value {
            Value::Number(number) => number.as_u64().or_else(|| {
                number
                    .as_f64()
                    .filter(|float| float.fract() == 0.0 && *float >= 0.0 && *float < 9.0e15)
                    .map(|float| float as u64)
            }),
            Value::String(text) => text.trim().parse::<u64>().ok(),
            _ => None,
        };
        parsed
            .map(Some)
            .ok_or_else(|| self.wrong_type(name, "a non-negative integer", value))
    }

    /// An optional boolean; accepts `true`, `"true"`, `"yes"`, `1` and their opposites.
    pub fn opt_bool(&self, name: &str) -> Result<Option<bool>, ToolError> {
        let value = match self.map.get(name) {
            None | Some(Value::Null) => return Ok(None),
            Some(value) => value,
        };
        let parsed = match value {
            Value::Bool(flag) => Some(*flag),
            Value::Number(number) => number.as_u64().and_then(|n| match n {
                0 => Some(false),
                1 => Some(true),
                _ => None,
            }),
            Value::String(text) => match text.trim().to_ascii_lowercase().as_str() {
                "true" | "yes" | "1" => Some(true),
                "false" | "no" | "0" => Some(false),
                _ => None,
            },
            _ => None,
        };
        parsed
            .map(Some)
            .ok_or_else(|| self.wrong_type(name, "true or false", value))
    }

    /// An optional list of strings; a single string counts as a one-element list.
    pub fn opt_string_list(&self, name: &str) -> Result<Option<Vec<String>>, ToolError> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(vec![text.clone()])),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(text) => Ok(text.clone()),
                    other => Err(self.wrong_type(name, "a list of strings", other)),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(other) => Err(self.wrong_type(name, "a list of strings", other)),
        }
    }

    fn missing(&self, name: &str) -> ToolError {
        let given: Vec<&str> = self.map.keys().map(String::as_str).collect();
        let given = if given.is_empty() {
            "no arguments".to_string()
        } else {
            format!("only {}", given.join(", "))
        };
        ToolError::invalid(format!(
            "{} is missing the required argument `{name}` (got {given}); call it as {} {}",
            self.tool, self.tool, self.usage
        ))
    }

    fn wrong_type(&self, name: &str, expected: &str, got: &Value) -> ToolError {
        ToolError::invalid(format!(
            "argument `{name}` of {} must be {expected}, got {}; call it as {} {}",
            self.tool,
            describe(got),
            self.tool,
            self.usage
        ))
    }
}

fn describe(value: &Value) -> String {
    let text = value.to_string();
    let short: String = text.chars().take(60).collect();
    let ellipsis = if text.chars().count() > 60 { "…" } else { "" };
    format!("{short}{ellipsis}")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ToolErrorKind;

    const USAGE: &str = "{path, start_line?, end_line?}";

    #[test]
    fn numbers_sent_as_strings_are_accepted() {
        let args = Args::new(
            "read_file",
            USAGE,
            &json!({"path": "a", "start_line": "12", "end_line": 20.0}),
        )
        .unwrap();
        assert_eq!(args.opt_integer("start_line").unwrap(), Some(12));
        assert_eq!(args.opt_integer("end_line").unwrap(), Some(20));
        assert_eq!(args.opt_integer("missing").unwrap(), None);
    }

    #[test]
    fn a_missing_argument_names_it_and_shows_the_call_shape() {
        let args = Args::new("read_file", USAGE, &json!({"file": "a"})).unwrap();
        let error = args.string("path").unwrap_err();
        assert_eq!(error.kind, ToolErrorKind::InvalidArguments);
        assert!(error.message.contains("`path`"), "{}", error.message);
        assert!(error.message.contains("only file"), "{}", error.message);
        assert!(error.message.contains(USAGE), "{}", error.message);
    }

    #[test]
    fn wrong_types_say_what_was_expected() {
        let args = Args::new(
            "read_file",
            USAGE,
            &json!({"path": "a", "start_line": "ten"}),
        )
        .unwrap();
        let error = args.opt_integer("start_line").unwrap_err();
        assert!(
            error.message.contains("non-negative integer"),
            "{}",
            error.message
        );
        assert!(error.message.contains("\"ten\""), "{}", error.message);
    }

    #[test]
    fn booleans_and_lists_are_lenient() {
        let args = Args::new("t", "{}", &json!({"a": "yes", "b": 0, "files": "x.rs"})).unwrap();
        assert_eq!(args.opt_bool("a").unwrap(), Some(true));
        assert_eq!(args.opt_bool("b").unwrap(), Some(false));
        assert_eq!(
            args.opt_string_list("files").unwrap(),
            Some(vec!["x.rs".to_string()])
        );
    }

    #[test]
    fn non_object_arguments_are_explained() {
        let error = Args::new("read_file", USAGE, &json!("src/a.rs"))
            .err()
            .unwrap();
        assert!(
            error.message.contains("expects a JSON object"),
            "{}",
            error.message
        );
    }
}
