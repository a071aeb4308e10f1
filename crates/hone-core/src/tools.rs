//! The tool registry and the handling of sloppy tool calls: unknown names get a
//! "did you mean", unparseable arguments get the expected shape.

use std::collections::BTreeMap;
use std::sync::Arc;

use hone_protocol::{ToolCall, ToolSpec};
use hone_tools::{Tool, ToolSource};
use serde_json::Value;

use crate::ToolSelection;
use crate::profile::PromptProfile;

/// The tools a session offers, by name.
pub(crate) struct ToolRegistry {
    tools: BTreeMap<String, Arc<dyn Tool>>,
    /// Tools that come and go while the session runs (MCP servers' tools once ready).
    sources: Vec<Arc<dyn ToolSource>>,
    profile: PromptProfile,
    /// The tools the session's profile allows.
    selection: ToolSelection,
}

impl ToolRegistry {
    /// Every built-in tool.
    #[cfg(test)]
    pub(crate) fn builtin() -> Self {
        Self::with(Vec::new(), Vec::new(), PromptProfile::Full)
    }

    /// The built-in tools plus `extra` (which replace built-ins of the same name) and the
    /// tools `sources` offer at each request, offered to the model as `profile` says.
    pub(crate) fn with(
        extra: Vec<Arc<dyn Tool>>,
        sources: Vec<Arc<dyn ToolSource>>,
        profile: PromptProfile,
    ) -> Self {
        Self {
            tools: hone_tools::builtin_tools()
                .into_iter()
                .chain(extra)
                .map(|tool| (tool.name().to_string(), tool))
                .collect(),
            sources,
            profile,
            selection: ToolSelection::default(),
        }
    }

    /// Offers only the tools `selection` allows (a profile's `tools`, `disabled_tools`).
    pub(crate) fn selecting(mut self, selection: ToolSelection) -> Self {
        self.selection = selection;
        self
    }

    /// The prompt profile the tools are offered under.
    pub(crate) fn profile(&self) -> PromptProfile {
        self.profile
    }

    /// Waits until the sources know whether they offer `name` (a server still starting).
    pub(crate) async fn ready_for(&self, name: &str) {
        if self.tools.contains_key(name) {
            return;
        }
        for source in &self.sources {
            source.ready_for(name).await;
        }
    }

    /// The tools the sources offer now; a fixed tool of the same name wins.
    fn dynamic(&self) -> Vec<Arc<dyn Tool>> {
        self.sources
            .iter()
            .flat_map(|source| source.tools())
            .filter(|tool| !self.tools.contains_key(tool.name()))
            .collect()
    }

    /// Whether the model is offered `tool`: the profile's choice for fixed tools, always
    /// for tools of sources (the user configured them).
    fn offered(&self, tool: &dyn Tool) -> bool {
        self.selection.allows(tool.name())
            && (self.profile.offers(tool.name()) || !self.tools.contains_key(tool.name()))
    }

    /// Every tool, fixed and dynamic.
    fn all(&self) -> Vec<Arc<dyn Tool>> {
        self.tools.values().cloned().chain(self.dynamic()).collect()
    }

    /// Specs sent to the model: the tools the profile offers, shaped by it.
    pub(crate) fn specs(&self) -> Vec<ToolSpec> {
        self.all()
            .iter()
            .filter(|tool| self.offered(tool.as_ref()))
            .map(|tool| self.profile.shape(tool.spec()))
            .collect()
    }

