//! Unit tests for specific TypeScript/JavaScript cases (the golden fixtures cover whole files).

use crate::model::{
    Export, FileOutline, ImportOrigin, Language, SymbolKind, SymbolRole, Visibility,
};
use crate::parse::outline;

fn ts(source: &str) -> FileOutline {
    outline(Language::TypeScript, source)
}

fn js(source: &str) -> FileOutline {
    outline(Language::JavaScript, source)
}

fn exports(outline: &FileOutline) -> Vec<(&str, SymbolKind)> {
    outline
        .exports
        .iter()
        .map(|Export { name, kind, .. }| (name.as_str(), *kind))
        .collect()
}

fn references(outline: &FileOutline) -> Vec<(&str, SymbolKind)> {
    outline
        .symbols
        .iter()
        .filter(|symbol| symbol.role == SymbolRole::Reference)
        .map(|symbol| (symbol.name.as_str(), symbol.kind))
        .collect()
}

#[test]
fn empty_and_comment_only_files() {
    let empty = ts("");
    assert!(empty.functions.is_empty() && empty.imports.is_empty() && !empty.has_errors);
    let comments = ts("// TODO: start\n/* FIXME: later */\n");
    let tags: Vec<_> = comments
        .todos
        .iter()
        .map(|todo| todo.tag.as_str())
        .collect();
    assert_eq!(tags, ["TODO", "FIXME"]);
    assert_eq!(comments.metrics.complexity, 1);
}

#[test]
fn anonymous_default_exports_are_named_default() {
    let function = ts("export default function (a: number) { return a; }");
    assert_eq!(exports(&function), [("default", SymbolKind::Function)]);
    assert_eq!(function.functions[0].name, "<anonymous>");
    assert!(function.functions[0].is_exported);

    let class = ts("export default class { run() {} }");
    assert_eq!(exports(&class), [("default", SymbolKind::Class)]);
    assert_eq!(class.classes[0].name, "<anonymous>");
    assert!(class.classes[0].is_exported);

    let object = ts("export default { a: 1 };");
    assert_eq!(exports(&object), [("default", SymbolKind::Variable)]);
}

#[test]
fn exporting_a_declared_name_marks_it_exported() {
    let source = "function run() {}\nclass Job {}\nconst limit = 3;\nexport default run;\n\
                  export { Job as Task, limit };";
    let result = ts(source);
    assert_eq!(
        exports(&result),
        [
            ("run", SymbolKind::Function),
            ("Task", SymbolKind::Class),
            ("limit", SymbolKind::Variable),
        ]
    );
    assert_eq!(result.exports[1].line, 2, "the line of the declaration");
    assert!(result.functions[0].is_exported);
    assert!(result.classes[0].is_exported);
}

#[test]
fn re_exports_are_imports_too() {
    let result = ts("export { a, b as c } from './m';\nexport * from 'pkg';");
    let sources: Vec<_> = result.imports.iter().map(|i| i.source.as_str()).collect();
    assert_eq!(sources, ["./m", "pkg"]);
    assert_eq!(result.imports[0].names[1].alias.as_deref(), Some("c"));
    assert_eq!(result.imports[1].names[0].name, "*");
    assert_eq!(
        exports(&result),
        [
            ("a", SymbolKind::Variable),
            ("c", SymbolKind::Variable),
            ("*", SymbolKind::Module)
        ]
    );
    assert_eq!(result.metrics.import_count, 2);
}

#[test]
fn require_forms() {
    let source = "const a = require('a');\nconst { b, c: d } = require('./b');\n\
                  const e = require('node:e').f;\nrequire('side');\nconst g = require(name);\n\
                  function later() { return require('lazy'); }";
    let result = js(source);
    let imports: Vec<_> = result
        .imports
        .iter()
        .map(|import| {
            let names: Vec<_> = import
                .names
                .iter()
                .map(|n| (n.name.as_str(), n.alias.as_deref(), n.is_default))
                .collect();
            (import.source.as_str(), import.origin, names)
        })
        .collect();
    assert_eq!(
        imports,
        [
            ("a", ImportOrigin::External, vec![("a", None, true)]),
            (
                "./b",
                ImportOrigin::Internal,
                vec![("b", None, false), ("c", Some("d"), false)]
            ),
            (
                "node:e",
                ImportOrigin::Builtin,
                vec![("f", Some("e"), false)]
            ),
            ("side", ImportOrigin::External, vec![]),
            ("lazy", ImportOrigin::External, vec![]),
        ]
    );
    let variables: Vec<_> = result
        .symbols
        .iter()
        .filter(|s| s.role == SymbolRole::Definition && s.kind == SymbolKind::Variable)
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(
        variables,
        ["g"],
        "module bindings are imports, not variables"
    );
}

#[test]
fn commonjs_function_exports() {
    let result = js("module.exports = function build(x) {};\nexports.check = (y) => y;");
    assert_eq!(
        exports(&result),
        [
            ("build", SymbolKind::Function),
            ("check", SymbolKind::Function)
        ]
    );
    let names: Vec<_> = result.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["build", "check"]);
    assert!(result.functions.iter().all(|f| f.is_exported));
}

