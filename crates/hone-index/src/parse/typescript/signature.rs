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
    Function {
        name: name.to_string(),
        start_line: start,
        end_line: end,
        params: params(node, source),
        return_type: annotation(node, "return_type", source),
        is_async: has_token(node, "async"),
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

/// Whether `node` has the anonymous keyword child `token` (`async`, `static`, `readonly`…).
pub(super) fn has_token(node: Node<'_>, token: &str) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .any(|child| !child.is_named() && child.kind() == token)
}

/// Visibility of a class member: its accessibility modifier, `#name` → private, else public.
pub(super) fn visibility(node: Node<'_>, name: &str, source: &str) -> Visibility {
    if name.starts_with('#') {
        return Visibility::Private;
    }
    let mut cursor = node.walk();
    let modifier = node
        .children(&mut cursor)
        .find(|child| child.kind() == "accessibility_modifier");
    match modifier.map(|modifier| text(modifier, source)) {
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
