//! `get_outline`, `get_function`, `get_class`, `find_definition`, `find_references`.

use hone_protocol::ToolSpec;
use hone_tools::{Args, Plan, Tool, ToolContext, ToolError, ToolErrorKind, ToolKind, ToolOutput};
use serde_json::{Value, json};

use super::{SharedIndex, Sources, capped, index_error, lines, signature, source_file};
use crate::indexer::Indexer;
use crate::model::{Class, ClassKind, FileOutline, Function};

/// Source shown by get_function/get_class at most, in lines.
const MAX_SOURCE_LINES: usize = 400;
/// Definitions listed at most.
const MAX_DEFINITIONS: usize = 50;
/// References listed at most.
const MAX_REFERENCES: usize = 100;

pub(super) fn spec(
    name: &str,
    description: &str,
    properties: Value,
    required: &[&str],
) -> ToolSpec {
    ToolSpec {
        name: name.to_string(),
        description: description.to_string(),
        parameters: json!({"type": "object", "properties": properties, "required": required}),
    }
}

pub(super) fn done(text: String) -> Result<Plan, ToolError> {
    Ok(Plan::Done(ToolOutput::ok(text.trim_end().to_string())))
}

/// `get_outline`: a file's imports, classes, functions and TODOs with line numbers.
pub(super) struct GetOutline(pub(super) SharedIndex);

impl Tool for GetOutline {
    fn name(&self) -> &'static str {
        "get_outline"
    }

    fn spec(&self) -> ToolSpec {
        spec(
            self.name(),
            "Outline of a source file from the code index: imports, exports, classes with their \
             members and functions with signatures and line ranges. Cheaper than read_file for \
             finding your way in a file; then read a part with get_function, get_class or \
             read_file start_line/end_line.",
            json!({"path": {"type": "string", "description": "Source file relative to the project root."}}),
            &["path"],
        )
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{path}", arguments)?;
        let given = args.string("path")?;
        let indexer = self.0.fresh()?;
        let (path, outline) = source_file(context, &indexer, &given)?;
        done(render_outline(&path, &outline))
    }
}

fn render_outline(path: &str, outline: &FileOutline) -> String {
    let metrics = outline.metrics;
    let mut out = format!(
        "{path} ({}, {} lines){}\n",
        outline.language.as_str(),
        metrics.lines,
        if outline.has_errors {
            " [syntax errors: outline may be incomplete]"
        } else {
            ""
        }
    );
    if !outline.imports.is_empty() {
        let sources: Vec<&str> = outline.imports.iter().map(|i| i.source.as_str()).collect();
        out.push_str(&format!("imports: {}\n", sources.join(", ")));
    }
    if !outline.exports.is_empty() {
        let names: Vec<&str> = outline.exports.iter().map(|e| e.name.as_str()).collect();
        out.push_str(&format!("exports: {}\n", names.join(", ")));
    }
    let mut items: Vec<(u32, String)> = Vec::new();
    for class in &outline.classes {
        let mut text = format!(
            "{}  [{}]",
            class_header(class),
            lines(class.start_line, class.end_line)
        );
        for property in &class.properties {
            let ty = property
                .type_annotation
                .as_deref()
                .map_or_else(String::new, |ty| format!(": {ty}"));
            text.push_str(&format!(
                "\n  {}{ty}  [line {}]",
                property.name, property.line
            ));
        }
        for method in &class.methods {
            text.push_str(&format!(
                "\n  {}  [{}]",
                signature(method),
                lines(method.start_line, method.end_line)
            ));
        }
        items.push((class.start_line, text));
    }
    for function in &outline.functions {
        items.push((
            function.start_line,
            format!(
                "function {}  [{}]",
                signature(function),
                lines(function.start_line, function.end_line)
            ),
        ));
    }
    items.sort_by_key(|(line, _)| *line);
    for (_, text) in items {
        out.push_str(&text);
        out.push('\n');
    }
    if !outline.todos.is_empty() {
        out.push_str(&format!(
            "{} TODO comments (get_todos lists them)\n",
            outline.todos.len()
        ));
    }
    out
}

