//! Python: dotted module names to `a/b.py` or `a/b/__init__.py`, relative imports from the
//! importing file's package, package roots found by their `__init__.py` chain and `src`
//! layouts.

use std::collections::BTreeMap;

use super::hash::{FastMap, FastSet};
use super::paths::{file_name, nearest, parent};
use super::resolve::Resolver;
use crate::model::{FileOutline, Import, Language};

/// Python module names of the project's files.
#[derive(Default)]
pub(crate) struct PythonIndex<'a> {
    /// Names relative to the directory above each file's outermost package (and to `src`
    /// directories) → files, sorted.
    by_package: FastMap<String, Vec<&'a str>>,
    /// Names from root-relative paths (`backend/app/x.py` → `backend.app.x`) → file.
    by_path: FastMap<String, &'a str>,
}

impl<'a> PythonIndex<'a> {
    /// Indexes every Python file of `files`; `dirs` maps directories to their files.
    pub(crate) fn new(
        files: &'a BTreeMap<String, FileOutline>,
        dirs: &FastMap<&'a str, Vec<&'a str>>,
    ) -> Self {
        let mut index = Self::default();
        let packages: FastSet<&str> = dirs
            .iter()
            .filter(|(_, files)| {
                files
                    .iter()
                    .any(|f| matches!(file_name(f), "__init__.py" | "__init__.pyi"))
            })
            .map(|(dir, _)| *dir)
            .collect();
        for (path, outline) in files {
            if outline.language != Language::Python {
                continue;
            }
            let path = path.as_str();
            let module = module_path(path);
            if module.is_empty() {
                continue;
            }
            index
                .by_path
                .entry(module.replace('/', "."))
                .or_insert(path);
            let mut top = parent(path);
            if packages.contains(top) {
                while !top.is_empty() && packages.contains(parent(top)) {
                    top = parent(top);
                }
                let root = parent(top);
                index.add_package_name(relative_to(module, root), path);
            }
            if let Some(after_src) = module
                .strip_prefix("src/")
                .or_else(|| module.rsplit_once("/src/").map(|(_, rest)| rest))
            {
                index.add_package_name(after_src, path);
            }
        }
        index
    }

    fn add_package_name(&mut self, module: &str, path: &'a str) {
        let names = self.by_package.entry(module.replace('/', ".")).or_default();
        if !names.contains(&path) {
            names.push(path);
        }
    }

    /// An absolute module name (`a.b`) imported from `from`.
    fn absolute(&self, from: &str, dotted: &str) -> Option<&'a str> {
        if let Some(found) = self
            .by_package
            .get(dotted)
            .and_then(|files| nearest(from, files.iter().copied()))
        {
            return Some(found);
        }
        if let Some(found) = self.by_path.get(dotted) {
            return Some(found);
        }
        let dir = parent(from);
        (!dir.is_empty())
            .then(|| {
                self.by_path
                    .get(&format!("{}.{dotted}", dir.replace('/', ".")))
            })
            .flatten()
            .copied()
    }
}

/// Resolves a Python import written in `from`.
pub(crate) fn resolve<'a>(
    resolver: &Resolver<'a>,
    from: &'a str,
    import: &Import,
    out: &mut Vec<&'a str>,
) {
    let index = &resolver.python;
    let source = import.source.trim();
    let level = source.chars().take_while(|c| *c == '.').count();
    let rest = &source[level..];
    let names = import
        .names
        .iter()
        .map(|name| name.name.as_str())
        // `import a.b` names the module itself.
        .filter(|name| !name.is_empty() && *name != "*" && *name != rest);
    let before = out.len();
    if level == 0 {
        out.extend(names.filter_map(|name| index.absolute(from, &dotted_join(rest, name))));
        if out.len() == before
            && let Some(found) = index.absolute(from, rest)
        {
            out.push(found);
        }
        return;
    }
    let mut dir = parent(from);
    for _ in 1..level {
        if dir.is_empty() {
            return;
        }
        dir = parent(dir);
    }
    let module = dotted_join(&dir.replace('/', "."), rest);
    out.extend(names.filter_map(|name| index.by_path.get(&dotted_join(&module, name)).copied()));
    if out.len() == before
        && let Some(found) = index.by_path.get(&module)
    {
        out.push(found);
    }
}

/// `a.b` + `c` → `a.b.c`, skipping empty parts.
fn dotted_join(head: &str, tail: &str) -> String {
    match (head.is_empty(), tail.is_empty()) {
        (true, _) => tail.to_string(),
        (_, true) => head.to_string(),
        _ => format!("{head}.{tail}"),
    }
}

/// `a/b.py` and `a/b/__init__.py` → `a/b`.
fn module_path(path: &str) -> &str {
    let stem = path
        .strip_suffix(".py")
        .or_else(|| path.strip_suffix(".pyi"))
        .unwrap_or(path);
    match stem.strip_suffix("__init__") {
        Some(package) => package.trim_end_matches('/'),
        None => stem,
    }
}

/// `module` below `root` (a directory above it, or `""`).
fn relative_to<'m>(module: &'m str, root: &str) -> &'m str {
    if root.is_empty() {
        return module;
    }
    module
        .strip_prefix(root)
        .and_then(|rest| rest.strip_prefix('/'))
        .unwrap_or(module)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_paths_drop_extensions_and_init() {
        assert_eq!(module_path("a/b.py"), "a/b");
        assert_eq!(module_path("a/b/__init__.py"), "a/b");
        assert_eq!(module_path("__init__.py"), "");
        assert_eq!(module_path("stubs/x.pyi"), "stubs/x");
    }
}
