//! One iterative pass over the whole tree: classes wherever they are declared, references,
//! `require(…)` and dynamic `import(…)`.

use tree_sitter::{Node, TreeCursor};

use crate::parse::common::FieldChild;

use super::imports;
use super::{ANONYMOUS, Extractor, classes};
use crate::model::SymbolKind;
use crate::parse::common::{KindMemo, MetricsWalk, Steps, field_text, start_line, text};

/// Node kinds that become a [`crate::model::Class`].
pub(super) const CLASS_KINDS: [&str; 5] = [
    "class_declaration",
    "abstract_class_declaration",
    "class",
    "interface_declaration",
    "enum_declaration",
];

/// Declarations whose `name` field is a `type_identifier` that is not a reference.
const TYPE_DECLARATIONS: [&str; 7] = [
    "class_declaration",
    "abstract_class_declaration",
    "class",
    "interface_declaration",
    "type_alias_declaration",
    "type_parameter",
    "mapped_type_clause",
];

/// Node kinds [`visit`] does something with, each with its [`Visit`]; class kinds
/// ([`CLASS_KINDS`]) are [`Visit::Class`].
const VISITED: [(&str, Visit); 11] = [
    ("call_expression", Visit::Call),
    ("new_expression", Visit::New),
    ("type_identifier", Visit::TypeIdentifier),
    ("type_parameter", Visit::TypeParameter),
    ("mapped_type_clause", Visit::TypeParameter),
    ("infer_type", Visit::Infer),
    ("extends_clause", Visit::Extends),
    ("class_heritage", Visit::Heritage),
    ("decorator", Visit::Decorator),
    ("jsx_opening_element", Visit::Jsx),
    ("jsx_self_closing_element", Visit::Jsx),
];

/// What [`visit`] does with a node, told by its kind once per kind id (a [`KindMemo`]
/// class) instead of by comparing kind names at every node.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Visit {
    Nothing,
    Call,
    New,
    TypeIdentifier,
    TypeParameter,
    Infer,
    Extends,
    Heritage,
    Decorator,
    Jsx,
    Class,
}

/// The [`Visit`] coded in the low bits of a [`KindMemo`] class.
const VISITS: [Visit; 11] = [
    Visit::Nothing,
    Visit::Call,
    Visit::New,
    Visit::TypeIdentifier,
    Visit::TypeParameter,
    Visit::Infer,
    Visit::Extends,
    Visit::Heritage,
    Visit::Decorator,
    Visit::Jsx,
    Visit::Class,
];

/// Node kinds whose children hold nothing [`visit`] or the metrics count (quotes, string
/// fragments, escapes): the walk does not step through them.
const OPAQUE: [&str; 2] = ["string", "regex"];