fn class_header(class: &Class) -> String {
    let kind = match class.kind {
        ClassKind::Class => "class",
        ClassKind::Struct => "struct",
        ClassKind::Interface => "interface",
        ClassKind::Trait => "trait",
        ClassKind::Enum => "enum",
        ClassKind::Impl => "impl",
    };
    let name = match &class.parent {
        Some(parent) => format!("{parent}.{}", class.name),
        None => class.name.clone(),
    };
    let mut header = format!("{kind} {name}");
    if !class.extends.is_empty() {
        header.push_str(&format!(" extends {}", class.extends.join(", ")));
    }
    if !class.implements.is_empty() {
        let word = if class.kind == ClassKind::Impl {
            "for trait"
        } else {
            "implements"
        };
        header.push_str(&format!(" {word} {}", class.implements.join(", ")));
    }
    header
}

/// Source lines `start..=end` of `path`, numbered like read_file.
fn numbered_source(
    context: &ToolContext,
    path: &str,
    start: u32,
    end: u32,
) -> Result<String, ToolError> {
    let resolved = context.guard().resolve_read(path)?;
    let bytes = std::fs::read(&resolved.absolute)
        .map_err(|error| ToolError::io(format!("cannot read {path}: {error}")))?;
    let (text, _) = hone_tools::files::decode(&bytes);
    context
        .reads()
        .record(&resolved.relative, &hone_tools::files::hash_bytes(&bytes));
    let all: Vec<&str> = text.lines().collect();
    let first = usize::try_from(start.max(1)).unwrap_or(1);
    let last = usize::try_from(end).unwrap_or(usize::MAX).min(all.len());
    if first > last {
        return Ok(String::new());
    }
    let shown_last = last.min(first + MAX_SOURCE_LINES - 1);
    let width = shown_last.to_string().len();
    let mut out = String::new();
    for number in first..=shown_last {
        let line = all[number - 1]
            .strip_suffix('\r')
            .unwrap_or(all[number - 1]);
        if line.is_empty() {
            out.push_str(&format!("{number:>width$}│\n"));
        } else {
            out.push_str(&format!("{number:>width$}│ {line}\n"));
        }
    }
    if shown_last < last {
        out.push_str(&format!(
            "[... stops at line {shown_last} of {last}; call read_file with start_line={} \
             end_line={last} for the rest ...]\n",
            shown_last + 1
        ));
    }
    Ok(out)
}

/// Splits `Class.method` / `Class::method` into the owner and the member name.
fn split_qualified(name: &str) -> (Option<&str>, &str) {
    let name = name.trim().trim_end_matches("()");
    if let Some((owner, member)) = name.rsplit_once("::") {
        return (Some(owner.rsplit("::").next().unwrap_or(owner)), member);
    }
    match name.rsplit_once('.') {
        Some((owner, member)) => (Some(owner.rsplit('.').next().unwrap_or(owner)), member),
        None => (None, name),
    }
}

/// `get_function`: the source of one function or method.
pub(super) struct GetFunction(pub(super) SharedIndex);

impl Tool for GetFunction {
    fn name(&self) -> &'static str {
        "get_function"
    }

    fn spec(&self) -> ToolSpec {
        spec(
            self.name(),
            "Source of one function or method, with line numbers (as read_file shows them). \
             Name a method as `Class.method` or just `method`.",
            json!({
                "path": {"type": "string", "description": "Source file relative to the project root."},
                "name": {"type": "string", "description": "Function name, or Class.method."}
            }),
            &["path", "name"],
        )
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{path, name}", arguments)?;
        let given = args.string("path")?;
        let name = args.string("name")?;
        let indexer = self.0.fresh()?;
        let (path, outline) = source_file(context, &indexer, &given)?;
        let (owner, member) = split_qualified(&name);
        let mut found: Vec<(String, &Function)> = Vec::new();
        if owner.is_none() {
            found.extend(
                outline
                    .functions
                    .iter()
                    .filter(|function| function.name == member)
                    .map(|function| (String::new(), function)),
            );
        }
        for class in &outline.classes {
            if owner.is_some_and(|owner| owner != class.name) {
                continue;
            }
            found.extend(
                class
                    .methods
                    .iter()
                    .filter(|method| method.name == member)
                    .map(|method| (format!("{}.", class.name), method)),
            );
        }
        let Some((prefix, function)) = found.first() else {
            let mut known: Vec<String> = outline.functions.iter().map(|f| f.name.clone()).collect();
            for class in &outline.classes {
                known.extend(
                    class
                        .methods
                        .iter()
                        .map(|m| format!("{}.{}", class.name, m.name)),
                );
            }
            return Err(not_in_file(
                &path,
                "function",
                &name,
                &known,
                "get_function",
            ));
        };
        let mut out = format!(
            "{path}: {prefix}{}  [{}]\n",
            signature(function),
            lines(function.start_line, function.end_line)
        );
        out.push_str(&numbered_source(
            context,
            &path,
            function.start_line,
            function.end_line,
        )?);
        if found.len() > 1 {
            let others: Vec<String> = found[1..]
                .iter()
                .map(|(prefix, f)| format!("{prefix}{} (line {})", f.name, f.start_line))
                .collect();
            out.push_str(&format!("also named so here: {}\n", others.join(", ")));
        }
        done(out)
    }
}

