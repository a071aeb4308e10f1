//! TypeScript, TSX and JavaScript (JSX included) outlines.
//!
//! Two passes: `Extractor::declarations` reads the top-level statements (and namespace
//! bodies) for imports, exports, functions, variables, type aliases and namespaces;
//! `scan::scan` walks the whole tree once for classes (wherever they are declared),
//! references, `require(…)` and dynamic `import(…)`.
//!
//! Choices the model leaves open:
//! - `export default function f` exports `f`; only nameless default exports are named
//!   `default` (their function or class is `<anonymous>`). `module.exports = x` counts as a
//!   default export in the same way; `module.exports = { a, b }` exports `a` and `b`.
//! - Re-exports (`export { a } from "./m"`, `export * from "./m"`) are also imports of the
//!   module, since the file depends on it.
//! - `const x = require("m")` imports `x` as a default import, `const { a } = require("m")`
//!   a named one; `import("m")` and bare `require("m")` import no names.
//! - Overload signatures are functions of their own, like the implementation.
//! - Functions are the top-level and namespace-level ones (declarations, signatures,
//!   generators, function values bound to `const`s or CommonJS exports); `is_exported` means
//!   declared with `export` (within a namespace too) or exported by name elsewhere.
//! - A class expression bound to a variable is named after the variable. A nested class's
//!   `parent` is the nearest enclosing class, else the nearest named function or namespace.
//! - Enum members are static read-only properties; getters, setters and fields holding a
//!   function (`onClick = () => {}`) are methods.
//! - A name is exported once, however many overloads declare it.
//! - References: called names (functions) and called members (methods), `new X` and
//!   `extends X` (classes), type names (types; interfaces in `implements`/interface
//!   `extends`), decorators and capitalised JSX elements (functions). Uses of type parameters
//!   are not references (nor those of mapped-type keys and `infer` names).

mod classes;
mod commonjs;
mod imports;
mod scan;
mod signature;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use crate::parse::common::FieldChild;

use crate::model::{Export, FileOutline, SymbolKind, SymbolOccurrence, SymbolRole};
use crate::parse::common::{self, MetricKinds, column, end_line, field_text, start_line, text};
use signature::{FUNCTION_VALUES, unquote};

/// The name of nameless functions and classes.
const ANONYMOUS: &str = "<anonymous>";

/// Namespaces nested deeper than this are not read for declarations.
const MAX_NAMESPACE_DEPTH: u32 = 16;

const METRIC_KINDS: MetricKinds = MetricKinds {
    nesting: &[
        "statement_block",
        "class_body",
        "switch_body",
        "object",
        "interface_body",
        "enum_body",
    ],
    branches: &[
        "if_statement",
        "for_statement",
        "for_in_statement",
        "while_statement",
        "do_statement",
        "switch_case",
        "catch_clause",
        "ternary_expression",
    ],
    logical_operators: &["&&", "||", "??"],
    comments: &["comment", "html_comment"],
};

/// Fills `outline` from the syntax tree.
pub(crate) fn extract(root: Node<'_>, source: &str, outline: &mut FileOutline) {
    let mut extractor = Extractor {
        source,
        outline: &mut *outline,
        pending: Vec::new(),
        locals: Vec::new(),
        type_params: Vec::new(),
    };
    extractor.declarations(root, false, 0);
    let mut metrics = common::MetricsWalk::new(source, &METRIC_KINDS);
    scan::scan(root, &mut extractor, &mut metrics);
    extractor.finish();
    outline.metrics = metrics.finish(&mut outline.todos);
}

/// A name exported without its declaration (`export { a as b }`, `export default a`,
/// CommonJS): resolved once every declaration is known.
struct PendingExport<'s> {
    local: &'s str,
    exported: &'s str,
    line: u32,
}

/// Extraction state shared by the passes.
pub(super) struct Extractor<'s, 'o> {
    source: &'s str,
    outline: &'o mut FileOutline,
    pending: Vec<PendingExport<'s>>,
    /// File-level declarations (name, kind, first line), to resolve pending exports.
    locals: Vec<(&'s str, SymbolKind, u32)>,
    /// Names declared as type parameters, mapped-type keys or `infer` names: their uses are
    /// not references.
    type_params: Vec<&'s str>,
}

impl<'s> Extractor<'s, '_> {
    /// A symbol named by `node` (a string name such as `declare module "x"`'s is unquoted).
    fn occurrence(&mut self, node: Node<'_>, kind: SymbolKind, role: SymbolRole) {
        self.outline.symbols.push(SymbolOccurrence {
            name: unquote(text(node, self.source)).to_string(),
            kind,
            role,
            line: start_line(node),
            column: column(node, self.source),
        });
    }

