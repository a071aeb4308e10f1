//! Java extractor.
//!
//! Decisions, so that the golden fixtures read as a spec:
//! - **Imports**: `source` is the package or type the name comes from and the name is the
//!   imported simple name or `*` (`import java.util.List;` → `java.util` + `List`;
//!   `import static org.junit.Assert.*;` → `org.junit.Assert` + `*`). `java.`/`javax.` are
//!   builtin, anything else external (the analysis stage marks the project's own packages).
//! - **Exports** are the public top-level types.
//! - **Visibility**: `public`, `protected`, `private` map to themselves; package-private maps
//!   to protected (visible beyond the type but not everywhere). Interface members without a
//!   modifier are public, as the language says.
//! - **Kinds**: classes and records are [`ClassKind::Class`], interfaces and annotation types
//!   [`ClassKind::Interface`], enums [`ClassKind::Enum`]. Record components are public
//!   read-only properties; enum constants public static read-only properties typed with the
//!   enum. `final` fields are read-only, interface constants static and read-only.
//! - **Methods** include constructors (no return type; compact record constructors have no
//!   parameters). Parameters are `Type name`, without modifiers and annotations; the return
//!   type is as written, `void` included. Java has no free functions.
//! - **Nested types** (static, inner, in interfaces and enums) have `parent` = the dotted path
//!   of the enclosing types (`Outer.Inner`); local and anonymous classes are skipped.
//! - **References**: method invocations (methods), `new T()` (classes) and every type
//!   identifier (the last segment of qualified ones), except `var` and type parameters.

use tree_sitter::Node;

use crate::parse::common::FieldChild;

use super::common::{
    MetricKinds, column, end_line, metrics_and_todos, one_line, start_line, text, walk,
};
use crate::model::{
    Class, ClassKind, Export, FileOutline, Function, Import, ImportOrigin, ImportedName, Property,
    SymbolKind, SymbolOccurrence, SymbolRole, Visibility,
};

/// Metric node kinds of the Java grammar: nesting counts brace levels.
const METRICS: MetricKinds = MetricKinds {
    nesting: &[
        "block",
        "class_body",
        "interface_body",
        "enum_body",
        "annotation_type_body",
        "constructor_body",
        "switch_block",
    ],
    branches: &[
        "if_statement",
        "for_statement",
        "enhanced_for_statement",
        "while_statement",
        "do_statement",
        "switch_label",
        "catch_clause",
        "ternary_expression",
    ],
    logical_operators: &["&&", "||"],
    comments: &["line_comment", "block_comment"],
};

/// Deepest type nesting followed (guards the recursion on pathological input).
const MAX_DEPTH: usize = 64;

/// Fills `outline` from the syntax tree.
pub(crate) fn extract(root: Node<'_>, source: &str, outline: &mut FileOutline) {
    let mut java = Java { source, outline };
    java.top_level(root, 0);
    references(root, source, outline);
    outline
        .symbols
        .sort_by_key(|symbol| (symbol.line, symbol.column));
    outline.metrics = metrics_and_todos(root, source, &METRICS, &mut outline.todos);
}

/// Modifiers of a declaration.
#[derive(Default, Clone, Copy)]
struct Modifiers {
    visibility: Option<Visibility>,
    is_static: bool,
    is_final: bool,
}

impl Modifiers {
    fn of(node: Node<'_>) -> Self {
        let mut modifiers = Modifiers::default();
        let Some(list) = first_child_of_kind(node, "modifiers") else {
            return modifiers;
        };
        let mut cursor = list.walk();
        for keyword in list.children(&mut cursor) {
            match keyword.kind() {
                "public" => modifiers.visibility = Some(Visibility::Public),
                "protected" => modifiers.visibility = Some(Visibility::Protected),
                "private" => modifiers.visibility = Some(Visibility::Private),
                "static" => modifiers.is_static = true,
                "final" => modifiers.is_final = true,
                _ => {}
            }
        }
        modifiers
    }

    /// Visibility, with the default of the enclosing body (interface members are public).
    fn visibility(self, in_interface: bool) -> Visibility {
        match (self.visibility, in_interface) {
            (Some(visibility), _) => visibility,
            (None, true) => Visibility::Public,
            (None, false) => Visibility::Protected,
        }
    }
}

