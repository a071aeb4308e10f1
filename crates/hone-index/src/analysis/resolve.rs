//! Resolving imports to project files: the lookup maps shared by every language, built once
//! per analysis, and the dispatch to each language's rules.

use std::collections::BTreeMap;

use super::config::ProjectConfig;
use super::hash::{FastMap, FastSet};
use super::paths::{file_name, parent};
use super::{resolve_js, resolve_other, resolve_python, resolve_rust};
use crate::model::{FileOutline, Import, ImportOrigin, Language};

/// Lookup maps over the project's file paths. Resolution never touches the file system.
pub(crate) struct Resolver<'a> {
    /// Configuration read from the project.
    pub(crate) config: &'a ProjectConfig,
    /// Every project file.
    paths: FastSet<&'a str>,
    /// Directory → the files directly in it, sorted.
    pub(crate) dirs: FastMap<&'a str, Vec<&'a str>>,
    /// File name → every file with that name, sorted.
    pub(crate) basenames: FastMap<&'a str, Vec<&'a str>>,
    /// Python module names.
    pub(crate) python: resolve_python::PythonIndex<'a>,
}

impl<'a> Resolver<'a> {
    /// Builds the lookup maps for `files`.
    pub(crate) fn new(config: &'a ProjectConfig, files: &'a BTreeMap<String, FileOutline>) -> Self {
        let mut paths = FastSet::default();
        let mut dirs: FastMap<&str, Vec<&str>> = FastMap::default();
        let mut basenames: FastMap<&str, Vec<&str>> = FastMap::default();
        for path in files.keys() {
            let path = path.as_str();
            paths.insert(path);
            dirs.entry(parent(path)).or_default().push(path);
            basenames.entry(file_name(path)).or_default().push(path);
        }
        let python = resolve_python::PythonIndex::new(files, &dirs);
        Self {
            config,
            paths,
            dirs,
            basenames,
            python,
        }
    }

    /// The project file at `path`, if there is one.
    pub(crate) fn file(&self, path: &str) -> Option<&'a str> {
        self.paths.get(path).copied()
    }

    /// Whether `path` is a project file.
    pub(crate) fn has(&self, path: &str) -> bool {
        self.paths.contains(path)
    }

    /// Appends to `out` the project files `import` (written in `from`) refers to.
    pub(crate) fn resolve(
        &self,
        from: &'a str,
        language: Language,
        import: &Import,
        out: &mut Vec<&'a str>,
    ) {
        if import.source.is_empty() {
            return;
        }
        let builtin = import.origin == ImportOrigin::Builtin;
        match language {
            // The Go extractor calls every path without a dot in its first element builtin,
            // which includes modules named without a domain (`module myapp`).
            Language::Go => resolve_other::go_package(self, &import.source, out),
            _ if builtin => {}
            Language::TypeScript | Language::Tsx | Language::JavaScript => {
                resolve_js::resolve(self, from, language, &import.source, out);
            }
            Language::Python => resolve_python::resolve(self, from, import, out),
            Language::Rust => resolve_rust::resolve_use(self, from, import, out),
            Language::C | Language::Cpp => resolve_other::include(self, from, &import.source, out),
            Language::Java => resolve_other::java(self, from, import, out),
            Language::Json | Language::Yaml => {}
        }
    }

    /// The files whose path is `suffix` or ends with `/suffix`.
    pub(crate) fn with_suffix(&self, suffix: &str) -> impl Iterator<Item = &'a str> {
        let name = file_name(suffix);
        let candidates = self.basenames.get(name).map_or(&[][..], Vec::as_slice);
        candidates.iter().copied().filter(move |path| {
            path.strip_suffix(suffix)
                .is_some_and(|head| head.is_empty() || head.ends_with('/'))
        })
    }
}
