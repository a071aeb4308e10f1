//! Prompt profiles: the full prompt for capable models, a compact one for small local models.
//!
//! On a small machine the prompt is the cost: a 1.5B model on two cores reads about 50
//! tokens a second, so 6,000 tokens of tool descriptions cost two minutes before the first
//! answer token. The compact profile offers the few tools a small model needs, with one-line
//! descriptions and only the parameters it has to fill in, and a short system prompt.

use std::fmt;

use hone_protocol::ToolSpec;
use serde_json::{Map, Value};

/// How much of the prompt a session spends on instructions and tool descriptions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PromptProfile {
    /// Every tool with full descriptions, and the full rules.
    #[default]
    Full,
    /// A handful of tools with terse descriptions, and short rules: for small local models.
    Compact,
}

/// The compact profile's tools: name, one-line description, and the parameters kept.
const COMPACT_TOOLS: &[(&str, &str, &[&str])] = &[
    (
        "read_file",
        "Read a file; lines are numbered.",
        &["path", "start_line", "end_line"],
    ),
    ("list_dir", "List the files in a directory.", &["path"]),
    (
        "search_files",
        "Find lines matching a text in the project's files.",
        &["pattern", "path"],
    ),
    (
        "get_outline",
        "List a file's functions and classes with line numbers.",
        &["path"],
    ),
    (
        "edit_file",
        "Replace old_text with new_text in a file. old_text must be copied exactly from the file.",
        &["path", "old_text", "new_text"],
    ),
    (
        "write_file",
        "Create a file or replace all its content.",
        &["path", "content"],
    ),
    (
        "rename_symbol",
        "Rename a function, class or variable everywhere it is used.",
        &["name", "new_name"],
    ),
    (
        "run_command",
        "Run a shell command in the project directory.",
        &["command"],
    ),
];

impl PromptProfile {
    /// The name used in configuration (`full`, `compact`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Full => "full",
            Self::Compact => "compact",
        }
    }

    /// Parses a configuration name.
    pub fn from_name(name: &str) -> Option<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "full" => Some(Self::Full),
            "compact" => Some(Self::Compact),
            _ => None,
        }
    }

    /// The profile chosen automatically: compact for the embedded provider (`local`) and for
    /// models whose name gives at most 4 billion parameters (`qwen2.5-coder:1.5b`,
    /// `Llama-3.2-3B-Instruct`), full otherwise.
    pub fn for_model(provider_kind: &str, model: &str) -> Self {
        if provider_kind == "local" {
            return Self::Compact;
        }
        match parameter_billions(model) {
            Some(billions) if billions <= 4.0 => Self::Compact,
            _ => Self::Full,
        }
    }

    /// Whether the profile offers `tool` to the model (every tool stays callable).
    pub(crate) fn offers(self, tool: &str) -> bool {
        match self {
            Self::Full => true,
            Self::Compact => COMPACT_TOOLS.iter().any(|(name, _, _)| *name == tool),
        }
    }

    /// The spec sent to the model for `spec` under this profile.
    pub(crate) fn shape(self, spec: ToolSpec) -> ToolSpec {
        match self {
            Self::Full => spec,
            Self::Compact => compact_spec(spec),
        }
    }
}

