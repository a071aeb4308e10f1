//! Classes: bases, methods, properties (`@property`, class attributes, `self.x` in
//! `__init__`).

use tree_sitter::Node;

use crate::parse::common::FieldChild;

use super::scan::walk;
use super::{Extractor, function};
use crate::model::{Class, ClassKind, Function, Property, SymbolKind, Visibility};
use crate::parse::common::{end_line, one_line, start_line, text};

/// `__name` (not a dunder) is private, `_name` protected, anything else public.
pub(super) fn visibility(name: &str) -> Visibility {
    let dunder = name.len() > 4 && name.starts_with("__") && name.ends_with("__");
    if dunder {
        Visibility::Public
    } else if name.starts_with("__") {
        Visibility::Private
    } else if name.starts_with('_') {
        Visibility::Protected
    } else {
        Visibility::Public
    }
}

/// The [`Class`] for a `class` statement (`outer`: the decorated definition around it, if
/// any). Its name, methods and properties become definitions, its bases references.
pub(super) fn class(
    node: Node<'_>,
    outer: Node<'_>,
    parent: Option<String>,
    ex: &mut Extractor<'_, '_>,
) -> Option<Class> {
    let source = ex.source;
    let name = node.field("name")?;
    ex.define(name, SymbolKind::Class);
    let mut class = Class {
        name: text(name, source).to_string(),
        kind: ClassKind::Class,
        start_line: start_line(outer),
        end_line: end_line(node),
        methods: Vec::new(),
        properties: Vec::new(),
        extends: Vec::new(),
        implements: Vec::new(),
        is_exported: false,
        parent,
    };
    if let Some(bases) = node.field("superclasses") {
        let mut cursor = bases.walk();
        for base in bases.named_children(&mut cursor) {
            let dynamic = matches!(base.kind(), "list_splat" | "dictionary_splat");
            if !dynamic && !matches!(base.kind(), "keyword_argument" | "comment") {
                class.extends.push(one_line(text(base, source)));
                base_reference(base, ex);
            }
        }
    }
    if let Some(body) = node.field("body") {
        members(body, ex, &mut class.methods, &mut class.properties);
    }
    Some(class)
}

/// A reference to a base class: `Base`, `module.Base`, `Generic[T]`.
fn base_reference(base: Node<'_>, ex: &mut Extractor<'_, '_>) {
    match base.kind() {
        "identifier" => ex.reference(base, SymbolKind::Class),
        "attribute" => {
            if let Some(attribute) = base.field("attribute") {
                ex.reference(attribute, SymbolKind::Class);
            }
        }
        "subscript" => {
            let value = base
                .field("value")
                .filter(|value| value.kind() != "subscript");
            if let Some(value) = value {
                base_reference(value, ex);
            }
        }
        _ => {}
    }
}

/// What a method's decorators make of it.
#[derive(Default)]
struct Decorated<'s> {
    is_static: bool,
    is_property: bool,
    /// `@name.setter` / `.deleter` / `.getter`: an accessor of property `name`.
    accessor_of: Option<&'s str>,
}

fn decorated<'s>(outer: Node<'_>, source: &'s str) -> Decorated<'s> {
    let mut result = Decorated::default();
    let mut cursor = outer.walk();
    for decorator in outer.named_children(&mut cursor) {
        let Some(expression) = decorator
            .named_child(0)
            .filter(|_| decorator.kind() == "decorator")
        else {
            continue;
        };
        let expression = match expression.kind() {
            "call" => expression.field("function").unwrap_or(expression),
            _ => expression,
        };
        let name = text(expression, source);
        match name.rsplit_once('.') {
            Some((property, "setter" | "deleter" | "getter")) => {
                result.accessor_of = Some(property)
            }
            _ => match name {
                "staticmethod" | "classmethod" => result.is_static = true,
                "property" | "cached_property" | "functools.cached_property" => {
                    result.is_property = true;
                }
                _ => {}
            },
        }
    }
    result
}

