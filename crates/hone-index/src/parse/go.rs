//! Go extractor.
//!
//! Decisions, so that the golden fixtures read as a spec:
//! - **Imports**: one import per spec, `source` = the import path. The name is the package
//!   name guessed from the path (last element, skipping a `/vN` major-version element and a
//!   `.vN` suffix); an alias is `alias`, a dot import is the glob `*`, a blank import has no
//!   names. A path whose first element has no dot is the standard library (builtin); anything
//!   else is external — the analysis stage marks the module's own packages internal.
//! - **Exports** are the capitalised top-level functions, types, constants and variables.
//! - **Types**: structs and interfaces are classes. Struct fields are properties (one per
//!   name), embedded fields go to `extends` (without `*`); interface method specs are methods,
//!   embedded interfaces go to `extends` (type-set constraints such as `~int | string` are
//!   skipped). Other defined types and aliases are [`SymbolKind::Type`] symbols.
//! - **Methods** attach to the class of their receiver's base type. A receiver type that is
//!   not a struct or interface of this file (a defined type such as `type Celsius float64`,
//!   or a type declared in another file of the package) gets a [`ClassKind::Struct`] class:
//!   spanning its declaration when it is in this file, else a placeholder spanning the
//!   methods. Methods are never static and have public/private visibility by capitalisation.
//! - **Constants and variables** at the top level are [`SymbolKind::Variable`] definitions.
//! - **References**: calls (`f()` → function; `pkg.F()` on an imported package → function;
//!   `x.M()` → method), and type identifiers (composite literal types as structs), except
//!   predeclared types and type parameters.

mod references;

use tree_sitter::Node;

use crate::parse::common::FieldChild;

use super::common::{MetricKinds, column, end_line, metrics_and_todos, one_line, start_line, text};
use crate::model::{
    Class, ClassKind, Export, FileOutline, Function, Import, ImportOrigin, ImportedName, Property,
    SymbolKind, SymbolOccurrence, SymbolRole, Visibility,
};

/// Metric node kinds of the Go grammar: nesting counts brace levels.
const METRICS: MetricKinds = MetricKinds {
    nesting: &[
        "block",
        "expression_switch_statement",
        "type_switch_statement",
        "select_statement",
        "field_declaration_list",
        "interface_type",
    ],
    branches: &[
        "if_statement",
        "for_statement",
        "expression_case",
        "type_case",
        "communication_case",
    ],
    logical_operators: &["&&", "||"],
    comments: &["comment"],
};

/// Deepest nesting of `ERROR` nodes followed at the top level.
const MAX_DEPTH: usize = 16;

/// Fills `outline` from the syntax tree.
pub(crate) fn extract(root: Node<'_>, source: &str, outline: &mut FileOutline) {
    let mut file = GoFile {
        source,
        outline,
        methods: Vec::new(),
        other_types: Vec::new(),
    };
    file.declarations(root, 0);
    file.attach_methods();
    outline.classes.sort_by_key(|class| class.start_line);
    references::collect(root, source, outline);
    outline
        .symbols
        .sort_by_key(|symbol| (symbol.line, symbol.column));
    outline.metrics = metrics_and_todos(root, source, &METRICS, &mut outline.todos);
}

/// A defined type that is not a class (yet): name and line span.
struct OtherType {
    name: String,
    start_line: u32,
    end_line: u32,
}

struct GoFile<'s, 'o> {
    source: &'s str,
    outline: &'o mut FileOutline,
    /// Methods with their receiver's base type name, attached once all types are known.
    methods: Vec<(String, Function)>,
    /// Defined types and aliases, which become classes only if they have methods.
    other_types: Vec<OtherType>,
}

impl GoFile<'_, '_> {
    fn declarations(&mut self, parent: Node<'_>, depth: usize) {
        let mut cursor = parent.walk();
        for node in parent.named_children(&mut cursor) {
            match node.kind() {
                "import_declaration" => self.imports(node),
                "function_declaration" => self.function(node),
                "method_declaration" => self.method(node),
                "type_declaration" => {
                    let mut inner = node.walk();
                    for spec in node.named_children(&mut inner) {
                        self.type_spec(spec);
                    }
                }
                "const_declaration" | "var_declaration" => self.values(node),
                "ERROR" if depth < MAX_DEPTH => self.declarations(node, depth + 1),
                _ => {}
            }
        }
    }

