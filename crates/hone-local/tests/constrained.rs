#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]
//! Constrained tool calls with a real model (`HONE_TEST_MODEL`): offered hone's own
//! tools, the model's call names one of them and its arguments match the tool's schema;
//! the key/value cache is reused as without the constraint.

mod common;

use std::sync::Arc;

use futures::StreamExt;
use futures::executor::block_on;
use hone_local::{LocalOptions, LocalProvider};
use hone_protocol::{ChatRequest, ResponseCollector, StopReason, StreamEvent, ToolSpec};
use hone_provider_api::Provider;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

fn provider(constrained_tools: bool) -> Option<Arc<LocalProvider>> {
    let path = common::test_model()?;
    let options = LocalOptions {
        temperature: 0.0,
        context_size: 8192,
        max_output_tokens: 96,
        constrained_tools,
        ..LocalOptions::default()
    };
    Some(LocalProvider::load(&path, "test-model", options).unwrap())
}

fn builtin_specs() -> Vec<ToolSpec> {
    hone_tools::builtin_tools()
        .iter()
        .map(|tool| tool.spec())
        .collect()
}

/// Checks `value` against the parts of JSON Schema hone's tools use; the reason it
/// does not match, if it does not.
fn mismatch(schema: &Value, value: &Value) -> Option<String> {
    let kind = schema["type"].as_str();
    let matches_type = match kind {
        Some("object") => value.is_object(),
        Some("string") => value.is_string(),
        Some("integer") => value.is_i64() || value.is_u64(),
        Some("number") => value.is_number(),
        Some("boolean") => value.is_boolean(),
        Some("array") => value.is_array(),
        _ => true,
    };
    if !matches_type {
        return Some(format!("{value} is not of type {kind:?}"));
    }
    if let Some(allowed) = schema["enum"].as_array()
        && !allowed.contains(value)
    {
        return Some(format!("{value} is not one of {allowed:?}"));
    }
    if let Some(items) = value.as_array() {
        return items
            .iter()
            .find_map(|item| mismatch(&schema["items"], item));
    }
    let object = value.as_object()?;
    let properties = schema["properties"].as_object();
    for required in schema["required"].as_array().into_iter().flatten() {
        if !object.contains_key(required.as_str().unwrap_or_default()) {
            return Some(format!("{required} is missing from {value}"));
        }
    }
    object.iter().find_map(|(key, item)| {
        match properties.and_then(|properties| properties.get(key)) {
            Some(property) => mismatch(property, item),
            None if schema["additionalProperties"] == Value::Bool(false) => {
                Some(format!("{key} is not a property"))
            }
            None => None,
        }
    })
}

fn answer(provider: &LocalProvider, request: ChatRequest) -> (Vec<StreamEvent>, ResponseCollector) {
    let events: Vec<StreamEvent> =
        block_on(provider.stream(request, CancellationToken::new()).collect());
    let mut collector = ResponseCollector::new();
    events.iter().for_each(|event| collector.push(event));
    (events, collector)
}

fn agent_request(task: &str) -> ChatRequest {
    let mut request = ChatRequest::new("", task);
    request.system = Some(
        "You are hone, a coding agent working in a Rust project. Use the tools to act.".into(),
    );
    request.tools = builtin_specs();
    request
}

#[test]
fn a_constrained_call_names_an_offered_tool_with_valid_arguments() {
    let Some(provider) = provider(true) else {
        return;
    };
    let specs = builtin_specs();
    for task in [
        "Read the file src/main.rs.",
        "Run `cargo test` and tell me what fails.",
        "Search the project for the text TODO.",
    ] {
        let (events, collector) = answer(&provider, agent_request(task));
        let calls: Vec<_> = collector.message().tool_calls().cloned().collect();
        assert!(!calls.is_empty(), "{task}: no call in {events:?}");
        assert!(
            matches!(
                events.last(),
                Some(StreamEvent::Completed {
                    stop_reason: StopReason::ToolUse,
                    ..
                })
            ),
            "{events:?}"
        );
        for call in calls {
            eprintln!("{task}: {} {}", call.name, call.arguments);
            let spec = specs
                .iter()
                .find(|spec| spec.name == call.name)
                .unwrap_or_else(|| panic!("{task}: unknown tool {:?}", call.name));
            let arguments = call.parse_arguments().unwrap();
            assert_eq!(
                mismatch(&strict(spec), &arguments),
                None,
                "{task}: {} {arguments}",
                call.name
            );
        }
    }
    // The same request again: the constraint leaves the cache alone, so everything but
    // the last prompt token is reused.
    let (_, collector) = answer(
        &provider,
        agent_request("Search the project for the text TODO."),
    );
    let stats = provider.last_stats();
    assert_eq!(stats.computed_tokens, 1, "{stats:?}");
    assert!(collector.message().tool_calls().count() >= 1);
}

/// The strict form the constraint enforces: no properties besides the listed ones.
fn strict(spec: &ToolSpec) -> Value {
    let mut schema = spec.parameters.clone();
    if let Some(object) = schema.as_object_mut()
        && object.contains_key("properties")
    {
        object
            .entry("additionalProperties")
            .or_insert(Value::Bool(false));
    }
    schema
}
