//! Go packages, C/C++ includes and Java imports.

use std::collections::BTreeSet;

use super::paths::{child, join, nearest, parent};
use super::resolve::Resolver;
use crate::model::Import;

/// How many trailing segments of a Java import may name members rather than the class
/// (`a.b.C.method`, `a.b.Outer.Inner`).
const JAVA_MEMBER_DEPTH: usize = 2;

/// A Go import: every non-test `.go` file of the package directory, when the import path
/// lies inside one of the project's modules.
pub(crate) fn go_package<'a>(resolver: &Resolver<'a>, source: &str, out: &mut Vec<&'a str>) {
    let source = source.trim().trim_matches('"');
    for module in resolver.config.go_modules() {
        let rest = if source == module.path {
            ""
        } else if let Some(rest) = source
            .strip_prefix(module.path.as_str())
            .and_then(|r| r.strip_prefix('/'))
        {
            rest
        } else {
            continue;
        };
        let Some(dir) = join(&module.dir, rest) else {
            return;
        };
        if let Some(files) = resolver.dirs.get(dir.as_str()) {
            out.extend(
                files
                    .iter()
                    .filter(|file| file.ends_with(".go") && !file.ends_with("_test.go")),
            );
        }
        return;
    }
}

/// A C/C++ include: relative to the including file, then to the root, then the nearest
/// file whose path ends with the include (include directories, `-I` roots).
pub(crate) fn include<'a>(
    resolver: &Resolver<'a>,
    from: &'a str,
    source: &str,
    out: &mut Vec<&'a str>,
) {
    let source = source.trim().trim_matches(|c| matches!(c, '"' | '<' | '>'));
    let found = join(parent(from), source)
        .and_then(|path| resolver.file(&path))
        .or_else(|| join("", source).and_then(|path| resolver.file(&path)))
        .or_else(|| {
            let suffix = source.trim_start_matches("./").trim_start_matches("../");
            nearest(from, resolver.with_suffix(suffix))
        });
    out.extend(found);
}

/// A Java import: the class file under any source root, or every class of a package for
/// wildcard imports. Static imports and nested classes resolve to the outer class file.
pub(crate) fn java<'a>(
    resolver: &Resolver<'a>,
    from: &'a str,
    import: &Import,
    out: &mut Vec<&'a str>,
) {
    let source = import
        .source
        .trim()
        .trim_start_matches("static ")
        .trim_end_matches(';')
        .trim();
    let wildcard = source.ends_with(".*") || import.names.iter().any(|name| name.name == "*");
    let package = source.trim_end_matches(".*");
    if wildcard {
        let before = out.len();
        java_package(resolver, from, package, out);
        if out.len() == before {
            // `import static a.b.C.*;` names a class, not a package.
            out.extend(java_class(resolver, from, package));
        }
        return;
    }
    let mut qualified: Vec<String> = import
        .names
        .iter()
        .filter(|name| !name.name.is_empty() && !package.ends_with(&format!(".{}", name.name)))
        .map(|name| format!("{package}.{}", name.name))
        .collect();
    if qualified.is_empty() {
        qualified.push(package.to_string());
    }
    for name in qualified {
        out.extend(java_class(resolver, from, &name));
    }
}

/// The file of class `qualified`, or of its outer class when the last segments name a
/// member or nested class.
fn java_class<'a>(resolver: &Resolver<'a>, from: &str, qualified: &str) -> Option<&'a str> {
    let mut segments: Vec<&str> = qualified.split('.').collect();
    for _ in 0..=JAVA_MEMBER_DEPTH {
        if segments.len() < 2 {
            break;
        }
        let suffix = format!("{}.java", segments.join("/"));
        if let Some(found) = nearest(from, resolver.with_suffix(&suffix)) {
            return Some(found);
        }
        segments.pop();
    }
    None
}

/// Every `.java` file of the package directory nearest to `from`.
fn java_package<'a>(resolver: &Resolver<'a>, from: &str, package: &str, out: &mut Vec<&'a str>) {
    let suffix = package.replace('.', "/");
    let dirs: BTreeSet<&str> = resolver
        .dirs
        .keys()
        .copied()
        .filter(|dir| {
            dir.strip_suffix(suffix.as_str())
                .is_some_and(|head| head.is_empty() || head.ends_with('/'))
        })
        .collect();
    let probes: Vec<String> = dirs.iter().map(|dir| child(dir, "_")).collect();
    let Some(best) = nearest(from, probes.iter().map(String::as_str)) else {
        return;
    };
    if let Some(files) = resolver.dirs.get(parent(best)) {
        out.extend(files.iter().filter(|file| file.ends_with(".java")));
    }
}
