//! C and C++ extractor (one grammar family; C++-only node kinds simply never occur in C).
//!
//! Decisions, so that the golden fixtures read as a spec:
//! - **Includes**: `#include "x"` is internal; `#include <x>` is builtin for the C standard
//!   and common POSIX headers and for extension-less lower-case names (the C++ standard
//!   library: `<vector>`, `<cstdio>`), external otherwise (`<boost/any.hpp>`, `<QString>`).
//!   Includes name nothing.
//! - **Functions**: definitions, plus prototypes (declarations) that have no definition in the
//!   same file — so a header lists its API and a source file's forward declarations do not
//!   duplicate it. Symbol definitions are recorded for both. Functions in namespaces are named
//!   with the namespace path (`app::run`). Parameters are as written; the return type
//!   includes pointer/reference declarators (`char *`).
//! - **Exports**: top-level (or namespaced) functions and global variables that are not
//!   `static` and not in an anonymous namespace, and named types (struct, union, enum, class,
//!   typedef, `using` alias). Macros are symbols only.
//! - **Types**: `class` → [`ClassKind::Class`], `struct` and `union` → [`ClassKind::Struct`],
//!   `enum` → [`ClassKind::Enum`] (enumerators are public static read-only properties). An
//!   anonymous `typedef struct { … } name_t;` is named after the typedef. `parent` is the
//!   enclosing namespace/class path joined with `::`; base classes go to `extends`.
//! - **Members**: access sections set visibility (class default private, struct/union default
//!   public); `static` members are static, `const`/`constexpr` fields read-only. Methods
//!   declared and defined out of line (`void A::f() {}`) are listed once, at the declaration;
//!   an out-of-line definition of a method of a class not in this file (the usual `.cpp` for
//!   a header) attaches to a placeholder class spanning those definitions, public.
//! - **References**: calls (`f()`, `ns::f()` → function, `x.f()`/`p->f()` → method),
//!   `new T` (class) and type identifiers, except template parameters and declared names.

mod classes;
mod declarators;
mod references;
#[cfg(test)]
mod tests;

use std::collections::HashSet;

use tree_sitter::Node;

use crate::parse::common::FieldChild;

use declarators::{
    declared_name, find_function_declarator, function_name, has_storage_class, qualified_parts,
    signature,
};

use super::common::{MetricKinds, column, metrics_and_todos, one_line, start_line, text};
use crate::model::{
    Class, ClassKind, Export, FileOutline, Function, Import, ImportOrigin, SymbolKind,
    SymbolOccurrence, SymbolRole, Visibility,
};

/// Metric node kinds of the C and C++ grammars: nesting counts brace levels.
const METRICS: MetricKinds = MetricKinds {
    nesting: &[
        "compound_statement",
        "field_declaration_list",
        "declaration_list",
        "enumerator_list",
    ],
    branches: &[
        "if_statement",
        "for_statement",
        "for_range_loop",
        "while_statement",
        "do_statement",
        "case_statement",
        "catch_clause",
        "conditional_expression",
    ],
    logical_operators: &["&&", "||", "and", "or"],
    comments: &["comment"],
};

/// C standard and common POSIX headers, for `#include <…>`.
const SYSTEM_HEADERS: &[&str] = &[
    "assert.h",
    "complex.h",
    "ctype.h",
    "dirent.h",
    "dlfcn.h",
    "errno.h",
    "fcntl.h",
    "fenv.h",
    "float.h",
    "getopt.h",
    "inttypes.h",
    "iso646.h",
    "limits.h",
    "locale.h",
    "math.h",
    "netdb.h",
    "poll.h",
    "pthread.h",
    "setjmp.h",
    "signal.h",
    "stdalign.h",
    "stdarg.h",
    "stdatomic.h",
    "stdbool.h",
    "stddef.h",
    "stdint.h",
    "stdio.h",
    "stdlib.h",
    "stdnoreturn.h",
    "string.h",
    "strings.h",
    "syslog.h",
    "termios.h",
    "tgmath.h",
    "threads.h",
    "time.h",
    "uchar.h",
    "unistd.h",
    "wchar.h",
    "wctype.h",
];

