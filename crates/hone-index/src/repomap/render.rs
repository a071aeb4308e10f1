//! One file's section of the repo map: its path and an outline of signatures.

use std::collections::HashSet;

use crate::model::{
    Class, ClassKind, Export, FileOutline, Function, Language, Property, SymbolKind, Visibility,
};

/// Outline lines shown per file at most; the rest is summarised in one line.
pub const MAX_SECTION_LINES: usize = 30;

/// Members shown per class at most; the rest is summarised in one line.
const MAX_CLASS_MEMBERS: usize = 12;

/// Longest type or parameter list shown in full.
const MAX_TEXT_CHARS: usize = 80;

/// A file's section of the repo map: `path:` and indented signatures (classes with their
/// public members, functions with parameters and return types, other exported names), in
/// source order. A file without any of these is just its path. Every line ends with `\n`.
pub fn render_file(path: &str, outline: &FileOutline) -> String {
    let language = outline.language;
    let surface = Surface::of(outline);
    let mut items: Vec<(u32, Vec<String>)> = Vec::new();
    for class in outline
        .classes
        .iter()
        .filter(|class| surface.shows_class(class))
    {
        let mut lines = vec![format!("  {}", class_header(language, class))];
        // A trait impl's methods are the trait's; its header says enough.
        let show_members = class.kind != ClassKind::Impl || class.implements.is_empty();
        if show_members {
            let properties = class
                .properties
                .iter()
                .filter(|property| property.visibility != Visibility::Private)
                .map(|property| property_line(language, property));
            let methods = class
                .methods
                .iter()
                .filter(|method| method.visibility != Some(Visibility::Private))
                .map(|method| function_line(language, method, Role::Method));
            let mut members: Vec<String> = properties.chain(methods).collect();
            if members.len() > MAX_CLASS_MEMBERS {
                let hidden = members.len() - (MAX_CLASS_MEMBERS - 1);
                members.truncate(MAX_CLASS_MEMBERS - 1);
                members.push(format!("… {hidden} more"));
            }
            lines.extend(members.into_iter().map(|member| format!("    {member}")));
        }
        items.push((class.start_line, lines));
    }
    for function in outline
        .functions
        .iter()
        .filter(|function| surface.shows_function(function))
    {
        items.push((
            function.start_line,
            vec![format!(
                "  {}",
                function_line(language, function, Role::Free)
            )],
        ));
    }
    let shown: HashSet<&str> = outline
        .classes
        .iter()
        .map(|class| class.name.as_str())
        .chain(
            outline
                .functions
                .iter()
                .map(|function| function.name.as_str()),
        )
        .collect();
    for export in outline
        .exports
        .iter()
        .filter(|export| !shown.contains(export.name.as_str()))
    {
        items.push((
            export.line,
            vec![format!("  {}", export_line(language, export))],
        ));
    }
    items.sort_by_key(|(line, _)| *line);
    let mut lines: Vec<String> = items.into_iter().flat_map(|(_, lines)| lines).collect();
    if lines.is_empty() {
        return format!("{path}\n");
    }
    if lines.len() > MAX_SECTION_LINES {
        let hidden = lines.len() - (MAX_SECTION_LINES - 1);
        lines.truncate(MAX_SECTION_LINES - 1);
        lines.push(format!("  … {hidden} more"));
    }
    let mut section = format!("{path}:\n");
    for line in lines {
        section.push_str(&line);
        section.push('\n');
    }
    section
}

/// Which top-level items a section shows: a file's exported surface when it exports
/// anything (helpers and private types are its own business), else everything; never items
/// of test modules.
struct Surface<'o> {
    exports_anything: bool,
    exported_types: HashSet<&'o str>,
    defined_types: HashSet<&'o str>,
}

impl<'o> Surface<'o> {
    fn of(outline: &'o FileOutline) -> Self {
        let types = outline
            .classes
            .iter()
            .filter(|class| class.kind != ClassKind::Impl);
        Self {
            exports_anything: outline
                .functions
                .iter()
                .any(|function| function.is_exported)
                || types.clone().any(|class| class.is_exported),
            exported_types: types
                .clone()
                .filter(|class| class.is_exported)
                .map(|class| class.name.as_str())
                .collect(),
            defined_types: types.map(|class| class.name.as_str()).collect(),
        }
    }

