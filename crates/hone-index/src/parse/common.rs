//! Helpers every language extractor shares: node text and lines, TODO comments, metrics.

use std::cell::RefCell;
use std::num::NonZeroU16;

use tree_sitter::{Language, Node, TreeCursor};

use crate::model::{FileMetrics, Todo};

/// The source text of `node`.
pub(crate) fn text<'a>(node: Node<'_>, source: &'a str) -> &'a str {
    source.get(node.byte_range()).unwrap_or("")
}

/// 1-based first line of `node`.
pub(crate) fn start_line(node: Node<'_>) -> u32 {
    u32::try_from(node.start_position().row + 1).unwrap_or(u32::MAX)
}

/// 1-based last line of `node`.
pub(crate) fn end_line(node: Node<'_>) -> u32 {
    u32::try_from(node.end_position().row + 1).unwrap_or(u32::MAX)
}

/// 1-based column of `node`'s start, in characters.
pub(crate) fn column(node: Node<'_>, source: &str) -> u32 {
    // Tree-sitter's column counts bytes since the last line break: no search for it.
    let start = node.start_byte();
    let line_start = start.saturating_sub(node.start_position().column);
    let prefix = source.get(line_start..start).unwrap_or("");
    u32::try_from(prefix.chars().count() + 1).unwrap_or(u32::MAX)
}

/// The text of the child in `field`, if present.
pub(crate) fn field_text<'a>(
    node: Node<'_>,
    field: &'static str,
    source: &'a str,
) -> Option<&'a str> {
    node.field(field).map(|child| text(child, source))
}

