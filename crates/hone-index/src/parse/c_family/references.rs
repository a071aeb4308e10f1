//! Symbol references over the whole tree.

use tree_sitter::Node;

use crate::parse::common::FieldChild;

use crate::model::{FileOutline, SymbolKind, SymbolOccurrence, SymbolRole};
use crate::parse::common::{column, start_line, text, walk};

/// Adds call, `new` and type references to `outline`.
pub(super) fn collect(root: Node<'_>, source: &str, outline: &mut FileOutline) {
    let mut generics: Vec<&str> = Vec::new();
    let mut found: Vec<SymbolOccurrence> = Vec::new();
    let mut created: Option<usize> = None;
    let push = |node: Node<'_>, kind: SymbolKind, found: &mut Vec<SymbolOccurrence>| {
        found.push(SymbolOccurrence {
            name: text(node, source).to_string(),
            kind,
            role: SymbolRole::Reference,
            line: start_line(node),
            column: column(node, source),
        });
    };
    walk(root, |node, field, parent| match node.kind() {
        "comment" | "preproc_include" => false,
        "template_parameter_list" => {
            let mut cursor = node.walk();
            for parameter in node.named_children(&mut cursor) {
                let name = match parameter.kind() {
                    "parameter_declaration" | "optional_parameter_declaration" => parameter
                        .field("declarator")
                        .and_then(super::declarators::declared_name),
                    _ => parameter.field("name").or_else(|| parameter.named_child(0)),
                };
                generics.extend(name.map(|name| text(name, source)));
            }
            true
        }
        "call_expression" => {
            if let Some((name, kind)) = node.field("function").and_then(callee) {
                push(name, kind, &mut found);
            }
            true
        }
        "new_expression" => {
            created = node
                .field("type")
                .and_then(base_type_identifier)
                .map(|name| name.id());
            true
        }
        "type_identifier" => {
            let parent_kind = parent.map_or("", |parent| parent.kind());
            let declares_type = match (parent_kind, field) {
                (_, Some("declarator")) => true,
                ("alias_declaration" | "type_definition", Some("name")) => true,
                (
                    "class_specifier" | "struct_specifier" | "union_specifier" | "enum_specifier",
                    Some("name"),
                ) => parent.is_some_and(|specifier| specifier.field("body").is_some()),
                ("pointer_declarator" | "parenthesized_declarator" | "array_declarator", _) => true,
                _ => false,
            };
            if !declares_type {
                let kind = if created == Some(node.id()) {
                    SymbolKind::Class
                } else {
                    SymbolKind::Type
                };
                push(node, kind, &mut found);
            }
            false
        }
        _ => true,
    });
    generics.sort_unstable();
    generics.dedup();
    found.retain(|symbol| generics.binary_search(&symbol.name.as_str()).is_err());
    outline.symbols.extend(found);
}

/// The called name and what it is: `f`, `ns::f`, `f<T>` are functions, `x.f`, `p->f` methods.
fn callee(function: Node<'_>) -> Option<(Node<'_>, SymbolKind)> {
    let mut current = function;
    for _ in 0..super::MAX_DEPTH {
        current = match current.kind() {
            "identifier" => return Some((current, SymbolKind::Function)),
            "qualified_identifier" | "template_function" => current.field("name")?,
            "field_expression" => {
                return Some((current.field("field")?, SymbolKind::Method));
            }
            _ => return None,
        };
    }
    None
}

/// The identifier naming a (template, qualified) type: `ns::Box<int>` → `Box`.
fn base_type_identifier(node: Node<'_>) -> Option<Node<'_>> {
    let mut current = node;
    for _ in 0..super::MAX_DEPTH {
        current = match current.kind() {
            "type_identifier" => return Some(current),
            "template_type" | "qualified_identifier" => current.field("name")?,
            _ => return None,
        };
    }
    None
}
