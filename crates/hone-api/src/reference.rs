//! The protocol reference (`docs/protocol.md`), generated from the types' JSON schemas:
//! the doc comments are the descriptions, serde's names and tags are the wire names.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use schemars::{JsonSchema, schema_for};
use serde_json::{Map, Value};

use crate::{Event, EventFrame, Request, RequestFrame};

const INTRO: &str = r#"# The hone front-end protocol

<!-- Generated from the types in crates/hone-api by `HONE_UPDATE_DOCS=1 cargo test -p hone-api
--test reference`; a test fails when this file is out of date. Do not edit it by hand. -->

Front ends (the terminal UI, `hone exec --json`, `hone ask --json`, servers) talk to hone in
one JSON dialect, defined by the `hone-api` crate. A front end sends **requests**; hone answers
with **events**. Each is one flat JSON object with a dotted `type` tag
(`user.message`, `turn.started`), one object per line on a stream.

**Ids.** Every request carries an `id` the front end chooses (unique among its requests).
Every event that answers a request carries that id as `request_id`; every event of a turn
(from `turn.started` to `turn.completed`, `turn.failed` or `turn.cancelled`, with the tool,
approval and check events in between) carries the id of the `user.message` that started the
turn. Events nobody asked for (the first `session.started`, an error before any request) have
no `request_id`.

**Fields.** A field marked *required* is always present in an event (and must be sent in a
request); other fields may be absent, which means the same as null or empty. Unknown fields
must be ignored: new fields may be added.

**On a wire (`hone app-server`).** The same requests and events travel as JSON-RPC 2.0
messages, one per line on stdin and stdout. A request is a call whose `method` is the
request's `type` and whose `params` are its other fields, plus an optional `session` (the
id of a session the client opened or joined; default: the last one):
`{"jsonrpc":"2.0","id":7,"method":"user.message","params":{"text":"fix the tests"}}`.
Every call gets one response. For requests the server answers at once (`session.new`,
`session.resume`, `session.fork`, `session.set_model` → `session.started`; `session.rewind` →
`session.rewound`, then `session.started`; `session.rewind_points`, `session.list`,
`session.delete`, `session.history`, `session.export`, `mentions.expand`, `history.*`,
`index.*`, `project.init`, `mcp.*`, `settings.get`) its `result` is the answering event;
for requests a session works on (`user.message`, the answers, `undo.*`, `files.*`,
`context.*`, `project.files`, `project.map`, `file.*`, `logs.read`,
`session.set_approval`, `turn.cancel`, `session.shutdown`) the `result` is `null` and the session's events follow as
notifications `{"jsonrpc":"2.0","method":"event","params":{"session":"…","request_id":"7",
"type":"turn.started","turn":1}}`. Every client attached to a session receives all of its
events; `request_id` is set only on the events answering that client's own calls. A
request that fails is a JSON-RPC error: `-32700` not JSON, `-32600` not a request,
`-32601` unknown method, `-32602` bad params, `-32001` no such session, `-32000` the
request failed (`data` is hone's [`ErrorInfo`](#errorinfo)). The JSON Schema of every
frame is `docs/protocol.schema.json`; [app-server.md](app-server.md) shows a session.

**One-shot runs.** `hone exec --json` and `hone ask --json` print events only (their one
request is the prompt, id `prompt`; `hone exec --file` tracks files with id `files`), ending
with exactly one `result` event. An error that stops a run before its session starts (a bad configuration, a provider
that cannot be built) is printed as an `error` event followed by `result`.
"#;

/// The Markdown reference of every request, event and type.
pub fn markdown() -> String {
    let requests = schema_of::<RequestFrame>();
    let events = schema_of::<EventFrame>();
    let mut definitions = BTreeMap::new();
    for schema in [&requests, &events] {
        if let Some(Value::Object(defs)) = schema.get("$defs") {
            for (name, def) in defs {
                definitions.insert(name.clone(), def.clone());
            }
        }
    }
    let mut out = String::from(INTRO);
    out.push_str("\n## Frames\n");
    frame(&mut out, "Request frame", &requests);
    frame(&mut out, "Event frame", &events);
    out.push_str("\n## Requests\n\n");
    out.push_str(&first_sentence(&schema_of::<Request>()));
    out.push('\n');
    variants(&mut out, &requests, "type");
    out.push_str("\n## Events\n\n");
    out.push_str(&first_sentence(&schema_of::<Event>()));
    out.push('\n');
    variants(&mut out, &events, "type");
    out.push_str("\n## Types\n");
    for (name, def) in &definitions {
        let _ = write!(out, "\n### `{name}`\n\n{}\n", description(def));
        if let Some(Value::Array(cases)) = def.get("oneOf") {
            if cases.iter().all(|case| case.get("const").is_some()) {
                out.push_str("\n| value | meaning |\n|---|---|\n");
                for case in cases {
                    let _ = writeln!(
                        out,
                        "| `{}` | {} |",
                        case.get("const").and_then(Value::as_str).unwrap_or(""),
                        cell(&description(case)),
                    );
                }
            } else {
                let tag = tag_of(cases);
                out.push_str(&format!(
                    "\nAn object whose `{tag}` field says which case it is.\n"
                ));
                for case in cases {
                    let _ = write!(
                        out,
                        "\n#### `{tag}: \"{}\"`\n\n{}\n",
                        const_of(case, &tag),
                        description(case)
                    );
                    fields(&mut out, case, &tag);
                }
            }
        } else {
            fields(&mut out, def, "");
        }
    }
    out
}

fn schema_of<T: JsonSchema>() -> Value {
    schema_for!(T).to_value()
}

/// A frame's own fields (the request or event fields sit beside them).
fn frame(out: &mut String, title: &str, schema: &Value) {
    let _ = write!(out, "\n### {title}\n\n{}\n", description(schema));
    fields(out, schema, "");
}

/// One section per case of a tagged enum, with a table of its cases first.
fn variants(out: &mut String, schema: &Value, tag: &str) {
    let Some(Value::Array(cases)) = schema.get("oneOf") else {
        return;
    };
    out.push_str("\n| type | what it is |\n|---|---|\n");
    for case in cases {
        let name = const_of(case, tag);
        let _ = writeln!(
            out,
            "| [`{name}`](#{}) | {} |",
            anchor(&name),
            cell(&first_sentence(case))
        );
    }
    for case in cases {
        let _ = write!(
            out,
            "\n### `{}`\n\n{}\n",
            const_of(case, tag),
            description(case)
        );
        fields(out, case, tag);
    }
}

/// The table of an object's fields (without the tag), or a line saying it has none.
fn fields(out: &mut String, schema: &Value, tag: &str) {
    let properties = schema.get("properties").and_then(Value::as_object);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    // Sorted by name: serde_json keeps insertion order only when a crate in the build
    // enables its `preserve_order` feature, and the reference must not depend on that.
    let rows: BTreeMap<&String, &Value> = properties
        .into_iter()
        .flat_map(Map::iter)
        .filter(|(name, _)| name.as_str() != tag)
        .collect();
    if rows.is_empty() {
        out.push_str("\nNo fields.\n");
        return;
    }
    out.push_str("\n| field | type | required | description |\n|---|---|---|---|\n");
    for (name, property) in rows {
        let _ = writeln!(
            out,
            "| `{name}` | {} | {} | {} |",
            cell(&type_of(property)),
            if required.contains(&name.as_str()) {
                "yes"
            } else {
                "no"
            },
            cell(&description(property)),
        );
    }
}

/// How a field's type reads: `string`, `integer or null`, ``array of [`Usage`](#usage)``.
fn type_of(schema: &Value) -> String {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let name = reference.rsplit('/').next().unwrap_or(reference);
        return format!("[`{name}`](#{})", anchor(name));
    }
    if let Some(constant) = schema.get("const") {
        return format!("`{constant}`");
    }
    if let Some(Value::Array(cases)) = schema.get("anyOf").or_else(|| schema.get("oneOf")) {
        return cases.iter().map(type_of).collect::<Vec<_>>().join(" or ");
    }
    match schema.get("type") {
        Some(Value::String(kind)) => simple_type(kind, schema),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .map(|kind| simple_type(kind, schema))
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "any JSON".to_string(),
    }
}