/// Where a type declaration sits.
struct Enclosing<'p> {
    /// Dotted path of the enclosing types; empty at the top level.
    path: &'p str,
    /// Whether the enclosing types are all public (or there are none).
    exported: bool,
    /// Whether the enclosing type is an interface or annotation type.
    in_interface: bool,
}

struct Java<'s, 'o> {
    source: &'s str,
    outline: &'o mut FileOutline,
}

impl Java<'_, '_> {
    fn top_level(&mut self, parent: Node<'_>, depth: usize) {
        let top = Enclosing {
            path: "",
            exported: true,
            in_interface: false,
        };
        let mut cursor = parent.walk();
        for node in parent.named_children(&mut cursor) {
            match node.kind() {
                "import_declaration" => self.import(node),
                "ERROR" if depth < MAX_DEPTH => self.top_level(node, depth + 1),
                _ => self.type_declaration(node, &top, depth),
            }
        }
    }

    fn define(&mut self, name: Node<'_>, kind: SymbolKind) {
        self.outline.symbols.push(SymbolOccurrence {
            name: text(name, self.source).to_string(),
            kind,
            role: SymbolRole::Definition,
            line: start_line(name),
            column: column(name, self.source),
        });
    }

    fn import(&mut self, node: Node<'_>) {
        let mut cursor = node.walk();
        let path = node
            .named_children(&mut cursor)
            .find(|child| matches!(child.kind(), "scoped_identifier" | "identifier"));
        let Some(path) = path else {
            return;
        };
        let full: String = text(path, self.source).split_whitespace().collect();
        let glob = first_child_of_kind(node, "asterisk").is_some();
        let (source, name) = match (glob, full.rsplit_once('.')) {
            (true, _) => (full.clone(), "*".to_string()),
            (false, Some((scope, name))) => (scope.to_string(), name.to_string()),
            (false, None) => (full.clone(), full.clone()),
        };
        let first = full.split('.').next().unwrap_or("");
        self.outline.imports.push(Import {
            source,
            names: vec![ImportedName {
                name,
                alias: None,
                is_default: false,
            }],
            line: start_line(node),
            origin: match first {
                "java" | "javax" => ImportOrigin::Builtin,
                _ => ImportOrigin::External,
            },
        });
    }

    fn type_declaration(&mut self, node: Node<'_>, enclosing: &Enclosing<'_>, depth: usize) {
        let (kind, symbol_kind) = match node.kind() {
            "class_declaration" | "record_declaration" => (ClassKind::Class, SymbolKind::Class),
            "interface_declaration" | "annotation_type_declaration" => {
                (ClassKind::Interface, SymbolKind::Interface)
            }
            "enum_declaration" => (ClassKind::Enum, SymbolKind::Enum),
            _ => return,
        };
        if depth > MAX_DEPTH {
            return;
        }
        let Some(name_node) = node.field("name") else {
            return;
        };
        let name = text(name_node, self.source).to_string();
        self.define(name_node, symbol_kind);
        let visibility = Modifiers::of(node).visibility(enclosing.in_interface);
        let is_exported = enclosing.exported && visibility == Visibility::Public;
        if enclosing.path.is_empty() && is_exported {
            self.outline.exports.push(Export {
                name: name.clone(),
                kind: symbol_kind,
                line: start_line(node),
            });
        }
        let mut class = Class {
            name: name.clone(),
            kind,
            start_line: start_line(node),
            end_line: end_line(node),
            methods: Vec::new(),
            properties: Vec::new(),
            extends: Vec::new(),
            implements: Vec::new(),
            is_exported,
            parent: (!enclosing.path.is_empty()).then(|| enclosing.path.to_string()),
        };
        if let Some(superclass) = node.field("superclass") {
            class.extends = type_list(superclass, self.source);
        }
        if let Some(extended) = first_child_of_kind(node, "extends_interfaces") {
            class.extends = type_list(extended, self.source);
        }
        if let Some(interfaces) = node.field("interfaces") {
            class.implements = type_list(interfaces, self.source);
        }
        if let Some(components) = node.field("parameters") {
            self.record_components(components, &mut class);
        }
        let path = match enclosing.path {
            "" => name,
            outer => format!("{outer}.{name}"),
        };
        let inner = Enclosing {
            path: &path,
            exported: is_exported,
            in_interface: kind == ClassKind::Interface,
        };
        let index = self.outline.classes.len();
        self.outline.classes.push(class);
        if let Some(body) = node.field("body") {
            let mut members = Vec::new();
            let mut properties = Vec::new();
            self.body(body, &inner, &mut members, &mut properties, depth);
            if let Some(class) = self.outline.classes.get_mut(index) {
                class.methods = members;
                class.properties.extend(properties);
            }
        }
    }

