//! Parsing source files into outlines, one extractor per language family.

mod c_family;
pub(crate) mod common;
mod data;
mod go;
mod java;
mod python;
mod rust;
mod typescript;

use crate::model::{FileOutline, Language};

/// The outline of `source` parsed as `language`. Never fails: a file tree-sitter cannot
/// parse at all yields an empty outline with `has_errors` set.
pub fn outline(language: Language, source: &str) -> FileOutline {
    let mut parser = tree_sitter::Parser::new();
    let mut result = FileOutline::empty(language);
    if parser
        .set_language(&crate::model::grammar(language))
        .is_err()
    {
        result.has_errors = true;
        return result;
    }
    let Some(tree) = parser.parse(source, None) else {
        result.has_errors = true;
        return result;
    };
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
