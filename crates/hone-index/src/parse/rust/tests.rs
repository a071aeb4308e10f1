use crate::model::{ClassKind, ImportOrigin, Language, SymbolKind, SymbolRole, Visibility};
use crate::parse::outline;

#[test]
fn use_trees_flatten_by_prefix() {
    let found = outline(
        Language::Rust,
        "use std::{collections::{HashMap, HashSet as Set}, fmt};\nuse crate::a::*;\nuse serde;\n",
    );
    let imports: Vec<_> = found
        .imports
        .iter()
        .map(|import| {
            let names: Vec<_> = import
                .names
                .iter()
                .map(|name| match &name.alias {
                    Some(alias) => format!("{} as {alias}", name.name),
                    None => name.name.clone(),
                })
                .collect();
            (import.source.as_str(), names.join(","), import.origin)
        })
        .collect();
    assert_eq!(
        imports,
        [
            (
                "std::collections",
                "HashMap,HashSet as Set".to_string(),
                ImportOrigin::Builtin
            ),
            ("std", "fmt".to_string(), ImportOrigin::Builtin),
            ("crate::a", "*".to_string(), ImportOrigin::Internal),
            ("serde", "serde".to_string(), ImportOrigin::External),
        ]
    );
}

#[test]
fn restricted_visibility_is_protected_and_not_exported() {
    let found = outline(
        Language::Rust,
        "pub(crate) fn a() {}\npub fn b() {}\nstruct S;\nimpl S { pub(super) fn c(&self) {} fn d() {} }\n",
    );
    let exports: Vec<_> = found.exports.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(exports, ["b"]);
    let methods = &found.classes[1].methods;
    assert_eq!(found.classes[1].kind, ClassKind::Impl);
    assert_eq!(methods[0].visibility, Some(Visibility::Protected));
    assert!(!methods[0].is_static);
    assert_eq!(methods[1].visibility, Some(Visibility::Private));
    assert!(methods[1].is_static);
}

#[test]
fn generic_parameters_are_not_references() {
    let found = outline(
        Language::Rust,
        "fn f<T: Clone>(x: T, y: Vec<u8>) -> Option<T> { g(x) }",
    );
    let references: Vec<_> = found
        .symbols
        .iter()
        .filter(|symbol| symbol.role == SymbolRole::Reference)
        .map(|symbol| (symbol.name.as_str(), symbol.kind))
        .collect();
    assert_eq!(
        references,
        [
            ("Clone", SymbolKind::Trait),
            ("Vec", SymbolKind::Type),
            ("Option", SymbolKind::Type),
            ("g", SymbolKind::Function),
        ]
    );
}
