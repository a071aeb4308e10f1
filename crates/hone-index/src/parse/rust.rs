//! Rust extractor.
//!
//! Decisions, so that the golden fixtures read as a spec:
//! - **Exports** are the `pub` items at the top level of the file (fn, struct, union, enum,
//!   trait, type, const, static, mod, `pub use` re-exports by their local names, and
//!   `macro_rules!` marked `#[macro_export]`). Restricted visibility (`pub(crate)`,
//!   `pub(super)`, `pub(in …)`) is not exported: it cannot be used outside the crate.
//! - **Member visibility**: `pub` is public; restricted `pub(…)` is protected (visible beyond
//!   the item, not everywhere); no modifier or `pub(self)` is private. Trait methods and the
//!   methods of trait impls are public.
//! - **Inline modules** (`mod x { … }`): their items are included. Types get `parent` set to
//!   the module path (`x`, `x::y`); functions are named with it (`x::f`) because functions
//!   have no `parent`; symbol definitions always use the plain name. An item is `is_exported`
//!   when it and every enclosing module are `pub`. Items inside function bodies are skipped.
//! - **Impl blocks** become [`ClassKind::Impl`] named after the self type's base name (`S` for
//!   `impl<T> Tr for S<T>`, `S` for `&'a S`), with `implements` = the trait as written. They
//!   are never exported themselves. Methods without a `self` parameter are static.
//! - **Enum variants** are properties of the enum (type = the variant's fields as written);
//!   tuple-struct fields are properties named `0`, `1`, ….
//! - **Macros**: `macro_rules!` definitions and macro invocations are [`SymbolKind::Function`]
//!   symbols (macros are called like functions); they are not in `functions`.
//! - **Imports**: each `use` tree is flattened into one import per path prefix (see
//!   [`imports`]); `mod foo;` is an internal import with source `foo` (`a::foo` inside an
//!   inline module `a`); `extern crate` is an import of the crate.
//! - **References**: calls (`f()`, `a::f()` → function; `x.f()` → method), macro invocations,
//!   struct expressions, and every type identifier in signatures and bodies (traits in
//!   bounds, `impl`/`dyn` types and `impl Trait for` as traits), minus the generic parameters
//!   declared in the file.

mod imports;
mod references;
#[cfg(test)]
mod tests;

use tree_sitter::Node;

use crate::parse::common::FieldChild;

use super::common::{MetricKinds, column, end_line, metrics_and_todos, one_line, start_line, text};
use crate::model::{
    Class, ClassKind, Export, FileOutline, Function, Import, ImportOrigin, Property, SymbolKind,
    SymbolOccurrence, SymbolRole, Visibility,
};

/// Metric node kinds of the Rust grammar: nesting counts brace levels.
const METRICS: MetricKinds = MetricKinds {
    nesting: &[
        "block",
        "declaration_list",
        "match_block",
        "field_declaration_list",
        "enum_variant_list",
    ],
    branches: &[
        "if_expression",
        "while_expression",
        "for_expression",
        "loop_expression",
        "match_arm",
    ],
    logical_operators: &["&&", "||"],
    comments: &["line_comment", "block_comment"],
};

/// Deepest module nesting followed (guards the recursion on pathological input).
const MAX_DEPTH: usize = 64;

/// Fills `outline` from the syntax tree.
pub(crate) fn extract(root: Node<'_>, source: &str, outline: &mut FileOutline) {
    let mut items = Items { source, outline };
    items.list(root, &Scope::default(), 0);
    references::collect(root, source, outline);
    outline.imports.sort_by_key(|import| import.line);
    outline
        .symbols
        .sort_by_key(|symbol| (symbol.line, symbol.column));
    outline.metrics = metrics_and_todos(root, source, &METRICS, &mut outline.todos);
}

/// The module an item is declared in.
#[derive(Default)]
struct Scope {
    /// `a::b` for items of `mod a { mod b { … } }`; empty at the top level.
    path: String,
    /// Whether some enclosing module is not `pub` (so nothing inside is exported).
    hidden: bool,
}

impl Scope {
    fn qualify(&self, name: &str) -> String {
        if self.path.is_empty() {
            name.to_string()
        } else {
            format!("{}::{name}", self.path)
        }
    }

    fn parent(&self) -> Option<String> {
        (!self.path.is_empty()).then(|| self.path.clone())
    }