/// `get_class`: the source of one class, struct, interface, trait or enum.
pub(super) struct GetClass(pub(super) SharedIndex);

impl Tool for GetClass {
    fn name(&self) -> &'static str {
        "get_class"
    }

    fn spec(&self) -> ToolSpec {
        spec(
            self.name(),
            "Source of one class (or struct, interface, trait, enum, impl block), with line \
             numbers (as read_file shows them).",
            json!({
                "path": {"type": "string", "description": "Source file relative to the project root."},
                "name": {"type": "string", "description": "Class name."}
            }),
            &["path", "name"],
        )
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{path, name}", arguments)?;
        let given = args.string("path")?;
        let name = args.string("name")?;
        let indexer = self.0.fresh()?;
        let (path, outline) = source_file(context, &indexer, &given)?;
        let (_, wanted) = split_qualified(&name);
        let found: Vec<&Class> = outline
            .classes
            .iter()
            .filter(|class| class.name == wanted)
            .collect();
        let Some(first) = found.first() else {
            let known: Vec<String> = outline.classes.iter().map(|c| c.name.clone()).collect();
            return Err(not_in_file(&path, "class", &name, &known, "get_class"));
        };
        let mut out = String::new();
        // Several blocks of one name (a Rust struct and its impls) are shown together.
        for class in found.iter().take(4) {
            out.push_str(&format!(
                "{path}: {}  [{}]\n",
                class_header(class),
                lines(class.start_line, class.end_line)
            ));
            out.push_str(&numbered_source(
                context,
                &path,
                class.start_line,
                class.end_line,
            )?);
        }
        if found.len() > 4 {
            out.push_str(&format!(
                "… {} more blocks named {}\n",
                found.len() - 4,
                first.name
            ));
        }
        done(out)
    }
}

fn not_in_file(path: &str, what: &str, name: &str, known: &[String], tool: &str) -> ToolError {
    let (_, member) = split_qualified(name);
    let member_lower = member.to_ascii_lowercase();
    let mut close: Vec<&String> = known
        .iter()
        .filter(|known| {
            let known = known.to_ascii_lowercase();
            let last = known.rsplit('.').next().unwrap_or(&known);
            known.contains(&member_lower) || member_lower.contains(last)
        })
        .collect();
    if close.is_empty() {
        close = known.iter().collect();
    }
    let hint = if close.is_empty() {
        format!("the index found no {what} there; use read_file")
    } else {
        let names: Vec<String> = close.iter().take(20).map(|k| format!("`{k}`")).collect();
        format!("it has {}; call {tool} with one of these", names.join(", "))
    };
    ToolError::new(
        ToolErrorKind::NotFound,
        format!(
            "no {what} `{name}` in {path}: {hint}, or find_definition {{\"symbol\": \"{member}\"}} \
             to find where it is defined"
        ),
    )
}

/// An error for an unknown symbol with close names from the index.
fn unknown_symbol(indexer: &Indexer, symbol: &str) -> ToolError {
    let (_, member) = split_qualified(symbol);
    let close = indexer
        .store()
        .search_symbols(member, 8)
        .unwrap_or_default();
    let mut names: Vec<String> = Vec::new();
    for site in close {
        let shown = format!("`{}` ({}:{})", site.name, site.path, site.line);
        if !names
            .iter()
            .any(|n| n.starts_with(&format!("`{}`", site.name)))
        {
            names.push(shown);
        }
    }
    let hint = if names.is_empty() {
        "search_files finds it as text".to_string()
    } else {
        format!("close names: {}", names.join(", "))
    };
    ToolError::new(
        ToolErrorKind::NotFound,
        format!("the code index has no symbol `{symbol}`; {hint}"),
    )
}