    fn record_components(&mut self, components: Node<'_>, class: &mut Class) {
        let mut cursor = components.walk();
        for component in components.named_children(&mut cursor) {
            let Some(name) = component.field("name") else {
                continue;
            };
            self.define(name, SymbolKind::Property);
            class.properties.push(Property {
                name: text(name, self.source).to_string(),
                type_annotation: component
                    .field("type")
                    .map(|node| one_line(text(node, self.source))),
                visibility: Visibility::Public,
                is_static: false,
                is_readonly: true,
                line: start_line(component),
            });
        }
    }

    /// Members of a class, interface, enum or annotation body. Nested types are pushed to
    /// the outline after their enclosing type.
    fn body(
        &mut self,
        body: Node<'_>,
        inner: &Enclosing<'_>,
        methods: &mut Vec<Function>,
        properties: &mut Vec<Property>,
        depth: usize,
    ) {
        let mut cursor = body.walk();
        for member in body.named_children(&mut cursor) {
            let modifiers = Modifiers::of(member);
            let visibility = modifiers.visibility(inner.in_interface);
            match member.kind() {
                "field_declaration" | "constant_declaration" => {
                    let constant = member.kind() == "constant_declaration";
                    let type_annotation = member
                        .field("type")
                        .map(|node| one_line(text(node, self.source)));
                    let mut declarators = member.walk();
                    for declarator in member.children_by_field_name("declarator", &mut declarators)
                    {
                        let Some(name) = declarator.field("name") else {
                            continue;
                        };
                        self.define(name, SymbolKind::Property);
                        properties.push(Property {
                            name: text(name, self.source).to_string(),
                            type_annotation: type_annotation.clone(),
                            visibility,
                            is_static: modifiers.is_static || constant,
                            is_readonly: modifiers.is_final || constant,
                            line: start_line(declarator),
                        });
                    }
                }
                "method_declaration"
                | "constructor_declaration"
                | "compact_constructor_declaration"
                | "annotation_type_element_declaration" => {
                    let Some(name) = member.field("name") else {
                        continue;
                    };
                    self.define(name, SymbolKind::Method);
                    methods.push(Function {
                        name: text(name, self.source).to_string(),
                        start_line: start_line(member),
                        end_line: end_line(member),
                        params: parameters(member, self.source),
                        return_type: member
                            .field("type")
                            .map(|node| one_line(text(node, self.source))),
                        is_async: false,
                        is_exported: false,
                        visibility: Some(visibility),
                        is_static: modifiers.is_static,
                    });
                }
                "enum_constant" => {
                    let Some(name) = member.field("name") else {
                        continue;
                    };
                    self.define(name, SymbolKind::Property);
                    properties.push(Property {
                        name: text(name, self.source).to_string(),
                        type_annotation: inner.path.rsplit('.').next().map(str::to_string),
                        visibility: Visibility::Public,
                        is_static: true,
                        is_readonly: true,
                        line: start_line(member),
                    });
                }
                "enum_body_declarations" => {
                    self.body(member, inner, methods, properties, depth + 1);
                }
                _ => self.type_declaration(member, inner, depth + 1),
            }
        }
    }
}

