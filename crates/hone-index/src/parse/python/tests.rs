//! Unit tests for specific Python cases (the golden fixtures cover whole files).

use crate::model::{FileOutline, ImportOrigin, Language, SymbolKind, SymbolRole, Visibility};
use crate::parse::outline;

fn py(source: &str) -> FileOutline {
    outline(Language::Python, source)
}

fn exports(outline: &FileOutline) -> Vec<(&str, SymbolKind, u32)> {
    outline
        .exports
        .iter()
        .map(|export| (export.name.as_str(), export.kind, export.line))
        .collect()
}

#[test]
fn empty_and_comment_only_files() {
    let empty = py("");
    assert!(empty.functions.is_empty() && empty.exports.is_empty() && !empty.has_errors);
    let comments = py("# TODO: start\n# nothing here\n");
    assert_eq!(comments.todos.len(), 1);
    assert_eq!(comments.metrics.loc, 2);
}

#[test]
fn import_forms() {
    let source = "import os, a.b as c\nfrom . import y\nfrom ..pkg.mod import *\n\
                  from x import (a, b as z)\nfrom __future__ import annotations\n\
                  def lazy():\n    import numpy as np\n";
    let result = py(source);
    let imports: Vec<_> = result
        .imports
        .iter()
        .map(|import| {
            let names: Vec<_> = import
                .names
                .iter()
                .map(|n| (n.name.as_str(), n.alias.as_deref()))
                .collect();
            (import.source.as_str(), import.origin, names)
        })
        .collect();
    assert_eq!(
        imports,
        [
            ("os", ImportOrigin::Builtin, vec![("os", None)]),
            ("a.b", ImportOrigin::External, vec![("a.b", Some("c"))]),
            (".", ImportOrigin::Internal, vec![("y", None)]),
            ("..pkg.mod", ImportOrigin::Internal, vec![("*", None)]),
            (
                "x",
                ImportOrigin::External,
                vec![("a", None), ("b", Some("z"))]
            ),
            (
                "__future__",
                ImportOrigin::Builtin,
                vec![("annotations", None)]
            ),
            ("numpy", ImportOrigin::External, vec![("numpy", Some("np"))]),
        ]
    );
}

#[test]
fn dunder_all_decides_exports() {
    let source = "__all__ = ['run', 'Missing']\n__all__ += ('_hidden',)\n\
                  def run(): pass\ndef other(): pass\ndef _hidden(): pass\n";
    let result = py(source);
    assert_eq!(
        exports(&result),
        [
            ("Missing", SymbolKind::Variable, 1),
            ("run", SymbolKind::Function, 3),
            ("_hidden", SymbolKind::Function, 5),
        ]
    );
    let exported: Vec<_> = result
        .functions
        .iter()
        .map(|f| (f.name.as_str(), f.is_exported))
        .collect();
    assert_eq!(
        exported,
        [("run", true), ("other", false), ("_hidden", true)]
    );
}

#[test]
fn public_module_names_are_exports_without_dunder_all() {
    let source = "X = 1\n_y = 2\nclass A: pass\nclass _B: pass\n\
                  try:\n    def f(): pass\nexcept ImportError:\n    f = None\n\
                  if __name__ == '__main__':\n    args = 1\n";
    let result = py(source);
    let names: Vec<_> = exports(&result)
        .into_iter()
        .map(|(name, ..)| name)
        .collect();
    assert_eq!(names, ["X", "A", "f"]);
    assert!(result.classes[0].is_exported && !result.classes[1].is_exported);
}

#[test]
fn visibility_follows_underscores() {
    let source = "class A:\n    def __init__(self): pass\n    def _p(self): pass\n\
                  def __q(self): pass\n    def r(self): pass\n";
    let result = py(source.replace("\ndef __q", "\n    def __q").as_str());
    let methods: Vec<_> = result.classes[0]
        .methods
        .iter()
        .map(|m| (m.name.as_str(), m.visibility))
        .collect();
    assert_eq!(
        methods,
        [
            ("__init__", Some(Visibility::Public)),
            ("_p", Some(Visibility::Protected)),
            ("__q", Some(Visibility::Private)),
            ("r", Some(Visibility::Public)),
        ]
    );
}