    fn shows_class(&self, class: &Class) -> bool {
        if in_test_module(&class.name) || class.parent.as_deref().is_some_and(in_test_module) {
            return false;
        }
        if !self.exports_anything {
            return true;
        }
        match class.kind {
            // Impl blocks are shown with their type; those of foreign types always.
            ClassKind::Impl => {
                let name = class.name.as_str();
                self.exported_types.contains(name) || !self.defined_types.contains(name)
            }
            _ => class.is_exported,
        }
    }

    fn shows_function(&self, function: &Function) -> bool {
        !in_test_module(&function.name) && (!self.exports_anything || function.is_exported)
    }
}

/// Whether a qualified name lies in a test module (`tests::it_works`).
fn in_test_module(name: &str) -> bool {
    name.rsplit_once("::").is_some_and(|(modules, _)| {
        modules
            .split("::")
            .any(|module| matches!(module, "tests" | "test"))
    })
}

/// Whether a function is free-standing or a member.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Free,
    Method,
}

fn class_header(language: Language, class: &Class) -> String {
    let name = match &class.parent {
        Some(parent) => format!("{parent}.{}", class.name),
        None => class.name.clone(),
    };
    let keyword = match class.kind {
        ClassKind::Impl => {
            return match class.implements.first() {
                Some(interface) => format!("impl {interface} for {name}"),
                None => format!("impl {name}"),
            };
        }
        ClassKind::Struct | ClassKind::Interface if language == Language::Go => {
            let shape = if class.kind == ClassKind::Struct {
                "struct"
            } else {
                "interface"
            };
            let mut header = format!("type {name} {shape}");
            if !class.extends.is_empty() {
                header.push_str(&format!(" embeds {}", class.extends.join(", ")));
            }
            return header;
        }
        ClassKind::Class => "class",
        ClassKind::Struct => "struct",
        ClassKind::Interface => "interface",
        ClassKind::Trait => "trait",
        ClassKind::Enum => "enum",
    };
    let mut header = format!("{keyword} {name}");
    let bases: Vec<&str> = class
        .extends
        .iter()
        .chain(&class.implements)
        .map(String::as_str)
        .collect();
    match language {
        Language::Python if !bases.is_empty() => {
            header.push_str(&format!("({})", bases.join(", ")))
        }
        Language::Rust if !bases.is_empty() => header.push_str(&format!(": {}", bases.join(" + "))),
        Language::Cpp if !bases.is_empty() => header.push_str(&format!(" : {}", bases.join(", "))),
        Language::Python | Language::Rust | Language::Cpp => {}
        _ => {
            if !class.extends.is_empty() {
                header.push_str(&format!(" extends {}", class.extends.join(", ")));
            }
            if !class.implements.is_empty() {
                header.push_str(&format!(" implements {}", class.implements.join(", ")));
            }
        }
    }
    header
}

fn function_line(language: Language, function: &Function, role: Role) -> String {
    let name = &function.name;
    let params: Vec<&str> = function
        .params
        .iter()
        .map(String::as_str)
        .filter(|param| {
            !(language == Language::Python
                && role == Role::Method
                && matches!(*param, "self" | "cls"))
        })
        .collect();
    let params = shorten(&params.join(", "));
    let returns = function
        .return_type
        .as_deref()
        .map(|ret| {
            ret.trim()
                .trim_start_matches("->")
                .trim_start_matches(':')
                .trim()
        })
        .filter(|ret| !ret.is_empty())
        .map(shorten);
    let mut line = String::new();
    if function.is_static && has_static_keyword(language) {
        line.push_str("static ");
    }
    if function.is_async {
        line.push_str("async ");
    }
    match language {
        Language::TypeScript | Language::Tsx | Language::JavaScript => {
            if role == Role::Free {
                line.push_str("function ");
            }
            line.push_str(&format!("{name}({params})"));
            if let Some(ret) = returns {
                line.push_str(&format!(": {ret}"));
            }
        }
        Language::Python | Language::Rust => {
            let keyword = if language == Language::Python {
                "def"
            } else {
                "fn"
            };
            line.push_str(&format!("{keyword} {name}({params})"));
            if let Some(ret) = returns {
                line.push_str(&format!(" -> {ret}"));
            }
        }
        Language::Go => {
            line.push_str(&format!("func {name}({params})"));
            if let Some(ret) = returns {
                line.push_str(&format!(" {ret}"));
            }
        }
        Language::Java | Language::C | Language::Cpp | Language::Json | Language::Yaml => {
            if let Some(ret) = returns {
                line.push_str(&format!("{ret} "));
            }
            line.push_str(&format!("{name}({params})"));
        }
    }
    line
}

