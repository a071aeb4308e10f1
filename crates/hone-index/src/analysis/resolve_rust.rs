//! Rust: `mod foo;` to `foo.rs` or `foo/mod.rs`, and `use` paths (`crate::`, `self::`,
//! `super::`, child modules, workspace crates) walked down to the deepest module file.

use super::paths::{ancestors, child, file_name, parent};
use super::resolve::Resolver;
use crate::model::Import;

/// Resolves a `use` path (or a `mod` declaration recorded as an import) written in `from`.
pub(crate) fn resolve_use<'a>(
    resolver: &Resolver<'a>,
    from: &'a str,
    import: &Import,
    out: &mut Vec<&'a str>,
) {
    let source = import.source.trim().trim_start_matches("::");
    let source = source.split('{').next().unwrap_or("");
    let segments: Vec<&str> = source
        .split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let Some(first) = segments.first().copied() else {
        return;
    };
    let here = module_dir(from);
    let (mut dir, rest) = match first {
        "crate" => match crate_src(resolver, from) {
            Some(src) => (src.to_string(), &segments[1..]),
            None => return,
        },
        "self" => (here, &segments[1..]),
        "super" => {
            let supers = segments.iter().take_while(|s| **s == "super").count();
            let mut dir = here;
            for _ in 0..supers {
                if Some(dir.as_str()) == crate_src(resolver, from) || dir.is_empty() {
                    return;
                }
                dir = parent(&dir).to_string();
            }
            (dir, &segments[supers..])
        }
        name if child_module(resolver, &here, name).is_some() => (here, &segments[..]),
        name => match resolver.config.rust_crate(name) {
            Some(src) => (src.to_string(), &segments[1..]),
            None => return,
        },
    };
    let mut file = module_file(resolver, from, &dir);
    for segment in rest {
        let Some(found) = child_module(resolver, &dir, segment) else {
            if let Some(file) = file {
                out.push(file);
            }
            return;
        };
        file = Some(found);
        dir = child(&dir, segment);
    }
    let before = out.len();
    out.extend(
        import
            .names
            .iter()
            .filter(|name| !matches!(name.name.as_str(), "*" | "self" | ""))
            .filter_map(|name| child_module(resolver, &dir, &name.name)),
    );
    if out.len() == before
        && let Some(file) = file
    {
        out.push(file);
    }
}

/// The directory holding the child modules of `file`'s module.
fn module_dir(file: &str) -> String {
    let dir = parent(file);
    let name = file_name(file);
    let crate_root_dir = matches!(file_name(dir), "tests" | "examples" | "benches")
        || (file_name(dir) == "bin" && file_name(parent(dir)) == "src");
    if matches!(name, "lib.rs" | "main.rs" | "mod.rs") || crate_root_dir {
        return dir.to_string();
    }
    child(dir, name.trim_end_matches(".rs"))
}

/// The `src` directory of the crate `file` belongs to.
fn crate_src<'p>(resolver: &Resolver<'_>, file: &'p str) -> Option<&'p str> {
    ancestors(file).find(|dir| {
        file_name(dir) == "src"
            && (resolver.has(&child(dir, "lib.rs")) || resolver.has(&child(dir, "main.rs")))
    })
}

/// The file of the module whose children live in `dir`.
fn module_file<'a>(resolver: &Resolver<'a>, from: &'a str, dir: &str) -> Option<&'a str> {
    if module_dir(from) == dir {
        return Some(from);
    }
    if crate_src(resolver, from) == Some(dir) || file_name(dir) == "src" {
        return resolver
            .file(&child(dir, "lib.rs"))
            .or_else(|| resolver.file(&child(dir, "main.rs")));
    }
    resolver
        .file(&format!("{dir}.rs"))
        .or_else(|| resolver.file(&child(dir, "mod.rs")))
}

/// The file of child module `name` of the module whose children live in `dir`.
fn child_module<'a>(resolver: &Resolver<'a>, dir: &str, name: &str) -> Option<&'a str> {
    resolver
        .file(&child(dir, &format!("{name}.rs")))
        .or_else(|| resolver.file(&child(dir, &format!("{name}/mod.rs"))))
}
