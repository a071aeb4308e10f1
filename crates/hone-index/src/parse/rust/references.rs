//! The whole-tree walk: imports (`use`, `extern crate`) and symbol references.

use tree_sitter::Node;

use crate::parse::common::FieldChild;

use super::super::common::{column, start_line, text, walk};
use super::imports::{self, Group};
use crate::model::{FileOutline, Import, ImportedName, SymbolKind, SymbolOccurrence, SymbolRole};

/// Node kinds whose `name` child is a definition, not a reference.
const DEFINING: &[&str] = &[
    "struct_item",
    "union_item",
    "enum_item",
    "trait_item",
    "type_item",
    "associated_type",
    "type_parameter",
];

/// Adds imports and references found anywhere in the tree to `outline`. Runs after the item
/// walk: its `mod` declarations and module definitions tell which imports point to other
/// files of the crate and which into this file.
pub(super) fn collect(root: Node<'_>, source: &str, outline: &mut FileOutline) {
    let mut collector = Collector {
        source,
        generics: Vec::new(),
        groups: Vec::new(),
        references: Vec::new(),
        modules: Vec::new(),
        pending_trait: None,
    };
    walk(root, |node, field, parent| {
        collector.visit(node, field, parent)
    });
    let Collector {
        mut generics,
        groups,
        mut references,
        ..
    } = collector;
    generics.sort_unstable();
    generics.dedup();
    references.retain(|symbol| {
        !(matches!(symbol.kind, SymbolKind::Type | SymbolKind::Trait)
            && generics.binary_search(&symbol.name.as_str()).is_ok())
    });
    let declared: Vec<String> = outline
        .imports
        .iter()
        .map(|import| import.source.clone())
        .collect();
    let inline: Vec<&str> = outline
        .symbols
        .iter()
        .filter(|symbol| symbol.kind == SymbolKind::Module && !declared.contains(&symbol.name))
        .map(|symbol| symbol.name.as_str())
        .collect();
    let found: Vec<Import> = groups
        .into_iter()
        .filter_map(|(line, depth, (source, names))| {
            let source = imports::relative_to_file(&source, depth, &inline)?;
            Some(Import {
                origin: imports::origin(&source, &declared),
                source,
                names,
                line,
            })
        })
        .collect();
    outline.imports.extend(found);
    outline.symbols.extend(references);
}

struct Collector<'s> {
    source: &'s str,
    /// Names of generic type parameters declared anywhere in the file.
    generics: Vec<&'s str>,
    /// Flattened `use` trees with their line and inline-module depth.
    groups: Vec<(u32, usize, Group)>,
    references: Vec<SymbolOccurrence>,
    /// End bytes of the inline modules around the current node.
    modules: Vec<usize>,
    /// Id of a type identifier that names a trait (`impl Into<T>`, `T: AsRef<str>`).
    pending_trait: Option<usize>,
}

impl<'s> Collector<'s> {
    fn visit(&mut self, node: Node<'_>, field: Option<&str>, parent: Option<Node<'_>>) -> bool {
        while self
            .modules
            .last()
            .is_some_and(|&end| end <= node.start_byte())
        {
            self.modules.pop();
        }
        let source = self.source;
        let parent_kind = parent.map_or("", |parent| parent.kind());
        match node.kind() {
            "mod_item" => {
                if node.field("body").is_some() {
                    self.modules.push(node.end_byte());
                }
                true
            }
            "use_declaration" => {
                if let Some(argument) = node.field("argument") {
                    let mut found = Vec::new();
                    imports::flatten(argument, source, &mut found);
                    let (line, depth) = (start_line(node), self.modules.len());
                    self.groups
                        .extend(found.into_iter().map(|group| (line, depth, group)));
                }
                false
            }
            "extern_crate_declaration" => {
                if let Some(name) = node.field("name") {
                    let name = text(name, source).to_string();
                    let imported = ImportedName {
                        name: name.clone(),
                        alias: node
                            .field("alias")
                            .map(|alias| text(alias, source).to_string()),
                        is_default: false,
                    };
                    let group = (name, vec![imported]);
                    self.groups.push((start_line(node), 0, group));
                }
                false
            }
            "line_comment" | "block_comment" | "attribute_item" | "inner_attribute_item" => false,
            "call_expression" => {
                if let Some(target) = node.field("function") {
                    self.call_target(target);
                }
                true
            }
            "macro_invocation" => {
                if let Some(name) = node.field("macro").map(last_segment) {
                    self.reference(name, SymbolKind::Function);
                }
                false
            }
            "type_parameter" => {
                if let Some(name) = node.field("name") {
                    self.generics.push(text(name, source));
                }
                true
            }
            "generic_type" | "scoped_type_identifier"
                if field == Some("trait") || parent_kind == "trait_bounds" =>
            {
                self.pending_trait = base_identifier(node).map(|base| base.id());
                true
            }
            "type_identifier" => {
                let name = text(node, source);
                let defining = field == Some("name") && DEFINING.contains(&parent_kind);
                if !defining && name != "Self" && name != "_" {
                    let kind = if parent_kind == "struct_expression" {
                        SymbolKind::Struct
                    } else if field == Some("trait")
                        || parent_kind == "trait_bounds"
                        || self.pending_trait == Some(node.id())
                    {
                        SymbolKind::Trait
                    } else {
                        SymbolKind::Type
                    };
                    self.reference(node, kind);
                }
                false
            }
            _ => true,
        }
    }

    /// The called name: `f()` and `a::f()` are functions, `x.f()` a method.
    fn call_target(&mut self, target: Node<'_>) {
        let target = match target.kind() {
            "generic_function" => match target.field("function") {
                Some(inner) => inner,
                None => return,
            },
            _ => target,
        };
        match target.kind() {
            "identifier" | "scoped_identifier" => {
                self.reference(last_segment(target), SymbolKind::Function);
            }
            "field_expression" => {
                if let Some(field) = target.field("field") {
                    self.reference(field, SymbolKind::Method);
                }
            }
            _ => {}
        }
    }

    fn reference(&mut self, node: Node<'_>, kind: SymbolKind) {
        self.references.push(SymbolOccurrence {
            name: text(node, self.source).to_string(),
            kind,
            role: SymbolRole::Reference,
            line: start_line(node),
            column: column(node, self.source),
        });
    }
}

/// The name node of a path (`a::b::c` → `c`), or the node itself.
fn last_segment(node: Node<'_>) -> Node<'_> {
    match node.kind() {
        "scoped_identifier" => node.field("name").unwrap_or(node),
        _ => node,
    }
}

/// The type identifier naming a generic or scoped type (`a::B<C>` → `B`).
fn base_identifier(node: Node<'_>) -> Option<Node<'_>> {
    let node = match node.kind() {
        "generic_type" => node.field("type")?,
        _ => node,
    };
    match node.kind() {
        "scoped_type_identifier" => node.field("name"),
        "type_identifier" => Some(node),
        _ => None,
    }
}
