//! One iterative pass over the whole tree: imports, classes (nested ones included) and
//! references.

use tree_sitter::Node;

use crate::parse::common::FieldChild;

use super::{Extractor, classes, imports};
use crate::model::SymbolKind;
use crate::parse::common::{MetricsWalk, Steps, field_text, text};

/// Builtin types left out of annotation references.
const BUILTIN_TYPES: [&str; 14] = [
    "bool",
    "bytearray",
    "bytes",
    "complex",
    "dict",
    "float",
    "frozenset",
    "int",
    "list",
    "object",
    "set",
    "str",
    "tuple",
    "type",
];

/// Visits every node under `root` in pre-order without recursion; `visit` gets each node and
/// its field name and returns whether to descend into it.
pub(super) fn walk<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>, Option<&'t str>) -> bool) {
    let mut cursor = root.walk();
    let mut steps = Steps::default();
    loop {
        let node = cursor.node();
        if visit(node, cursor.field_name()) && steps.first_child(&mut cursor, node) {
            continue;
        }
        loop {
            if steps.next_sibling(&mut cursor) {
                break;
            }
            if !steps.parent(&mut cursor) {
                return;
            }
        }
    }
}

/// Walks the tree once, keeping the chain of ancestors of the current node; `metrics` sees
/// every node on the way.
pub(super) fn scan(
    root: Node<'_>,
    extractor: &mut Extractor<'_, '_>,
    metrics: &mut MetricsWalk<'_>,
) {
    let source = extractor.source;
    let mut cursor = root.walk();
    let mut steps = Steps::default();
    let mut ancestors: Vec<Node<'_>> = Vec::new();
    loop {
        let node = cursor.node();
        metrics.enter(node, &cursor, source);
        if node.is_named() {
            visit(node, &ancestors, extractor);
        }
        if steps.first_child(&mut cursor, node) {
            ancestors.push(node);
            continue;
        }
        loop {
            metrics.leave();
            if steps.next_sibling(&mut cursor) {
                break;
            }
            if !steps.parent(&mut cursor) {
                return;
            }
            ancestors.pop();
        }
    }
}

fn visit(node: Node<'_>, ancestors: &[Node<'_>], ex: &mut Extractor<'_, '_>) {
    match node.kind() {
        "import_statement" | "import_from_statement" | "future_import_statement" => {
            imports::statement(node, ex.source, &mut ex.outline.imports);
        }
        "call" => call(node, ex),
        "decorator" => {
            if let Some(name) = node
                .named_child(0)
                .filter(|name| name.kind() == "identifier")
            {
                ex.reference(name, SymbolKind::Function);
            }
        }
        "type" => annotation(node, ex),
        "class_definition" => {
            let outer = ancestors
                .last()
                .copied()
                .filter(|parent| parent.kind() == "decorated_definition")
                .unwrap_or(node);
            let parent = enclosing_name(ancestors, ex.source).map(str::to_string);
            if let Some(class) = classes::class(node, outer, parent, ex) {
                ex.outline.classes.push(class);
            }
        }
        _ => {}
    }
}

/// `name(…)` is a function call and `x.name(…)` a method call, or a class instantiation
/// when the name is capitalised (`Name(…)`, `module.Name(…)`).
fn call(node: Node<'_>, ex: &mut Extractor<'_, '_>) {
    let Some(function) = node.field("function") else {
        return;
    };
    match function.kind() {
        "identifier" => {
            ex.reference(
                function,
                call_kind(function, SymbolKind::Function, ex.source),
            );
        }
        "attribute" => {
            if let Some(attribute) = function.field("attribute") {
                ex.reference(
                    attribute,
                    call_kind(attribute, SymbolKind::Method, ex.source),
                );
            }
        }
        _ => {}
    }
}

/// A call of a capitalised name instantiates a class; other calls are `otherwise`.
fn call_kind(name: Node<'_>, otherwise: SymbolKind, source: &str) -> SymbolKind {
    if text(name, source).starts_with(|c: char| c.is_uppercase()) {
        SymbolKind::Class
    } else {
        otherwise
    }
}

/// Names used in an annotation (the last part of dotted names), builtin types left out.
/// Nested annotations and calls are visited by the scan itself.
fn annotation(root: Node<'_>, ex: &mut Extractor<'_, '_>) {
    let source = ex.source;
    walk(root, |node, field| {
        if node.kind() == "identifier"
            && field != Some("object")
            && !BUILTIN_TYPES.contains(&text(node, source))
        {
            ex.reference(node, SymbolKind::Type);
        }
        node == root || !matches!(node.kind(), "type" | "call" | "string")
    });
}

/// The `parent` of a nested class: the enclosing class, else the enclosing function.
fn enclosing_name<'s>(ancestors: &[Node<'_>], source: &'s str) -> Option<&'s str> {
    let nearest = |kind: &str| {
        ancestors
            .iter()
            .rev()
            .find(|ancestor| ancestor.kind() == kind)
            .and_then(|ancestor| field_text(*ancestor, "name", source))
    };
    nearest("class_definition").or_else(|| nearest("function_definition"))
}
