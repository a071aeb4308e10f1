//! `import`, `from … import` and `from __future__ import` statements.

use tree_sitter::Node;

use crate::parse::common::FieldChild;

use super::stdlib;
use crate::model::{Import, ImportOrigin, ImportedName};
use crate::parse::common::{start_line, text};

/// Internal for relative imports (leading dots), builtin for standard-library modules,
/// external otherwise (the analysis stage upgrades modules that resolve to project files).
pub(super) fn origin(module: &str) -> ImportOrigin {
    if module.starts_with('.') {
        return ImportOrigin::Internal;
    }
    let top = module.split('.').next().unwrap_or(module);
    if stdlib::MODULES.binary_search(&top).is_ok() {
        ImportOrigin::Builtin
    } else {
        ImportOrigin::External
    }
}

/// The imports of an import statement of any form (one per module for `import a, b`).
pub(super) fn statement(node: Node<'_>, source: &str, out: &mut Vec<Import>) {
    let line = start_line(node);
    match node.kind() {
        "import_statement" => {
            let mut cursor = node.walk();
            for module in node.children_by_field_name("name", &mut cursor) {
                let imported = imported_name(module, source);
                out.push(Import {
                    source: imported.name.clone(),
                    origin: origin(&imported.name),
                    names: vec![imported],
                    line,
                });
            }
        }
        "import_from_statement" | "future_import_statement" => {
            let module = match node.field("module_name") {
                Some(module) => dotted(text(module, source)),
                None => "__future__".to_string(),
            };
            let mut cursor = node.walk();
            let mut names: Vec<ImportedName> = node
                .children_by_field_name("name", &mut cursor)
                .map(|name| imported_name(name, source))
                .collect();
            let mut cursor = node.walk();
            if node
                .named_children(&mut cursor)
                .any(|child| child.kind() == "wildcard_import")
            {
                names.push(ImportedName {
                    name: "*".to_string(),
                    alias: None,
                    is_default: false,
                });
            }
            out.push(Import {
                origin: origin(&module),
                source: module,
                names,
                line,
            });
        }
        _ => {}
    }
}

/// `a.b` or `a.b as c`.
fn imported_name(node: Node<'_>, source: &str) -> ImportedName {
    let (name, alias) = match node.kind() {
        "aliased_import" => (
            node.field("name").map_or("", |name| text(name, source)),
            node.field("alias")
                .map(|alias| text(alias, source).to_string()),
        ),
        _ => (text(node, source), None),
    };
    ImportedName {
        name: dotted(name),
        alias,
        is_default: false,
    }
}

/// A dotted module path without the whitespace and line continuations Python allows in it.
fn dotted(written: &str) -> String {
    written
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '\\')
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdlib_is_sorted_for_binary_search() {
        assert!(stdlib::MODULES.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn origins_follow_the_module() {
        let cases = [
            (".", ImportOrigin::Internal),
            ("..pkg.mod", ImportOrigin::Internal),
            ("os.path", ImportOrigin::Builtin),
            ("__future__", ImportOrigin::Builtin),
            ("collections.abc", ImportOrigin::Builtin),
            ("numpy", ImportOrigin::External),
            ("osmnx", ImportOrigin::External),
        ];
        for (module, expected) in cases {
            assert_eq!(origin(module), expected, "{module}");
        }
    }
}
