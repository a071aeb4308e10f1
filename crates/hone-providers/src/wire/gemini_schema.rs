//! Cutting a JSON Schema down to the OpenAPI subset Gemini accepts for function
//! parameters: unknown keywords are dropped, local `$ref`s inlined, `type` arrays with
//! `"null"` turned into `nullable`, `oneOf` into `anyOf` and `const` into a one-value `enum`.

use serde_json::{Map, Value, json};

/// Keywords Gemini's `Schema` understands and that are copied as they are.
const KEPT: &[&str] = &[
    "description",
    "enum",
    "maxItems",
    "maxLength",
    "maxProperties",
    "maximum",
    "minItems",
    "minLength",
    "minProperties",
    "minimum",
    "nullable",
    "pattern",
    "propertyOrdering",
    "title",
];

/// The only `format` values Gemini accepts on strings.
const FORMATS: &[&str] = &["enum", "date-time"];

/// Nesting deeper than this (usually a recursive `$ref`) is cut to a plain object.
const MAX_DEPTH: usize = 24;

/// `schema` reduced to what Gemini accepts; `$ref`s are resolved against `schema` itself.
pub(super) fn sanitize(schema: &Value) -> Value {
    clean(schema, schema, 0)
}

fn clean(schema: &Value, root: &Value, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return json!({ "type": "object" });
    }
    let Value::Object(map) = schema else {
        // `true` and other non-object schemas accept anything.
        return json!({});
    };
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        let target = reference
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer));
        let mut resolved =
            target.map_or_else(|| json!({}), |target| clean(target, root, depth + 1));
        if let (Some(description), Value::Object(resolved)) =
            (map.get("description"), &mut resolved)
        {
            resolved.insert("description".into(), description.clone());
        }
        return resolved;
    }
    let mut out = Map::new();
    for (key, value) in map {
        match key.as_str() {
            "type" => clean_type(value, &mut out),
            "format"
                if value
                    .as_str()
                    .is_some_and(|format| FORMATS.contains(&format)) =>
            {
                out.insert(key.clone(), value.clone());
            }
            "properties" => {
                if let Some(properties) = value.as_object() {
                    let cleaned = properties
                        .iter()
                        .map(|(name, property)| (name.clone(), clean(property, root, depth + 1)))
                        .collect();
                    out.insert(key.clone(), Value::Object(cleaned));
                }
            }
            "items" => {
                // A tuple (`items` as an array) is described by its first element.
                let items = match value {
                    Value::Array(items) => items.first().unwrap_or(&Value::Null),
                    other => other,
                };
                out.insert(key.clone(), clean(items, root, depth + 1));
            }
            "anyOf" | "oneOf" => {
                if let Some(options) = value.as_array() {
                    let cleaned = options
                        .iter()
                        .map(|option| clean(option, root, depth + 1))
                        .collect();
                    out.insert("anyOf".into(), Value::Array(cleaned));
                }
            }
            "const" if !map.contains_key("enum") => {
                out.insert("enum".into(), json!([value]));
            }
            "required" => {
                if let Some(names) = value.as_array() {
                    out.insert(key.clone(), Value::Array(names.clone()));
                }
            }
            other if KEPT.contains(&other) => {
                out.insert(key.clone(), value.clone());
            }
            // `$schema`, `$defs`, `additionalProperties`, `default`, `examples`, …
            _ => {}
        }
    }
    keep_known_required(&mut out);
    Value::Object(out)
}

/// `"type": ["string", "null"]` becomes `"type": "string", "nullable": true`.
fn clean_type(value: &Value, out: &mut Map<String, Value>) {
    match value {
        Value::Array(types) => {
            let mut names = types.iter().filter_map(Value::as_str);
            if types.iter().any(|name| name == "null") {
                out.insert("nullable".into(), Value::Bool(true));
            }
            if let Some(first) = names.find(|name| *name != "null") {
                out.insert("type".into(), json!(first));
            }
        }
        other => {
            out.insert("type".into(), other.clone());
        }
    }
}

/// Gemini rejects `required` names that are not among the `properties`.
fn keep_known_required(out: &mut Map<String, Value>) {
    let known: Vec<String> = out
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default();
    if let Some(Value::Array(required)) = out.get_mut("required") {
        required.retain(|name| {
            name.as_str()
                .is_some_and(|name| known.iter().any(|key| key == name))
        });
        if required.is_empty() {
            out.remove("required");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsupported_keywords_are_dropped_recursively() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "path": { "type": "string", "format": "uri", "default": "a", "examples": ["b"] },
                "when": { "type": "string", "format": "date-time" },
                "tags": { "type": "array", "items": { "type": "string", "additionalProperties": false } },
            },
            "required": ["path", "missing"],
        });
        assert_eq!(
            sanitize(&schema),
            json!({
                "type": "object",
                "properties": {
                    "path": { "type": "string" },
                    "when": { "type": "string", "format": "date-time" },
                    "tags": { "type": "array", "items": { "type": "string" } },
                },
                "required": ["path"],
            })
        );
    }

    #[test]
    fn refs_are_inlined_and_nullable_types_converted() {
        let schema = json!({
            "type": "object",
            "$defs": { "Mode": { "type": "string", "enum": ["a", "b"] } },
            "properties": {
                "mode": { "$ref": "#/$defs/Mode", "description": "how" },
                "limit": { "type": ["integer", "null"] },
                "kind": { "const": "x" },
                "either": { "oneOf": [{ "type": "string" }, { "type": "integer" }] },
            },
        });
        let cleaned = sanitize(&schema);
        let properties = &cleaned["properties"];
        assert_eq!(
            properties["mode"],
            json!({ "type": "string", "enum": ["a", "b"], "description": "how" })
        );
        assert_eq!(
            properties["limit"],
            json!({ "type": "integer", "nullable": true })
        );
        assert_eq!(properties["kind"], json!({ "enum": ["x"] }));
        assert_eq!(
            properties["either"]["anyOf"][1],
            json!({ "type": "integer" })
        );
        assert!(cleaned.get("$defs").is_none());
    }

    #[test]
    fn recursive_refs_are_cut_off() {
        let schema = json!({
            "type": "object",
            "properties": { "node": { "$ref": "#" } },
        });
        let cleaned = sanitize(&schema);
        assert_eq!(cleaned["type"], "object");
        assert!(cleaned.to_string().len() < 10_000);
    }
}
