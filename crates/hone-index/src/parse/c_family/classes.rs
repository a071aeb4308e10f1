//! Structs, unions, enums and classes with their members.

use tree_sitter::Node;

use crate::parse::common::FieldChild;

use super::declarators::{
    base_type, declared_name, decorated_type, find_function_declarator, function_name,
    has_storage_class, signature,
};
use super::{CFile, MAX_DEPTH, Scope, join_path};
use crate::model::{Class, ClassKind, Function, Property, SymbolKind, Visibility};
use crate::parse::common::{end_line, one_line, start_line, text};

/// Methods and properties collected from a class body.
#[derive(Default)]
struct Members {
    methods: Vec<Function>,
    properties: Vec<Property>,
}

impl CFile<'_, '_> {
    /// A struct/union/enum/class specifier with a body. `typedef_name` names an anonymous one;
    /// `enclosing` is the path of the enclosing class for nested types.
    pub(super) fn class_specifier(
        &mut self,
        node: Node<'_>,
        typedef_name: Option<&str>,
        scope: &Scope,
        enclosing: Option<&str>,
        depth: usize,
    ) {
        let (kind, symbol_kind, default_access) = match node.kind() {
            "class_specifier" => (ClassKind::Class, SymbolKind::Class, Visibility::Private),
            "struct_specifier" | "union_specifier" => {
                (ClassKind::Struct, SymbolKind::Struct, Visibility::Public)
            }
            "enum_specifier" => (ClassKind::Enum, SymbolKind::Enum, Visibility::Public),
            _ => return,
        };
        let Some(body) = node.field("body") else {
            return;
        };
        if depth > MAX_DEPTH {
            return;
        }
        let name_node = node.field("name").map(|name| match name.kind() {
            "template_type" => name.field("name").unwrap_or(name),
            _ => name,
        });
        let name = match (name_node, typedef_name) {
            (Some(name), _) => one_line(text(name, self.source)),
            (None, Some(typedef_name)) => typedef_name.to_string(),
            (None, None) => return,
        };
        let is_exported = enclosing.is_none() && !scope.hidden;
        if let Some(name_node) = name_node {
            self.define(name_node, symbol_kind);
            if is_exported {
                self.export(&name, symbol_kind, start_line(node));
            }
        }
        let parent = match enclosing {
            Some(path) => Some(path.to_string()),
            None => scope.parent(),
        };
        let path = join_path(parent.as_deref().unwrap_or(""), &name);
        let mut class = Class {
            name,
            kind,
            start_line: start_line(node),
            end_line: end_line(node),
            methods: Vec::new(),
            properties: Vec::new(),
            extends: Vec::new(),
            implements: Vec::new(),
            is_exported,
            parent,
        };
        let mut cursor = node.walk();
        if let Some(bases) = node
            .named_children(&mut cursor)
            .find(|child| child.kind() == "base_class_clause")
        {
            let mut inner = bases.walk();
            class.extends = bases
                .named_children(&mut inner)
                .filter(|base| !matches!(base.kind(), "access_specifier" | "virtual"))
                .map(|base| one_line(text(base, self.source)))
                .collect();
        }
        let index = self.outline.classes.len();
        let enum_name = class.name.clone();
        self.outline.classes.push(class);
        let mut members = Members::default();
        if kind == ClassKind::Enum {
            self.enumerators(body, &enum_name, &mut members);
        } else {
            let mut access = default_access;
            let mut cursor = body.walk();
            for member in body.named_children(&mut cursor) {
                if member.kind() == "access_specifier" {
                    access = match text(member, self.source).trim() {
                        "public" => Visibility::Public,
                        "protected" => Visibility::Protected,
                        _ => Visibility::Private,
                    };
                    continue;
                }
                self.member(member, access, scope, &path, &mut members, depth + 1);
            }
        }
        if let Some(class) = self.outline.classes.get_mut(index) {
            class.methods = members.methods;
            class.properties = members.properties;
        }
    }

    fn enumerators(&mut self, body: Node<'_>, enum_name: &str, members: &mut Members) {
        let mut cursor = body.walk();
        for enumerator in body.named_children(&mut cursor) {
            let Some(name) = enumerator.field("name") else {
                continue;
            };
            self.define(name, SymbolKind::Property);
            members.properties.push(Property {
                name: text(name, self.source).to_string(),
                type_annotation: Some(enum_name.to_string()),
                visibility: Visibility::Public,
                is_static: true,
                is_readonly: true,
                line: start_line(enumerator),
            });
        }
    }

    /// One member of a class body.
    fn member(
        &mut self,
        node: Node<'_>,
        access: Visibility,
        scope: &Scope,
        path: &str,
        members: &mut Members,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        match node.kind() {
            "field_declaration" | "declaration" => {
                if let Some(specifier) = node.field("type") {
                    self.class_specifier(specifier, None, scope, Some(path), depth);
                }
                let mut cursor = node.walk();
                for declarator in node.children_by_field_name("declarator", &mut cursor) {
                    if let Some(function_declarator) = find_function_declarator(declarator) {
                        self.method(node, function_declarator, access, members);
                    } else if let Some(name) = declared_name(declarator) {
                        self.field(node, declarator, name, access, members);
                    }
                }
            }
            "function_definition" => {
                if let Some((_, function_declarator)) = function_name(node) {
                    self.method(node, function_declarator, access, members);
                }
            }
            "template_declaration"
            | "preproc_if"
            | "preproc_ifdef"
            | "preproc_else"
            | "preproc_elif" => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    self.member(child, access, scope, path, members, depth + 1);
                }
            }
            "alias_declaration" | "type_definition" => {
                let name = match node.kind() {
                    "alias_declaration" => node.field("name"),
                    _ => node.field("declarator").and_then(declared_name),
                };
                if let Some(name) = name {
                    self.define(name, SymbolKind::Type);
                }
            }
            _ => {}
        }
    }

    fn method(
        &mut self,
        node: Node<'_>,
        function_declarator: Node<'_>,
        access: Visibility,
        members: &mut Members,
    ) {
        let Some(name) = function_declarator.field("declarator") else {
            return;
        };
        let name = match name.kind() {
            "qualified_identifier" => name.field("name").unwrap_or(name),
            _ => name,
        };
        self.define(name, SymbolKind::Method);
        let mut method = signature(node, function_declarator, self.source);
        method.name = one_line(text(name, self.source));
        method.visibility = Some(access);
        method.is_static = has_storage_class(node, "static", self.source);
        members.methods.push(method);
    }

    fn field(
        &mut self,
        node: Node<'_>,
        declarator: Node<'_>,
        name: Node<'_>,
        access: Visibility,
        members: &mut Members,
    ) {
        self.define(name, SymbolKind::Property);
        let mut cursor = node.walk();
        let is_readonly = node.children(&mut cursor).any(|child| {
            child.kind() == "type_qualifier"
                && matches!(text(child, self.source), "const" | "constexpr")
        });
        let type_annotation = base_type(node, self.source)
            .map(|base| decorated_type(&base, declarator, name, self.source));
        members.properties.push(Property {
            name: text(name, self.source).to_string(),
            type_annotation,
            visibility: access,
            is_static: has_storage_class(node, "static", self.source),
            is_readonly,
            line: start_line(name),
        });
    }
}