/// [`KindMemo`] class bits of the scan, above the [`Visit`] code.
const SKIP_CHILDREN: u8 = 0x80;
const VISIT_BITS: u8 = 0x7f;

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
    // Most nodes are none of the visited kinds: tell them by kind id.
    let mut visited = KindMemo::default();
    let classify = |kind: &str| {
        let visit = match VISITED.iter().find(|(visited, _)| *visited == kind) {
            Some((_, visit)) => *visit,
            None if CLASS_KINDS.contains(&kind) => Visit::Class,
            None => Visit::Nothing,
        };
        let skip = if OPAQUE.contains(&kind) {
            SKIP_CHILDREN
        } else {
            0
        };
        visit as u8 | skip
    };
    loop {
        let node = cursor.node();
        // One kind id read per node serves the metrics and the scan; whether a node is named
        // depends on its kind id only, so anonymous kinds are memoised as doing nothing.
        let id = node.kind_id();
        metrics.enter_kind(node, id, &cursor, source);
        let class = visited.class_of(
            node,
            id,
            |kind| {
                if node.is_named() { classify(kind) } else { 0 }
            },
        );
        let visit_code = usize::from(class & VISIT_BITS);
        if visit_code != 0 {
            let what = VISITS.get(visit_code).copied().unwrap_or(Visit::Nothing);
            visit(node, what, &cursor, &ancestors, extractor);
        }
        if class & SKIP_CHILDREN == 0 && steps.first_child(&mut cursor, node) {
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

fn visit(
    node: Node<'_>,
    what: Visit,
    cursor: &TreeCursor<'_>,
    ancestors: &[Node<'_>],
    ex: &mut Extractor<'_, '_>,
) {
    let source = ex.source;
    match what {
        Visit::Nothing => {}
        Visit::Call => call(node, ancestors, ex),
        Visit::New => {
            if let Some(constructor) = node.field("constructor") {
                reference_last(constructor, SymbolKind::Class, ex);
            }
        }
        Visit::TypeIdentifier => type_reference(node, cursor.field_name(), ancestors, ex),
        Visit::TypeParameter => {
            if let Some(name) = field_text(node, "name", source) {
                ex.type_params.push(name);
            }
        }
        Visit::Infer => {
            if let Some(name) = node.named_child(0) {
                ex.type_params.push(text(name, source));
            }
        }
        Visit::Extends => {
            if let Some(value) = node.field("value") {
                reference_last(value, SymbolKind::Class, ex);
            }
        }
        Visit::Heritage => {
            let mut cursor = node.walk();
            for base in node.named_children(&mut cursor) {
                reference_last(base, SymbolKind::Class, ex);
            }
        }
        Visit::Decorator => {
            if let Some(name) = node
                .named_child(0)
                .filter(|name| name.kind() == "identifier")
            {
                ex.reference(name, SymbolKind::Function);
            }
        }
        Visit::Jsx => {
            let Some(name) = node.field("name") else {
                return;
            };
            let component = name.kind() == "member_expression"
                || text(name, source).starts_with(|c: char| c.is_uppercase());
            if component {
                reference_last(name, SymbolKind::Function, ex);
            }
        }
        Visit::Class => class(node, ancestors, ex),
    }
}

/// A reference to `node` when it is a name, or to the property of a member expression.
fn reference_last(node: Node<'_>, kind: SymbolKind, ex: &mut Extractor<'_, '_>) {
    match node.kind() {
        "identifier" => ex.reference(node, kind),
        "member_expression" => {
            if let Some(property) = node.field("property") {
                ex.reference(property, kind);
            }
        }
        _ => {}
    }
}

fn call(node: Node<'_>, ancestors: &[Node<'_>], ex: &mut Extractor<'_, '_>) {
    let Some(function) = node.field("function") else {
        return;
    };
    match function.kind() {
        "identifier" if text(function, ex.source) == "require" => require(node, ancestors, ex),
        "identifier" => ex.reference(function, SymbolKind::Function),
        "import" => {
            if let Some(specifier) = imports::call_specifier(node, ex.source) {
                let import = imports::import(specifier, Vec::new(), start_line(node));
                ex.outline.imports.push(import);
            }
        }
        "member_expression" => {
            if let Some(property) = function.field("property") {
                ex.reference(property, SymbolKind::Method);
            }
        }
        _ => {}
    }
}

/// `require("x")`, with the names its result is bound to when it is assigned directly
/// (`const x = require`, `const {a, b: c} = require`, `const y = require("x").y`).
fn require(call: Node<'_>, ancestors: &[Node<'_>], ex: &mut Extractor<'_, '_>) {
    let source = ex.source;
    let Some(specifier) = imports::call_specifier(call, source) else {
        return;
    };
    let mut names = Vec::new();
    let mut parents = ancestors.iter().rev();
    match parents.next() {
        Some(parent) if parent.kind() == "variable_declarator" => {
            if let Some(binding) = parent.field("name") {
                imports::binding_names(binding, source, &mut names);
            }
        }
        Some(parent) if parent.kind() == "member_expression" => {
            if let Some(property) = field_text(*parent, "property", source) {
                let alias = parents
                    .next()
                    .filter(|declarator| declarator.kind() == "variable_declarator")
                    .and_then(|declarator| declarator.field("name"))
                    .filter(|binding| binding.kind() == "identifier")
                    .map(|binding| text(binding, source));
                names.push(imports::name(property, alias, false));
            }
        }
        _ => {}
    }
    let import = imports::import(specifier, names, start_line(call));
    ex.outline.imports.push(import);
}

fn type_reference(
    node: Node<'_>,
    field: Option<&str>,
    ancestors: &[Node<'_>],
    ex: &mut Extractor<'_, '_>,
) {
    let mut parents = ancestors.iter().rev().map(|parent| parent.kind());
    let parent = parents.next().unwrap_or("");
    if field == Some("name") && TYPE_DECLARATIONS.contains(&parent) {
        return;
    }
    let heritage = |kind: &str| kind == "implements_clause" || kind == "extends_type_clause";
    let interface = heritage(parent)
        || (parent == "generic_type"
            && field == Some("name")
            && parents.next().is_some_and(heritage));
    let kind = if interface {
        SymbolKind::Interface
    } else {
        SymbolKind::Type
    };
    ex.reference(node, kind);
}

fn class(node: Node<'_>, ancestors: &[Node<'_>], ex: &mut Extractor<'_, '_>) {
    let source = ex.source;
    let parent = ancestors.last().copied();
    let (name_node, name) = class_name(node, parent, source);
    let exported = parent.is_some_and(|parent| parent.kind() == "export_statement");
    let start = match parent {
        Some(parent) if exported => start_line(parent),
        _ => start_line(node),
    };
    let enclosing = enclosing_name(ancestors, source);
    let class = classes::class(node, name, enclosing, exported, start, ex);
    if let Some(name_node) = name_node {
        ex.define(name_node, classes::symbol_kind(class.kind));
    }
    ex.outline.classes.push(class);
}

/// The name of a class-like node: the variable a class expression is bound to, else its own
/// name, else `<anonymous>`.
fn class_name<'t, 's>(
    node: Node<'t>,
    parent: Option<Node<'t>>,
    source: &'s str,
) -> (Option<Node<'t>>, &'s str) {
    let binding = parent
        .filter(|parent| node.kind() == "class" && parent.kind() == "variable_declarator")
        .and_then(|declarator| declarator.field("name"))
        .filter(|binding| binding.kind() == "identifier");
    match binding.or_else(|| node.field("name")) {
        Some(name) => (Some(name), text(name, source)),
        None => (None, ANONYMOUS),
    }
}

/// The `parent` of a nested class: the nearest enclosing class, else the nearest enclosing
/// named function or namespace.
fn enclosing_name(ancestors: &[Node<'_>], source: &str) -> Option<String> {
    let parent_of = |index: usize| index.checked_sub(1).and_then(|i| ancestors.get(i)).copied();
    let classes = ancestors.iter().enumerate().rev();
    for (index, ancestor) in classes {
        if CLASS_KINDS.contains(&ancestor.kind()) {
            return Some(
                class_name(*ancestor, parent_of(index), source)
                    .1
                    .to_string(),
            );
        }
    }
    ancestors
        .iter()
        .enumerate()
        .rev()
        .find_map(|(index, ancestor)| {
            scope_name(*ancestor, parent_of(index), source).map(str::to_string)
        })
}

/// The name of a function or namespace, including functions bound to variables, object keys,
/// assignment targets and class fields.
fn scope_name<'s>(node: Node<'_>, parent: Option<Node<'_>>, source: &'s str) -> Option<&'s str> {
    match node.kind() {
        "function_declaration"
        | "generator_function_declaration"
        | "method_definition"
        | "internal_module"
        | "module" => field_text(node, "name", source).map(super::signature::unquote),
        "function_expression" | "generator_function" | "arrow_function" => {
            if let Some(own) = field_text(node, "name", source) {
                return Some(own);
            }
            let parent = parent?;
            match parent.kind() {
                "variable_declarator" | "public_field_definition" => {
                    field_text(parent, "name", source)
                }
                "field_definition" => field_text(parent, "property", source),
                "pair" => field_text(parent, "key", source),
                "assignment_expression" => {
                    let left = parent.field("left")?;
                    match left.kind() {
                        "member_expression" => field_text(left, "property", source),
                        _ => Some(text(left, source)),
                    }
                }
                _ => None,
            }
        }
        _ => None,
    }
}