/// The name to look up: the symbol itself, else its last `.`/`::` segment.
fn lookup_name<T>(
    symbol: &str,
    query: impl Fn(&str) -> Result<Vec<T>, crate::IndexError>,
) -> Result<(String, Vec<T>), ToolError> {
    let exact = symbol.trim().trim_end_matches("()");
    let sites = query(exact).map_err(index_error)?;
    if !sites.is_empty() {
        return Ok((exact.to_string(), sites));
    }
    let (_, member) = split_qualified(exact);
    if member != exact {
        let sites = query(member).map_err(index_error)?;
        return Ok((member.to_string(), sites));
    }
    Ok((exact.to_string(), sites))
}

/// `find_definition`: where a symbol is defined.
pub(super) struct FindDefinition(pub(super) SharedIndex);

impl Tool for FindDefinition {
    fn name(&self) -> &'static str {
        "find_definition"
    }

    fn spec(&self) -> ToolSpec {
        spec(
            self.name(),
            "Where a function, class, method, type or variable is defined in the project (exact, \
             case-sensitive name): file, line and the defining line. Unknown names get close \
             matches.",
            json!({"symbol": {"type": "string", "description": "The name, e.g. `parseConfig` or `Store.get`."}}),
            &["symbol"],
        )
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{symbol}", arguments)?;
        let symbol = args.string("symbol")?;
        let indexer = self.0.fresh()?;
        let (name, sites) = lookup_name(&symbol, |name| indexer.store().definitions(name))?;
        if sites.is_empty() {
            return Err(unknown_symbol(&indexer, &symbol));
        }
        let mut sources = Sources::default();
        let plural = if sites.len() == 1 { "" } else { "s" };
        let mut out = format!("{} definition{plural} of `{name}`:\n", sites.len());
        let items: Vec<String> = sites
            .iter()
            .map(|site| {
                let text = sources
                    .line(context, &site.path, site.line)
                    .unwrap_or_default();
                let kind = format!("{:?}", site.kind).to_ascii_lowercase();
                format!("{}:{}  {kind}  {text}", site.path, site.line)
            })
            .collect();
        out.push_str(&capped(items, MAX_DEFINITIONS, ""));
        done(out)
    }
}

/// `find_references`: where a symbol is used.
pub(super) struct FindReferences(pub(super) SharedIndex);

impl Tool for FindReferences {
    fn name(&self) -> &'static str {
        "find_references"
    }

    fn spec(&self) -> ToolSpec {
        spec(
            self.name(),
            "Where a symbol is used in the project (calls, type uses, imports; exact, \
             case-sensitive name), with the line of each use. Check the callers before \
             changing a signature.",
            json!({"symbol": {"type": "string", "description": "The name, e.g. `parseConfig`."}}),
            &["symbol"],
        )
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{symbol}", arguments)?;
        let symbol = args.string("symbol")?;
        let indexer = self.0.fresh()?;
        let (name, sites) = lookup_name(&symbol, |name| indexer.store().references(name))?;
        if sites.is_empty() {
            let defined = indexer.store().definitions(&name).map_err(index_error)?;
            if let Some(site) = defined.first() {
                return done(format!(
                    "no references to `{name}` in the project (defined at {}:{}); search_files \
                     finds uses the index misses, such as dynamic calls or strings",
                    site.path, site.line
                ));
            }
            return Err(unknown_symbol(&indexer, &symbol));
        }
        let files = sites
            .iter()
            .map(|site| site.path.as_str())
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        let plural = if sites.len() == 1 { "" } else { "s" };
        let mut out = format!(
            "{} reference{plural} to `{name}` in {files} files:\n",
            sites.len()
        );
        let mut sources = Sources::default();
        let items: Vec<String> = sites
            .iter()
            .map(|site| {
                let text = sources
                    .line(context, &site.path, site.line)
                    .unwrap_or_default();
                format!("{}:{}:{}  {text}", site.path, site.line, site.column)
            })
            .collect();
        out.push_str(&capped(items, MAX_REFERENCES, "; narrow with search_files"));
        done(out)
    }
}