/// `Type name` for each formal parameter, `Type... name` for varargs.
fn parameters(method: Node<'_>, source: &str) -> Vec<String> {
    let Some(list) = method.field("parameters") else {
        return Vec::new();
    };
    let mut cursor = list.walk();
    list.named_children(&mut cursor)
        .filter_map(|param| match param.kind() {
            "formal_parameter" => {
                let param_type = param.field("type")?;
                let name = param.field("name")?;
                let dimensions = param
                    .field("dimensions")
                    .map_or("", |dimensions| text(dimensions, source));
                Some(format!(
                    "{} {}{dimensions}",
                    one_line(text(param_type, source)),
                    text(name, source)
                ))
            }
            "spread_parameter" => {
                let mut inner = param.walk();
                let parts: Vec<String> = param
                    .named_children(&mut inner)
                    .filter(|part| part.kind() != "modifiers")
                    .map(|part| one_line(text(part, source)))
                    .collect();
                match parts.as_slice() {
                    [param_type, name] => Some(format!("{param_type}... {name}")),
                    _ => Some(one_line(text(param, source))),
                }
            }
            _ => None,
        })
        .collect()
}

/// The types of a `superclass`, `super_interfaces` or `extends_interfaces` clause.
fn type_list(clause: Node<'_>, source: &str) -> Vec<String> {
    let mut cursor = clause.walk();
    let mut types = Vec::new();
    for child in clause.named_children(&mut cursor) {
        if child.kind() == "type_list" {
            let mut inner = child.walk();
            types.extend(
                child
                    .named_children(&mut inner)
                    .map(|node| one_line(text(node, source))),
            );
        } else {
            types.push(one_line(text(child, source)));
        }
    }
    types
}

fn first_child_of_kind<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .find(|child| child.kind() == kind)
}

/// Symbol references over the whole tree.
fn references(root: Node<'_>, source: &str, outline: &mut FileOutline) {
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
    walk(root, |node, _, parent| match node.kind() {
        "line_comment" | "block_comment" | "import_declaration" | "package_declaration" => false,
        "marker_annotation" | "annotation" => true,
        "type_parameter" => {
            if let Some(name) = node.named_child(0) {
                generics.push(text(name, source));
            }
            true
        }
        "method_invocation" => {
            if let Some(name) = node.field("name") {
                push(name, SymbolKind::Method, &mut found);
            }
            true
        }
        "object_creation_expression" => {
            created = node
                .field("type")
                .and_then(last_type_identifier)
                .map(|name| name.id());
            true
        }
        "scoped_type_identifier" => {
            if let Some(name) = last_type_identifier(node) {
                let kind = if created == Some(name.id()) {
                    SymbolKind::Class
                } else {
                    SymbolKind::Type
                };
                push(name, kind, &mut found);
            }
            false
        }
        "type_identifier" => {
            let defining = parent.is_some_and(|parent| parent.kind() == "type_parameter");
            if !defining && text(node, source) != "var" {
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

/// The identifier naming a (generic, qualified) type: `a.b.C<D>` → `C`.
fn last_type_identifier(node: Node<'_>) -> Option<Node<'_>> {
    let mut current = node;
    for _ in 0..MAX_DEPTH {
        current = match current.kind() {
            "type_identifier" => return Some(current),
            "generic_type" => current.named_child(0)?,
            "scoped_type_identifier" => {
                let count = current.named_child_count();
                current.named_child(u32::try_from(count.checked_sub(1)?).ok()?)?
            }
            _ => return None,
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::model::{ImportOrigin, Language, Visibility};
    use crate::parse::outline;

    #[test]
    fn imports_split_package_and_name() {
        let found = outline(
            Language::Java,
            "import java.util.List;\nimport static org.junit.Assert.*;\nclass A {}",
        );
        let imports: Vec<_> = found
            .imports
            .iter()
            .map(|i| (i.source.as_str(), i.names[0].name.as_str(), i.origin))
            .collect();
        assert_eq!(
            imports,
            [
                ("java.util", "List", ImportOrigin::Builtin),
                ("org.junit.Assert", "*", ImportOrigin::External)
            ]
        );
    }

    #[test]
    fn package_private_is_protected_and_interface_members_public() {
        let found = outline(
            Language::Java,
            "class A { int x; }\ninterface I { void run(); }",
        );
        assert_eq!(
            found.classes[0].properties[0].visibility,
            Visibility::Protected
        );
        assert_eq!(
            found.classes[1].methods[0].visibility,
            Some(Visibility::Public)
        );
        assert!(found.exports.is_empty());
    }
}
