//! Which nodes are definitions, per language: functions, containers with members (classes,
//! impl blocks, traits, interfaces) and types, with their names.

use hone_tools::edit::natural::{Definition, DefinitionKind};
use tree_sitter::Node;

use crate::parse::common::FieldChild;

use crate::model::Language;
use crate::parse::common::text;

/// Recognises one definition node of a language.
type Recognise = fn(Node<'_>, &str) -> Option<Definition>;

/// The definitions directly under `root`.
pub(super) fn top_level(language: Language, root: Node<'_>, source: &str) -> Vec<Definition> {
    let recognise: Recognise = match language {
        Language::TypeScript | Language::Tsx | Language::JavaScript => typescript,
        Language::Python => python,
        Language::Rust => rust,
        Language::Go => go,
        Language::Java => java,
        Language::C | Language::Cpp => c_family,
        Language::Json | Language::Yaml => return Vec::new(),
    };
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter_map(|node| recognise(node, source))
        .collect()
}

/// A definition spanning `node`.
fn simple(name: &str, kind: DefinitionKind, node: Node<'_>) -> Definition {
    Definition {
        name: name.to_string(),
        kind,
        outer: node.byte_range(),
        inner: node.byte_range(),
        members: Vec::new(),
        insert_at: None,
    }
}

/// A definition named by `node`'s `name` field.
fn named(node: Node<'_>, source: &str, kind: DefinitionKind) -> Option<Definition> {
    let name = text(node.field("name")?, source);
    Some(simple(name, kind, node))
}

/// A container whose members are the definitions `member` recognises in its `body`.
fn container(
    node: Node<'_>,
    source: &str,
    name: &str,
    member: Recognise,
    indented: bool,
) -> Option<Definition> {
    let body = node.field("body")?;
    let mut cursor = body.walk();
    let members = body
        .named_children(&mut cursor)
        .filter_map(|child| member(child, source))
        .collect();
    let insert_at = if indented {
        Some(after_line(source, node.end_byte()))
    } else {
        closing_line(body, source)
    };
    Some(Definition {
        members,
        insert_at,
        ..simple(name, DefinitionKind::Container, node)
    })
}

/// The start of the line holding `body`'s closing brace, when the brace starts its line.
fn closing_line(body: Node<'_>, source: &str) -> Option<usize> {
    let last = body.child(body.child_count().checked_sub(1)?)?;
    if last.kind() != "}" {
        return None;
    }
    let brace = last.start_byte();
    let line_start = source[..brace].rfind('\n').map_or(0, |newline| newline + 1);
    source[line_start..brace]
        .trim()
        .is_empty()
        .then_some(line_start)
}

/// The offset after the line on which `end` falls.
fn after_line(source: &str, end: usize) -> usize {
    source[end..]
        .find('\n')
        .map_or(source.len(), |newline| end + newline + 1)
}

/// `wrapper` around the definition in its `field`: the wrapper is the outer range.
fn wrapped(
    wrapper: Node<'_>,
    field: &'static str,
    source: &str,
    recognise: Recognise,
) -> Option<Definition> {
    let inner = wrapper.field(field)?;
    let mut definition = recognise(inner, source)?;
    definition.outer = wrapper.byte_range();
    Some(definition)
}

fn typescript(node: Node<'_>, source: &str) -> Option<Definition> {
    match node.kind() {
        "export_statement" => wrapped(node, "declaration", source, typescript),
        "function_declaration" | "generator_function_declaration" => {
            named(node, source, DefinitionKind::Function)
        }
        "class_declaration" | "abstract_class_declaration" => {
            let name = text(node.field("name")?, source);
            container(node, source, name, typescript_member, false)
        }
        "interface_declaration" | "type_alias_declaration" | "enum_declaration" => {
            named(node, source, DefinitionKind::Type)
        }
        "lexical_declaration" | "variable_declaration" => {
            let mut cursor = node.walk();
            let declarators: Vec<Node<'_>> = node
                .named_children(&mut cursor)
                .filter(|child| child.kind() == "variable_declarator")
                .collect();
            let [declarator] = declarators.as_slice() else {
                return None;
            };
            let value = declarator.field("value")?;
            let is_function = matches!(
                value.kind(),
                "arrow_function" | "function_expression" | "function" | "generator_function"
            );
            let name = text(declarator.field("name")?, source);
            is_function.then(|| simple(name, DefinitionKind::Function, node))
        }
        _ => None,
    }
}

fn typescript_member(node: Node<'_>, source: &str) -> Option<Definition> {
    match node.kind() {
        "method_definition" | "abstract_method_signature" | "method_signature" => {
            named(node, source, DefinitionKind::Function)
        }
        "public_field_definition" | "field_definition" => {
            let name = node.field("name").or_else(|| node.field("property"))?;
            Some(simple(text(name, source), DefinitionKind::Field, node))
        }
        _ => None,
    }
}

fn python(node: Node<'_>, source: &str) -> Option<Definition> {
    match node.kind() {
        "function_definition" => named(node, source, DefinitionKind::Function),
        "class_definition" => {
            let name = text(node.field("name")?, source);
            container(node, source, name, python, true)
        }
        "decorated_definition" => wrapped(node, "definition", source, python),
        _ => None,
    }
}

fn rust(node: Node<'_>, source: &str) -> Option<Definition> {
    match node.kind() {
        "function_item" | "function_signature_item" => {
            named(node, source, DefinitionKind::Function)
        }
        "struct_item" | "enum_item" | "union_item" | "type_item" | "const_item" | "static_item" => {
            named(node, source, DefinitionKind::Type)
        }
        "trait_item" => {
            let name = text(node.field("name")?, source);
            container(node, source, name, rust, false)
        }
        "impl_item" => {
            let target = text(node.field("type")?, source);
            let name = match node.field("trait") {
                Some(interface) => format!("{} for {target}", text(interface, source)),
                None => target.to_string(),
            };
            container(node, source, &name, rust, false)
        }
        _ => None,
    }
}

fn go(node: Node<'_>, source: &str) -> Option<Definition> {
    match node.kind() {
        "function_declaration" => named(node, source, DefinitionKind::Function),
        "method_declaration" => {
            let name = text(node.field("name")?, source);
            let receiver = text(node.field("receiver")?, source);
            let receiver_type = receiver
                .trim_matches(|c| c == '(' || c == ')')
                .split_whitespace()
                .last()?
                .trim_start_matches('*');
            let receiver_type = receiver_type
                .split_once('[')
                .map_or(receiver_type, |(base, _)| base);
            Some(simple(
                &format!("{receiver_type}.{name}"),
                DefinitionKind::Function,
                node,
            ))
        }
        "type_declaration" => {
            let mut cursor = node.walk();
            let specs: Vec<Node<'_>> = node
                .named_children(&mut cursor)
                .filter(|child| matches!(child.kind(), "type_spec" | "type_alias"))
                .collect();
            let [spec] = specs.as_slice() else {
                return None;
            };
            let name = text(spec.field("name")?, source);
            Some(simple(name, DefinitionKind::Type, node))
        }
        _ => None,
    }
}

fn java(node: Node<'_>, source: &str) -> Option<Definition> {
    match node.kind() {
        "class_declaration"
        | "interface_declaration"
        | "enum_declaration"
        | "record_declaration"
        | "annotation_type_declaration" => {
            let name = text(node.field("name")?, source);
            container(node, source, name, java, false)
        }
        "method_declaration" | "constructor_declaration" => {
            named(node, source, DefinitionKind::Function)
        }
        "field_declaration" => {
            let declarator = node.field("declarator")?;
            let name = text(declarator.field("name")?, source);
            Some(simple(name, DefinitionKind::Field, node))
        }
        _ => None,
    }
}

fn c_family(node: Node<'_>, source: &str) -> Option<Definition> {
    match node.kind() {
        "function_definition" => {
            let name = declarator_name(node, source)?;
            Some(simple(name, DefinitionKind::Function, node))
        }
        "template_declaration" => {
            let mut cursor = node.walk();
            let inner = node
                .named_children(&mut cursor)
                .find(|child| child.kind() == "function_definition")?;
            let mut definition = c_family(inner, source)?;
            definition.outer = node.byte_range();
            Some(definition)
        }
        "class_specifier" | "struct_specifier" => {
            let name = text(node.field("name")?, source);
            container(node, source, name, c_family, false)
        }
        "field_declaration" => {
            let declarator = node.field("declarator")?;
            if declarator.kind() == "function_declarator" {
                return None;
            }
            let name = text(declarator, source).trim_start_matches(['*', '&']);
            Some(simple(name, DefinitionKind::Field, node))
        }
        _ => None,
    }
}

/// The name a C/C++ function definition declares, through pointer and reference
/// declarators.
fn declarator_name<'s>(node: Node<'_>, source: &'s str) -> Option<&'s str> {
    let mut current = node.field("declarator")?;
    loop {
        match current.kind() {
            "function_declarator" | "pointer_declarator" | "parenthesized_declarator" => {
                current = current.field("declarator")?;
            }
            "reference_declarator" => current = current.named_child(0)?,
            _ => return Some(text(current, source)),
        }
    }
}
