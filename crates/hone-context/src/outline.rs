//! Outlines of files for tracked files in summary mode.

/// Produces the outline of a source file: its declarations without their bodies.
///
/// hone's front ends plug in the code index's tree-sitter outline; [`LineOutliner`] is the
/// fallback for languages (or sessions) without it.
pub trait Outliner: Send + Sync {
    /// The outline of `source`, the content of `path`; `None` when the language is unknown
    /// (the fallback is used then).
    fn outline(&self, path: &str, source: &str) -> Option<String>;
}

/// Words that start a declaration line in common languages.
const DECLARATION_WORDS: &[&str] = &[
    "fn",
    "pub",
    "async",
    "struct",
    "enum",
    "trait",
    "impl",
    "mod",
    "type",
    "const",
    "static",
    "def",
    "class",
    "function",
    "export",
    "interface",
    "func",
    "package",
    "public",
    "private",
    "protected",
    "module",
    "namespace",
    "record",
    "object",
    "val",
    "var",
    "let",
    "macro_rules!",
    "#",
    "##",
    "###",
];

/// Lines shown at most by the fallback outline.
const MAX_LINES: usize = 200;

/// The fallback outline: unindented or lightly indented lines that start like a declaration
/// (`fn`, `class`, `def`, `export`, markdown headings, …), with their line numbers.
#[derive(Debug, Clone, Copy, Default)]
pub struct LineOutliner;

impl Outliner for LineOutliner {
    fn outline(&self, _path: &str, source: &str) -> Option<String> {
        let mut lines = Vec::new();
        let mut total = 0usize;
        for (number, line) in source.lines().enumerate() {
            let indent = line.len() - line.trim_start().len();
            let trimmed = line.trim();
            let first = trimmed.split_whitespace().next().unwrap_or("");
            let word = first.split(['(', '<', '{', ':']).next().unwrap_or(first);
            if indent <= 4 && !trimmed.is_empty() && DECLARATION_WORDS.contains(&word) {
                total += 1;
                if lines.len() < MAX_LINES {
                    let shown = trimmed.trim_end_matches('{').trim_end();
                    lines.push(format!("{:>5}  {}{shown}", number + 1, " ".repeat(indent)));
                }
            }
        }
        if total > lines.len() {
            lines.push(format!("… {} more declarations", total - lines.len()));
        }
        Some(lines.join("\n"))
    }
}

/// The outline of `source` from `outliner`, or from [`LineOutliner`] when it has none.
pub(crate) fn outline_with(outliner: Option<&dyn Outliner>, path: &str, source: &str) -> String {
    outliner
        .and_then(|outliner| outliner.outline(path, source))
        .filter(|outline| !outline.trim().is_empty())
        .or_else(|| LineOutliner.outline(path, source))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Nothing;

    impl Outliner for Nothing {
        fn outline(&self, _: &str, _: &str) -> Option<String> {
            None
        }
    }

    #[test]
    fn the_fallback_keeps_declarations_with_line_numbers() {
        let source = "use std::io;\n\npub struct A {\n    x: u32,\n}\n\nimpl A {\n    pub fn new() -> Self {\n        let y = 1;\n        Self { x: y }\n    }\n}\n";
        let outline = outline_with(Some(&Nothing), "a.rs", source);
        assert_eq!(
            outline,
            "    3  pub struct A\n    7  impl A\n    8      pub fn new() -> Self"
        );
    }
}