fn members(
    body: Node<'_>,
    ex: &mut Extractor<'_, '_>,
    methods: &mut Vec<Function>,
    properties: &mut Vec<Property>,
) {
    let source = ex.source;
    let mut with_setter = Vec::new();
    let mut cursor = body.walk();
    for member in body.named_children(&mut cursor) {
        let definition = match member.kind() {
            "function_definition" => Some(member),
            "decorated_definition" => member
                .field("definition")
                .filter(|definition| definition.kind() == "function_definition"),
            "expression_statement" => {
                let mut inner = member.walk();
                let assignments = member
                    .named_children(&mut inner)
                    .filter(|expression| expression.kind() == "assignment");
                for assignment in assignments {
                    attribute(
                        assignment,
                        assignment.field("left"),
                        false,
                        source,
                        properties,
                    );
                }
                None
            }
            _ => None,
        };
        let Some((definition, name)) = definition.and_then(|d| Some((d, d.field("name")?))) else {
            continue;
        };
        let method_name = text(name, source);
        let decorators = decorated(member, source);
        if let Some(property) = decorators.accessor_of {
            with_setter.push(property);
        } else if decorators.is_property {
            ex.define(name, SymbolKind::Property);
            properties.push(Property {
                name: method_name.to_string(),
                type_annotation: definition
                    .field("return_type")
                    .map(|annotation| one_line(text(annotation, source))),
                visibility: visibility(method_name),
                is_static: false,
                is_readonly: true,
                line: start_line(definition),
            });
        } else {
            ex.define(name, SymbolKind::Method);
            let mut method = function(definition, member, source);
            method.visibility = Some(visibility(method_name));
            method.is_static = decorators.is_static;
            methods.push(method);
            if method_name == "__init__" {
                init_attributes(definition, source, properties);
            }
        }
    }
    for property in properties.iter_mut() {
        if with_setter.contains(&property.name.as_str()) {
            property.is_readonly = false;
        }
    }
}

/// A property for the assignment target `target` (`name` at class level, or `self.name` in
/// `__init__` when `on_self`), unless it is a dunder or already known.
fn attribute(
    assignment: Node<'_>,
    target: Option<Node<'_>>,
    on_self: bool,
    source: &str,
    properties: &mut Vec<Property>,
) {
    let Some(target) = target else {
        return;
    };
    let name = match (on_self, target.kind()) {
        (false, "identifier") => target,
        (true, "attribute") => match target.field("attribute") {
            Some(attribute) => attribute,
            None => return,
        },
        _ => return,
    };
    let name = text(name, source);
    let dunder = name.starts_with("__") && name.ends_with("__");
    if dunder || properties.iter().any(|known| known.name == name) {
        return;
    }
    let annotation = assignment
        .field("type")
        .filter(|_| assignment.field("left") == Some(target))
        .map(|annotation| one_line(text(annotation, source)));
    let qualifier = annotation.as_deref().unwrap_or("");
    let qualifier = qualifier.strip_prefix("typing.").unwrap_or(qualifier);
    properties.push(Property {
        name: name.to_string(),
        is_static: qualifier.starts_with("ClassVar"),
        is_readonly: qualifier.starts_with("Final"),
        type_annotation: annotation,
        visibility: visibility(name),
        line: start_line(target),
    });
}

/// `self.x = …` (and `self.a, self.b = …`) anywhere in `__init__`, nested functions and
/// classes excepted.
fn init_attributes(init: Node<'_>, source: &str, properties: &mut Vec<Property>) {
    let receiver = init
        .field("parameters")
        .and_then(|parameters| parameters.named_child(0))
        .filter(|first| first.kind() == "identifier")
        .map(|first| text(first, source));
    let (Some(receiver), Some(body)) = (receiver, init.field("body")) else {
        return;
    };
    let on_receiver = |target: Node<'_>| {
        target.kind() == "attribute"
            && target
                .field("object")
                .is_some_and(|object| text(object, source) == receiver)
    };
    walk(body, |node, _| {
        if node.kind() == "assignment"
            && let Some(left) = node.field("left")
        {
            if on_receiver(left) {
                attribute(node, Some(left), true, source, properties);
            } else if matches!(left.kind(), "pattern_list" | "tuple_pattern") {
                let mut cursor = left.walk();
                for target in left.named_children(&mut cursor).filter(|t| on_receiver(*t)) {
                    attribute(node, Some(target), true, source, properties);
                }
            }
        }
        !matches!(
            node.kind(),
            "function_definition" | "class_definition" | "lambda"
        )
    });
}
