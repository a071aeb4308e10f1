//! Python outlines.
//!
//! Two passes: `Extractor::module_level` reads module-level statements (also inside
//! module-level `if`/`try`/`with` blocks, except `if __name__ == "__main__"`) for functions,
//! variables, type aliases and `__all__`; `scan::scan` walks the whole tree once for
//! imports (wherever they are), classes (nested ones included) and references.
//!
//! Choices the model leaves open:
//! - `import a.b as c` imports the name `a.b` aliased `c` from module `a.b`; `from m import x`
//!   imports `x` from `m`; `from m import *` imports `*`.
//! - Exports: the names listed in `__all__` when the module assigns it, else every public
//!   (no leading underscore) module-level function, class, variable and type alias.
//! - Visibility: `__name` (not a dunder) is private, `_name` protected, anything else public.
//! - `@staticmethod` and `@classmethod` methods are static. `@property` (and
//!   `cached_property`) methods are properties, typed by their return annotation, read-only
//!   unless the class defines a `@name.setter`; setters and deleters are not listed.
//! - Class properties: class-level assignments, annotated or not (`ClassVar[…]` is static,
//!   `Final[…]` read-only), and `self.x = …` assignments in `__init__`; dunder names are not
//!   properties.
//! - Functions are module-level `def`s; `self`/`cls` stay in method parameters as written,
//!   and defaults longer than 32 characters are shown as `…`.
//! - A nested class's `parent` is the enclosing class, else the enclosing function.
//! - References: calls (`name(…)` a function call, `x.name(…)` a method call, a
//!   capitalised `Name(…)`/`x.Name(…)` a class instantiation), base classes, bare decorators
//!   and names in annotations (builtin types left out).

mod classes;
mod imports;
mod scan;
mod stdlib;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use crate::parse::common::FieldChild;

use crate::model::{Export, FileOutline, Function, SymbolKind, SymbolOccurrence, SymbolRole};
use crate::parse::common::{self, MetricKinds, column, end_line, one_line, start_line, text};

/// Module-level blocks nested deeper than this are not read for declarations.
const MAX_BLOCK_DEPTH: u32 = 8;

/// Defaults longer than this (in characters) are shown as `…` in parameter lists.
const MAX_DEFAULT_CHARS: usize = 32;

const METRIC_KINDS: MetricKinds = MetricKinds {
    nesting: &["block"],
    branches: &[
        "if_statement",
        "elif_clause",
        "for_statement",
        "while_statement",
        "except_clause",
        "conditional_expression",
        "case_clause",
        "if_clause",
    ],
    logical_operators: &["and", "or"],
    comments: &["comment"],
};

/// Fills `outline` from the syntax tree.
pub(crate) fn extract(root: Node<'_>, source: &str, outline: &mut FileOutline) {
    let mut extractor = Extractor {
        source,
        outline: &mut *outline,
        globals: Vec::new(),
        global_names: HashSet::new(),
        all: None,
    };
    extractor.module_level(root, 0);
    let mut metrics = common::MetricsWalk::new(source, &METRIC_KINDS);
    scan::scan(root, &mut extractor, &mut metrics);
    extractor.finish();
    outline.metrics = metrics.finish(&mut outline.todos);
}