    /// The names of the offered fixed tools, sorted. Tools the profile does not offer can
    /// still be called: a small model that knows them is not refused.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.tools
            .keys()
            .map(String::as_str)
            .filter(|name| self.profile.offers(name) && self.selection.allows(name))
    }

    /// Looks a call up, explaining unknown names; a tool the profile turned off is refused.
    pub(crate) fn resolve(&self, name: &str) -> Result<Arc<dyn Tool>, String> {
        let tool = self.lookup(name)?;
        if self.selection.allows(tool.name()) {
            Ok(tool)
        } else {
            Err(format!(
                "the tool `{}` is turned off in this session's profile (`tools`, \
                 `disabled_tools`). Available tools: {}.",
                tool.name(),
                self.names()
                    .map(str::to_string)
                    .chain(
                        self.dynamic()
                            .iter()
                            .filter(|tool| self.selection.allows(tool.name()))
                            .map(|tool| tool.name().to_string())
                    )
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        }
    }

    /// Looks a call's name up among every tool, explaining unknown names.
    fn lookup(&self, name: &str) -> Result<Arc<dyn Tool>, String> {
        if let Some(tool) = self.tools.get(name) {
            return Ok(Arc::clone(tool));
        }
        let dynamic = self.dynamic();
        if let Some(tool) = dynamic.iter().find(|tool| tool.name() == name) {
            return Ok(Arc::clone(tool));
        }
        let normalized = name.trim().to_ascii_lowercase().replace(['-', ' '], "_");
        if let Some(tool) = self.tools.get(normalized.as_str()) {
            return Ok(Arc::clone(tool));
        }
        let closest = self
            .tools
            .keys()
            .map(String::as_str)
            .chain(dynamic.iter().map(|tool| tool.name()))
            .map(|candidate| (edit_distance(&normalized, candidate), candidate))
            .min();
        let hint = match closest {
            Some((distance, candidate)) if distance <= 3 => format!(" Did you mean `{candidate}`?"),
            _ => String::new(),
        };
        let available: Vec<&str> = self
            .names()
            .chain(dynamic.iter().map(|tool| tool.name()))
            .collect();
        Err(format!(
            "unknown tool `{name}`.{hint} Available tools: {}.",
            available.join(", ")
        ))
    }
}

impl ToolRegistry {
    /// Looks up `call`'s tool. An unknown name whose arguments fit exactly one offered tool
    /// (small models sometimes put the file or function name where the tool name goes)
    /// resolves to that tool, with a note for the model.
    pub(crate) fn resolve_call(
        &self,
        call: &ToolCall,
    ) -> Result<(Arc<dyn Tool>, Option<String>), String> {
        let explanation = match self.resolve(&call.name) {
            Ok(tool) => return Ok((tool, None)),
            Err(explanation) => explanation,
        };
        // A tool the profile turned off gets no stand-in.
        if self.lookup(&call.name).is_ok() {
            return Err(explanation);
        }
        let Ok(Value::Object(arguments)) = serde_json::from_str::<Value>(&call.arguments) else {
            return Err(explanation);
        };
        let all = self.all();
        let mut fitting = all
            .iter()
            .filter(|tool| self.offered(tool.as_ref()))
            .filter(|tool| arguments_fit(&tool.spec(), &arguments));
        match (fitting.next(), fitting.next()) {
            (Some(tool), None) => Ok((
                Arc::clone(tool),
                Some(format!(
                    "(`{}` is not a tool; these arguments fit `{}`, so hone ran `{}`. Call tools \
                     by their own names.) ",
                    call.name,
                    tool.name(),
                    tool.name()
                )),
            )),
            _ => Err(explanation),
        }
    }
}

/// Whether `arguments` has every required parameter of `spec` and nothing it does not take.
fn arguments_fit(spec: &ToolSpec, arguments: &serde_json::Map<String, Value>) -> bool {
    let Some(properties) = spec.parameters.get("properties").and_then(Value::as_object) else {
        return false;
    };
    let required_present = spec
        .parameters
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .all(|name| arguments.contains_key(name));
    !arguments.is_empty()
        && required_present
        && arguments.keys().all(|key| properties.contains_key(key))
}

/// Whether `spec` takes every key of `arguments` (any keys when its schema lists none).
fn takes_parameters(spec: &ToolSpec, arguments: &serde_json::Map<String, Value>) -> bool {
    match spec.parameters.get("properties").and_then(Value::as_object) {
        Some(properties) if !properties.is_empty() => {
            arguments.keys().all(|key| properties.contains_key(key))
        }
        _ => true,
    }
}

/// The argument shape of a tool, e.g. `{path, start_line?, end_line?}`, from its schema.
pub(crate) fn usage(spec: &ToolSpec) -> String {
    let required: Vec<&str> = spec
        .parameters
        .get("required")
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let optional = spec
        .parameters
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|properties| properties.keys())
        .filter(|name| !required.contains(&name.as_str()))
        .map(|name| format!("{name}?"));
    let names: Vec<String> = required
        .iter()
        .map(|name| (*name).to_string())
        .chain(optional)
        .collect();
    format!("{{{}}}", names.join(", "))
}

