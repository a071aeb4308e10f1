//! [`TreeSitterSyntax`]: the syntax check hone runs after edits, with the index's grammars.

use std::path::Path;

use hone_tools::{SyntaxChecker, SyntaxError};

use crate::model::Language;

/// Most errors reported per file: the first ones are the ones that matter.
const MAX_ERRORS: usize = 5;

/// Finds `ERROR` and `MISSING` nodes with tree-sitter, for every language the index parses
/// except JSON and YAML (data files: a half-written one is not worth a repair round).
#[derive(Debug, Clone, Copy, Default)]
pub struct TreeSitterSyntax;

impl SyntaxChecker for TreeSitterSyntax {
    fn syntax_errors(&self, path: &Path, source: &str) -> Option<Vec<SyntaxError>> {
        let language = Language::from_path(&path.to_string_lossy())?;
        if matches!(language, Language::Json | Language::Yaml) {
            return None;
        }
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&crate::model::grammar(language)).ok()?;
        let tree = parser.parse(source, None)?;
        let mut errors = Vec::new();
        collect(tree.root_node(), source, &mut errors);
        Some(errors)
    }
}

/// Appends the syntax errors under `node`, outermost first, at most [`MAX_ERRORS`].
fn collect(node: tree_sitter::Node<'_>, source: &str, errors: &mut Vec<SyntaxError>) {
    if errors.len() >= MAX_ERRORS || !node.has_error() {
        return;
    }
    if node.is_missing() || node.is_error() {
        let start = node.start_position();
        let message = if node.is_missing() {
            format!("missing `{}`", node.kind())
        } else {
            let text = node.utf8_text(source.as_bytes()).unwrap_or("");
            let first = text.lines().next().unwrap_or("").trim();
            let shown: String = first.chars().take(40).collect();
            if shown.is_empty() {
                "syntax error".to_string()
            } else {
                format!("syntax error near `{shown}`")
            }
        };
        errors.push(SyntaxError {
            line: start.row + 1,
            column: start.column + 1,
            message,
        });
        if node.is_missing() {
            return;
        }
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        collect(child, source, errors);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(path: &str, source: &str) -> Option<Vec<SyntaxError>> {
        TreeSitterSyntax.syntax_errors(Path::new(path), source)
    }

    #[test]
    fn clean_files_have_no_errors() {
        assert_eq!(
            errors("a.py", "def f(x):\n    return x + 1\n"),
            Some(vec![])
        );
        assert_eq!(errors("src/lib.rs", "fn f() -> u8 { 1 }\n"), Some(vec![]));
        assert_eq!(
            errors("a.ts", "export const x: number = 1;\n"),
            Some(vec![])
        );
    }

    #[test]
    fn broken_files_report_the_line() {
        let found = errors(
            "a.py",
            "def f(x):\n    return (x + 1\n\ndef g():\n    pass\n",
        )
        .unwrap();
        assert!(!found.is_empty());
        assert!(found[0].line <= 4, "{found:?}");
        let found = errors(
            "lib.rs",
            "fn f() {\n    let x = 1;\n    x +\n}\n\nfn g() {}\n",
        )
        .unwrap();
        assert!(!found.is_empty());
        assert!((3..=4).contains(&found[0].line), "{found:?}");
        let found = errors("a.js", "function f( {\n  return 1;\n}\n").unwrap();
        assert!(!found.is_empty());
    }

    #[test]
    fn unsupported_languages_and_data_files_are_not_checked() {
        assert_eq!(errors("README.md", "# x"), None);
        assert_eq!(errors("config.json", "{"), None);
        assert_eq!(errors("Makefile", "all:"), None);
    }
}