fn simple_type(kind: &str, schema: &Value) -> String {
    match kind {
        "array" => format!(
            "array of {}",
            schema.get("items").map_or("any JSON".to_string(), type_of)
        ),
        other => other.to_string(),
    }
}

/// The field holding the case name in a tagged enum's cases (`type`, `answer`).
fn tag_of(cases: &[Value]) -> String {
    let mut candidates: Vec<&String> = cases
        .first()
        .and_then(|case| case.get("properties"))
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .iter()
                .filter(|(_, property)| property.get("const").is_some())
                .map(|(name, _)| name)
                .collect()
        })
        .unwrap_or_default();
    candidates
        .pop()
        .cloned()
        .unwrap_or_else(|| "type".to_string())
}

fn const_of(case: &Value, tag: &str) -> String {
    case.pointer(&format!("/properties/{tag}/const"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// A schema's description with its lines joined.
fn description(schema: &Value) -> String {
    schema
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("")
        .split('\n')
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
}

fn first_sentence(schema: &Value) -> String {
    let text = description(schema);
    match text.find(". ") {
        Some(end) => text[..=end].to_string(),
        None => text,
    }
}

/// Text safe inside a table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// GitHub's heading anchor of `` `name` ``.
fn anchor(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_types_read_as_words() {
        let optional = serde_json::json!({"type": ["string", "null"]});
        assert_eq!(type_of(&optional), "string or null");
        let list = serde_json::json!({"type": "array", "items": {"$ref": "#/$defs/UndoEntry"}});
        assert_eq!(type_of(&list), "array of [`UndoEntry`](#undoentry)");
        let nullable_ref =
            serde_json::json!({"anyOf": [{"$ref": "#/$defs/ErrorInfo"}, {"type": "null"}]});
        assert_eq!(type_of(&nullable_ref), "[`ErrorInfo`](#errorinfo) or null");
        assert_eq!(type_of(&serde_json::json!({})), "any JSON");
    }

    #[test]
    fn anchors_follow_github_headings() {
        assert_eq!(anchor("turn.started"), "turnstarted");
        assert_eq!(anchor("session.set_model"), "sessionset_model");
        assert_eq!(anchor("TurnStats"), "turnstats");
    }

    #[test]
    fn every_request_and_event_has_a_section() {
        let text = markdown();
        for name in ["user.message", "session.fork", "turn.cancel"] {
            assert!(text.contains(&format!("\n### `{name}`\n")), "{name}");
        }
        for name in ["turn.failed", "tool.completed", "result", "session.listed"] {
            assert!(text.contains(&format!("\n### `{name}`\n")), "{name}");
        }
        assert!(text.contains("| `exit_code` | integer or null | no |"));
        assert!(text.contains("#### `answer: \"deny\"`"));
    }
}
