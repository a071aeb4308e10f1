//! `search_files`: ripgrep's walker and searcher over the project, in parallel. Files that
//! may hold secrets (`hone_policy::SecretFiles`) are searched, but only how many of their
//! lines match is said: their content is read with `read_file`, which asks the user.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::sinks::Lossy;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder};
use hone_protocol::ToolSpec;
use ignore::WalkState;
use serde_json::{Value, json};

use crate::files::glob::PathPattern;
use crate::files::suggest::not_found;
use crate::files::walk::{project_walker, relative_path};
use crate::{Args, Plan, Tool, ToolContext, ToolError, ToolKind, ToolOutput};

const DEFAULT_MAX_RESULTS: usize = 100;
const MAX_RESULTS_LIMIT: usize = 1_000;
/// Matches counted at most; the search stops there.
const MAX_COUNTED: usize = 20_000;
/// Matched lines are shortened to this many characters.
const MAX_LINE_CHARS: usize = 300;

const USAGE: &str = "{pattern, path?, glob?, regex?, case_sensitive?, max_results?}";

/// `search_files`: lines matching a pattern.
pub(crate) struct SearchFiles;

impl Tool for SearchFiles {
    fn name(&self) -> &'static str {
        "search_files"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: format!(
                "Search file contents line by line (like ripgrep), skipping ignored and binary \
                 files. Prints `path:line: text`. The pattern is literal text unless regex=true; \
                 case-insensitive unless case_sensitive=true. At most max_results matches \
                 (default {DEFAULT_MAX_RESULTS}, up to {MAX_RESULTS_LIMIT})."
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "description": "Text (or regex with regex=true) to find within one line."},
                    "path": {"type": "string", "description": "File or directory to search; default: the project root."},
                    "glob": {"type": "string", "description": "Only files matching this glob, e.g. `*.rs` or `src/**/*.ts`."},
                    "regex": {"type": "boolean", "description": "Treat pattern as a regular expression (Rust regex syntax). Default false."},
                    "case_sensitive": {"type": "boolean", "description": "Match case exactly. Default false."},
                    "max_results": {"type": "integer", "description": "Matches to show."}
                },
                "required": ["pattern"]
            }),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), USAGE, arguments)?;
        let query = Query {
            pattern: args.string("pattern")?,
            regex: args.opt_bool("regex")?.unwrap_or(false),
            case_sensitive: args.opt_bool("case_sensitive")?.unwrap_or(false),
        };
        if query.pattern.is_empty() {
            return Err(ToolError::invalid(
                "pattern is empty; give the text to search for",
            ));
        }
        let glob = args
            .opt_string("glob")?
            .filter(|glob| !glob.trim().is_empty())
            .map(|glob| PathPattern::new(&glob))
            .transpose()?;
        let max_results = args
            .opt_integer("max_results")?
            .map_or(DEFAULT_MAX_RESULTS, |max| {
                usize::try_from(max).unwrap_or(MAX_RESULTS_LIMIT)
            })
            .clamp(1, MAX_RESULTS_LIMIT);
        let given = args.opt_string("path")?.unwrap_or_else(|| ".".to_string());
        let resolved = context.guard().resolve_read(&given)?;
        if !resolved.absolute.exists() {
            return Err(not_found(context, &given, ""));
        }
        let matcher = query.matcher()?;
        let found = search(context, &resolved.absolute, &matcher, glob.as_ref());
        Ok(Plan::Done(ToolOutput::ok(
            found.render(&query, max_results),
        )))
    }
}

struct Query {
    pattern: String,
    regex: bool,
    case_sensitive: bool,
}

impl Query {
    fn matcher(&self) -> Result<RegexMatcher, ToolError> {
        RegexMatcherBuilder::new()
            .case_insensitive(!self.case_sensitive)
            .fixed_strings(!self.regex)
            .line_terminator(Some(b'\n'))
            .build(&self.pattern)
            .map_err(|error| {
                let hint = if self.regex {
                    "set regex=false to search for the text literally, or escape special \
                     characters with `\\`"
                } else {
                    "the search works line by line: search for one line of the text"
                };
                ToolError::invalid(format!(
                    "invalid search pattern `{}`: {error}; {hint}",
                    self.pattern
                ))
            })
    }

    fn describe(&self) -> String {
        format!(
            "{}, {}",
            if self.regex { "regex" } else { "literal" },
            if self.case_sensitive {
                "case-sensitive"
            } else {
                "case-insensitive"
            }
        )
    }
}

/// One matching line.
struct Hit {
    path: String,
    line: u64,
    text: String,
}

struct Found {
    hits: Vec<Hit>,
    /// Matches seen (may exceed `hits` when the search stopped collecting).
    counted: usize,
    /// Files that may hold secrets, with how many of their lines matched.
    withheld: Vec<(String, usize)>,
}

