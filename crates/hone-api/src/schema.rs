//! The protocol's JSON Schema (`docs/protocol.schema.json`), generated from the types:
//! one document whose `$defs` hold the request and event frames, the event notification's
//! params and the JSON-RPC error, for clients that generate code or validate messages.

use schemars::{JsonSchema, schema_for};
use serde_json::{Map, Value, json};

use crate::rpc::{RpcError, RpcId, SessionEvent};
use crate::{EventFrame, RequestFrame};

/// The JSON Schema document of the whole protocol, its keys sorted (the same text whether or
/// not a crate in the build enables serde_json's `preserve_order`).
pub fn protocol_schema() -> Value {
    sorted(unsorted_schema())
}

fn sorted(value: Value) -> Value {
    match value {
        Value::Object(object) => {
            let mut entries: Vec<(String, Value)> = object.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(key, value)| (key, sorted(value)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

fn unsorted_schema() -> Value {
    let mut defs = Map::new();
    add::<RequestFrame>(&mut defs, "RequestFrame");
    add::<EventFrame>(&mut defs, "EventFrame");
    add::<SessionEvent>(&mut defs, "SessionEvent");
    add::<RpcError>(&mut defs, "RpcError");
    add::<RpcId>(&mut defs, "RpcId");
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://github.com/hone-dev/hone/docs/protocol.schema.json",
        "title": "The hone front-end protocol",
        "description": "Requests (`RequestFrame`: the JSON-RPC `method` is the `type`, the \
            other fields are the `params`), events (`EventFrame`, and `SessionEvent`, the \
            params of the `event` notifications of `hone app-server`) and JSON-RPC errors. \
            docs/protocol.md describes them.",
        "$defs": Value::Object(defs),
    })
}

/// Adds `T`'s schema under `name`, and the definitions it refers to beside it.
fn add<T: JsonSchema>(defs: &mut Map<String, Value>, name: &str) {
    let mut schema = schema_for!(T).to_value();
    if let Some(Value::Object(nested)) = schema
        .as_object_mut()
        .and_then(|object| object.remove("$defs"))
    {
        for (key, value) in nested {
            defs.entry(key).or_insert(value);
        }
    }
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
    }
    defs.insert(name.to_string(), schema);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reference_resolves_inside_the_document() {
        let schema = protocol_schema();
        let text = schema.to_string();
        let defs = schema["$defs"].as_object().cloned().unwrap_or_default();
        for reference in text.split("\"$ref\":\"#/$defs/").skip(1) {
            let name = reference.split('"').next().unwrap_or_default();
            assert!(defs.contains_key(name), "{name} is not defined");
        }
        assert!(defs.contains_key("ErrorInfo"));
        assert!(text.contains("session.set_approval"));
    }
}