    /// Records the definition whose name is `node`.
    fn define(&mut self, node: Node<'_>, kind: SymbolKind) {
        self.occurrence(node, kind, SymbolRole::Definition);
    }

    /// Records a reference to the name `node`.
    fn reference(&mut self, node: Node<'_>, kind: SymbolKind) {
        self.occurrence(node, kind, SymbolRole::Reference);
    }

    /// Exports `name` from the file (namespace members are only marked `is_exported`).
    fn export(&mut self, name: &str, kind: SymbolKind, line: u32, in_namespace: bool) {
        if !in_namespace {
            self.outline.exports.push(Export {
                name: name.to_string(),
                kind,
                line,
            });
        }
    }

    /// Records a file-level declaration and exports it when `exported`.
    fn declared(
        &mut self,
        name: &'s str,
        kind: SymbolKind,
        line: u32,
        exported: bool,
        in_namespace: bool,
    ) {
        if in_namespace {
            return;
        }
        self.locals.push((name, kind, line));
        if exported {
            self.export(name, kind, line, false);
        }
    }

    /// Reads the statements of a program, namespace or ambient module body.
    fn declarations(&mut self, container: Node<'_>, in_namespace: bool, depth: u32) {
        let mut cursor = container.walk();
        for statement in container.named_children(&mut cursor) {
            self.statement(statement, None, in_namespace, depth);
        }
    }

    /// One declaration; `export` is the `export` statement around it, if any.
    fn statement(
        &mut self,
        node: Node<'_>,
        export: Option<Node<'_>>,
        in_namespace: bool,
        depth: u32,
    ) {
        let source = self.source;
        let exported = export.is_some();
        let line = start_line(export.unwrap_or(node));
        match node.kind() {
            "import_statement" if !in_namespace => {
                imports::es_import(node, source, &mut self.outline.imports);
            }
            "export_statement" => self.export_statement(node, in_namespace, depth),
            "function_declaration" | "generator_function_declaration" | "function_signature" => {
                let Some(name_node) = node.field("name") else {
                    return;
                };
                let name = text(name_node, source);
                self.function(node, name_node, line, end_line(node), exported);
                self.declared(name, SymbolKind::Function, line, exported, in_namespace);
            }
            "lexical_declaration" | "variable_declaration" => {
                self.variables(node, line, exported, in_namespace);
            }
            "type_alias_declaration" => {
                if let Some(name_node) = node.field("name") {
                    self.define(name_node, SymbolKind::Type);
                    let name = text(name_node, source);
                    self.declared(name, SymbolKind::Type, line, exported, in_namespace);
                }
            }
            "class_declaration"
            | "abstract_class_declaration"
            | "interface_declaration"
            | "enum_declaration" => {
                let kind = match node.kind() {
                    "interface_declaration" => SymbolKind::Interface,
                    "enum_declaration" => SymbolKind::Enum,
                    _ => SymbolKind::Class,
                };
                if let Some(name) = field_text(node, "name", source) {
                    self.declared(name, kind, line, exported, in_namespace);
                }
            }
            "internal_module" | "module" => {
                let Some(name_node) = node.field("name") else {
                    return;
                };
                self.define(name_node, SymbolKind::Module);
                let name = unquote(text(name_node, source));
                self.declared(name, SymbolKind::Module, line, exported, in_namespace);
                if let Some(body) = node.field("body")
                    && depth < MAX_NAMESPACE_DEPTH
                {
                    self.declarations(body, true, depth + 1);
                }
            }
            "expression_statement" => match node.named_child(0) {
                Some(inner) if matches!(inner.kind(), "internal_module" | "module") => {
                    self.statement(inner, export, in_namespace, depth);
                }
                Some(inner) if inner.kind() == "assignment_expression" && !in_namespace => {
                    self.commonjs(inner, node);
                }
                _ => {}
            },
            "ambient_declaration" if depth < MAX_NAMESPACE_DEPTH => {
                let mut cursor = node.walk();
                for declaration in node.named_children(&mut cursor) {
                    self.statement(declaration, export, in_namespace, depth + 1);
                }
            }
            _ => {}
        }
    }

