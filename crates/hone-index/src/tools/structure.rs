//! `get_structure`, `get_complexity` and `get_todos`: views over many files.

use std::collections::BTreeMap;

use hone_protocol::ToolSpec;
use hone_tools::{Args, Plan, Tool, ToolContext, ToolError, ToolErrorKind, ToolKind};
use serde_json::{Value, json};

use super::code::{done, spec};
use super::{SharedIndex, capped, index_error, relative, signature, source_file, under};
use crate::indexer::Indexer;
use crate::model::FileMetrics;

/// Depth shown by get_structure by default, and at most.
const DEFAULT_DEPTH: u64 = 2;
const MAX_DEPTH: u64 = 8;
/// Lines get_structure shows at most.
const MAX_STRUCTURE_LINES: usize = 300;
/// Files get_complexity ranks, and functions it lists for one file.
const TOP_FILES: usize = 20;
const TOP_FUNCTIONS: usize = 10;
/// TODOs listed at most.
const MAX_TODOS: usize = 200;

/// The indexed files under `prefix`; an error when there are none.
fn files_under<'a>(
    context: &ToolContext,
    indexer: &'a Indexer,
    given: Option<&str>,
) -> Result<(String, Vec<&'a str>), ToolError> {
    let prefix = relative(context, given)?;
    let files: Vec<&str> = indexer
        .files()
        .keys()
        .map(String::as_str)
        .filter(|path| under(path, &prefix))
        .collect();
    if files.is_empty() {
        let given = given.unwrap_or(".");
        if prefix.is_empty() || context.root().join(&prefix).exists() {
            return Err(ToolError::new(
                ToolErrorKind::NotFound,
                format!(
                    "the code index has no files under `{given}` (empty or ignored); use list_dir"
                ),
            ));
        }
        return Err(hone_tools::files::not_found(
            context,
            given,
            "get_structure without a path shows the project.",
        ));
    }
    Ok((prefix, files))
}

/// `get_structure`: the project's directory tree from the index.
pub(super) struct GetStructure(pub(super) SharedIndex);

impl Tool for GetStructure {
    fn name(&self) -> &'static str {
        "get_structure"
    }

    fn spec(&self) -> ToolSpec {
        spec(
            self.name(),
            "The project's layout from the code index: directories with their file counts and \
             languages, files with their line counts, down to `depth` levels (default 2). Give \
             `path` to look inside one directory.",
            json!({
                "path": {"type": "string", "description": "Directory relative to the project root (default: the root)."},
                "depth": {"type": "integer", "description": "Directory levels to expand (default 2, at most 8)."}
            }),
            &[],
        )
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{path?, depth?}", arguments)?;
        let given = args.opt_string("path")?;
        let depth = args
            .opt_integer("depth")?
            .unwrap_or(DEFAULT_DEPTH)
            .clamp(1, MAX_DEPTH);
        let indexer = self.0.fresh()?;
        let (prefix, files) = files_under(context, &indexer, given.as_deref())?;
        let metrics = indexer.store().metrics().map_err(index_error)?;
        let strip = if prefix.is_empty() {
            0
        } else {
            prefix.len() + 1
        };
        let entries: Vec<(&str, &str)> = files
            .iter()
            .filter(|path| path.len() > strip)
            .map(|path| (&path[strip..], *path))
            .collect();
        let shown = if prefix.is_empty() {
            "."
        } else {
            prefix.as_str()
        };
        let mut lines = vec![format!("{shown}/ — {}", summary(&indexer, &files))];
        if entries.is_empty() {
            // The path is a file.
            return done(format!(
                "{prefix} is a file; get_outline shows what it contains"
            ));
        }
        tree(&indexer, &metrics, &entries, depth, 1, &mut lines);
        let total = lines.len();
        let mut out: String = lines
            .into_iter()
            .take(MAX_STRUCTURE_LINES)
            .map(|line| line + "\n")
            .collect();
        if total > MAX_STRUCTURE_LINES {
            out.push_str(&format!(
                "… {} more lines; call get_structure with a subdirectory as path or a smaller depth\n",
                total - MAX_STRUCTURE_LINES
            ));
        }
        done(out)
    }
}