#[test]
fn properties_and_instance_attributes() {
    let source = "class A:\n    kind = 'a'\n    def __init__(me, x):\n        me.x = x\n\
                  \x20       me.kind = 'b'\n        other.y = 1\n        def inner():\n\
                  \x20           me.z = 2\n    @property\n    def p(self) -> int: return 1\n\
                  \x20   @p.setter\n    def p(self, v): pass\n    @cached_property\n\
                  \x20   def q(self): return 2\n    @staticmethod\n    def s(): pass\n";
    let result = py(source);
    let class = &result.classes[0];
    let properties: Vec<_> = class
        .properties
        .iter()
        .map(|p| (p.name.as_str(), p.type_annotation.as_deref(), p.is_readonly))
        .collect();
    assert_eq!(
        properties,
        [
            ("kind", None, false),
            ("x", None, false),
            ("p", Some("int"), false),
            ("q", None, true),
        ]
    );
    let methods: Vec<_> = class
        .methods
        .iter()
        .map(|m| (m.name.as_str(), m.is_static))
        .collect();
    assert_eq!(methods, [("__init__", false), ("s", true)]);
}

#[test]
fn classes_in_functions_have_the_function_as_parent() {
    let result = py("def factory():\n    class Made:\n        class Part: pass\n    return Made\n");
    let parents: Vec<_> = result
        .classes
        .iter()
        .map(|class| (class.name.as_str(), class.parent.as_deref()))
        .collect();
    assert_eq!(parents, [("Made", Some("factory")), ("Part", Some("Made"))]);
}

#[test]
fn parameters_keep_annotations_and_short_defaults() {
    let source = "async def f(a, b: int = 2, *args, c=[1, 2], d: str = 'a very long default string value', **kw) -> None: ...";
    let result = py(source);
    let function = &result.functions[0];
    assert!(function.is_async);
    assert_eq!(
        function.params,
        ["a", "b: int = 2", "*args", "c=[1, 2]", "d: str = …", "**kw"]
    );
    assert_eq!(function.return_type.as_deref(), Some("None"));
}

#[test]
fn references_calls_instantiations_and_annotations() {
    let source = "def f(x: Item, y: int) -> list[Result]:\n    obj = Maker(x)\n    \
                  obj.run()\n    return helper(y)\n";
    let result = py(source);
    let references: Vec<_> = result
        .symbols
        .iter()
        .filter(|s| s.role == SymbolRole::Reference)
        .map(|s| (s.name.as_str(), s.kind))
        .collect();
    assert_eq!(
        references,
        [
            ("Item", SymbolKind::Type),
            ("Result", SymbolKind::Type),
            ("Maker", SymbolKind::Class),
            ("run", SymbolKind::Method),
            ("helper", SymbolKind::Function),
        ]
    );
}

#[test]
fn complexity_counts_python_branches() {
    let source = "def f(a):\n    if a and not b:\n        pass\n    elif a or c:\n        pass\n\
                  \x20   x = [i for i in a if i]\n    y = 1 if a else 2\n    while a:\n        \
                  try:\n            pass\n        except E:\n            pass\n    \
                  match a:\n        case 1:\n            pass\n";
    let result = py(source);
    // if, and, elif, or, comprehension if, conditional, while, except, case
    assert_eq!(result.metrics.complexity, 10);
    assert_eq!(result.metrics.max_nesting, 3);
}

#[test]
fn unicode_names_and_crlf_line_ends() {
    let result =
        py("class Café:\r\n    def naïve(self, ß: int) -> None:\r\n        pass  # TODO: ü\r\n");
    let class = &result.classes[0];
    assert_eq!(class.name, "Café");
    assert_eq!(class.methods[0].params, ["self", "ß: int"]);
    assert_eq!(class.methods[0].end_line, 3);
    assert_eq!(result.todos[0].text, "ü");
    let method = result.symbols.iter().find(|symbol| symbol.name == "naïve");
    assert_eq!(
        method.map(|symbol| (symbol.line, symbol.column)),
        Some((2, 9))
    );
}
