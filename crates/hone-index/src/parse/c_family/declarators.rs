//! Declarator helpers: names, types and signatures out of C declarators.

use tree_sitter::Node;

use crate::parse::common::FieldChild;

use super::MAX_DEPTH;
use crate::model::Function;
use crate::parse::common::{end_line, one_line, start_line, text};

/// Whether `node` has the storage class `keyword` (`static`, `extern`, …).
pub(super) fn has_storage_class(node: Node<'_>, keyword: &str, source: &str) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .any(|child| child.kind() == "storage_class_specifier" && text(child, source) == keyword)
}

/// The function declarator of a function (not a function pointer) under a declarator,
/// through pointer and reference declarators.
pub(super) fn find_function_declarator(declarator: Node<'_>) -> Option<Node<'_>> {
    let mut current = declarator;
    for _ in 0..MAX_DEPTH {
        current = match current.kind() {
            "function_declarator" => {
                let name = current.field("declarator")?;
                return NAME_KINDS.contains(&name.kind()).then_some(current);
            }
            "pointer_declarator" | "reference_declarator" | "attributed_declarator" => {
                inner_declarator(current)?
            }
            _ => return None,
        };
    }
    None
}

/// The declarator wrapped by a pointer, reference, array or attributed declarator (the
/// reference declarator has no field name: it is the last child).
fn inner_declarator(node: Node<'_>) -> Option<Node<'_>> {
    node.field("declarator").or_else(|| {
        let last = node.named_child_count().checked_sub(1)?;
        node.named_child(u32::try_from(last).ok()?)
    })
}

/// The name node and function declarator of a function definition or method declaration.
pub(super) fn function_name(node: Node<'_>) -> Option<(Node<'_>, Node<'_>)> {
    let function_declarator = find_function_declarator(node.field("declarator")?)?;
    let name = function_declarator.field("declarator")?;
    Some((name, function_declarator))
}

/// Node kinds that name a declared entity.
const NAME_KINDS: &[&str] = &[
    "identifier",
    "field_identifier",
    "type_identifier",
    "qualified_identifier",
    "operator_name",
    "destructor_name",
    "template_function",
];

/// The declared identifier under a (pointer, array, function pointer…) declarator.
pub(super) fn declared_name(declarator: Node<'_>) -> Option<Node<'_>> {
    let mut current = declarator;
    for _ in 0..MAX_DEPTH {
        current = match current.kind() {
            kind if NAME_KINDS.contains(&kind) => return Some(current),
            "init_declarator"
            | "pointer_declarator"
            | "reference_declarator"
            | "array_declarator"
            | "attributed_declarator"
            | "function_declarator" => inner_declarator(current)?,
            "parenthesized_declarator" => current.named_child(0)?,
            _ => return None,
        };
    }
    None
}

/// Splits `a::B<T>::f` into the scope segments (`a`, `B`; template arguments dropped) and
/// the final name node.
pub(super) fn qualified_parts<'t>(node: Node<'t>, source: &str) -> (Vec<String>, Node<'t>) {
    let mut scopes = Vec::new();
    let mut current = node;
    for _ in 0..MAX_DEPTH {
        if current.kind() != "qualified_identifier" {
            break;
        }
        if let Some(scope) = current.field("scope") {
            let base = match scope.kind() {
                "template_type" => scope.field("name").unwrap_or(scope),
                _ => scope,
            };
            scopes.push(one_line(text(base, source)));
        }
        match current.field("name") {
            Some(name) => current = name,
            None => break,
        }
    }
    (scopes, current)
}

/// The type of a declarator as an abstract declarator: `*next` of `struct node` →
/// `struct node *`, `(*cb)(int)` of `void` → `void (*)(int)`, `name[16]` → `char[16]`.
/// `name` is the part of the declarator left out (the identifier or the function declarator).
pub(super) fn decorated_type(
    base: &str,
    declarator: Node<'_>,
    name: Node<'_>,
    source: &str,
) -> String {
    let before = source
        .get(declarator.start_byte()..name.start_byte())
        .unwrap_or("");
    let after = source
        .get(name.end_byte()..declarator.end_byte())
        .unwrap_or("");
    let rest = one_line(&format!("{before}{after}"));
    match rest.chars().next() {
        None => base.to_string(),
        Some('[') => format!("{base}{rest}"),
        Some(_) => format!("{base} {rest}"),
    }
}

/// The written type of a declaration: qualifiers before it and the type (`const char`).
pub(super) fn base_type(node: Node<'_>, source: &str) -> Option<String> {
    let type_node = node.field("type")?;
    let mut cursor = node.walk();
    let mut parts: Vec<&str> = node
        .children(&mut cursor)
        .take_while(|child| child.id() != type_node.id())
        .filter(|child| child.kind() == "type_qualifier")
        .map(|child| text(child, source))
        .collect();
    parts.push(text(type_node, source));
    Some(one_line(&parts.join(" ")))
}

/// Signature of a function definition or declaration (`name` is left for the caller).
pub(super) fn signature(node: Node<'_>, function_declarator: Node<'_>, source: &str) -> Function {
    let mut params = Vec::new();
    if let Some(list) = function_declarator.field("parameters") {
        let mut cursor = list.walk();
        params.extend(
            list.named_children(&mut cursor)
                .filter(|param| param.kind() != "comment")
                .map(|param| one_line(text(param, source))),
        );
    }
    let return_type = base_type(node, source).map(|base| match node.field("declarator") {
        Some(declarator) => decorated_type(&base, declarator, function_declarator, source),
        None => base,
    });
    Function {
        name: String::new(),
        start_line: start_line(node),
        end_line: end_line(node),
        params,
        return_type,
        is_async: false,
        is_exported: false,
        visibility: None,
        is_static: false,
    }
}