/// Extraction state shared by the passes.
pub(super) struct Extractor<'s, 'o> {
    source: &'s str,
    outline: &'o mut FileOutline,
    /// Module-level functions, variables and type aliases (name, kind, line).
    globals: Vec<(&'s str, SymbolKind, u32)>,
    /// The names in `globals` (a variable is defined once, and not over a function).
    global_names: HashSet<&'s str>,
    /// The names listed in `__all__` (with the line each is listed on), when assigned.
    all: Option<Vec<(&'s str, u32)>>,
}

impl<'s> Extractor<'s, '_> {
    fn occurrence(&mut self, node: Node<'_>, kind: SymbolKind, role: SymbolRole) {
        self.outline.symbols.push(SymbolOccurrence {
            name: text(node, self.source).to_string(),
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

    /// Reads the statements of the module or of a module-level block.
    fn module_level(&mut self, block: Node<'_>, depth: u32) {
        let source = self.source;
        let mut cursor = block.walk();
        for statement in block.named_children(&mut cursor) {
            match statement.kind() {
                "function_definition" => self.function(statement, statement),
                "decorated_definition" => {
                    let definition = statement
                        .field("definition")
                        .filter(|definition| definition.kind() == "function_definition");
                    if let Some(definition) = definition {
                        self.function(definition, statement);
                    }
                }
                "expression_statement" => {
                    let mut inner = statement.walk();
                    for expression in statement.named_children(&mut inner) {
                        match expression.kind() {
                            "assignment" => self.assignment(expression, 0),
                            "augmented_assignment" => self.dunder_all(expression, true),
                            _ => {}
                        }
                    }
                }
                "type_alias_statement" => {
                    let name = statement
                        .field("left")
                        .map(|left| left.named_child(0).unwrap_or(left));
                    if let Some(name) = name.filter(|name| name.kind() == "identifier") {
                        self.define(name, SymbolKind::Type);
                        let line = start_line(statement);
                        self.global(text(name, source), SymbolKind::Type, line);
                    }
                }
                "if_statement" if is_main_guard(statement, source) => {}
                "if_statement" | "try_statement" | "with_statement" => {
                    self.nested_blocks(statement, depth);
                }
                _ => {}
            }
        }
    }

    /// The blocks of a module-level compound statement and of its clauses.
    fn nested_blocks(&mut self, node: Node<'_>, depth: u32) {
        if depth >= MAX_BLOCK_DEPTH {
            return;
        }
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "block" => self.module_level(child, depth + 1),
                "elif_clause" | "else_clause" | "except_clause" | "finally_clause" => {
                    self.nested_blocks(child, depth + 1);
                }
                _ => {}
            }
        }
    }

    /// A module-level `def`; `outer` is the decorated definition around it, if any.
    fn function(&mut self, definition: Node<'_>, outer: Node<'_>) {
        let Some(name) = definition.field("name") else {
            return;
        };
        let function = function(definition, outer, self.source);
        self.define(name, SymbolKind::Function);
        self.global(
            text(name, self.source),
            SymbolKind::Function,
            function.start_line,
        );
        self.outline.functions.push(function);
    }

    fn global(&mut self, name: &'s str, kind: SymbolKind, line: u32) {
        self.global_names.insert(name);
        self.globals.push((name, kind, line));
    }

    /// A module-level assignment: variables, or the export list `__all__`.
    fn assignment(&mut self, assignment: Node<'_>, depth: u32) {
        let source = self.source;
        let Some(left) = assignment.field("left") else {
            return;
        };
        if text(left, source) == "__all__" {
            self.dunder_all(assignment, false);
        }
        let mut targets = Vec::new();
        match left.kind() {
            "identifier" => targets.push(left),
            "pattern_list" | "tuple_pattern" | "list_pattern" => {
                let mut cursor = left.walk();
                targets.extend(
                    left.named_children(&mut cursor)
                        .filter(|target| target.kind() == "identifier"),
                );
            }
            _ => {}
        }
        for target in targets {
            let name = text(target, source);
            if self.global_names.insert(name) {
                self.define(target, SymbolKind::Variable);
                self.globals
                    .push((name, SymbolKind::Variable, start_line(target)));
            }
        }
        // `a = b = 1`
        let chained = assignment
            .field("right")
            .filter(|right| right.kind() == "assignment");
        if let (Some(right), true) = (chained, depth < MAX_BLOCK_DEPTH) {
            self.assignment(right, depth + 1);
        }
    }

    /// `__all__ = [...]` (or a tuple, or a sum of those) and `__all__ += [...]`.
    fn dunder_all(&mut self, assignment: Node<'_>, extend: bool) {
        let source = self.source;
        let is_all = assignment
            .field("left")
            .is_some_and(|left| text(left, source) == "__all__");
        let Some(right) = assignment.field("right").filter(|_| is_all) else {
            return;
        };
        let mut names = if extend {
            self.all.take().unwrap_or_default()
        } else {
            Vec::new()
        };
        strings(right, source, &mut names, 0);
        self.all = Some(names);
    }

    /// Exports (from `__all__` or public names), then the final order of symbols.
    fn finish(&mut self) {
        let outline = &mut *self.outline;
        let mut declared: Vec<(&str, SymbolKind, u32)> = self.globals.clone();
        declared.extend(
            outline
                .classes
                .iter()
                .filter(|class| class.parent.is_none())
                .map(|class| (class.name.as_str(), SymbolKind::Class, class.start_line)),
        );
        declared.sort_by_key(|(_, _, line)| *line);
        let mut first: HashMap<&str, (SymbolKind, u32)> = HashMap::new();
        for (name, kind, line) in &declared {
            first.entry(name).or_insert((*kind, *line));
        }
        let mut exported: Vec<(String, SymbolKind, u32)> = Vec::new();
        match &self.all {
            Some(all) => {
                for (name, listed_on) in all {
                    let (kind, line) = first
                        .get(name)
                        .copied()
                        .unwrap_or((SymbolKind::Variable, *listed_on));
                    exported.push((name.to_string(), kind, line));
                }
            }
            None => {
                let mut seen = HashSet::new();
                for (name, kind, line) in declared {
                    if !name.starts_with('_') && seen.insert(name) {
                        exported.push((name.to_string(), kind, line));
                    }
                }
            }
        }
        let names: HashSet<String> = exported.iter().map(|(name, ..)| name.clone()).collect();
        for function in &mut outline.functions {
            function.is_exported = names.contains(&function.name);
        }
        for class in outline
            .classes
            .iter_mut()
            .filter(|class| class.parent.is_none())
        {
            class.is_exported = names.contains(&class.name);
        }
        outline.exports = exported
            .into_iter()
            .map(|(name, kind, line)| Export { name, kind, line })
            .collect();
        outline.exports.sort_by_key(|export| export.line);
        outline
            .symbols
            .sort_by_key(|symbol| (symbol.line, symbol.column));
        outline.imports.sort_by_key(|import| import.line);
    }
}

/// `if __name__ == "__main__":`.
fn is_main_guard(statement: Node<'_>, source: &str) -> bool {
    statement
        .field("condition")
        .is_some_and(|condition| text(condition, source).contains("__name__"))
}

/// The string literals in a list, tuple or sum of those, with their lines.
fn strings<'s>(node: Node<'_>, source: &'s str, out: &mut Vec<(&'s str, u32)>, depth: u32) {
    match node.kind() {
        "string" => {
            let mut cursor = node.walk();
            let content = node
                .named_children(&mut cursor)
                .find(|child| child.kind() == "string_content");
            if let Some(content) = content {
                out.push((text(content, source), start_line(node)));
            }
        }
        "list" | "tuple" | "parenthesized_expression" | "binary_operator"
            if depth < MAX_BLOCK_DEPTH =>
        {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                strings(child, source, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// A [`Function`] for a `def`; `outer` is the decorated definition around it, if any.
pub(super) fn function(definition: Node<'_>, outer: Node<'_>, source: &str) -> Function {
    let name = definition
        .field("name")
        .map_or("", |name| text(name, source));
    let mut cursor = definition.walk();
    let is_async = definition
        .children(&mut cursor)
        .any(|child| child.kind() == "async");
    Function {
        name: name.to_string(),
        start_line: start_line(outer),
        end_line: end_line(definition),
        params: params(definition, source),
        return_type: definition
            .field("return_type")
            .map(|annotation| one_line(text(annotation, source))),
        is_async,
        is_exported: false,
        visibility: None,
        is_static: false,
    }
}

/// Parameters as written, long defaults shortened to `…`.
fn params(definition: Node<'_>, source: &str) -> Vec<String> {
    let Some(parameters) = definition.field("parameters") else {
        return Vec::new();
    };
    let mut cursor = parameters.walk();
    parameters
        .named_children(&mut cursor)
        .filter(|parameter| parameter.kind() != "comment")
        .map(|parameter| {
            let written = text(parameter, source);
            let Some(value) = parameter.field("value") else {
                return one_line(written);
            };
            let head = source
                .get(parameter.start_byte()..value.start_byte())
                .unwrap_or("");
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
        })
        .collect()
}
