//! Symbol references over the whole tree: calls and type identifiers.

use tree_sitter::Node;

use crate::parse::common::FieldChild;

use crate::model::{FileOutline, SymbolKind, SymbolOccurrence, SymbolRole};
use crate::parse::common::{column, start_line, text, walk};

/// Predeclared types, never reported as references.
const PREDECLARED: &[&str] = &[
    "any",
    "bool",
    "byte",
    "comparable",
    "complex64",
    "complex128",
    "error",
    "float32",
    "float64",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "rune",
    "string",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uintptr",
];

/// Built-in functions, never reported as references (nor are conversions to predeclared
/// types).
const BUILTIN_FUNCTIONS: &[&str] = &[
    "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max",
    "min", "new", "panic", "print", "println", "real", "recover",
];

/// Symbol references and type parameters, over the whole tree.
pub(super) fn collect(root: Node<'_>, source: &str, outline: &mut FileOutline) {
    let packages: Vec<&str> = outline
        .imports
        .iter()
        .flat_map(|import| import.names.iter())
        .map(|name| name.alias.as_deref().unwrap_or(&name.name))
        .collect();
    let mut generics: Vec<&str> = Vec::new();
    let mut found = Vec::new();
    walk(root, |node, field, parent| match node.kind() {
        "comment" | "import_declaration" | "package_clause" => false,
        "type_parameter_declaration" => {
            let mut cursor = node.walk();
            generics.extend(
                node.children_by_field_name("name", &mut cursor)
                    .map(|name| text(name, source)),
            );
            true
        }
        "call_expression" => {
            match node.field("function") {
                Some(target) if target.kind() == "identifier" => {
                    let name = text(target, source);
                    if !BUILTIN_FUNCTIONS.contains(&name) && !PREDECLARED.contains(&name) {
                        found.push(reference(target, SymbolKind::Function, source));
                    }
                }
                Some(target) if target.kind() == "selector_expression" => {
                    let on_package = target
                        .field("operand")
                        .filter(|operand| operand.kind() == "identifier")
                        .is_some_and(|operand| packages.contains(&text(operand, source)));
                    if let Some(field) = target.field("field") {
                        let kind = if on_package {
                            SymbolKind::Function
                        } else {
                            SymbolKind::Method
                        };
                        found.push(reference(field, kind, source));
                    }
                }
                _ => {}
            }
            true
        }
        "type_identifier" => {
            let parent_kind = parent.map_or("", |parent| parent.kind());
            let name = text(node, source);
            let defining =
                field == Some("name") && matches!(parent_kind, "type_spec" | "type_alias");
            if !defining && !PREDECLARED.contains(&name) {
                let kind = if parent_kind == "composite_literal" {
                    SymbolKind::Struct
                } else {
                    SymbolKind::Type
                };
                found.push(reference(node, kind, source));
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

fn reference(node: Node<'_>, kind: SymbolKind, source: &str) -> SymbolOccurrence {
    SymbolOccurrence {
        name: text(node, source).to_string(),
        kind,
        role: SymbolRole::Reference,
        line: start_line(node),
        column: column(node, source),
    }
}
