//! What the index knows about one file: its outline, symbols, TODOs and metrics.
//!
//! Lines are 1-based and inclusive everywhere.

use serde::{Deserialize, Serialize};

pub use hone_protocol::Language;

/// The tree-sitter grammar of `language`.
pub fn grammar(language: Language) -> tree_sitter::Language {
    match language {
        Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
        Language::Python => tree_sitter_python::LANGUAGE.into(),
        Language::Rust => tree_sitter_rust::LANGUAGE.into(),
        Language::Go => tree_sitter_go::LANGUAGE.into(),
        Language::Java => tree_sitter_java::LANGUAGE.into(),
        Language::C => tree_sitter_c::LANGUAGE.into(),
        Language::Cpp => tree_sitter_cpp::LANGUAGE.into(),
        Language::Json => tree_sitter_json::LANGUAGE.into(),
        Language::Yaml => tree_sitter_yaml::LANGUAGE.into(),
    }
}

/// Where an import points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImportOrigin {
    /// A file of this project (relative path, `crate::`, the module's own package…).
    Internal,
    /// A third-party package.
    External,
    /// The language's standard library or runtime (`fs`, `os`, `std`, `fmt`…).
    Builtin,
}

/// One imported name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportedName {
    /// The name as exported by the source (`*` for a namespace/glob import).
    pub name: String,
    /// Local alias, when renamed (`import { a as b }` → `b`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
    /// A default import (`import React from "react"`).
    #[serde(default)]
    pub is_default: bool,
}

/// An import statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    /// What is imported from, as written (`./util`, `react`, `os.path`, `crate::store`, `fmt`).
    pub source: String,
    /// Imported names (empty for side-effect imports such as `import "./polyfill"`).
    pub names: Vec<ImportedName>,
    /// Line of the statement.
    pub line: u32,
    /// Internal, external or builtin, as far as the syntax tells.
    pub origin: ImportOrigin,
}

/// The kind of a named symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SymbolKind {
    /// A free function.
    Function,
    /// A method.
    Method,
    /// A class.
    Class,
    /// A struct.
    Struct,
    /// An interface.
    Interface,
    /// A trait.
    Trait,
    /// An enum.
    Enum,
    /// A type alias.
    Type,
    /// A variable or constant.
    Variable,
    /// A module or namespace.
    Module,
    /// A field or property.
    Property,
}

/// An exported name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Export {
    /// Exported name (`default` for a default export without a name).
    pub name: String,
    /// What it is.
    pub kind: SymbolKind,
    /// Line of the declaration.
    pub line: u32,
}

/// Visibility of a member.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// Visible everywhere (`public`, `pub`, exported/capitalised in Go, no underscore in Python).
    Public,
    /// `protected`.
    Protected,
    /// `private`, `#private`, non-`pub`, leading underscore.
    Private,
}

/// A function or method signature.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Function {
    /// Name (`<anonymous>` for unnamed default exports).
    pub name: String,
    /// First line.
    pub start_line: u32,
    /// Last line.
    pub end_line: u32,
    /// Parameters as written (name and type annotation), without defaults' bodies.
    pub params: Vec<String>,
    /// Return type as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_type: Option<String>,
    /// `async`.
    #[serde(default)]
    pub is_async: bool,
    /// Exported from its module.
    #[serde(default)]
    pub is_exported: bool,
    /// Member visibility (methods only; free functions use `is_exported`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<Visibility>,
    /// `static` (methods only).
    #[serde(default)]
    pub is_static: bool,
}

/// A field or property of a class-like type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Property {
    /// Name.
    pub name: String,
    /// Type as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_annotation: Option<String>,
    /// Visibility.
    pub visibility: Visibility,
    /// `static`.
    #[serde(default)]
    pub is_static: bool,
    /// `readonly` / `final` / `const`.
    #[serde(default)]
    pub is_readonly: bool,
    /// Line.
    pub line: u32,
}

/// What kind of type a [`Class`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClassKind {
    /// `class`.
    Class,
    /// `struct`.
    Struct,
    /// `interface`.
    Interface,
    /// `trait`.
    Trait,
    /// `enum`.
    Enum,
    /// A Rust `impl` block (its `name` is the implemented type; `implements` holds the trait).
    Impl,
}

/// A class, struct, interface, trait, enum or impl block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Class {
    /// Name (for nested classes, the plain name; see `parent`).
    pub name: String,
    /// What it is.
    pub kind: ClassKind,
    /// First line.
    pub start_line: u32,
    /// Last line.
    pub end_line: u32,
    /// Methods.
    pub methods: Vec<Function>,
    /// Fields and properties.
    pub properties: Vec<Property>,
    /// Base classes / embedded or extended types.
    pub extends: Vec<String>,
    /// Implemented interfaces / traits.
    pub implements: Vec<String>,
    /// Exported from its module.
    #[serde(default)]
    pub is_exported: bool,
    /// Enclosing class, for nested classes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
}

/// Whether a symbol occurrence defines or uses the name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SymbolRole {
    /// The definition site.
    Definition,
    /// A use (call, type reference, …).
    Reference,
}

/// One occurrence of a named symbol (tree-sitter tags style).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolOccurrence {
    /// The name.
    pub name: String,
    /// What it is (for references: what it is used as, best effort).
    pub kind: SymbolKind,
    /// Definition or reference.
    pub role: SymbolRole,
    /// Line.
    pub line: u32,
    /// 1-based column (in characters).
    pub column: u32,
}

/// A TODO-style comment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Todo {
    /// `TODO`, `FIXME`, `HACK` or `XXX`.
    pub tag: String,
    /// The rest of the comment line.
    pub text: String,
    /// Line.
    pub line: u32,
}

/// Size and shape measures of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FileMetrics {
    /// Total lines.
    pub lines: u32,
    /// Lines that are not blank.
    pub loc: u32,
    /// Deepest nesting of blocks (functions, classes, control flow).
    pub max_nesting: u32,
    /// Number of import statements.
    pub import_count: u32,
    /// Complexity score: 1 + branch points (if/else-if, loops, case arms, catch, `&&`/`||`,
    /// ternaries), summed over the file.
    pub complexity: u32,
}

/// Everything extracted from one source file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileOutline {
    /// The language it was parsed as.
    pub language: Language,
    /// Import statements.
    pub imports: Vec<Import>,
    /// Exported names.
    pub exports: Vec<Export>,
    /// Free functions (and arrow functions bound to names).
    pub functions: Vec<Function>,
    /// Classes and other types, nested ones included (with `parent`).
    pub classes: Vec<Class>,
    /// Definitions and references (absent from the JSON the store keeps).
    #[serde(default)]
    pub symbols: Vec<SymbolOccurrence>,
    /// TODO/FIXME/HACK/XXX comments.
    pub todos: Vec<Todo>,
    /// Measures.
    pub metrics: FileMetrics,
    /// Whether tree-sitter reported syntax errors (the rest is still what could be extracted).
    pub has_errors: bool,
}

impl FileOutline {
    /// An empty outline for `language`.
    pub fn empty(language: Language) -> Self {
        Self {
            language,
            imports: Vec::new(),
            exports: Vec::new(),
            functions: Vec::new(),
            classes: Vec::new(),
            symbols: Vec::new(),
            todos: Vec::new(),
            metrics: FileMetrics::default(),
            has_errors: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_grammar_loads_and_parses() {
        for language in Language::ALL {
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&grammar(language)).unwrap();
            let tree = parser.parse("x", None).unwrap();
            assert!(tree.root_node().child_count() <= 2, "{}", language.as_str());
        }
    }
}