/// Deepest nesting followed (guards the recursion on pathological input).
const MAX_DEPTH: usize = 64;

/// Fills `outline` from the syntax tree.
pub(crate) fn extract(root: Node<'_>, source: &str, outline: &mut FileOutline) {
    let mut file = CFile {
        source,
        outline,
        prototypes: Vec::new(),
        out_of_line: Vec::new(),
        namespaces: Vec::new(),
    };
    file.declarations(root, &Scope::default(), 0);
    file.finish();
    outline
        .functions
        .sort_by_key(|function| function.start_line);
    outline.classes.sort_by_key(|class| class.start_line);
    outline.exports.sort_by_key(|export| export.line);
    references::collect(root, source, outline);
    outline
        .symbols
        .sort_by_key(|symbol| (symbol.line, symbol.column));
    outline.metrics = metrics_and_todos(root, source, &METRICS, &mut outline.todos);
}

/// The namespace a declaration sits in.
#[derive(Default, Clone)]
struct Scope {
    /// `a::b` inside `namespace a { namespace b { … } }`; empty at the top level.
    path: String,
    /// Inside an anonymous namespace (internal linkage: nothing is exported).
    hidden: bool,
}

impl Scope {
    fn qualify(&self, name: &str) -> String {
        match self.path.as_str() {
            "" => name.to_string(),
            path => format!("{path}::{name}"),
        }
    }

    fn parent(&self) -> Option<String> {
        (!self.path.is_empty()).then(|| self.path.clone())
    }
}

/// A function prototype, listed only when the file does not define the function.
struct Prototype {
    function: Function,
    exported: bool,
}

/// An out-of-line method definition: class path, class name and the method.
struct OutOfLine {
    parent: Option<String>,
    class: String,
    method: Function,
}

struct CFile<'s, 'o> {
    source: &'s str,
    outline: &'o mut FileOutline,
    prototypes: Vec<Prototype>,
    out_of_line: Vec<OutOfLine>,
    /// Names of the namespaces declared in the file (to tell `ns::f` from `Class::f`).
    namespaces: Vec<String>,
}