fn search(
    context: &ToolContext,
    start: &std::path::Path,
    matcher: &RegexMatcher,
    glob: Option<&PathPattern>,
) -> Found {
    let root = context.root();
    let hits = Mutex::new(Vec::new());
    let withheld = Mutex::new(Vec::new());
    let counted = AtomicUsize::new(0);
    project_walker(context, start).build_parallel().run(|| {
        let mut searcher = searcher();
        let matcher = matcher.clone();
        let (hits, counted, withheld) = (&hits, &counted, &withheld);
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            // Symbolic links are skipped: their target may lie outside the project.
            if !entry.file_type().is_some_and(|kind| kind.is_file()) {
                return WalkState::Continue;
            }
            // The relative path is only worked out when it is needed (a glob, or a match).
            let mut relative = None;
            if let Some(glob) = glob {
                let path = relative.insert(relative_path(root, entry.path()));
                if !glob.matches(path) {
                    return WalkState::Continue;
                }
            }
            let mut lines: Vec<(u64, String)> = Vec::new();
            // A file that cannot be read is skipped like a binary one.
            let Ok(file) = hone_fs::open_regular(entry.path()) else {
                return WalkState::Continue;
            };
            let _ = searcher.search_file(
                &matcher,
                &file,
                Lossy(|line, text| {
                    lines.push((line, shorten(text)));
                    Ok(lines.len() < MAX_COUNTED)
                }),
            );
            if lines.is_empty() {
                return WalkState::Continue;
            }
            let path = relative.unwrap_or_else(|| relative_path(root, entry.path()));
            if context.guard().is_secret(&path) {
                withheld
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push((path, lines.len()));
                return WalkState::Continue;
            }
            let total = counted.fetch_add(lines.len(), Ordering::Relaxed) + lines.len();
            hits.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .extend(lines.into_iter().map(|(line, text)| Hit {
                    path: path.clone(),
                    line,
                    text,
                }));
            if total >= MAX_COUNTED {
                WalkState::Quit
            } else {
                WalkState::Continue
            }
        })
    });
    let mut hits = hits
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    hits.sort_by(|a, b| a.path.cmp(&b.path).then(a.line.cmp(&b.line)));
    let mut withheld = withheld
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    withheld.sort();
    Found {
        counted: counted.into_inner().max(hits.len()),
        hits,
        withheld,
    }
}

fn searcher() -> Searcher {
    SearcherBuilder::new()
        .binary_detection(BinaryDetection::quit(0))
        .line_number(true)
        .build()
}

fn shorten(text: &str) -> String {
    let text = text.trim();
    if text.chars().count() <= MAX_LINE_CHARS {
        return text.to_string();
    }
    let kept: String = text.chars().take(MAX_LINE_CHARS).collect();
    format!("{kept} …")
}

impl Found {
    fn render(&self, query: &Query, max_results: usize) -> String {
        let mut out = self.render_hits(query, max_results);
        if !self.withheld.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        for (path, lines) in &self.withheld {
            out.push_str(&format!(
                "[{path} may hold secrets: {lines} matching line{} not shown; read_file asks the \
                 user before showing it]\n",
                if *lines == 1 { "" } else { "s" }
            ));
        }
        out
    }

    fn render_hits(&self, query: &Query, max_results: usize) -> String {
        let pattern = &query.pattern;
        if self.hits.is_empty() {
            let retry = if query.regex || query.pattern.len() < 3 {
                "try another spelling or a shorter pattern"
            } else {
                "try a shorter part of the text, or regex=true with alternatives like `foo|bar`"
            };
            return format!(
                "No matches for `{pattern}` ({}); {retry}.",
                query.describe()
            );
        }
        let mut files: Vec<&str> = self.hits.iter().map(|hit| hit.path.as_str()).collect();
        files.dedup();
        let at_least = if self.counted >= MAX_COUNTED {
            "at least "
        } else {
            ""
        };
        let mut out = format!(
            "{at_least}{} match{} in {} file{} for `{pattern}` ({}):\n",
            self.counted,
            if self.counted == 1 { "" } else { "es" },
            files.len(),
            if files.len() == 1 { "" } else { "s" },
            query.describe()
        );
        for hit in self.hits.iter().take(max_results) {
            out.push_str(&format!("{}:{}: {}\n", hit.path, hit.line, hit.text));
        }
        if self.counted > max_results {
            out.push_str(&format!(
                "[... {at_least}{} more matches not shown; narrow the search with path or glob, \
                 or raise max_results (up to {MAX_RESULTS_LIMIT}) ...]\n",
                self.counted - max_results
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(pattern: &str, regex: bool) -> Query {
        Query {
            pattern: pattern.to_string(),
            regex,
            case_sensitive: false,
        }
    }

    #[test]
    fn literal_patterns_do_not_need_escaping() {
        let matcher = query("a.b(", false).matcher().unwrap();
        let mut lines = Vec::new();
        searcher()
            .search_slice(
                &matcher,
                b"a.b(1)\naxb(\n",
                Lossy(|line, _| {
                    lines.push(line);
                    Ok(true)
                }),
            )
            .unwrap();
        assert_eq!(lines, vec![1]);
    }

    #[test]
    fn an_invalid_regex_suggests_literal_search() {
        let error = query("foo(", true).matcher().unwrap_err();
        assert!(error.message.contains("regex=false"), "{}", error.message);
    }
}
