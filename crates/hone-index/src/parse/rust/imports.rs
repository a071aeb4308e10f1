//! `use` trees flattened into imports.
//!
//! `use std::{collections::{HashMap, HashSet as Set}, fmt};` becomes two imports:
//! `std::collections` with `HashMap` and `HashSet as Set`, and `std` with `fmt`. A glob is the
//! name `*`; a single-segment path (`use serde;`) is an import of `serde` naming itself.

use tree_sitter::Node;

use crate::parse::common::FieldChild;

use super::super::common::text;
use super::MAX_DEPTH;
use crate::model::{ImportOrigin, ImportedName};

/// One path prefix and the names imported from it.
pub(super) type Group = (String, Vec<ImportedName>);

/// Flattens the use tree `tree` into `out`, grouping names by path prefix in order of
/// appearance.
pub(super) fn flatten(tree: Node<'_>, source: &str, out: &mut Vec<Group>) {
    visit(tree, "", source, out, 0);
}

fn visit(node: Node<'_>, prefix: &str, source: &str, out: &mut Vec<Group>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match node.kind() {
        "identifier" | "crate" | "self" | "super" | "metavariable" => {
            add(out, prefix, text(node, source), None);
        }
        "scoped_identifier" => {
            let path = path_text(node.field("path"), source);
            if let Some(name) = node.field("name") {
                add(out, &join(prefix, &path), text(name, source), None);
            }
        }
        "use_as_clause" => {
            let Some(path) = node.field("path") else {
                return;
            };
            let alias = node
                .field("alias")
                .map(|alias| text(alias, source).to_string());
            let (path_prefix, name) = match path.kind() {
                "scoped_identifier" => (
                    path_text(path.field("path"), source),
                    path.field("name").map_or("", |name| text(name, source)),
                ),
                _ => (String::new(), text(path, source)),
            };
            add(out, &join(prefix, &path_prefix), name, alias);
        }
        "use_wildcard" => {
            let path = path_text(node.named_child(0), source);
            add(out, &join(prefix, &path), "*", None);
        }
        "scoped_use_list" => {
            let path = path_text(node.field("path"), source);
            if let Some(list) = node.field("list") {
                visit(list, &join(prefix, &path), source, out, depth + 1);
            }
        }
        "use_list" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                visit(child, prefix, source, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// A path as written, without whitespace or a leading `::`.
fn path_text(node: Option<Node<'_>>, source: &str) -> String {
    let Some(node) = node else {
        return String::new();
    };
    let compact: String = text(node, source).split_whitespace().collect();
    compact.trim_start_matches("::").to_string()
}

fn join(prefix: &str, path: &str) -> String {
    match (prefix.is_empty(), path.is_empty()) {
        (true, _) => path.to_string(),
        (false, true) => prefix.to_string(),
        (false, false) => format!("{prefix}::{path}"),
    }
}

fn add(out: &mut Vec<Group>, prefix: &str, name: &str, alias: Option<String>) {
    if name.is_empty() {
        return;
    }
    let source = if prefix.is_empty() { name } else { prefix };
    let imported = ImportedName {
        name: name.to_string(),
        alias,
        is_default: false,
    };
    match out.iter_mut().find(|(existing, _)| existing == source) {
        Some((_, names)) => names.push(imported),
        None => out.push((source.to_string(), vec![imported])),
    }
}

/// Rewrites the source of a `use` found `depth` inline modules deep so that it is relative
/// to the file's module; `None` when it points into this file (`use super::*;` in
/// `mod tests`, `use self::x` inside an inline module, `use inline_module::X`).
pub(super) fn relative_to_file(source: &str, depth: usize, inline: &[&str]) -> Option<String> {
    let mut segments: Vec<&str> = source.split("::").collect();
    let first = segments.first().copied().unwrap_or("");
    if depth > 0 {
        if first == "self" {
            return None;
        }
        let supers = segments
            .iter()
            .take_while(|&&segment| segment == "super")
            .count();
        if supers > 0 && supers <= depth {
            return None;
        }
        if supers > depth {
            segments.drain(..depth);
            return Some(segments.join("::"));
        }
    }
    let module = match first {
        "self" => segments.get(1).copied().unwrap_or(""),
        _ => first,
    };
    if inline.contains(&module) {
        return None;
    }
    Some(source.to_string())
}

/// Origin of a path from its first segment: `crate`/`self`/`super` and the file's declared
/// modules (`mod x;`) are internal, `std`/`core`/`alloc`/`proc_macro` built in, anything else
/// external.
pub(super) fn origin(source: &str, declared: &[String]) -> ImportOrigin {
    let first = source.split("::").next().unwrap_or(source);
    match first {
        "crate" | "self" | "super" => ImportOrigin::Internal,
        "std" | "core" | "alloc" | "proc_macro" => ImportOrigin::Builtin,
        _ if declared.iter().any(|module| module == first) => ImportOrigin::Internal,
        _ => ImportOrigin::External,
    }
}
