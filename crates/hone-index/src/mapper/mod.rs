//! The index's grammars behind `hone_tools`' [`CodeMapper`]: top-level definitions with
//! their byte ranges (containers with their members), and syntax error counts, so code
//! blocks of a model's answer can be placed in the files they change.

mod languages;
#[cfg(test)]
mod tests;

use hone_tools::edit::natural::{CodeMapper, Definition, DefinitionKind};
use tree_sitter::{Node, Parser, Tree};

use crate::model::Language;
use crate::tools::SharedIndex;

/// The class a fragment of bare methods is parsed inside (`total() {…}` alone).
const FRAGMENT_CLASS: &str = "class HoneFragment {\n";

/// Definitions and syntax errors from the index's tree-sitter grammars.
#[derive(Debug, Clone, Copy, Default)]
pub struct TreeSitterMapper;

impl CodeMapper for TreeSitterMapper {
    fn definitions(&self, path: &str, source: &str) -> Option<Vec<Definition>> {
        let language = code_language(path)?;
        let tree = parse(language, source)?;
        let mut definitions = languages::top_level(language, tree.root_node(), source);
        if language == Language::Java {
            gather_bare_methods(&mut definitions, source.len());
        }
        if !definitions.is_empty() || !accepts_fragments(language) {
            return Some(definitions);
        }
        Some(fragment(language, source).unwrap_or_default())
    }

    fn syntax_errors(&self, path: &str, source: &str) -> Option<usize> {
        let language = code_language(path)?;
        let tree = parse(language, source)?;
        Some(count_errors(tree.root_node()))
    }
}

/// [`TreeSitterMapper`] that asks the code index which files define a name (the project's
/// files are searched instead when the index does not know it).
#[derive(Debug, Clone)]
pub struct IndexedMapper {
    index: SharedIndex,
}

impl IndexedMapper {
    /// A mapper over `index`.
    pub fn new(index: SharedIndex) -> Self {
        Self { index }
    }
}

impl CodeMapper for IndexedMapper {
    fn definitions(&self, path: &str, source: &str) -> Option<Vec<Definition>> {
        TreeSitterMapper.definitions(path, source)
    }

    fn syntax_errors(&self, path: &str, source: &str) -> Option<usize> {
        TreeSitterMapper.syntax_errors(path, source)
    }

    fn files_defining(&self, name: &str) -> Option<Vec<String>> {
        // `Cart.Total` (a Go method) and `Display for Cart` (an impl) are indexed by
        // their last word.
        let simple = name
            .rsplit(['.', ' '])
            .next()
            .filter(|word| !word.is_empty())?;
        let indexer = self.index.fresh().ok()?;
        let sites = indexer.store().definitions(simple).ok()?;
        let mut files: Vec<String> = sites.into_iter().map(|site| site.path).collect();
        files.sort();
        files.dedup();
        (!files.is_empty()).then_some(files)
    }
}

/// The language of `path` when it is one with definitions (not JSON or YAML).
fn code_language(path: &str) -> Option<Language> {
    Language::from_path(path)
        .filter(|language| !matches!(language, Language::Json | Language::Yaml))
}

fn parse(language: Language, source: &str) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&crate::model::grammar(language)).ok()?;
    parser.parse(source, None)
}

/// Languages where a method is often written without its class.
fn accepts_fragments(language: Language) -> bool {
    matches!(
        language,
        Language::TypeScript | Language::Tsx | Language::JavaScript | Language::Java
    )
}

/// Bare methods (`total() {…}`), parsed inside a stand-in class: a container with an
/// empty name whose members are matched against every class of a file.
fn fragment(language: Language, source: &str) -> Option<Vec<Definition>> {
    let wrapped = format!("{FRAGMENT_CLASS}{source}\n}}\n");
    let tree = parse(language, &wrapped)?;
    if tree.root_node().has_error() {
        return None;
    }
    let mut definitions = languages::top_level(language, tree.root_node(), &wrapped);
    let [container] = definitions.as_mut_slice() else {
        return None;
    };
    if container.members.is_empty() {
        return None;
    }
    let shift = FRAGMENT_CLASS.len();
    let members = container
        .members
        .iter()
        .filter(|member| member.outer.start >= shift && member.outer.end <= shift + source.len())
        .map(|member| shifted(member, shift))
        .collect();
    Some(vec![Definition {
        name: String::new(),
        kind: DefinitionKind::Container,
        outer: 0..source.len(),
        inner: 0..source.len(),
        members,
        insert_at: None,
    }])
}

/// Java parses a method outside any class as a top-level method: such methods become the
/// members of a nameless container, like a fragment's.
fn gather_bare_methods(definitions: &mut Vec<Definition>, length: usize) {
    let (methods, others): (Vec<Definition>, Vec<Definition>) = std::mem::take(definitions)
        .into_iter()
        .partition(|definition| definition.kind == DefinitionKind::Function);
    *definitions = others;
    if !methods.is_empty() {
        definitions.push(Definition {
            name: String::new(),
            kind: DefinitionKind::Container,
            outer: 0..length,
            inner: 0..length,
            members: methods,
            insert_at: None,
        });
    }
}

fn shifted(definition: &Definition, shift: usize) -> Definition {
    Definition {
        name: definition.name.clone(),
        kind: definition.kind,
        outer: definition.outer.start - shift..definition.outer.end - shift,
        inner: definition.inner.start - shift..definition.inner.end - shift,
        members: definition
            .members
            .iter()
            .map(|member| shifted(member, shift))
            .collect(),
        insert_at: None,
    }
}

/// Error and missing nodes under `root`.
fn count_errors(root: Node<'_>) -> usize {
    if !root.has_error() {
        return 0;
    }
    let mut count = 0;
    let mut cursor = root.walk();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            count += 1;
        }
        if node.has_error() {
            stack.extend(node.children(&mut cursor));
        }
    }
    count
}
