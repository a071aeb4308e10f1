//! Function signatures and member modifiers shared by declarations and class members.

use tree_sitter::Node;

use crate::parse::common::FieldChild;

use crate::model::{Function, Visibility};
use crate::parse::common::{one_line, text};

/// Defaults longer than this (in characters) are shown as `…` in parameter lists.
const MAX_DEFAULT_CHARS: usize = 32;

/// Node kinds of function values (`function () {}`, `function* () {}`, `() => {}`).
pub(super) const FUNCTION_VALUES: [&str; 3] = [
    "arrow_function",
    "function_expression",
    "generator_function",
];

/// A [`Function`] for the function-like `node` (declaration, signature, method, arrow or
/// function expression) named `name`, spanning `start..=end`.
pub(super) fn function(node: Node<'_>, name: &str, start: u32, end: u32, source: &str) -> Function {
    let is_async = modifiers(node, source).is_async;
    function_with(node, name, (start, end), is_async, source)
}

/// [`function`] with `is_async` already known (from the node's [`Modifiers`]).
pub(super) fn function_with(
    node: Node<'_>,
    name: &str,
    (start, end): (u32, u32),
    is_async: bool,
    source: &str,
) -> Function {
    Function {
        name: name.to_string(),
        start_line: start,
        end_line: end,
        params: params(node, source),
        return_type: annotation(node, "return_type", source),
        is_async,
        is_exported: false,
        visibility: None,
        is_static: false,
    }
}

/// Parameters of a function-like node, as written, decorators left out and long defaults
/// shortened to `…`.
fn params(node: Node<'_>, source: &str) -> Vec<String> {
    if let Some(single) = node.field("parameter") {
        return vec![one_line(text(single, source))];
    }
    let Some(list) = node.field("parameters") else {
        return Vec::new();
    };
    let mut cursor = list.walk();
    list.named_children(&mut cursor)
        .filter(|param| param.kind() != "comment")
        .map(|param| param_text(param, source))
        .collect()
}

fn param_text(param: Node<'_>, source: &str) -> String {
    let mut cursor = param.walk();
    let start = param
        .children(&mut cursor)
        .find(|child| child.kind() != "decorator")
        .map_or(param.start_byte(), |child| child.start_byte());
    let value = param.field("value").or_else(|| param.field("right"));
    with_default(source, start, param.end_byte(), value)
}

/// The source between `start` and `end` on one line, where the default `value` (if any, the
/// last part) is replaced by `…` when it is long.
pub(super) fn with_default(
    source: &str,
    start: usize,
    end: usize,
    value: Option<Node<'_>>,
) -> String {
    let Some(value) = value else {
        return one_line(source.get(start..end).unwrap_or(""));
    };
    let head = source.get(start..value.start_byte()).unwrap_or("");
    let mut default = one_line(text(value, source));
    if default.chars().count() > MAX_DEFAULT_CHARS {
        default = "…".to_string();
    }
    let separator = if head.ends_with(char::is_whitespace) {
        " "
    } else {
        ""
    };
    format!("{}{separator}{default}", one_line(head))
}

/// The type in `field` (a `: T` annotation) without its colon, on one line.
pub(super) fn annotation(node: Node<'_>, field: &'static str, source: &str) -> Option<String> {
    let annotation = node.field(field)?;
    let written = text(annotation, source).trim_start();
    let written = written.strip_prefix(':').unwrap_or(written);
    Some(one_line(written)).filter(|written| !written.is_empty())
}

/// The modifiers written on a declaration or member: its anonymous keyword children
/// (`async`, `static`, `readonly`) and its first accessibility modifier, read in one pass.
#[derive(Default)]
pub(super) struct Modifiers<'s> {
    pub(super) is_async: bool,
    pub(super) is_static: bool,
    pub(super) is_readonly: bool,
    /// The text of the first `accessibility_modifier` child (`private`, `protected`, `public`).
    pub(super) accessibility: Option<&'s str>,
}

/// The [`Modifiers`] of `node`.
pub(super) fn modifiers<'s>(node: Node<'_>, source: &'s str) -> Modifiers<'s> {
    let mut found = Modifiers::default();
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if !child.is_named() {
            match child.kind() {
                "async" => found.is_async = true,
                "static" => found.is_static = true,
                "readonly" => found.is_readonly = true,
                _ => {}
            }
        } else if found.accessibility.is_none() && child.kind() == "accessibility_modifier" {
            found.accessibility = Some(text(child, source));
        }
    }
    found
}

/// Visibility of a class member named `name` with `modifiers`: its accessibility modifier,
/// `#name` → private, else public.
pub(super) fn visibility(name: &str, modifiers: &Modifiers<'_>) -> Visibility {
    if name.starts_with('#') {
        return Visibility::Private;
    }
    match modifiers.accessibility {
        Some("private") => Visibility::Private,
        Some("protected") => Visibility::Protected,
        _ => Visibility::Public,
    }
}

/// A string literal's content (quotes of any kind stripped).
pub(super) fn unquote(literal: &str) -> &str {
    let literal = literal.trim();
    let literal = literal.strip_prefix(['"', '\'', '`']).unwrap_or(literal);
    literal.strip_suffix(['"', '\'', '`']).unwrap_or(literal)
}