/// `N files (rust 12, python 3)`.
fn summary(indexer: &Indexer, files: &[&str]) -> String {
    let mut languages: BTreeMap<&str, usize> = BTreeMap::new();
    for path in files {
        if let Some(language) = indexer
            .files()
            .get(*path)
            .and_then(|record| record.language())
        {
            *languages.entry(language.as_str()).or_default() += 1;
        }
    }
    let plural = if files.len() == 1 { "" } else { "s" };
    let mut text = format!("{} file{plural}", files.len());
    if !languages.is_empty() {
        let mut counts: Vec<(&str, usize)> = languages.into_iter().collect();
        counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let parts: Vec<String> = counts
            .iter()
            .map(|(name, n)| format!("{name} {n}"))
            .collect();
        text.push_str(&format!(" ({})", parts.join(", ")));
    }
    text
}

/// Appends the tree of `entries` (path below the shown directory, full path), sorted,
/// directories first.
fn tree(
    indexer: &Indexer,
    metrics: &BTreeMap<String, FileMetrics>,
    entries: &[(&str, &str)],
    depth: u64,
    level: usize,
    lines: &mut Vec<String>,
) {
    let indent = "  ".repeat(level);
    let mut directories: BTreeMap<&str, Vec<(&str, &str)>> = BTreeMap::new();
    let mut files: Vec<&str> = Vec::new();
    for (rest, full) in entries {
        match rest.split_once('/') {
            Some((directory, below)) => directories
                .entry(directory)
                .or_default()
                .push((below, full)),
            None => files.push(full),
        }
    }
    for (directory, below) in &directories {
        let full: Vec<&str> = below.iter().map(|(_, full)| *full).collect();
        lines.push(format!(
            "{indent}{directory}/ — {}",
            summary(indexer, &full)
        ));
        if depth > 1 {
            tree(indexer, metrics, below, depth - 1, level + 1, lines);
        }
    }
    for full in files {
        let name = full.rsplit('/').next().unwrap_or(full);
        match metrics.get(full) {
            Some(measures) => lines.push(format!("{indent}{name}  {} lines", measures.lines)),
            None => lines.push(format!("{indent}{name}")),
        }
    }
}

/// `get_complexity`: the most complex files, or one file's measures.
pub(super) struct GetComplexity(pub(super) SharedIndex);

impl Tool for GetComplexity {
    fn name(&self) -> &'static str {
        "get_complexity"
    }

    fn spec(&self) -> ToolSpec {
        spec(
            self.name(),
            "Complexity measures from the code index. Without a path (or with a directory): the \
             most complex source files (complexity = 1 + branch points; lines of code; deepest \
             nesting). With a file: its measures and its longest functions.",
            json!({"path": {"type": "string", "description": "File or directory relative to the project root (default: the whole project)."}}),
            &[],
        )
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{path?}", arguments)?;
        let given = args.opt_string("path")?;
        let indexer = self.0.fresh()?;
        if let Some(given) = given.as_deref() {
            let path = relative(context, Some(given))?;
            if indexer.files().contains_key(&path) {
                return file_complexity(context, &indexer, given);
            }
        }
        let (prefix, files) = files_under(context, &indexer, given.as_deref())?;
        let metrics = indexer.store().metrics().map_err(index_error)?;
        let mut ranked: Vec<(&str, &FileMetrics)> = files
            .iter()
            .filter_map(|path| metrics.get(*path).map(|measures| (*path, measures)))
            .collect();
        if ranked.is_empty() {
            return done(format!(
                "no parsed source files under `{}`",
                given.unwrap_or_default()
            ));
        }
        ranked.sort_by(|a, b| {
            b.1.complexity
                .cmp(&a.1.complexity)
                .then(b.1.loc.cmp(&a.1.loc))
                .then(a.0.cmp(b.0))
        });
        let scope = if prefix.is_empty() {
            "the project".to_string()
        } else {
            prefix
        };
        let mut out = format!(
            "most complex of {} source files in {scope} (complexity, lines of code, max nesting):\n",
            ranked.len()
        );
        let items: Vec<String> = ranked
            .iter()
            .map(|(path, m)| {
                format!(
                    "{:>5}  {:>6} loc  nesting {:>2}  {path}",
                    m.complexity, m.loc, m.max_nesting
                )
            })
            .collect();
        out.push_str(&capped(
            items,
            TOP_FILES,
            " files; give a directory as path to narrow",
        ));
        done(out)
    }
}

