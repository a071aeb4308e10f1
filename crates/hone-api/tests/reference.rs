//! `docs/protocol.md` is generated from the protocol types and must match them.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

fn doc_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/protocol.md")
}

#[test]
fn protocol_reference_is_up_to_date() {
    let generated = hone_api::reference::markdown();
    let path = doc_path();
    if std::env::var_os("HONE_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        written == generated,
        "docs/protocol.md is out of date with crates/hone-api; regenerate it with \
         `HONE_UPDATE_DOCS=1 cargo test -p hone-api --test reference`"
    );
}

#[test]
fn protocol_schema_is_up_to_date() {
    let mut generated = serde_json::to_string_pretty(&hone_api::schema::protocol_schema()).unwrap();
    generated.push('\n');
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/protocol.schema.json");
    if std::env::var_os("HONE_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        written == generated,
        "docs/protocol.schema.json is out of date with crates/hone-api; regenerate it with \
         `HONE_UPDATE_DOCS=1 cargo test -p hone-api --test reference`"
    );
}

#[test]
fn the_manual_names_every_event_type() {
    let manual = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/scripting.md"),
    )
    .unwrap();
    let reference = hone_api::reference::markdown();
    let events = reference
        .split("\n## Events\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## Types\n").next())
        .unwrap();
    let names: Vec<&str> = events
        .lines()
        .filter_map(|line| line.strip_prefix("### `")?.strip_suffix('`'))
        .collect();
    assert!(names.len() > 30, "{names:?}");
    for name in names {
        assert!(
            manual.contains(&format!("`{name}`")),
            "docs/scripting.md's list of event types does not name `{name}`"
        );
    }
}