/// Parses a call's arguments, forgiving what small models get wrong: code fences around
/// the JSON, trailing text after the object, `null` for "no arguments", and JSON that
/// [`hone_protocol::repair_json`] can repair (only when strict parsing fails).
pub(crate) fn parse_arguments(call: &ToolCall, spec: &ToolSpec) -> Result<Value, String> {
    let raw = call.arguments.trim();
    if let Ok(value) = call.parse_arguments() {
        return match value {
            Value::String(inner) => serde_json::from_str(&inner)
                .map_err(|_| shape_error(call, spec, "a JSON string instead of an object")),
            other => Ok(other),
        };
    }
    let unfenced = raw
        .trim_start_matches("```json")
        .trim_start_matches("```")
        .trim_end_matches("```")
        .trim();
    if let Ok(value) = serde_json::from_str::<Value>(unfenced) {
        return Ok(value);
    }
    let mut stream = serde_json::Deserializer::from_str(unfenced).into_iter::<Value>();
    if let Some(Ok(value @ Value::Object(_))) = stream.next() {
        return Ok(value);
    }
    // Almost-JSON (an unescaped docstring, a trailing comma, single quotes) is repaired when
    // the result holds only the tool's own parameters.
    if let Some(Value::Object(arguments)) = hone_protocol::repair_json(unfenced)
        && takes_parameters(spec, &arguments)
    {
        return Ok(Value::Object(arguments));
    }
    let reason = match serde_json::from_str::<Value>(raw) {
        Err(error) => format!("invalid JSON ({error})"),
        Ok(_) => "invalid JSON".to_string(),
    };
    Err(shape_error(call, spec, &reason))
}

fn shape_error(call: &ToolCall, spec: &ToolSpec, reason: &str) -> String {
    let shown: String = call.arguments.chars().take(200).collect();
    format!(
        "the arguments of {} are {reason}: `{shown}`. Send one JSON object: {} {}",
        call.name,
        call.name,
        usage(spec)
    )
}

