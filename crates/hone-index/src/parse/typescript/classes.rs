//! Classes, interfaces and enums with their members.

use tree_sitter::Node;

use crate::parse::common::FieldChild;

use super::Extractor;
use super::signature::{self, FUNCTION_VALUES, annotation, modifiers, visibility};
use crate::model::{Class, ClassKind, Property, SymbolKind, Visibility};
use crate::parse::common::{end_line, field_text, one_line, start_line, text};

/// The symbol kind a class-like type is defined as.
pub(super) fn symbol_kind(kind: ClassKind) -> SymbolKind {
    match kind {
        ClassKind::Interface => SymbolKind::Interface,
        ClassKind::Enum => SymbolKind::Enum,
        _ => SymbolKind::Class,
    }
}

/// The [`Class`] for a class, interface or enum node; its methods become definitions.
pub(super) fn class(
    node: Node<'_>,
    name: &str,
    parent: Option<String>,
    is_exported: bool,
    start: u32,
    ex: &mut Extractor<'_, '_>,
) -> Class {
    let kind = match node.kind() {
        "interface_declaration" => ClassKind::Interface,
        "enum_declaration" => ClassKind::Enum,
        _ => ClassKind::Class,
    };
    let mut class = Class {
        name: name.to_string(),
        kind,
        start_line: start,
        end_line: end_line(node),
        methods: Vec::new(),
        properties: Vec::new(),
        extends: Vec::new(),
        implements: Vec::new(),
        is_exported,
        parent,
    };
    heritage(node, ex.source, &mut class);
    if let Some(body) = node.field("body") {
        match kind {
            ClassKind::Enum => enum_members(body, ex.source, &mut class.properties),
            _ => members(body, ex, &mut class),
        }
    }
    class
}

/// `extends` / `implements` (classes, including JavaScript's bare `extends expr`) and
/// `extends A, B` (interfaces), as written.
fn heritage(node: Node<'_>, source: &str, class: &mut Class) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "class_heritage" => {
                let mut inner = child.walk();
                for clause in child.named_children(&mut inner) {
                    match clause.kind() {
                        "extends_clause" => types(clause, source, &mut class.extends),
                        "implements_clause" => types(clause, source, &mut class.implements),
                        "comment" => {}
                        _ => class.extends.push(one_line(text(clause, source))),
                    }
                }
            }
            "extends_type_clause" => types(child, source, &mut class.extends),
            _ => {}
        }
    }
}

/// The types listed in a heritage clause; type arguments stay with their type (`Base<T>`).
fn types(clause: Node<'_>, source: &str, out: &mut Vec<String>) {
    let mut cursor = clause.walk();
    for child in clause.named_children(&mut cursor) {
        match (child.kind(), out.last_mut()) {
            ("comment", _) => {}
            ("type_arguments", Some(last)) => last.push_str(&one_line(text(child, source))),
            _ => out.push(one_line(text(child, source))),
        }
    }
}

/// Methods and properties of a class or interface body. Fields holding a function
/// (`handle = () => {}`) are methods. Decorators written before a member belong to it (its
/// first line is the first decorator's).
fn members(body: Node<'_>, ex: &mut Extractor<'_, '_>, class: &mut Class) {
    let source = ex.source;
    let mut decorated_from = None;
    let mut cursor = body.walk();
    for member in body.named_children(&mut cursor) {
        let start = decorated_from.unwrap_or_else(|| start_line(member));
        match member.kind() {
            "decorator" => {
                decorated_from.get_or_insert(start_line(member));
                continue;
            }
            "method_definition" | "method_signature" | "abstract_method_signature" => {
                let Some(name_node) = member.field("name") else {
                    continue;
                };
                let name = text(name_node, source);
                let written = modifiers(member, source);
                let span = (start, end_line(member));
                let mut method =
                    signature::function_with(member, name, span, written.is_async, source);
                method.visibility = Some(visibility(name, &written));
                method.is_static = written.is_static;
                if name == "constructor" {
                    parameter_properties(member, source, &mut class.properties);
                }
                ex.define(name_node, SymbolKind::Method);
                class.methods.push(method);
            }
            "public_field_definition" | "field_definition" | "property_signature" => {
                let function_value = member
                    .field("value")
                    .filter(|value| FUNCTION_VALUES.contains(&value.kind()));
                let name_node = member.field("name").or_else(|| member.field("property"));
                match (function_value, name_node) {
                    (Some(value), Some(name_node)) => {
                        let name = text(name_node, source);
                        let written = modifiers(member, source);
                        let mut method =
                            signature::function(value, name, start, end_line(member), source);
                        method.visibility = Some(visibility(name, &written));
                        method.is_static = written.is_static;
                        ex.define(name_node, SymbolKind::Method);
                        class.methods.push(method);
                    }
                    (None, Some(name_node)) => {
                        class.properties.push(property(member, name_node, source))
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        decorated_from = None;
    }
}

fn property(member: Node<'_>, name: Node<'_>, source: &str) -> Property {
    let name = text(name, source);
    let written = modifiers(member, source);
    Property {
        name: name.to_string(),
        type_annotation: annotation(member, "type", source),
        visibility: visibility(name, &written),
        is_static: written.is_static,
        is_readonly: written.is_readonly,
        line: start_line(member),
    }
}

/// TypeScript parameter properties: `constructor(private readonly x: T)` declares `x`.
fn parameter_properties(constructor: Node<'_>, source: &str, out: &mut Vec<Property>) {
    let Some(parameters) = constructor.field("parameters") else {
        return;
    };
    let mut cursor = parameters.walk();
    for parameter in parameters.named_children(&mut cursor) {
        let written = modifiers(parameter, source);
        let readonly = written.is_readonly;
        let Some(pattern) = parameter.field("pattern") else {
            continue;
        };
        if (readonly || written.accessibility.is_some()) && pattern.kind() == "identifier" {
            let name = text(pattern, source);
            out.push(Property {
                name: name.to_string(),
                type_annotation: annotation(parameter, "type", source),
                visibility: visibility(name, &written),
                is_static: false,
                is_readonly: readonly,
                line: start_line(parameter),
            });
        }
    }
}

/// Enum members, as static read-only properties.
fn enum_members(body: Node<'_>, source: &str, out: &mut Vec<Property>) {
    let mut cursor = body.walk();
    for member in body.named_children(&mut cursor) {
        let name = match member.kind() {
            "enum_assignment" => field_text(member, "name", source),
            "comment" => None,
            _ => Some(text(member, source)),
        };
        if let Some(name) = name {
            out.push(Property {
                name: signature::unquote(name).to_string(),
                type_annotation: None,
                visibility: Visibility::Public,
                is_static: true,
                is_readonly: true,
                line: start_line(member),
            });
        }
    }
}