impl fmt::Display for PromptProfile {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// The size in billions of parameters written in a model name (`1.5b`, `3B`, `0.5b-q8`),
/// taking the first number directly followed by `b` that is not part of a longer word.
fn parameter_billions(model: &str) -> Option<f64> {
    let lower = model.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut start = 0;
    while start < bytes.len() {
        let starts_number = bytes[start].is_ascii_digit()
            && (start == 0
                || !bytes[start - 1].is_ascii_alphanumeric() && bytes[start - 1] != b'.');
        if !starts_number {
            start += 1;
            continue;
        }
        let mut end = start;
        while end < bytes.len() && (bytes[end].is_ascii_digit() || bytes[end] == b'.') {
            end += 1;
        }
        let unit_follows = bytes.get(end) == Some(&b'b')
            && bytes
                .get(end + 1)
                .is_none_or(|next| !next.is_ascii_alphanumeric());
        if unit_follows && let Ok(value) = lower[start..end].parse::<f64>() {
            return Some(value);
        }
        start = end;
    }
    None
}

/// A tool spec cut to the compact profile: the one-line description and the kept parameters
/// without their descriptions.
fn compact_spec(spec: ToolSpec) -> ToolSpec {
    let Some((_, description, kept)) = COMPACT_TOOLS.iter().find(|(name, _, _)| *name == spec.name)
    else {
        return spec;
    };
    let properties: Map<String, Value> = spec
        .parameters
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .iter()
                .filter(|(name, _)| kept.contains(&name.as_str()))
                .map(|(name, schema)| (name.clone(), without_description(schema)))
                .collect()
        })
        .unwrap_or_default();
    let required: Vec<Value> = spec
        .parameters
        .get("required")
        .and_then(Value::as_array)
        .map(|required| {
            required
                .iter()
                .filter(|name| {
                    name.as_str()
                        .is_some_and(|name| properties.contains_key(name))
                })
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let mut parameters = Map::new();
    parameters.insert("type".into(), Value::from("object"));
    parameters.insert("properties".into(), Value::Object(properties));
    parameters.insert("required".into(), Value::Array(required));
    ToolSpec {
        name: spec.name,
        description: (*description).to_string(),
        parameters: Value::Object(parameters),
    }
}

fn without_description(schema: &Value) -> Value {
    match schema {
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .filter(|(key, _)| key.as_str() != "description")
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sizes_are_read_from_model_names() {
        assert_eq!(parameter_billions("qwen2.5-coder:1.5b"), Some(1.5));
        assert_eq!(parameter_billions("Llama-3.2-3B-Instruct"), Some(3.0));
        assert_eq!(
            parameter_billions("qwen2.5-coder-0.5b-instruct-q8_0"),
            Some(0.5)
        );
        assert_eq!(parameter_billions("deepseek-coder-v2:16b"), Some(16.0));
        assert_eq!(parameter_billions("gpt-4o-mini"), None);
        assert_eq!(parameter_billions("claude-sonnet-4-5"), None);
        assert_eq!(parameter_billions("gemini-2.5-flash"), None);
        assert_eq!(parameter_billions("phi3b"), None);
    }

    #[test]
    fn small_and_embedded_models_get_the_compact_profile() {
        assert_eq!(
            PromptProfile::for_model("local", "anything.gguf"),
            PromptProfile::Compact
        );
        assert_eq!(
            PromptProfile::for_model("ollama", "qwen2.5-coder:1.5b"),
            PromptProfile::Compact
        );
        assert_eq!(
            PromptProfile::for_model("ollama", "qwen2.5-coder:32b"),
            PromptProfile::Full
        );
        assert_eq!(
            PromptProfile::for_model("openai", "gpt-4.1"),
            PromptProfile::Full
        );
    }

    #[test]
    fn names_round_trip() {
        for profile in [PromptProfile::Full, PromptProfile::Compact] {
            assert_eq!(PromptProfile::from_name(profile.as_str()), Some(profile));
        }
        assert_eq!(
            PromptProfile::from_name(" Compact "),
            Some(PromptProfile::Compact)
        );
        assert_eq!(PromptProfile::from_name("tiny"), None);
    }

    #[test]
    fn compact_specs_keep_only_the_needed_parameters() {
        let spec = ToolSpec {
            name: "edit_file".into(),
            description: "A long description.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File path."},
                    "old_text": {"type": "string", "description": "Exact text."},
                    "new_text": {"type": "string"},
                    "replace_all": {"type": "boolean"}
                },
                "required": ["path", "old_text", "new_text"]
            }),
        };
        let compact = PromptProfile::Compact.shape(spec.clone());
        assert!(compact.description.starts_with("Replace old_text"));
        assert_eq!(
            compact.parameters,
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "old_text": {"type": "string"},
                    "new_text": {"type": "string"}
                },
                "required": ["path", "old_text", "new_text"]
            })
        );
        assert_eq!(PromptProfile::Full.shape(spec.clone()), spec);
        assert!(PromptProfile::Compact.offers("edit_file"));
        assert!(!PromptProfile::Compact.offers("git_commit"));
        assert!(PromptProfile::Full.offers("git_commit"));
    }
}