/// The field ids of each grammar met on this thread, by field name.
type FieldIds = Vec<(Language, Vec<(&'static str, Option<NonZeroU16>)>)>;

thread_local! {
    /// Field ids looked up so far: `child_by_field_name` compares the name with every field
    /// name of the grammar on each call (a thousand instructions), this finds it in a few.
    static FIELD_IDS: RefCell<FieldIds> = const { RefCell::new(Vec::new()) };
}

/// The id of `field` in `language` (`None` if the grammar has no such field).
fn field_id(language: &Language, field: &'static str) -> Option<NonZeroU16> {
    FIELD_IDS.with(|cache| {
        let Ok(mut cache) = cache.try_borrow_mut() else {
            return language.field_id_for_name(field);
        };
        let position = match cache.iter().position(|(known, _)| known == language) {
            Some(position) => position,
            None => {
                cache.push((language.clone(), Vec::new()));
                cache.len() - 1
            }
        };
        let ids = &mut cache[position].1;
        if let Some((_, id)) = ids.iter().find(|(name, _)| *name == field) {
            return *id;
        }
        let id = language.field_id_for_name(field);
        ids.push((field, id));
        id
    })
}

/// `child_by_field_name` with the field's id looked up once per grammar and thread.
pub(crate) trait FieldChild<'t> {
    /// The child in `field`, if present.
    fn field(&self, field: &'static str) -> Option<Node<'t>>;
}

impl<'t> FieldChild<'t> for Node<'t> {
    fn field(&self, field: &'static str) -> Option<Node<'t>> {
        let id = field_id(&self.language(), field)?;
        self.child_by_field_id(id.get())
    }
}

/// Text collapsed to one line with single spaces (for signatures and types).
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Moves a tree cursor through a pre-order walk knowing how many siblings are left at each
/// level, so it never asks the cursor for a next sibling that is not there: tree-sitter
/// answers that by climbing through every hidden node above (repetition helpers, supertypes)
/// and back, which costs more than most steps that succeed.
#[derive(Default)]
pub(crate) struct Steps {
    /// For each level below the walk's root: siblings after the cursor's node.
    remaining: Vec<u32>,
}

impl Steps {
    /// Moves to the first child of the cursor's node `node`; `false` (not moving) for a leaf.
    pub(crate) fn first_child(&mut self, cursor: &mut TreeCursor<'_>, node: Node<'_>) -> bool {
        let children = node.child_count();
        if children > 0 && cursor.goto_first_child() {
            self.remaining.push(children - 1);
            true
        } else {
            false
        }
    }

    /// Moves to the next sibling; `false` (not moving) for a last child or the walk's root.
    pub(crate) fn next_sibling(&mut self, cursor: &mut TreeCursor<'_>) -> bool {
        match self.remaining.last_mut() {
            Some(left) if *left > 0 && cursor.goto_next_sibling() => {
                *left -= 1;
                true
            }
            _ => false,
        }
    }

    /// Moves to the parent; `false` (not moving) at the walk's root.
    pub(crate) fn parent(&mut self, cursor: &mut TreeCursor<'_>) -> bool {
        self.remaining.pop().is_some() && cursor.goto_parent()
    }
}

/// Visits every node under `root` (itself included) in pre-order, iteratively so that deeply
/// nested input cannot overflow the stack. `visit` gets the node, its field name in its parent
/// and its parent (`None` for `root`), and returns whether to descend into the node's children.
pub(crate) fn walk<'t>(
    root: Node<'t>,
    mut visit: impl FnMut(Node<'t>, Option<&'t str>, Option<Node<'t>>) -> bool,
) {
    let mut cursor = root.walk();
    let mut steps = Steps::default();
    let mut parents: Vec<Node<'t>> = Vec::new();
    loop {
        let node = cursor.node();
        if visit(node, cursor.field_name(), parents.last().copied())
            && steps.first_child(&mut cursor, node)
        {
            parents.push(node);
            continue;
        }
        loop {
            if steps.next_sibling(&mut cursor) {
                break;
            }
            if !steps.parent(&mut cursor) {
                return;
            }
            parents.pop();
        }
    }
}

/// Classes of node kinds by kind id, each kind's name read once per walk rather than once per
/// node (reading a name costs a C string scan and a UTF-8 check).
#[derive(Default)]
pub(crate) struct KindMemo {
    classes: Vec<u8>,
}

/// A kind id not classified yet.
const UNCLASSIFIED: u8 = u8::MAX;

impl KindMemo {
    /// The class of `node`, whose kind id is `id` (read once by the caller, who may need it
    /// too): `classify` of its kind's name the first time (which must not return `u8::MAX`,
    /// and must always be the same function for one memo).
    pub(crate) fn class_of(
        &mut self,
        node: Node<'_>,
        id: u16,
        classify: impl Fn(&str) -> u8,
    ) -> u8 {
        let id = usize::from(id);
        if id >= self.classes.len() {
            self.classes.resize(id + 1, UNCLASSIFIED);
        }
        if self.classes[id] == UNCLASSIFIED {
            self.classes[id] = classify(node.kind());
        }
        self.classes[id]
    }
}

/// Tags recognised in comments.
const TODO_TAGS: [&str; 4] = ["TODO", "FIXME", "HACK", "XXX"];

/// TODO/FIXME/HACK/XXX markers in a comment node's text starting at `first_line`.
/// A tag counts when it is a whole word in upper case (`TODO:`, `FIXME(bob)`, `XXX -`).
pub(crate) fn todos_in_comment(comment: &str, first_line: u32, out: &mut Vec<Todo>) {
    // Most comments hold no tag at all: one search of the whole comment per tag settles it
    // without splitting it into lines.
    if !TODO_TAGS.iter().any(|tag| comment.contains(tag)) {
        return;
    }
    for (offset, line) in comment.lines().enumerate() {
        for tag in TODO_TAGS {
            let Some(position) = find_word(line, tag) else {
                continue;
            };
            let rest = line[position + tag.len()..]
                .trim_start_matches(|c: char| c == ':' || c == '(' || c.is_whitespace())
                .trim_end_matches("*/")
                .trim_end_matches("-->")
                .trim();
            let rest = match rest.find(')') {
                Some(close) if line[position + tag.len()..].starts_with('(') => {
                    rest[close + 1..].trim_start_matches(':').trim()
                }
                _ => rest,
            };
            out.push(Todo {
                tag: tag.to_string(),
                text: rest.to_string(),
                line: first_line + u32::try_from(offset).unwrap_or(0),
            });
            break;
        }
    }
}

fn find_word(line: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = line[from..].find(word) {
        let start = from + found;
        let end = start + word.len();
        let before_ok = line[..start]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric() && c != '_');
        let after_ok = line[end..]
            .chars()
            .next()
            .is_none_or(|c| !c.is_alphanumeric() && c != '_');
        if before_ok && after_ok {
            return Some(start);
        }
        from = end;
    }
    None
}

/// Node kinds that matter for metrics in one grammar.
pub(crate) struct MetricKinds {
    /// Kinds that open a nesting level (blocks, functions, classes, control flow bodies).
    pub(crate) nesting: &'static [&'static str],
    /// Kinds that add a branch to the complexity score.
    pub(crate) branches: &'static [&'static str],
    /// Binary operators that add a branch (`&&`, `||`, `and`, `or`), counted where they are
    /// the `operator` field of an expression.
    pub(crate) logical_operators: &'static [&'static str],
    /// Comment node kinds (scanned for TODOs).
    pub(crate) comments: &'static [&'static str],
}

