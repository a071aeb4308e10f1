//! `glob_files`: project files whose path matches a glob.

use globset::{GlobBuilder, GlobMatcher};
use hone_protocol::ToolSpec;
use serde_json::{Value, json};

use crate::files::walk::{project_walker, relative_path};
use crate::{Args, Plan, Tool, ToolContext, ToolError, ToolKind, ToolOutput};

/// Paths shown at most.
const MAX_SHOWN: usize = 500;

/// A glob as the model writes it: without `/` it matches file names anywhere (`*.rs`),
/// with `/` it matches root-relative paths (`src/**/*.rs`).
#[derive(Debug, Clone)]
pub(crate) struct PathPattern {
    matcher: GlobMatcher,
    names_only: bool,
    /// The leading directories without wildcards (`src/` of `src/**/*.rs`): where to walk.
    literal_prefix: String,
}

impl PathPattern {
    /// Compiles `pattern`; the error shows valid examples.
    pub(crate) fn new(pattern: &str) -> Result<Self, ToolError> {
        let trimmed = pattern
            .trim()
            .trim_start_matches("./")
            .trim_start_matches('/');
        let glob = GlobBuilder::new(trimmed)
            .literal_separator(true)
            .build()
            .map_err(|error| {
                ToolError::invalid(format!(
                    "invalid glob `{pattern}`: {error}; examples: `*.rs`, `src/**/*.ts`, \
                     `**/{{Cargo.toml,package.json}}`"
                ))
            })?;
        let parts: Vec<&str> = trimmed.split('/').collect();
        let literal: Vec<&str> = parts[..parts.len().saturating_sub(1)]
            .iter()
            .take_while(|part| !part.contains(['*', '?', '[', '{']))
            .copied()
            .collect();
        Ok(Self {
            matcher: glob.compile_matcher(),
            names_only: !trimmed.contains('/'),
            literal_prefix: literal.join("/"),
        })
    }

    /// Whether the root-relative file path `relative` matches.
    pub(crate) fn matches(&self, relative: &str) -> bool {
        if self.names_only {
            let name = relative.rsplit('/').next().unwrap_or(relative);
            self.matcher.is_match(name)
        } else {
            self.matcher.is_match(relative)
        }
    }
}

/// `glob_files`: file paths matching a glob.
pub(crate) struct GlobFiles;

impl Tool for GlobFiles {
    fn name(&self) -> &'static str {
        "glob_files"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: format!(
                "Find files by path pattern. A pattern without `/` matches file names anywhere \
                 (`*.rs`, `Cargo.toml`); with `/` it matches paths from the project root \
                 (`src/**/*.ts`, `crates/*/Cargo.toml`); `{{a,b}}` alternatives work. Ignored \
                 files are skipped; results are sorted, at most {MAX_SHOWN}."
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "description": "Glob, e.g. `src/**/*.rs`."}
                },
                "required": ["pattern"]
            }),
        }
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }

    fn plan(&self, context: &ToolContext, arguments: &Value) -> Result<Plan, ToolError> {
        let args = Args::new(self.name(), "{pattern}", arguments)?;
        let pattern_text = args.string("pattern")?;
        let pattern = PathPattern::new(&pattern_text)?;
        let root = context.root();
        let start = if pattern.literal_prefix.is_empty() {
            root.to_path_buf()
        } else {
            context
                .guard()
                .resolve_read(&pattern.literal_prefix)?
                .absolute
        };
        let mut found: Vec<String> = if start.is_dir() {
            project_walker(context, &start)
                .build()
                .filter_map(Result::ok)
                .filter(|entry| entry.file_type().is_some_and(|kind| !kind.is_dir()))
                .map(|entry| relative_path(root, entry.path()))
                .filter(|relative| pattern.matches(relative))
                .collect()
        } else {
            Vec::new()
        };
        if found.is_empty() {
            return Ok(Plan::Done(ToolOutput::ok(format!(
                "No files match `{pattern_text}`. A pattern without `/` matches file names \
                 anywhere (`*.rs`); with `/` it matches from the project root (`src/**/*.rs`, \
                 not `**/src/*.rs` unless meant)."
            ))));
        }
        found.sort();
        let total = found.len();
        found.truncate(MAX_SHOWN);
        let mut out = format!(
            "{total} file{} match `{pattern_text}`:\n",
            if total == 1 { "" } else { "s" }
        );
        for path in &found {
            out.push_str(path);
            out.push('\n');
        }
        if total > MAX_SHOWN {
            out.push_str(&format!(
                "[... {} more files not shown; use a narrower pattern ...]\n",
                total - MAX_SHOWN
            ));
        }
        Ok(Plan::Done(ToolOutput::ok(out)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_without_a_slash_match_names_anywhere() {
        let pattern = PathPattern::new("*.rs").unwrap();
        assert!(pattern.matches("src/deep/main.rs"));
        assert!(!pattern.matches("src/main.ts"));
    }

    #[test]
    fn patterns_with_a_slash_match_from_the_root() {
        let pattern = PathPattern::new("./src/**/*.rs").unwrap();
        assert!(pattern.matches("src/main.rs"));
        assert!(pattern.matches("src/a/b.rs"));
        assert!(!pattern.matches("tests/src/a.rs"));
        assert_eq!(pattern.literal_prefix, "src");
        let single = PathPattern::new("src/*.rs").unwrap();
        assert!(!single.matches("src/a/b.rs"));
    }

    #[test]
    fn invalid_globs_show_examples() {
        let error = PathPattern::new("src/[a.rs").unwrap_err();
        assert!(error.message.contains("examples"), "{}", error.message);
    }
}
