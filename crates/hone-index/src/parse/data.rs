//! JSON and YAML: data files have no code outline.
//!
//! - The keys of the top-level mapping (of every document, for YAML streams) are
//!   [`SymbolKind::Property`] definitions: they are what `package.json`, `tsconfig.json`,
//!   workflows and manifests are searched by.
//! - A JSON file whose top-level object has `dependencies`, `devDependencies`,
//!   `peerDependencies` or `optionalDependencies` objects with string values (a `package.json`;
//!   lock files have object values and are skipped) lists each dependency as an external
//!   import whose source is the package name. The extractor does not see the file name.
//! - TODOs come from comments (YAML, and JSON with comments such as `tsconfig.json`).
//! - Metrics: lines and non-blank lines; nesting stays 0 and complexity 1.

use tree_sitter::Node;

use crate::parse::common::FieldChild;

use super::common::{MetricKinds, column, metrics_and_todos, start_line, text};
use crate::model::{
    FileOutline, Import, ImportOrigin, Language, SymbolKind, SymbolOccurrence, SymbolRole,
};

/// Only comments matter for data files.
const METRICS: MetricKinds = MetricKinds {
    nesting: &[],
    branches: &[],
    logical_operators: &[],
    comments: &["comment"],
};

/// `package.json` sections whose keys are package names.
const DEPENDENCY_SECTIONS: &[&str] = &[
    "dependencies",
    "devDependencies",
    "peerDependencies",
    "optionalDependencies",
];

/// Fills `outline` from the syntax tree.
pub(crate) fn extract(root: Node<'_>, source: &str, outline: &mut FileOutline) {
    if outline.language == Language::Json {
        json(root, source, outline);
    } else {
        yaml(root, source, outline);
    }
    outline.metrics = metrics_and_todos(root, source, &METRICS, &mut outline.todos);
}

fn define(name_node: Node<'_>, name: &str, source: &str, outline: &mut FileOutline) {
    outline.symbols.push(SymbolOccurrence {
        name: name.to_string(),
        kind: SymbolKind::Property,
        role: SymbolRole::Definition,
        line: start_line(name_node),
        column: column(name_node, source),
    });
}

fn json(root: Node<'_>, source: &str, outline: &mut FileOutline) {
    let mut cursor = root.walk();
    let Some(object) = root
        .named_children(&mut cursor)
        .find(|child| child.kind() == "object")
    else {
        return;
    };
    let mut pairs = object.walk();
    for pair in object.named_children(&mut pairs) {
        let (Some(key), Some(value)) = (pair.field("key"), pair.field("value")) else {
            continue;
        };
        let (key_node, key) = json_string(key, source);
        define(key_node, key, source, outline);
        if DEPENDENCY_SECTIONS.contains(&key) && value.kind() == "object" {
            dependencies(value, source, outline);
        }
    }
}

/// The content node and text of a JSON string (without quotes).
fn json_string<'t, 's>(string: Node<'t>, source: &'s str) -> (Node<'t>, &'s str) {
    match string.named_child(0) {
        Some(content) if content.kind() == "string_content" => (content, text(content, source)),
        _ => (string, text(string, source).trim_matches('"')),
    }
}

fn dependencies(section: Node<'_>, source: &str, outline: &mut FileOutline) {
    let mut cursor = section.walk();
    for pair in section.named_children(&mut cursor) {
        let (Some(key), Some(value)) = (pair.field("key"), pair.field("value")) else {
            continue;
        };
        if value.kind() != "string" {
            continue;
        }
        let (_, name) = json_string(key, source);
        outline.imports.push(Import {
            source: name.to_string(),
            names: Vec::new(),
            line: start_line(pair),
            origin: ImportOrigin::External,
        });
    }
}

fn yaml(root: Node<'_>, source: &str, outline: &mut FileOutline) {
    let mut documents = root.walk();
    for document in root.named_children(&mut documents) {
        if document.kind() != "document" {
            continue;
        }
        let mut nodes = document.walk();
        for node in document.named_children(&mut nodes) {
            if matches!(node.kind(), "block_node" | "flow_node") {
                yaml_mapping(node, source, outline);
            }
        }
    }
}

/// The keys of the mapping inside a top-level block or flow node.
fn yaml_mapping(node: Node<'_>, source: &str, outline: &mut FileOutline) {
    let mut cursor = node.walk();
    let Some(mapping) = node
        .named_children(&mut cursor)
        .find(|child| matches!(child.kind(), "block_mapping" | "flow_mapping"))
    else {
        return;
    };
    let mut pairs = mapping.walk();
    for pair in mapping.named_children(&mut pairs) {
        if !matches!(pair.kind(), "block_mapping_pair" | "flow_pair") {
            continue;
        }
        let Some(key) = pair.field("key") else {
            continue;
        };
        let scalar = key.named_child(0).unwrap_or(key);
        let name = text(scalar, source).trim();
        let name = match scalar.kind() {
            "double_quote_scalar" => name.trim_matches('"'),
            "single_quote_scalar" => name.trim_matches('\''),
            _ => name,
        };
        define(scalar, name, source, outline);
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{Language, SymbolKind};
    use crate::parse::outline;

    #[test]
    fn lock_file_dependencies_are_not_imports() {
        let found = outline(
            Language::Json,
            r#"{"name": "x", "dependencies": {"a": {"version": "1.0.0"}}}"#,
        );
        assert!(found.imports.is_empty());
        let keys: Vec<_> = found.symbols.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(keys, ["name", "dependencies"]);
    }

    #[test]
    fn every_yaml_document_contributes_keys() {
        let found = outline(
            Language::Yaml,
            "kind: Service\n'quoted': 1\n---\n{flow: 2}\n",
        );
        let keys: Vec<_> = found
            .symbols
            .iter()
            .map(|symbol| (symbol.name.as_str(), symbol.kind, symbol.line))
            .collect();
        assert_eq!(
            keys,
            [
                ("kind", SymbolKind::Property, 1),
                ("quoted", SymbolKind::Property, 2),
                ("flow", SymbolKind::Property, 4)
            ]
        );
    }
}