impl MetricKinds {
    /// What `kind` counts for, as bits.
    fn class_of(&self, kind: &str) -> u8 {
        let mut class = 0;
        if self.nesting.contains(&kind) {
            class |= NESTING;
        }
        if self.branches.contains(&kind) {
            class |= BRANCH;
        } else if self.logical_operators.contains(&kind) {
            class |= LOGICAL_OPERATOR;
        }
        if self.comments.contains(&kind) {
            class |= COMMENT;
        }
        class
    }
}

/// Metrics and TODOs gathered while something else walks the whole tree in pre-order, so an
/// extractor that walks every node anyway needs no second walk. Call [`MetricsWalk::enter`]
/// for every node (named or not) and [`MetricsWalk::leave`] when the node last entered or
/// returned to is done with its subtree.
pub(crate) struct MetricsWalk<'k> {
    kinds: &'k MetricKinds,
    classes: KindMemo,
    metrics: FileMetrics,
    depth: u32,
    /// For each entered node not yet left: whether it opened a nesting level.
    open: Vec<bool>,
    todos: Vec<Todo>,
}

/// What a kind counts for in [`MetricsWalk`] (bits of its class).
const NESTING: u8 = 1;
const BRANCH: u8 = 2;
const LOGICAL_OPERATOR: u8 = 4;
const COMMENT: u8 = 8;

impl<'k> MetricsWalk<'k> {
    /// A walk over `source` counting `kinds`.
    pub(crate) fn new(source: &str, kinds: &'k MetricKinds) -> Self {
        let (lines, loc) = line_counts(source);
        let metrics = FileMetrics {
            lines: u32::try_from(lines).unwrap_or(u32::MAX),
            loc: u32::try_from(loc).unwrap_or(u32::MAX),
            complexity: 1,
            ..FileMetrics::default()
        };
        Self {
            kinds,
            classes: KindMemo::default(),
            metrics,
            depth: 0,
            open: Vec::new(),
            todos: Vec::new(),
        }
    }

    /// Counts the cursor's node `node`, reached in pre-order.
    pub(crate) fn enter(&mut self, node: Node<'_>, cursor: &TreeCursor<'_>, source: &str) {
        self.enter_kind(node, node.kind_id(), cursor, source);
    }

    /// [`MetricsWalk::enter`] for a node whose kind id `id` the caller has already read.
    pub(crate) fn enter_kind(
        &mut self,
        node: Node<'_>,
        id: u16,
        cursor: &TreeCursor<'_>,
        source: &str,
    ) {
        let kinds = self.kinds;
        let class = self.classes.class_of(node, id, |kind| kinds.class_of(kind));
        let opens = class & NESTING != 0;
        if opens {
            self.depth += 1;
            self.metrics.max_nesting = self.metrics.max_nesting.max(self.depth);
        }
        if class & BRANCH != 0 {
            self.metrics.complexity += 1;
        } else if class & LOGICAL_OPERATOR != 0
            && !node.is_named()
            && cursor.field_name() == Some("operator")
        {
            // Only operators of expressions: C++ `T&&` declarators use the same token.
            self.metrics.complexity += 1;
        }
        if class & COMMENT != 0 {
            todos_in_comment(text(node, source), start_line(node), &mut self.todos);
        }
        self.open.push(opens);
    }