    fn export_statement(&mut self, node: Node<'_>, in_namespace: bool, depth: u32) {
        let source = self.source;
        let line = start_line(node);
        if let Some(declaration) = node.field("declaration") {
            self.statement(declaration, Some(node), in_namespace, depth);
            return;
        }
        if let Some(value) = node.field("value") {
            self.default_export(value, node, in_namespace);
            return;
        }
        let from = field_text(node, "source", source).map(unquote);
        let mut names = Vec::new();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "export_clause" => {
                    let mut inner = child.walk();
                    for specifier in child.named_children(&mut inner) {
                        let Some(local) = field_text(specifier, "name", source).map(unquote) else {
                            continue;
                        };
                        let alias = field_text(specifier, "alias", source).map(unquote);
                        let exported = alias.unwrap_or(local);
                        if from.is_some() {
                            names.push(imports::name(local, alias, false));
                            self.export(exported, SymbolKind::Variable, line, in_namespace);
                        } else if !in_namespace {
                            self.pending.push(PendingExport {
                                local,
                                exported,
                                line,
                            });
                        }
                    }
                }
                "namespace_export" => {
                    let alias = child
                        .named_child(0)
                        .map(|alias| unquote(text(alias, source)));
                    names.push(imports::name("*", alias, false));
                    let exported = alias.unwrap_or("*");
                    self.export(exported, SymbolKind::Module, line, in_namespace);
                }
                // `export = name`
                "identifier" if !in_namespace => {
                    let local = text(child, source);
                    self.pending.push(PendingExport {
                        local,
                        exported: local,
                        line,
                    });
                }
                _ => {}
            }
        }
        let Some(from) = from else {
            return;
        };
        if names.is_empty() {
            names.push(imports::name("*", None, false));
            self.export("*", SymbolKind::Module, line, in_namespace);
        }
        if !in_namespace {
            self.outline
                .imports
                .push(imports::import(from, names, line));
        }
    }

    /// `export default <value>`: a function or class expression, a name, or any expression.
    fn default_export(&mut self, value: Node<'_>, statement: Node<'_>, in_namespace: bool) {
        let source = self.source;
        let line = start_line(statement);
        let own_name = value.field("name");
        let exported = own_name.map_or("default", |name| text(name, source));
        match value.kind() {
            kind if FUNCTION_VALUES.contains(&kind) => {
                self.function_value(value, own_name, line, end_line(statement), true);
                self.export(exported, SymbolKind::Function, line, in_namespace);
            }
            "class" if own_name.is_none() || in_namespace => {
                self.export(exported, SymbolKind::Class, line, in_namespace);
            }
            // `module.exports = class Name {}`: exported by name once the class is known.
            "class" => self.pending.push(PendingExport {
                local: exported,
                exported,
                line,
            }),
            "identifier" if !in_namespace => {
                let local = text(value, source);
                self.pending.push(PendingExport {
                    local,
                    exported: local,
                    line,
                });
            }
            _ => self.export("default", SymbolKind::Variable, line, in_namespace),
        }
    }

    /// Records the function-like `node` named by `name_node` (a definition).
    fn function(
        &mut self,
        node: Node<'_>,
        name_node: Node<'_>,
        start: u32,
        end: u32,
        exported: bool,
    ) {
        let name = text(name_node, self.source);
        let mut function = signature::function(node, name, start, end, self.source);
        function.is_exported = exported;
        self.outline.functions.push(function);
        self.define(name_node, SymbolKind::Function);
    }

    /// A function value named by `name_node`, or `<anonymous>`.
    fn function_value(
        &mut self,
        node: Node<'_>,
        name_node: Option<Node<'_>>,
        start: u32,
        end: u32,
        exported: bool,
    ) {
        match name_node {
            Some(name_node) => self.function(node, name_node, start, end, exported),
            None => {
                let mut function = signature::function(node, ANONYMOUS, start, end, self.source);
                function.is_exported = exported;
                self.outline.functions.push(function);
            }
        }
    }

    /// `const`/`let`/`var`: functions for function values, nothing for module loads and
    /// classes (imports and the class pass take those), variables otherwise.
    fn variables(&mut self, node: Node<'_>, line: u32, exported: bool, in_namespace: bool) {
        let source = self.source;
        let mut cursor = node.walk();
        let declarators = node
            .named_children(&mut cursor)
            .filter(|child| child.kind() == "variable_declarator");
        for (index, declarator) in declarators.enumerate() {
            let Some(binding) = declarator.field("name") else {
                continue;
            };
            let value = declarator.field("value");
            if value.is_some_and(|value| imports::is_module_load(value, source)) {
                continue;
            }
            let start = if index == 0 {
                line
            } else {
                start_line(declarator)
            };
            let value_kind = value.map_or("", |value| value.kind());
            if binding.kind() != "identifier" {
                self.pattern_variables(binding, start, exported, in_namespace, 0);
            } else if let Some(function) = value.filter(|_| FUNCTION_VALUES.contains(&value_kind)) {
                self.function(function, binding, start, end_line(declarator), exported);
                let name = text(binding, source);
                self.declared(name, SymbolKind::Function, start, exported, in_namespace);
            } else {
                let name = text(binding, source);
                let kind = if value_kind == "class" {
                    SymbolKind::Class
                } else {
                    self.define(binding, SymbolKind::Variable);
                    SymbolKind::Variable
                };
                self.declared(name, kind, start, exported, in_namespace);
            }
        }
    }

    /// The names a destructuring pattern binds, as variables.
    fn pattern_variables(
        &mut self,
        pattern: Node<'_>,
        line: u32,
        exported: bool,
        in_namespace: bool,
        depth: u32,
    ) {
        let source = self.source;
        match pattern.kind() {
            "identifier" | "shorthand_property_identifier_pattern" => {
                self.define(pattern, SymbolKind::Variable);
                self.declared(
                    text(pattern, source),
                    SymbolKind::Variable,
                    line,
                    exported,
                    in_namespace,
                );
            }
            "object_pattern"
            | "array_pattern"
            | "pair_pattern"
            | "rest_pattern"
            | "object_assignment_pattern"
            | "assignment_pattern"
                if depth < MAX_NAMESPACE_DEPTH =>
            {
                let mut cursor = pattern.walk();
                for child in pattern.named_children(&mut cursor) {
                    let is_key =
                        pattern.kind() == "pair_pattern" && pattern.field("key") == Some(child);
                    let is_default = pattern.field("right") == Some(child);
                    if !is_key && !is_default {
                        self.pattern_variables(child, line, exported, in_namespace, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }

    /// Resolves pending exports, drops references to type parameters and orders the lists.
    fn finish(&mut self) {
        let outline = &mut *self.outline;
        let mut declared: HashMap<&str, (SymbolKind, u32)> = HashMap::new();
        let top_level_classes = outline
            .classes
            .iter()
            .filter(|class| class.parent.is_none());
        for class in top_level_classes.rev() {
            let entry = (classes::symbol_kind(class.kind), class.start_line);
            declared.insert(class.name.as_str(), entry);
        }
        for (name, kind, line) in self.locals.iter().rev() {
            declared.insert(name, (*kind, *line));
        }
        let mut exported_locals = HashSet::new();
        for pending in &self.pending {
            let (kind, line) = declared
                .get(pending.local)
                .copied()
                .unwrap_or((SymbolKind::Variable, pending.line));
            outline.exports.push(Export {
                name: pending.exported.to_string(),
                kind,
                line,
            });
            exported_locals.insert(pending.local);
        }
        for function in &mut outline.functions {
            function.is_exported |= exported_locals.contains(function.name.as_str());
        }
        for class in outline
            .classes
            .iter_mut()
            .filter(|class| class.parent.is_none())
        {
            class.is_exported |= exported_locals.contains(class.name.as_str());
        }
        let type_params: HashSet<&str> = self.type_params.iter().copied().collect();
        outline.symbols.retain(|symbol| {
            symbol.role == SymbolRole::Definition
                || symbol.kind != SymbolKind::Type
                || !type_params.contains(symbol.name.as_str())
        });
        outline
            .symbols
            .sort_by_key(|symbol| (symbol.line, symbol.column));
        outline.exports.sort_by_key(|export| export.line);
        // Overloads export one name several times; `export *` may repeat.
        let mut seen = HashSet::new();
        outline
            .exports
            .retain(|export| export.name == "*" || seen.insert(export.name.clone()));
        outline.imports.sort_by_key(|import| import.line);
    }
}
