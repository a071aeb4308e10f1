//! Parsing source files into outlines, one extractor per language family.

mod c_family;
pub(crate) mod common;
mod data;
mod go;
mod java;
mod python;
mod rust;
mod typescript;

use std::cell::RefCell;

use crate::model::{FileOutline, Language};

/// The outline of `source` parsed as `language`. Never fails: a file tree-sitter cannot
/// parse at all yields an empty outline with `has_errors` set.
pub fn outline(language: Language, source: &str) -> FileOutline {
    match syntax_tree(language, source) {
        Some(tree) => outline_of_tree(language, &tree, source),
        None => unparsed(language),
    }
}

thread_local! {
    /// Each thread's parser and the language it is set to: a parser keeps its allocations
    /// (parse stack, node pool) from one file to the next, and setting the language costs
    /// only when it changes.
    static PARSER: RefCell<(tree_sitter::Parser, Option<Language>)> =
        RefCell::new((tree_sitter::Parser::new(), None));
}

/// The syntax tree of `source` (the tree-sitter half of [`outline`]); `None` when
/// tree-sitter gives none.
pub(crate) fn syntax_tree(language: Language, source: &str) -> Option<tree_sitter::Tree> {
    PARSER.with(|slot| {
        // Busy only if a parse on this thread re-entered (it never does): use a new parser.
        let Ok(mut slot) = slot.try_borrow_mut() else {
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&crate::model::grammar(language)).ok()?;
            return parser.parse(source, None);
        };
        let (parser, current) = &mut *slot;
        if *current != Some(language) {
            *current = None;
            parser.set_language(&crate::model::grammar(language)).ok()?;
            *current = Some(language);
        }
        let tree = parser.parse(source, None);
        if tree.is_none() {
            // A parse that gave up may leave state behind: start the next one afresh.
            parser.reset();
        }
        tree
    })
}

/// The outline of a file tree-sitter gave no tree for.
pub(crate) fn unparsed(language: Language) -> FileOutline {
    let mut result = FileOutline::empty(language);
    result.has_errors = true;
    result
}

/// The outline read from `tree`, the syntax tree of `source` (the extraction half of
/// [`outline`]).
pub(crate) fn outline_of_tree(
    language: Language,
    tree: &tree_sitter::Tree,
    source: &str,
) -> FileOutline {
    let mut result = FileOutline::empty(language);
    let root = tree.root_node();
    result.has_errors = root.has_error();
    match language {
        Language::TypeScript | Language::Tsx | Language::JavaScript => {
            typescript::extract(root, source, &mut result);
        }
        Language::Python => python::extract(root, source, &mut result),
        Language::Rust => rust::extract(root, source, &mut result),
        Language::Go => go::extract(root, source, &mut result),
        Language::Java => java::extract(root, source, &mut result),
        Language::C | Language::Cpp => c_family::extract(root, source, &mut result),
        Language::Json | Language::Yaml => data::extract(root, source, &mut result),
    }
    result.metrics.import_count = u32::try_from(result.imports.len()).unwrap_or(u32::MAX);
    result
}