#[test]
fn long_defaults_are_elided_and_decorators_dropped() {
    let source = "function f(a = 1, b: string = 'a fairly long default value, really', \
                  @Inject() c?: number) {}";
    let result = ts(source);
    assert_eq!(
        result.functions[0].params,
        ["a = 1", "b: string = …", "c?: number"]
    );
}

#[test]
fn nested_class_parents() {
    let source = "const make = () => { return class Made {}; };\n\
                  class Outer { m() { class Inner { n() { const Deep = class {}; } } } }\n\
                  describe('x', () => { class InTest {} });";
    let result = ts(source);
    let parents: Vec<_> = result
        .classes
        .iter()
        .map(|class| (class.name.as_str(), class.parent.as_deref()))
        .collect();
    assert_eq!(
        parents,
        [
            ("Made", Some("make")),
            ("Outer", None),
            ("Inner", Some("Outer")),
            ("Deep", Some("Inner")),
            ("InTest", None),
        ]
    );
}

#[test]
fn namespace_members_are_not_file_exports() {
    let result = ts("export namespace N { export function f() {} export class C {} }");
    assert_eq!(exports(&result), [("N", SymbolKind::Module)]);
    assert!(result.functions[0].is_exported);
    assert_eq!(result.classes[0].parent.as_deref(), Some("N"));
}

#[test]
fn type_parameters_are_not_references() {
    let result = ts("function f<T, U extends Base>(a: T, b: Array<U>): Result<T> { return g(a); }");
    assert_eq!(
        references(&result),
        [
            ("Base", SymbolKind::Type),
            ("Array", SymbolKind::Type),
            ("Result", SymbolKind::Type),
            ("g", SymbolKind::Function),
        ]
    );
}

#[test]
fn member_modifiers() {
    let source = "abstract class A {\n  private static readonly x = 1;\n  protected abstract y: number;\n  \
                  #z = 0;\n  static async *gen() {}\n  protected handle = async (e: Event) => {};\n}";
    let result = ts(source);
    let class = &result.classes[0];
    let properties: Vec<_> = class
        .properties
        .iter()
        .map(|p| (p.name.as_str(), p.visibility, p.is_static, p.is_readonly))
        .collect();
    assert_eq!(
        properties,
        [
            ("x", Visibility::Private, true, true),
            ("y", Visibility::Protected, false, false),
            ("#z", Visibility::Private, false, false),
        ]
    );
    let methods: Vec<_> = class
        .methods
        .iter()
        .map(|m| (m.name.as_str(), m.visibility, m.is_static, m.is_async))
        .collect();
    assert_eq!(
        methods,
        [
            ("gen", Some(Visibility::Public), true, true),
            ("handle", Some(Visibility::Protected), false, true),
        ]
    );
    assert_eq!(class.methods[1].params, ["e: Event"]);
}

#[test]
fn complexity_counts_branches_and_logical_operators() {
    let source = "function f(a, b) {\n  if (a && b || !a) { return a ?? b; }\n  \
                  for (const x of a) { try { g(x ? 1 : 2); } catch { } }\n}";
    let result = js(source);
    // if, &&, ||, ??, for-of, ternary, catch
    assert_eq!(result.metrics.complexity, 8);
    assert_eq!(result.metrics.max_nesting, 3);
}

#[test]
fn columns_count_characters() {
    let result = ts("const é = 'ü'; function ñandú() {}");
    let definition = result
        .symbols
        .iter()
        .find(|symbol| symbol.name == "ñandú")
        .map(|symbol| (symbol.line, symbol.column));
    assert_eq!(definition, Some((1, 25)));
}

#[test]
fn jsx_components_are_references_but_html_tags_are_not() {
    let result = outline(
        Language::Tsx,
        "const A = () => <div><Item.Row /><Button>x</Button><span /></div>;",
    );
    assert_eq!(
        references(&result),
        [
            ("Row", SymbolKind::Function),
            ("Button", SymbolKind::Function)
        ]
    );
}

#[test]
fn mapped_type_keys_and_infer_names_are_not_references() {
    let result = ts("type M<T> = { [K in keyof T]: T[K] extends Promise<infer U> ? U : Other };");
    assert_eq!(
        references(&result),
        [("Promise", SymbolKind::Type), ("Other", SymbolKind::Type)]
    );
}

#[test]
fn quoted_enum_members_are_unquoted() {
    let result = ts("enum E { 'a-b' = 1, \"c\", d }");
    let names: Vec<_> = result.classes[0]
        .properties
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, ["a-b", "c", "d"]);
}

#[test]
fn commonjs_class_export_marks_the_class() {
    let result = js("module.exports = class Store {};");
    assert_eq!(exports(&result), [("Store", SymbolKind::Class)]);
    assert!(result.classes[0].is_exported);
}