fn property_line(language: Language, property: &Property) -> String {
    let name = &property.name;
    let prefix = match (property.is_static, language) {
        (true, Language::Rust) => "const ",
        (true, _) if has_static_keyword(language) => "static ",
        _ => "",
    };
    let line = match (
        language,
        property.type_annotation.as_deref().map(shorten).as_deref(),
    ) {
        (_, None) => name.clone(),
        (Language::Go, Some(ty)) => format!("{name} {ty}"),
        (Language::Java | Language::C | Language::Cpp, Some(ty)) => format!("{ty} {name}"),
        (_, Some(ty)) => format!("{name}: {ty}"),
    };
    format!("{prefix}{line}")
}

/// `text` on one line, cut to [`MAX_TEXT_CHARS`]; a long or commented `{ … }` or `( … )`
/// body is elided whole.
fn shorten(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    // Rust struct-like variants arrive with their fields' doc comments folded in.
    let has_comment = text.contains("//");
    if text.chars().count() <= MAX_TEXT_CHARS && !has_comment {
        return text;
    }
    match text.chars().next() {
        Some('{') => "{ … }".to_string(),
        Some('(') => "( … )".to_string(),
        _ => {
            let cut: String = text.chars().take(MAX_TEXT_CHARS).collect();
            format!("{cut}…")
        }
    }
}

/// Whether the language writes `static` on members (Rust associated functions simply lack
/// `self`; Python's `@staticmethod` is a decorator).
fn has_static_keyword(language: Language) -> bool {
    matches!(
        language,
        Language::TypeScript
            | Language::Tsx
            | Language::JavaScript
            | Language::Java
            | Language::C
            | Language::Cpp
    )
}

fn export_line(language: Language, export: &Export) -> String {
    let name = &export.name;
    let keyword = match (export.kind, language) {
        (SymbolKind::Variable, Language::Python | Language::Java | Language::C | Language::Cpp) => {
            None
        }
        (SymbolKind::Variable, Language::Go) => Some("var"),
        (SymbolKind::Variable, _) => Some("const"),
        (SymbolKind::Type, _) => Some("type"),
        (SymbolKind::Module, Language::Rust) => Some("mod"),
        (SymbolKind::Module, Language::TypeScript | Language::Tsx | Language::JavaScript) => {
            Some("namespace")
        }
        (SymbolKind::Module, _) => Some("module"),
        (SymbolKind::Enum, _) => Some("enum"),
        (SymbolKind::Interface, _) => Some("interface"),
        (SymbolKind::Class, _) => Some("class"),
        (SymbolKind::Struct, _) => Some("struct"),
        (SymbolKind::Trait, _) => Some("trait"),
        (SymbolKind::Function, Language::Python) => Some("def"),
        (SymbolKind::Function, Language::Rust) => Some("fn"),
        (SymbolKind::Function, Language::Go) => Some("func"),
        (SymbolKind::Function, Language::TypeScript | Language::Tsx | Language::JavaScript) => {
            Some("function")
        }
        (SymbolKind::Function | SymbolKind::Method | SymbolKind::Property, _) => None,
    };
    match keyword {
        Some(keyword) => format!("{keyword} {name}"),
        None => name.clone(),
    }
}