/// Levenshtein distance, for "did you mean" on tool names.
pub(crate) fn edit_distance(left: &str, right: &str) -> usize {
    let right: Vec<char> = right.chars().collect();
    let mut previous: Vec<usize> = (0..=right.len()).collect();
    for (i, left_char) in left.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, right_char) in right.iter().enumerate() {
            let substitution = previous[j] + usize::from(left_char != *right_char);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[right.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> ToolSpec {
        ToolSpec {
            name: "read_file".into(),
            description: String::new(),
            parameters: serde_json::json!({
                "type": "object",
                "properties": {"path": {}, "start_line": {}},
                "required": ["path"],
            }),
        }
    }

    fn call(arguments: &str) -> ToolCall {
        ToolCall {
            id: "1".into(),
            name: "read_file".into(),
            arguments: arguments.into(),
        }
    }

    #[test]
    fn a_profile_s_selection_limits_what_is_offered_and_run() {
        let only = ToolRegistry::builtin().selecting(ToolSelection {
            only: Some(vec!["read_file".into(), "run_command".into()]),
            disabled: vec!["run_command".into()],
        });
        let offered: Vec<String> = only.specs().into_iter().map(|spec| spec.name).collect();
        assert_eq!(offered, ["read_file"]);
        assert!(only.resolve("read_file").is_ok());
        let refused = only.resolve("run_command").err().unwrap();
        assert!(
            refused.starts_with("the tool `run_command` is turned off"),
            "{refused}"
        );
        assert!(
            refused.ends_with("Available tools: read_file."),
            "{refused}"
        );
        // No other tool stands in for one turned off, even when the arguments fit it.
        let call = ToolCall {
            id: "1".into(),
            name: "run_command".into(),
            arguments: r#"{"command": "touch x"}"#.into(),
        };
        assert!(only.resolve_call(&call).is_err());
        let all = ToolRegistry::builtin();
        assert!(all.specs().len() > 3);
        assert!(ToolSelection::default().allows("anything"));
    }

    #[test]
    fn usage_marks_optional_parameters() {
        assert_eq!(usage(&spec()), "{path, start_line?}");
    }

    #[test]
    fn fenced_and_trailing_garbage_arguments_are_recovered() {
        assert_eq!(
            parse_arguments(&call("```json\n{\"path\":\"a\"}\n```"), &spec()).unwrap()["path"],
            "a"
        );
        assert_eq!(
            parse_arguments(&call("{\"path\":\"a\"} thanks!"), &spec()).unwrap()["path"],
            "a"
        );
        assert_eq!(
            parse_arguments(&call("\"{\\\"path\\\":\\\"a\\\"}\""), &spec()).unwrap()["path"],
            "a"
        );
    }

    fn edit_spec() -> ToolSpec {
        ToolSpec {
            name: "edit_file".into(),
            description: String::new(),
            parameters: serde_json::json!({
                "type": "object",
                "properties": {"path": {}, "old_text": {}, "new_text": {}},
                "required": ["path", "old_text", "new_text"],
            }),
        }
    }

    #[test]
    fn sloppy_json_is_repaired_when_it_fits_the_tool() {
        // The quick-start failure: a docstring's quotes left unescaped.
        let docstring = ToolCall {
            id: "1".into(),
            name: "edit_file".into(),
            arguments: r#"{"path": "calc.py", "old_text": "def add(a, b):\n    """Add."""\n    return a - b", "new_text": "def add(a, b):\n    """Add."""\n    return a + b"}"#.into(),
        };
        let value = parse_arguments(&docstring, &edit_spec()).unwrap();
        assert_eq!(
            value["new_text"],
            "def add(a, b):\n    \"\"\"Add.\"\"\"\n    return a + b"
        );
        assert_eq!(
            parse_arguments(&call("{'path': 'a.py', 'start_line': 3,}"), &spec()).unwrap(),
            serde_json::json!({"path": "a.py", "start_line": 3})
        );
        assert_eq!(
            parse_arguments(&call("{\"path\": \"a\nb.py\"}"), &spec()).unwrap()["path"],
            "a\nb.py"
        );
    }

    #[test]
    fn a_repair_that_leaves_the_tool_s_parameters_is_refused() {
        let error =
            parse_arguments(&call("{'path': 'a.py', 'colour': 'red',}"), &spec()).unwrap_err();
        assert!(error.contains("invalid JSON"), "{error}");
    }

    #[test]
    fn broken_json_gets_the_expected_shape() {
        let error = parse_arguments(&call("{\"path\": "), &spec()).unwrap_err();
        assert!(error.contains("invalid JSON"), "{error}");
        assert!(error.contains("read_file {path, start_line?}"), "{error}");
    }

    /// A source whose one tool appears when `ready` is set.
    struct LateSource {
        ready: std::sync::atomic::AtomicBool,
    }

    struct Late;

    impl Tool for Late {
        fn name(&self) -> &str {
            "srv__late"
        }
        fn spec(&self) -> ToolSpec {
            ToolSpec {
                name: "srv__late".into(),
                description: String::new(),
                parameters: serde_json::json!({"type": "object", "properties": {}}),
            }
        }
        fn kind(&self) -> hone_tools::ToolKind {
            hone_tools::ToolKind::Command
        }
        fn plan(
            &self,
            _context: &hone_tools::ToolContext,
            _arguments: &Value,
        ) -> Result<hone_tools::Plan, hone_tools::ToolError> {
            Ok(hone_tools::Plan::Done(hone_tools::ToolOutput::ok("late")))
        }
    }

    impl ToolSource for LateSource {
        fn tools(&self) -> Vec<Arc<dyn Tool>> {
            if self.ready.load(std::sync::atomic::Ordering::SeqCst) {
                vec![Arc::new(Late)]
            } else {
                Vec::new()
            }
        }
    }

    #[test]
    fn tools_of_sources_appear_once_ready_even_under_the_compact_profile() {
        let source = Arc::new(LateSource {
            ready: std::sync::atomic::AtomicBool::new(false),
        });
        let registry = ToolRegistry::with(
            Vec::new(),
            vec![source.clone() as Arc<dyn ToolSource>],
            PromptProfile::Compact,
        );
        let offered =
            |registry: &ToolRegistry| registry.specs().iter().any(|spec| spec.name == "srv__late");
        assert!(!offered(&registry));
        assert!(registry.resolve("srv__late").is_err());
        source
            .ready
            .store(true, std::sync::atomic::Ordering::SeqCst);
        assert!(offered(&registry));
        assert_eq!(
            registry.resolve("srv__late").ok().unwrap().name(),
            "srv__late"
        );
        assert!(
            !registry.names().any(|name| name == "srv__late"),
            "not in the system prompt"
        );
    }

    #[test]
    fn unknown_tools_get_a_suggestion() {
        let registry = ToolRegistry::builtin();
        let error = registry.resolve("read_fil").err().unwrap();
        assert!(error.contains("Did you mean `read_file`?"), "{error}");
        assert!(registry.resolve("Read-File").is_ok());
    }

    #[test]
    fn an_unknown_name_with_fitting_arguments_runs_the_tool_they_fit() {
        let registry = ToolRegistry::with(Vec::new(), Vec::new(), PromptProfile::Compact);
        let call = ToolCall {
            id: "1".into(),
            name: "greet".into(),
            arguments: r#"{"path": "greet.py", "old_text": "Hello", "new_text": "Hi"}"#.into(),
        };
        let (tool, note) = registry.resolve_call(&call).ok().unwrap();
        assert_eq!(tool.name(), "edit_file");
        let note = note.unwrap();
        assert!(note.contains("`greet` is not a tool"), "{note}");
        let unfit = ToolCall {
            arguments: r#"{"colour": "red"}"#.into(),
            ..call
        };
        let error = registry.resolve_call(&unfit).err().unwrap();
        assert!(error.contains("unknown tool `greet`"), "{error}");
    }
}