fn file_complexity(
    context: &ToolContext,
    indexer: &Indexer,
    given: &str,
) -> Result<Plan, ToolError> {
    let (path, outline) = source_file(context, indexer, given)?;
    let m = outline.metrics;
    let mut out = format!(
        "{path}: complexity {}, {} lines ({} of code), max nesting {}, {} imports\n",
        m.complexity, m.lines, m.loc, m.max_nesting, m.import_count
    );
    let mut functions: Vec<(String, u32, u32)> = outline
        .functions
        .iter()
        .map(|f| (signature(f), f.start_line, f.end_line))
        .collect();
    for class in &outline.classes {
        functions.extend(class.methods.iter().map(|f| {
            (
                format!("{}.{}", class.name, signature(f)),
                f.start_line,
                f.end_line,
            )
        }));
    }
    functions.sort_by(|a, b| (b.2 - b.1).cmp(&(a.2 - a.1)).then(a.1.cmp(&b.1)));
    if !functions.is_empty() {
        out.push_str("longest functions:\n");
        let items: Vec<String> = functions
            .iter()
            .map(|(name, start, end)| {
                format!(
                    "{:>5} lines  {name}  [lines {start}–{end}]",
                    end + 1 - start
                )
            })
            .collect();
        out.push_str(&capped(items, TOP_FUNCTIONS, ""));
    }
    done(out)
}

/// `get_todos`: TODO/FIXME/HACK/XXX comments.
pub(super) struct GetTodos(pub(super) SharedIndex);

impl Tool for GetTodos {
    fn name(&self) -> &'static str {
        "get_todos"
    }

    fn spec(&self) -> ToolSpec {
        spec(
            self.name(),
            "TODO, FIXME, HACK and XXX comments in source files, with file and line; the whole \
             project by default, or one file or directory.",
            json!({"path": {"type": "string", "description": "File or directory relative to the project root (default: the whole project)."}}),
            &[],
        )
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{path?}", arguments)?;
        let given = args.opt_string("path")?;
        let indexer = self.0.fresh()?;
        let (prefix, _) = files_under(context, &indexer, given.as_deref())?;
        let outlines = match indexer.store().outline(&prefix).map_err(index_error)? {
            Some(outline) => BTreeMap::from([(prefix.clone(), outline)]),
            None => indexer.store().outlines().map_err(index_error)?,
        };
        let items: Vec<String> = outlines
            .iter()
            .filter(|(path, _)| under(path, &prefix))
            .flat_map(|(path, outline)| {
                outline.todos.iter().map(move |todo| {
                    format!("{path}:{}  {}: {}", todo.line, todo.tag, todo.text.trim())
                })
            })
            .collect();
        let scope = if prefix.is_empty() {
            "the project".to_string()
        } else {
            prefix
        };
        if items.is_empty() {
            return done(format!("no TODO, FIXME, HACK or XXX comments in {scope}"));
        }
        let mut out = format!("{} TODO comments in {scope}:\n", items.len());
        out.push_str(&capped(items, MAX_TODOS, "; give a path to narrow"));
        done(out)
    }
}
