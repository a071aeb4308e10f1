//! CommonJS exports: `module.exports = …`, `module.exports.x = …`, `exports.x = …`.

use tree_sitter::Node;

use crate::parse::common::FieldChild;

use super::signature::{FUNCTION_VALUES, unquote};
use super::{Extractor, PendingExport};
use crate::model::SymbolKind;
use crate::parse::common::{end_line, field_text, start_line, text};

impl Extractor<'_, '_> {
    /// `module.exports = …`, `module.exports.x = …` and `exports.x = …` statements.
    pub(super) fn commonjs(&mut self, assignment: Node<'_>, statement: Node<'_>) {
        let source = self.source;
        let (Some(left), Some(right)) = (assignment.field("left"), assignment.field("right"))
        else {
            return;
        };
        let line = start_line(statement);
        if is_module_exports(left, source) {
            match right.kind() {
                "object" => {
                    let mut cursor = right.walk();
                    for member in right.named_children(&mut cursor) {
                        match member.kind() {
                            "shorthand_property_identifier" => {
                                let local = text(member, source);
                                self.pending.push(PendingExport {
                                    local,
                                    exported: local,
                                    line,
                                });
                            }
                            "pair" => {
                                if let (Some(key), Some(value)) =
                                    (member.field("key"), member.field("value"))
                                {
                                    self.commonjs_member(key, value, member);
                                }
                            }
                            "method_definition" => {
                                if let Some(name) = member.field("name") {
                                    self.function(
                                        member,
                                        name,
                                        start_line(member),
                                        end_line(member),
                                        true,
                                    );
                                    self.export(
                                        text(name, source),
                                        SymbolKind::Function,
                                        start_line(member),
                                        false,
                                    );
                                }
                            }
                            _ => {}
                        }
                    }
                }
                _ => self.default_export(right, statement, false),
            }
            return;
        }
        if left.kind() != "member_expression" {
            return;
        }
        let on_exports = left.field("object").is_some_and(|object| {
            (object.kind() == "identifier" && text(object, source) == "exports")
                || is_module_exports(object, source)
        });
        if let (true, Some(key)) = (on_exports, left.field("property")) {
            self.commonjs_member(key, right, statement);
        }
    }

    /// One named CommonJS export: `key` is its name, `value` what is exported, `span` the
    /// statement or object member it is written in.
    fn commonjs_member(&mut self, key: Node<'_>, value: Node<'_>, span: Node<'_>) {
        let source = self.source;
        let name = unquote(text(key, source));
        let line = start_line(span);
        match value.kind() {
            "identifier" => {
                let local = text(value, source);
                self.pending.push(PendingExport {
                    local,
                    exported: name,
                    line,
                });
            }
            kind if FUNCTION_VALUES.contains(&kind) => {
                self.function(value, key, line, end_line(span), true);
                self.export(name, SymbolKind::Function, line, false);
            }
            "class" => self.export(name, SymbolKind::Class, line, false),
            _ => self.export(name, SymbolKind::Variable, line, false),
        }
    }
}

/// `module.exports`.
fn is_module_exports(node: Node<'_>, source: &str) -> bool {
    node.kind() == "member_expression"
        && field_text(node, "object", source) == Some("module")
        && field_text(node, "property", source) == Some("exports")
}
