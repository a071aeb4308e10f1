//! ES imports, `require` calls, dynamic `import()` and where module specifiers point.

use tree_sitter::Node;

use crate::parse::common::FieldChild;

use super::signature::unquote;
use crate::model::{Import, ImportOrigin, ImportedName};
use crate::parse::common::{field_text, start_line, text};

/// Node.js core modules (also importable as `node:<name>`; subpaths such as `fs/promises`
/// count by their first segment).
const NODE_BUILTINS: [&str; 42] = [
    "assert",
    "async_hooks",
    "buffer",
    "child_process",
    "cluster",
    "console",
    "constants",
    "crypto",
    "dgram",
    "diagnostics_channel",
    "dns",
    "domain",
    "events",
    "fs",
    "http",
    "http2",
    "https",
    "inspector",
    "module",
    "net",
    "os",
    "path",
    "perf_hooks",
    "process",
    "punycode",
    "querystring",
    "readline",
    "repl",
    "stream",
    "string_decoder",
    "sys",
    "test",
    "timers",
    "tls",
    "trace_events",
    "tty",
    "url",
    "util",
    "v8",
    "vm",
    "worker_threads",
    "zlib",
];

/// Internal for relative and absolute paths, tsconfig-style aliases (`@/`, `~/`) and
/// package-internal `#imports`; builtin for Node core modules; external otherwise.
pub(super) fn origin(specifier: &str) -> ImportOrigin {
    let internal_prefixes = [".", "/", "@/", "~/", "#"];
    if internal_prefixes
        .iter()
        .any(|prefix| specifier.starts_with(prefix))
    {
        return ImportOrigin::Internal;
    }
    if specifier.starts_with("node:") {
        return ImportOrigin::Builtin;
    }
    let first = specifier.split('/').next().unwrap_or(specifier);
    if NODE_BUILTINS.binary_search(&first).is_ok() {
        ImportOrigin::Builtin
    } else {
        ImportOrigin::External
    }
}

/// An import of `specifier` at `line`.
pub(super) fn import(specifier: &str, names: Vec<ImportedName>, line: u32) -> Import {
    Import {
        source: specifier.to_string(),
        names,
        line,
        origin: origin(specifier),
    }
}

/// One imported name.
pub(super) fn name(name: &str, alias: Option<&str>, is_default: bool) -> ImportedName {
    ImportedName {
        name: name.to_string(),
        alias: alias.filter(|alias| *alias != name).map(str::to_string),
        is_default,
    }
}

/// `import … from "x"`, `import "x"`, `import x = require("x")`.
pub(super) fn es_import(statement: Node<'_>, source: &str, out: &mut Vec<Import>) {
    let mut names = Vec::new();
    let mut specifier = field_text(statement, "source", source);
    let mut cursor = statement.walk();
    for child in statement.named_children(&mut cursor) {
        match child.kind() {
            "import_clause" => clause_names(child, source, &mut names),
            "import_require_clause" => {
                specifier = field_text(child, "source", source);
                let mut inner = child.walk();
                let binding = child
                    .named_children(&mut inner)
                    .find(|node| node.kind() == "identifier");
                if let Some(binding) = binding {
                    names.push(name(text(binding, source), None, true));
                }
            }
            _ => {}
        }
    }
    if let Some(specifier) = specifier {
        out.push(import(unquote(specifier), names, start_line(statement)));
    }
}

fn clause_names(clause: Node<'_>, source: &str, names: &mut Vec<ImportedName>) {
    let mut cursor = clause.walk();
    for child in clause.named_children(&mut cursor) {
        match child.kind() {
            "identifier" => names.push(name(text(child, source), None, true)),
            "namespace_import" => {
                let mut inner = child.walk();
                let alias = child
                    .named_children(&mut inner)
                    .find(|node| node.kind() == "identifier")
                    .map(|node| text(node, source));
                names.push(name("*", alias, false));
            }
            "named_imports" => {
                let mut inner = child.walk();
                for specifier in child.named_children(&mut inner) {
                    if let Some(imported) = field_text(specifier, "name", source) {
                        let alias = field_text(specifier, "alias", source);
                        names.push(name(unquote(imported), alias, false));
                    }
                }
            }
            _ => {}
        }
    }
}

/// The module a `require(…)`/`import(…)` call loads, when it is a plain string.
pub(super) fn call_specifier<'s>(call: Node<'_>, source: &'s str) -> Option<&'s str> {
    let arguments = call.field("arguments")?;
    let first = arguments.named_child(0)?;
    let plain = match first.kind() {
        "string" => true,
        "template_string" => first.named_child_count() == 0,
        _ => false,
    };
    plain.then(|| unquote(text(first, source)))
}

/// Whether `value` is `require("x")`, `require("x").y` or `(await) import("x")` with a plain
/// string: bindings of such values are imports, not variables.
pub(super) fn is_module_load(value: Node<'_>, source: &str) -> bool {
    let mut value = value;
    loop {
        let inner = match value.kind() {
            "call_expression" => {
                let loader = value.field("function").is_some_and(|function| {
                    function.kind() == "import"
                        || (function.kind() == "identifier" && text(function, source) == "require")
                });
                return loader && call_specifier(value, source).is_some();
            }
            "member_expression" => value.field("object"),
            "await_expression" => value.named_child(0),
            _ => None,
        };
        match inner {
            Some(inner) => value = inner,
            None => return false,
        }
    }
}

/// Names bound by `const <binding> = require(…)`: a default import for a plain name,
/// named imports for an object pattern.
pub(super) fn binding_names(binding: Node<'_>, source: &str, names: &mut Vec<ImportedName>) {
    match binding.kind() {
        "identifier" => names.push(name(text(binding, source), None, true)),
        "object_pattern" => {
            let mut cursor = binding.walk();
            for property in binding.named_children(&mut cursor) {
                match property.kind() {
                    "shorthand_property_identifier_pattern" => {
                        names.push(name(text(property, source), None, false));
                    }
                    "object_assignment_pattern" => {
                        if let Some(left) = field_text(property, "left", source) {
                            names.push(name(left, None, false));
                        }
                    }
                    "pair_pattern" => {
                        if let Some(key) = field_text(property, "key", source) {
                            let alias = property
                                .field("value")
                                .filter(|value| value.kind() == "identifier")
                                .map(|value| text(value, source));
                            names.push(name(unquote(key), alias, false));
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_are_sorted_for_binary_search() {
        assert!(NODE_BUILTINS.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn origins_follow_the_specifier() {
        let cases = [
            ("./a", ImportOrigin::Internal),
            ("../a/b", ImportOrigin::Internal),
            ("/abs/x", ImportOrigin::Internal),
            ("@/components/x", ImportOrigin::Internal),
            ("~/lib", ImportOrigin::Internal),
            ("#internal", ImportOrigin::Internal),
            ("fs", ImportOrigin::Builtin),
            ("fs/promises", ImportOrigin::Builtin),
            ("node:test", ImportOrigin::Builtin),
            ("react", ImportOrigin::External),
            ("@scope/pkg", ImportOrigin::External),
            ("fsevents", ImportOrigin::External),
        ];
        for (specifier, expected) in cases {
            assert_eq!(origin(specifier), expected, "{specifier}");
        }
    }
}