    /// A top-level definition, exported when capitalised.
    fn define(&mut self, name: Node<'_>, kind: SymbolKind) {
        self.define_member(name, kind);
        let name_text = text(name, self.source);
        if is_exported(name_text) {
            self.outline.exports.push(Export {
                name: name_text.to_string(),
                kind,
                line: start_line(name),
            });
        }
    }

    fn imports(&mut self, declaration: Node<'_>) {
        let mut cursor = declaration.walk();
        for child in declaration.named_children(&mut cursor) {
            match child.kind() {
                "import_spec" => self.import_spec(child),
                "import_spec_list" => {
                    let mut inner = child.walk();
                    for spec in child.named_children(&mut inner) {
                        if spec.kind() == "import_spec" {
                            self.import_spec(spec);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn import_spec(&mut self, spec: Node<'_>) {
        let Some(path) = spec.field("path") else {
            return;
        };
        let path = text(path, self.source).trim_matches(|c| c == '"' || c == '`');
        let name = |name: &str, alias: Option<String>| ImportedName {
            name: name.to_string(),
            alias,
            is_default: false,
        };
        let names = match spec.field("name") {
            None => vec![name(package_name(path), None)],
            Some(alias) => match alias.kind() {
                "dot" => vec![name("*", None)],
                "blank_identifier" => Vec::new(),
                _ => {
                    let package = package_name(path);
                    let alias = text(alias, self.source);
                    vec![name(package, (alias != package).then(|| alias.to_string()))]
                }
            },
        };
        let first = path.split('/').next().unwrap_or(path);
        self.outline.imports.push(Import {
            source: path.to_string(),
            names,
            line: start_line(spec),
            origin: if first.contains('.') {
                ImportOrigin::External
            } else {
                ImportOrigin::Builtin
            },
        });
    }

    fn function(&mut self, node: Node<'_>) {
        let Some(name) = node.field("name") else {
            return;
        };
        self.define(name, SymbolKind::Function);
        let name = text(name, self.source);
        let function = signature(node, self.source, name, is_exported(name), None);
        self.outline.functions.push(function);
    }

    fn method(&mut self, node: Node<'_>) {
        let Some(name_node) = node.field("name") else {
            return;
        };
        let receiver = node
            .field("receiver")
            .and_then(|list| list.named_child(0))
            .and_then(|param| param.field("type"));
        let Some(receiver) = receiver.map(|node| base_type_name(node, self.source)) else {
            return;
        };
        self.outline.symbols.push(SymbolOccurrence {
            name: text(name_node, self.source).to_string(),
            kind: SymbolKind::Method,
            role: SymbolRole::Definition,
            line: start_line(name_node),
            column: column(name_node, self.source),
        });
        let name = text(name_node, self.source);
        let visibility = member_visibility(name);
        let method = signature(node, self.source, name, false, Some(visibility));
        self.methods.push((receiver, method));
    }

    fn type_spec(&mut self, spec: Node<'_>) {
        let (Some(name_node), Some(definition)) = (spec.field("name"), spec.field("type")) else {
            return;
        };
        let name = text(name_node, self.source).to_string();
        let kind = match (spec.kind(), definition.kind()) {
            ("type_spec", "struct_type") => ClassKind::Struct,
            ("type_spec", "interface_type") => ClassKind::Interface,
            _ => {
                self.define(name_node, SymbolKind::Type);
                self.other_types.push(OtherType {
                    name,
                    start_line: start_line(spec),
                    end_line: end_line(spec),
                });
                return;
            }
        };
        let symbol_kind = match kind {
            ClassKind::Interface => SymbolKind::Interface,
            _ => SymbolKind::Struct,
        };
        self.define(name_node, symbol_kind);
        let mut class = new_class(name, kind, start_line(spec), end_line(spec));
        if kind == ClassKind::Struct {
            self.struct_fields(definition, &mut class);
        } else {
            self.interface_elements(definition, &mut class);
        }
        self.outline.classes.push(class);
    }

    fn struct_fields(&mut self, struct_type: Node<'_>, class: &mut Class) {
        let Some(list) = struct_type.named_child(0) else {
            return;
        };
        let mut cursor = list.walk();
        for field in list.named_children(&mut cursor) {
            if field.kind() != "field_declaration" {
                continue;
            }
            let field_type = field
                .field("type")
                .map(|node| one_line(text(node, self.source)));
            let mut names = field.walk();
            let mut named = false;
            for name in field.children_by_field_name("name", &mut names) {
                named = true;
                self.define_member(name, SymbolKind::Property);
                let name_text = text(name, self.source);
                class.properties.push(Property {
                    name: name_text.to_string(),
                    type_annotation: field_type.clone(),
                    visibility: member_visibility(name_text),
                    is_static: false,
                    is_readonly: false,
                    line: start_line(name),
                });
            }
            if let (false, Some(embedded)) = (named, field_type) {
                class
                    .extends
                    .push(embedded.trim_start_matches('*').to_string());
            }
        }
    }

    fn interface_elements(&mut self, interface: Node<'_>, class: &mut Class) {
        let mut cursor = interface.walk();
        for element in interface.named_children(&mut cursor) {
            match element.kind() {
                "method_elem" => {
                    let Some(name) = element.field("name") else {
                        continue;
                    };
                    self.define_member(name, SymbolKind::Method);
                    let name = text(name, self.source);
                    let visibility = Some(member_visibility(name));
                    let method = signature(element, self.source, name, false, visibility);
                    class.methods.push(method);
                }
                "type_elem" => {
                    let embedded = element
                        .named_child(0)
                        .filter(|_| element.named_child_count() == 1);
                    if let Some(embedded) = embedded.filter(|node| {
                        matches!(
                            node.kind(),
                            "type_identifier" | "qualified_type" | "generic_type"
                        )
                    }) {
                        class.extends.push(one_line(text(embedded, self.source)));
                    }
                }
                _ => {}
            }
        }
    }

    /// A definition that is never exported by itself (fields, methods).
    fn define_member(&mut self, name: Node<'_>, kind: SymbolKind) {
        self.outline.symbols.push(SymbolOccurrence {
            name: text(name, self.source).to_string(),
            kind,
            role: SymbolRole::Definition,
            line: start_line(name),
            column: column(name, self.source),
        });
    }

    fn values(&mut self, declaration: Node<'_>) {
        let mut cursor = declaration.walk();
        for child in declaration.named_children(&mut cursor) {
            match child.kind() {
                "const_spec" | "var_spec" => self.value_spec(child),
                "const_spec_list" | "var_spec_list" => {
                    let mut inner = child.walk();
                    for spec in child.named_children(&mut inner) {
                        self.value_spec(spec);
                    }
                }
                _ => {}
            }
        }
    }

    fn value_spec(&mut self, spec: Node<'_>) {
        let mut cursor = spec.walk();
        let names: Vec<Node<'_>> = spec.children_by_field_name("name", &mut cursor).collect();
        for name in names {
            self.define(name, SymbolKind::Variable);
        }
    }

    /// Attaches collected methods to their receiver's class, creating classes for receivers
    /// that are not a struct or interface of this file.
    fn attach_methods(&mut self) {
        let mut placeholders = Vec::new();
        for (receiver, method) in std::mem::take(&mut self.methods) {
            let classes = &mut self.outline.classes;
            let index = match classes.iter().position(|class| class.name == receiver) {
                Some(index) => index,
                None => {
                    let declared = self.other_types.iter().find(|other| other.name == receiver);
                    let (start, end) = match declared {
                        Some(other) => (other.start_line, other.end_line),
                        None => {
                            placeholders.push(classes.len());
                            (method.start_line, method.end_line)
                        }
                    };
                    classes.push(new_class(receiver, ClassKind::Struct, start, end));
                    classes.len() - 1
                }
            };
            let Some(class) = classes.get_mut(index) else {
                continue;
            };
            if placeholders.contains(&index) {
                class.start_line = class.start_line.min(method.start_line);
                class.end_line = class.end_line.max(method.end_line);
            }
            class.methods.push(method);
        }
    }
}

fn new_class(name: String, kind: ClassKind, start_line: u32, end_line: u32) -> Class {
    Class {
        is_exported: is_exported(&name),
        name,
        kind,
        start_line,
        end_line,
        methods: Vec::new(),
        properties: Vec::new(),
        extends: Vec::new(),
        implements: Vec::new(),
        parent: None,
    }
}

/// Go exports what starts with an upper-case letter.
fn is_exported(name: &str) -> bool {
    name.starts_with(char::is_uppercase)
}

fn member_visibility(name: &str) -> Visibility {
    if is_exported(name) {
        Visibility::Public
    } else {
        Visibility::Private
    }
}

/// The package name an import path most likely declares: `github.com/a/b/v2` → `b`,
/// `gopkg.in/yaml.v3` → `yaml`.
fn package_name(path: &str) -> &str {
    let mut elements = path.rsplit('/');
    let last = elements.next().unwrap_or(path);
    let is_version = |element: &str| {
        element.len() > 1
            && element.starts_with('v')
            && element[1..].bytes().all(|byte| byte.is_ascii_digit())
    };
    let element = match elements.next() {
        Some(previous) if is_version(last) => previous,
        _ => last,
    };
    match element.rsplit_once('.') {
        Some((base, suffix)) if is_version(suffix) => base,
        _ => element,
    }
}

/// Base name of a receiver type: `*S[T]` → `S`.
fn base_type_name(node: Node<'_>, source: &str) -> String {
    let mut current = node;
    for _ in 0..MAX_DEPTH {
        let next = match current.kind() {
            "pointer_type" | "parenthesized_type" => current.named_child(0),
            "generic_type" => current.field("type"),
            _ => None,
        };
        match next {
            Some(inner) => current = inner,
            None => break,
        }
    }
    one_line(text(current, source))
}

/// Signature of a function, method or interface method spec.
fn signature(
    node: Node<'_>,
    source: &str,
    name: &str,
    is_exported: bool,
    visibility: Option<Visibility>,
) -> Function {
    let mut params = Vec::new();
    if let Some(list) = node.field("parameters") {
        let mut cursor = list.walk();
        for param in list.named_children(&mut cursor) {
            match param.kind() {
                "parameter_declaration" => {
                    let param_type = param
                        .field("type")
                        .map_or(String::new(), |node| one_line(text(node, source)));
                    let mut names = param.walk();
                    let before = params.len();
                    for name in param.children_by_field_name("name", &mut names) {
                        params.push(format!("{} {param_type}", text(name, source)));
                    }
                    if params.len() == before {
                        params.push(param_type);
                    }
                }
                "variadic_parameter_declaration" => params.push(one_line(text(param, source))),
                _ => {}
            }
        }
    }
    Function {
        name: name.to_string(),
        start_line: start_line(node),
        end_line: end_line(node),
        params,
        return_type: node
            .field("result")
            .map(|result| one_line(text(result, source))),
        is_async: false,
        is_exported,
        visibility,
        is_static: false,
    }
}

#[cfg(test)]
mod tests {
    use super::package_name;
    use crate::model::{ClassKind, ImportOrigin, Language};
    use crate::parse::outline;

    #[test]
    fn package_names_skip_versions() {
        assert_eq!(package_name("fmt"), "fmt");
        assert_eq!(package_name("net/http"), "http");
        assert_eq!(package_name("github.com/a/b/v2"), "b");
        assert_eq!(package_name("gopkg.in/yaml.v3"), "yaml");
    }

    #[test]
    fn methods_of_foreign_types_get_a_placeholder() {
        let found = outline(
            Language::Go,
            "package p\nimport \"example.com/x\"\nfunc (s *Server) Start() {}\n\nfunc (s *Server) stop() {}\n",
        );
        assert_eq!(found.imports[0].origin, ImportOrigin::External);
        let class = &found.classes[0];
        assert_eq!(
            (class.name.as_str(), class.kind),
            ("Server", ClassKind::Struct)
        );
        assert_eq!((class.start_line, class.end_line), (3, 5));
        assert_eq!(class.methods.len(), 2);
    }
}