    /// The innermost entered node is done.
    pub(crate) fn leave(&mut self) {
        if self.open.pop() == Some(true) {
            self.depth = self.depth.saturating_sub(1);
        }
    }

    /// The metrics (`import_count` left for the caller); the TODOs go to `todos`.
    pub(crate) fn finish(self, todos: &mut Vec<Todo>) -> FileMetrics {
        todos.extend(self.todos);
        self.metrics
    }
}

/// Lines of `source` (as [`str::lines`] counts them) and non-blank ones, in one pass.
fn line_counts(source: &str) -> (usize, usize) {
    let mut lines = 0;
    let mut loc = 0;
    for line in source.lines() {
        lines += 1;
        let first = line
            .bytes()
            .find(|byte| !matches!(byte, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c));
        loc += usize::from(match first {
            None => false,
            Some(byte) if byte.is_ascii() => true,
            // Unicode white space (`\u{a0}`, `\u{3000}`…) is blank too.
            Some(_) => !line.trim().is_empty(),
        });
    }
    (lines, loc)
}

/// Walks the whole tree once: metrics and TODOs. `import_count` is left for the caller.
pub(crate) fn metrics_and_todos(
    root: Node<'_>,
    source: &str,
    kinds: &MetricKinds,
    todos: &mut Vec<Todo>,
) -> FileMetrics {
    let mut walk = MetricsWalk::new(source, kinds);
    let mut cursor = root.walk();
    let mut steps = Steps::default();
    loop {
        let node = cursor.node();
        walk.enter(node, &cursor, source);
        if steps.first_child(&mut cursor, node) {
            continue;
        }
        loop {
            walk.leave();
            if steps.next_sibling(&mut cursor) {
                break;
            }
            if !steps.parent(&mut cursor) {
                return walk.finish(todos);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn todo_tags_are_whole_upper_case_words() {
        let mut todos = Vec::new();
        todos_in_comment(
            "// TODO: write tests\n// todo lower case\n// FIXME(ana): leak */",
            10,
            &mut todos,
        );
        todos_in_comment("# XXXL is not a tag; HACK - quick fix", 20, &mut todos);
        let found: Vec<_> = todos
            .iter()
            .map(|todo| (todo.tag.as_str(), todo.text.as_str(), todo.line))
            .collect();
        assert_eq!(
            found,
            [
                ("TODO", "write tests", 10),
                ("FIXME", "leak", 12),
                ("HACK", "- quick fix", 20)
            ]
        );
    }

    #[test]
    fn lines_and_non_blank_lines_are_counted_as_lines_and_trim_do() {
        for source in [
            "",
            "a",
            "a\n",
            "a\r\n\r\nb",
            "  \t\n\u{a0}\u{3000}\n x\n\x0b\x0c\n\n",
            "é\n \u{a0}é\n",
        ] {
            let lines = source.lines().count();
            let loc = source.lines().filter(|l| !l.trim().is_empty()).count();
            assert_eq!(line_counts(source), (lines, loc), "{source:?}");
        }
    }

    #[test]
    fn columns_count_characters_from_the_line_start() {
        let source = "ab\n  é; x = 1;\n";
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&crate::model::grammar(crate::model::Language::JavaScript))
            .unwrap();
        let tree = parser.parse(source, None).unwrap();
        let x = tree.root_node().descendant_for_byte_range(9, 10).unwrap();
        assert_eq!(text(x, source), "x");
        assert_eq!(column(x, source), 6);
    }

    #[test]
    fn one_line_collapses_whitespace() {
        assert_eq!(
            one_line("Map<\n  string,\n  number>"),
            "Map< string, number>"
        );
    }
}