    fn exports(&self, visibility: Visibility) -> bool {
        !self.hidden && visibility == Visibility::Public
    }
}

/// The outline walk over items (module level, inline modules, impl and trait bodies).
struct Items<'s, 'o> {
    source: &'s str,
    outline: &'o mut FileOutline,
}

impl Items<'_, '_> {
    fn list(&mut self, list: Node<'_>, scope: &Scope, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let mut cursor = list.walk();
        for node in list.named_children(&mut cursor) {
            match node.kind() {
                "function_item" | "function_signature_item" => self.free_function(node, scope),
                "struct_item" | "union_item" => self.structure(node, scope),
                "enum_item" => self.enumeration(node, scope),
                "trait_item" => self.trait_item(node, scope),
                "impl_item" => self.impl_item(node, scope),
                "mod_item" => self.module(node, scope, depth),
                "type_item" => {
                    self.named(node, scope, SymbolKind::Type);
                }
                "const_item" | "static_item" => {
                    self.named(node, scope, SymbolKind::Variable);
                }
                "macro_definition" => self.macro_definition(node, scope),
                "use_declaration" => self.reexports(node, scope),
                "foreign_mod_item" => {
                    if let Some(body) = node.field("body") {
                        self.list(body, scope, depth + 1);
                    }
                }
                "ERROR" => self.list(node, scope, depth + 1),
                _ => {}
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

    /// Records an export when `node` is a `pub` item at the top level.
    fn export(&mut self, scope: &Scope, node: Node<'_>, name: &str, kind: SymbolKind) {
        if scope.path.is_empty() && visibility(node, self.source) == Visibility::Public {
            self.outline.exports.push(Export {
                name: name.to_string(),
                kind,
                line: start_line(node),
            });
        }
    }

    /// Definition and export of a named item; returns its name.
    fn named(&mut self, node: Node<'_>, scope: &Scope, kind: SymbolKind) -> Option<String> {
        let name_node = node.field("name")?;
        let name = text(name_node, self.source).to_string();
        self.define(name_node, kind);
        self.export(scope, node, &name, kind);
        Some(name)
    }

    fn free_function(&mut self, node: Node<'_>, scope: &Scope) {
        let Some(name) = self.named(node, scope, SymbolKind::Function) else {
            return;
        };
        let exported = scope.exports(visibility(node, self.source));
        let function = function(node, self.source, scope.qualify(&name), exported, None);
        self.outline.functions.push(function);
    }

    fn new_class(&self, node: Node<'_>, name: String, kind: ClassKind, scope: &Scope) -> Class {
        Class {
            name,
            kind,
            start_line: start_line(node),
            end_line: end_line(node),
            methods: Vec::new(),
            properties: Vec::new(),
            extends: Vec::new(),
            implements: Vec::new(),
            is_exported: kind != ClassKind::Impl && scope.exports(visibility(node, self.source)),
            parent: scope.parent(),
        }
    }

    fn structure(&mut self, node: Node<'_>, scope: &Scope) {
        let Some(name) = self.named(node, scope, SymbolKind::Struct) else {
            return;
        };
        let mut class = self.new_class(node, name, ClassKind::Struct, scope);
        if let Some(body) = node.field("body") {
            self.fields(body, &mut class.properties);
        }
        self.outline.classes.push(class);
    }

    /// Named fields (`{ a: T }`) or positional ones (`(T, pub U)`) as properties.
    fn fields(&mut self, body: Node<'_>, properties: &mut Vec<Property>) {
        let mut cursor = body.walk();
        if body.kind() == "field_declaration_list" {
            for field in body.named_children(&mut cursor) {
                let Some(name) = field.field("name") else {
                    continue;
                };
                self.define(name, SymbolKind::Property);
                properties.push(Property {
                    name: text(name, self.source).to_string(),
                    type_annotation: field_one_line(field, "type", self.source),
                    visibility: visibility(field, self.source),
                    is_static: false,
                    is_readonly: false,
                    line: start_line(field),
                });
            }
            return;
        }
        let mut pending = Visibility::Private;
        let mut index = 0;
        if !cursor.goto_first_child() {
            return;
        }
        loop {
            let node = cursor.node();
            if node.kind() == "visibility_modifier" {
                pending = visibility_of(node, self.source);
            } else if cursor.field_name() == Some("type") {
                properties.push(Property {
                    name: index.to_string(),
                    type_annotation: Some(one_line(text(node, self.source))),
                    visibility: pending,
                    is_static: false,
                    is_readonly: false,
                    line: start_line(node),
                });
                index += 1;
                pending = Visibility::Private;
            }
            if !cursor.goto_next_sibling() {
                return;
            }
        }
    }

    fn enumeration(&mut self, node: Node<'_>, scope: &Scope) {
        let Some(name) = self.named(node, scope, SymbolKind::Enum) else {
            return;
        };
        let mut class = self.new_class(node, name, ClassKind::Enum, scope);
        if let Some(body) = node.field("body") {
            let mut cursor = body.walk();
            for variant in body.named_children(&mut cursor) {
                let Some(variant_name) = variant.field("name") else {
                    continue;
                };
                self.define(variant_name, SymbolKind::Property);
                class.properties.push(Property {
                    name: text(variant_name, self.source).to_string(),
                    type_annotation: field_one_line(variant, "body", self.source),
                    visibility: Visibility::Public,
                    is_static: false,
                    is_readonly: false,
                    line: start_line(variant),
                });
            }
        }
        self.outline.classes.push(class);
    }

    fn trait_item(&mut self, node: Node<'_>, scope: &Scope) {
        let Some(name) = self.named(node, scope, SymbolKind::Trait) else {
            return;
        };
        let mut class = self.new_class(node, name, ClassKind::Trait, scope);
        if let Some(bounds) = node.field("bounds") {
            let mut cursor = bounds.walk();
            class.extends = bounds
                .named_children(&mut cursor)
                .filter(|bound| bound.kind() != "lifetime")
                .map(|bound| one_line(text(bound, self.source)))
                .collect();
        }
        if let Some(body) = node.field("body") {
            self.members(body, &mut class, Some(Visibility::Public));
        }
        self.outline.classes.push(class);
    }

    fn impl_item(&mut self, node: Node<'_>, scope: &Scope) {
        let Some(self_type) = node.field("type") else {
            return;
        };
        let name = base_type_name(self_type, self.source);
        let mut class = self.new_class(node, name, ClassKind::Impl, scope);
        let trait_node = node.field("trait");
        if let Some(trait_node) = trait_node {
            class.implements = vec![one_line(text(trait_node, self.source))];
        }
        if let Some(body) = node.field("body") {
            let forced = trait_node.map(|_| Visibility::Public);
            self.members(body, &mut class, forced);
        }
        self.outline.classes.push(class);
    }

    /// Methods and associated items of a trait or impl body. `forced` overrides the
    /// written visibility (trait items and trait-impl items are public).
    fn members(&mut self, body: Node<'_>, class: &mut Class, forced: Option<Visibility>) {
        let mut cursor = body.walk();
        for member in body.named_children(&mut cursor) {
            let visibility = forced.unwrap_or_else(|| visibility(member, self.source));
            match member.kind() {
                "function_item" | "function_signature_item" => {
                    let Some(name) = member.field("name") else {
                        continue;
                    };
                    self.define(name, SymbolKind::Method);
                    let name = text(name, self.source).to_string();
                    let method = function(member, self.source, name, false, Some(visibility));
                    class.methods.push(method);
                }
                "const_item" => {
                    let Some(name) = member.field("name") else {
                        continue;
                    };
                    self.define(name, SymbolKind::Property);
                    class.properties.push(Property {
                        name: text(name, self.source).to_string(),
                        type_annotation: field_one_line(member, "type", self.source),
                        visibility,
                        is_static: true,
                        is_readonly: true,
                        line: start_line(member),
                    });
                }
                "associated_type" => {
                    if let Some(name) = member.field("name") {
                        self.define(name, SymbolKind::Type);
                    }
                }
                _ => {}
            }
        }
    }

    fn module(&mut self, node: Node<'_>, scope: &Scope, depth: usize) {
        let Some(name) = self.named(node, scope, SymbolKind::Module) else {
            return;
        };
        let Some(body) = node.field("body") else {
            self.outline.imports.push(Import {
                source: scope.qualify(&name),
                names: Vec::new(),
                line: start_line(node),
                origin: ImportOrigin::Internal,
            });
            return;
        };
        let inner = Scope {
            path: scope.qualify(&name),
            hidden: !scope.exports(visibility(node, self.source)),
        };
        self.list(body, &inner, depth + 1);
    }

    fn macro_definition(&mut self, node: Node<'_>, scope: &Scope) {
        let Some(name) = node.field("name") else {
            return;
        };
        self.define(name, SymbolKind::Function);
        if scope.path.is_empty() && has_macro_export(node, self.source) {
            self.outline.exports.push(Export {
                name: text(name, self.source).to_string(),
                kind: SymbolKind::Function,
                line: start_line(node),
            });
        }
    }

    /// `pub use a::{B, c as d};` at the top level exports `B` and `d`. The kind is a guess
    /// from the case of the name: upper case → type, lower case → function.
    fn reexports(&mut self, node: Node<'_>, scope: &Scope) {
        if !scope.path.is_empty() || visibility(node, self.source) != Visibility::Public {
            return;
        }
        let Some(argument) = node.field("argument") else {
            return;
        };
        let mut groups = Vec::new();
        imports::flatten(argument, self.source, &mut groups);
        for (_, names) in groups {
            for imported in names {
                let name = imported.alias.unwrap_or(imported.name);
                if name == "*" || name == "self" {
                    continue;
                }
                let kind = if name.starts_with(char::is_uppercase) {
                    SymbolKind::Type
                } else {
                    SymbolKind::Function
                };
                let line = start_line(node);
                self.outline.exports.push(Export { name, kind, line });
            }
        }
    }
}

/// A function or method signature.
fn function(
    node: Node<'_>,
    source: &str,
    name: String,
    is_exported: bool,
    visibility: Option<Visibility>,
) -> Function {
    let mut params = Vec::new();
    let mut has_self = false;
    if let Some(parameters) = node.field("parameters") {
        let mut cursor = parameters.walk();
        for param in parameters.named_children(&mut cursor) {
            match param.kind() {
                "attribute_item" | "line_comment" | "block_comment" => {}
                kind => {
                    has_self |= kind == "self_parameter";
                    params.push(one_line(text(param, source)));
                }
            }
        }
    }
    let mut cursor = node.walk();
    let is_async = node
        .children(&mut cursor)
        .any(|child| child.kind() == "function_modifiers" && has_async(child, source));
    Function {
        name,
        start_line: start_line(node),
        end_line: end_line(node),
        params,
        return_type: field_one_line(node, "return_type", source),
        is_async,
        is_exported,
        is_static: visibility.is_some() && !has_self,
        visibility,
    }
}

fn has_async(modifiers: Node<'_>, source: &str) -> bool {
    text(modifiers, source)
        .split_whitespace()
        .any(|word| word == "async")
}

/// Visibility written on an item or field (its first named child, when a modifier).
fn visibility(node: Node<'_>, source: &str) -> Visibility {
    match node.named_child(0) {
        Some(modifier) if modifier.kind() == "visibility_modifier" => {
            visibility_of(modifier, source)
        }
        _ => Visibility::Private,
    }
}

fn visibility_of(modifier: Node<'_>, source: &str) -> Visibility {
    let compact: String = text(modifier, source).split_whitespace().collect();
    match compact.as_str() {
        "pub" => Visibility::Public,
        "pub(self)" => Visibility::Private,
        _ => Visibility::Protected,
    }
}

/// Whether a `#[macro_export]` attribute precedes `node`.
fn has_macro_export(node: Node<'_>, source: &str) -> bool {
    let mut previous = node.prev_named_sibling();
    while let Some(sibling) = previous {
        match sibling.kind() {
            "attribute_item" if text(sibling, source).contains("macro_export") => return true,
            "attribute_item" | "line_comment" | "block_comment" => {}
            _ => return false,
        }
        previous = sibling.prev_named_sibling();
    }
    false
}

/// The base name of an impl's self type: generics, references and paths stripped.
fn base_type_name(node: Node<'_>, source: &str) -> String {
    let mut current = node;
    for _ in 0..MAX_DEPTH {
        let next = match current.kind() {
            "generic_type" | "reference_type" | "pointer_type" => current.field("type"),
            "scoped_type_identifier" => current.field("name"),
            _ => None,
        };
        match next {
            Some(inner) => current = inner,
            None => break,
        }
    }
    one_line(text(current, source))
}

/// The one-line text of the child in `field`.
fn field_one_line(node: Node<'_>, field: &'static str, source: &str) -> Option<String> {
    node.field(field).map(|child| one_line(text(child, source)))
}