impl CFile<'_, '_> {
    fn declarations(&mut self, list: Node<'_>, scope: &Scope, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let mut cursor = list.walk();
        for node in list.named_children(&mut cursor) {
            match node.kind() {
                "preproc_include" => self.include(node),
                "preproc_def" if node.field("value").is_some() => {
                    self.define_name(node, SymbolKind::Variable);
                }
                "preproc_function_def" => self.define_name(node, SymbolKind::Function),
                "preproc_ifdef"
                | "preproc_if"
                | "preproc_else"
                | "preproc_elif"
                | "preproc_elifdef"
                | "linkage_specification"
                | "declaration_list"
                | "template_declaration"
                | "ERROR" => {
                    self.declarations(node, scope, depth + 1);
                }
                "namespace_definition" => self.namespace(node, scope, depth),
                "function_definition" => self.function_definition(node, scope),
                "declaration" => self.declaration(node, scope, depth),
                "type_definition" => self.type_definition(node, scope, depth),
                "alias_declaration" => self.type_name(node, "name", scope),
                "class_specifier" | "struct_specifier" | "union_specifier" | "enum_specifier" => {
                    self.class_specifier(node, None, scope, None, depth);
                }
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

    fn define_name(&mut self, node: Node<'_>, kind: SymbolKind) {
        if let Some(name) = node.field("name") {
            self.define(name, kind);
        }
    }

    fn export(&mut self, name: &str, kind: SymbolKind, line: u32) {
        self.outline.exports.push(Export {
            name: name.to_string(),
            kind,
            line,
        });
    }

    fn include(&mut self, node: Node<'_>) {
        let Some(path) = node.field("path") else {
            return;
        };
        let written = text(path, self.source);
        let (header, origin) = if path.kind() == "system_lib_string" {
            let header = written.trim_start_matches('<').trim_end_matches('>');
            (header, system_origin(header))
        } else {
            (written.trim_matches('"'), ImportOrigin::Internal)
        };
        self.outline.imports.push(Import {
            source: header.to_string(),
            names: Vec::new(),
            line: start_line(node),
            origin,
        });
    }

    fn namespace(&mut self, node: Node<'_>, scope: &Scope, depth: usize) {
        let name = node.field("name");
        let inner = match name {
            Some(name) => {
                self.define(name, SymbolKind::Module);
                let name = one_line(text(name, self.source)).replace(' ', "");
                self.namespaces.extend(name.split("::").map(str::to_string));
                Scope {
                    path: scope.qualify(&name),
                    hidden: scope.hidden,
                }
            }
            None => Scope {
                path: scope.path.clone(),
                hidden: true,
            },
        };
        if let Some(body) = node.field("body") {
            self.declarations(body, &inner, depth + 1);
        }
    }

    /// A free function or an out-of-line method definition.
    fn function_definition(&mut self, node: Node<'_>, scope: &Scope) {
        let Some((name_node, function_declarator)) = function_name(node) else {
            return;
        };
        let (qualifiers, name_node) = qualified_parts(name_node, self.source);
        let name = text(name_node, self.source);
        let is_static = has_storage_class(node, "static", self.source);
        let is_method = qualifiers
            .last()
            .is_some_and(|last| !self.namespaces.contains(last));
        let mut function = signature(node, function_declarator, self.source);
        if is_method {
            self.define(name_node, SymbolKind::Method);
            let class = qualifiers.last().cloned().unwrap_or_default();
            let outer = &qualifiers[..qualifiers.len().saturating_sub(1)];
            let parent = join_path(&scope.path, &outer.join("::"));
            let parent = (!parent.is_empty()).then_some(parent);
            function.name = name.to_string();
            function.visibility = Some(Visibility::Public);
            self.out_of_line.push(OutOfLine {
                parent,
                class,
                method: function,
            });
            return;
        }
        self.define(name_node, SymbolKind::Function);
        let qualified = join_path(&join_path(&scope.path, &qualifiers.join("::")), name);
        function.is_exported = !is_static && !scope.hidden;
        if function.is_exported {
            self.export(name, SymbolKind::Function, start_line(node));
        }
        function.name = qualified;
        self.outline.functions.push(function);
    }

    /// A declaration: prototypes, global variables, and types declared along the way.
    fn declaration(&mut self, node: Node<'_>, scope: &Scope, depth: usize) {
        if let Some(specifier) = node.field("type") {
            self.class_specifier(specifier, None, scope, None, depth);
        }
        let is_static = has_storage_class(node, "static", self.source);
        let exported = !is_static && !scope.hidden;
        let mut cursor = node.walk();
        for declarator in node.children_by_field_name("declarator", &mut cursor) {
            let declarator = match declarator.kind() {
                "init_declarator" => match declarator.field("declarator") {
                    Some(inner) => inner,
                    None => continue,
                },
                _ => declarator,
            };
            if let Some(function_declarator) = find_function_declarator(declarator) {
                let Some(name) = function_declarator.field("declarator") else {
                    continue;
                };
                self.define(name, SymbolKind::Function);
                let mut function = signature(node, function_declarator, self.source);
                function.name = scope.qualify(text(name, self.source));
                function.is_exported = exported;
                self.prototypes.push(Prototype { function, exported });
            } else if let Some(name) = declared_name(declarator) {
                if name.kind() == "qualified_identifier" {
                    // `int A::count = 0;` defines a static member (or a namespaced variable).
                    let (qualifiers, name) = qualified_parts(name, self.source);
                    let in_namespace = qualifiers
                        .last()
                        .is_some_and(|last| self.namespaces.contains(last));
                    let kind = if in_namespace {
                        SymbolKind::Variable
                    } else {
                        SymbolKind::Property
                    };
                    self.define(name, kind);
                    continue;
                }
                self.define(name, SymbolKind::Variable);
                if exported {
                    let line = start_line(name);
                    self.export(text(name, self.source), SymbolKind::Variable, line);
                }
            }
        }
    }

    fn type_definition(&mut self, node: Node<'_>, scope: &Scope, depth: usize) {
        let mut cursor = node.walk();
        let names: Vec<Node<'_>> = node
            .children_by_field_name("declarator", &mut cursor)
            .filter_map(declared_name)
            .collect();
        if let Some(specifier) = node.field("type") {
            let typedef_name = names.first().map(|name| text(*name, self.source));
            self.class_specifier(specifier, typedef_name, scope, None, depth);
        }
        for name in names {
            self.define(name, SymbolKind::Type);
            if !scope.hidden {
                self.export(text(name, self.source), SymbolKind::Type, start_line(node));
            }
        }
    }

    /// A `using X = …;` or other single-name type declaration.
    fn type_name(&mut self, node: Node<'_>, field: &'static str, scope: &Scope) {
        if let Some(name) = node.field(field) {
            self.define(name, SymbolKind::Type);
            if !scope.hidden {
                self.export(text(name, self.source), SymbolKind::Type, start_line(node));
            }
        }
    }

    /// Lists prototypes without definitions and attaches out-of-line methods.
    fn finish(&mut self) {
        let defined: HashSet<String> = self
            .outline
            .functions
            .iter()
            .map(|function| function.name.clone())
            .collect();
        for prototype in std::mem::take(&mut self.prototypes) {
            if defined.contains(&prototype.function.name) {
                continue;
            }
            if prototype.exported {
                let name = prototype.function.name.rsplit("::").next().unwrap_or("");
                let line = prototype.function.start_line;
                self.export(name, SymbolKind::Function, line);
            }
            self.outline.functions.push(prototype.function);
        }
        let mut placeholders = Vec::new();
        for OutOfLine {
            parent,
            class,
            method,
        } in std::mem::take(&mut self.out_of_line)
        {
            let classes = &mut self.outline.classes;
            let found = classes.iter().position(|candidate| {
                candidate.name == class
                    && (parent.is_none() || candidate.parent == parent)
                    && candidate.kind != ClassKind::Enum
            });
            let index = match found {
                Some(index) => index,
                None => {
                    placeholders.push(classes.len());
                    classes.push(Class {
                        name: class,
                        kind: ClassKind::Class,
                        start_line: method.start_line,
                        end_line: method.end_line,
                        methods: Vec::new(),
                        properties: Vec::new(),
                        extends: Vec::new(),
                        implements: Vec::new(),
                        is_exported: false,
                        parent,
                    });
                    classes.len() - 1
                }
            };
            let Some(target) = classes.get_mut(index) else {
                continue;
            };
            if placeholders.contains(&index) {
                target.start_line = target.start_line.min(method.start_line);
                target.end_line = target.end_line.max(method.end_line);
            } else if target.methods.iter().any(|known| known.name == method.name) {
                continue;
            }
            target.methods.push(method);
        }
    }
}

/// `a::b` from `a` and `b`, either possibly empty.
fn join_path(outer: &str, inner: &str) -> String {
    match (outer.is_empty(), inner.is_empty()) {
        (true, _) => inner.to_string(),
        (false, true) => outer.to_string(),
        (false, false) => format!("{outer}::{inner}"),
    }
}

/// Origin of `#include <header>`.
fn system_origin(header: &str) -> ImportOrigin {
    let standard_cpp = !header.contains(['.', '/'])
        && header
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte == b'_');
    if standard_cpp || SYSTEM_HEADERS.contains(&header) || header.starts_with("sys/") {
        ImportOrigin::Builtin
    } else {
        ImportOrigin::External
    }
}
