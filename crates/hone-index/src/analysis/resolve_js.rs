//! TypeScript and JavaScript: relative paths with extension and `index` resolution,
//! tsconfig/jsconfig `paths` and `baseUrl`, and workspace packages.

use super::config::PathPatterns;
use super::paths::{child, join, parent};
use super::resolve::Resolver;
use crate::model::Language;

/// Extensions tried after a path without one, in order.
const EXTENSIONS: [&str; 9] = [
    ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d.ts",
];

/// A JavaScript extension as written → the TypeScript sources it can stand for.
const TS_FOR_JS: [(&str, &[&str]); 4] = [
    (".js", &[".ts", ".tsx", ".d.ts"]),
    (".jsx", &[".tsx"]),
    (".mjs", &[".mts"]),
    (".cjs", &[".cts"]),
];

/// Resolves `source` imported by `from`.
pub(crate) fn resolve<'a>(
    resolver: &Resolver<'a>,
    from: &'a str,
    language: Language,
    source: &str,
    out: &mut Vec<&'a str>,
) {
    let prefer_ts = matches!(language, Language::TypeScript | Language::Tsx);
    if is_relative(source) {
        if let Some(found) =
            join(parent(from), source).and_then(|base| file(resolver, &base, prefer_ts))
        {
            out.push(found);
        }
        return;
    }
    if let Some(options) = resolver.config.ts_options(from) {
        if let Some((pattern, targets)) = best_pattern(&options.paths, source) {
            let matched = wildcard_match(pattern, source).unwrap_or("");
            for target in targets {
                let substituted = target.replacen('*', matched, 1);
                if let Some(found) = join(&options.paths_base, &substituted)
                    .and_then(|base| file(resolver, &base, prefer_ts))
                {
                    out.push(found);
                    return;
                }
            }
        }
        if let Some(base_url) = &options.base_url
            && let Some(found) =
                join(base_url, source).and_then(|base| file(resolver, &base, prefer_ts))
        {
            out.push(found);
            return;
        }
    }
    if let Some(found) = workspace_package(resolver, source, prefer_ts) {
        out.push(found);
    }
}

fn is_relative(source: &str) -> bool {
    source == "." || source == ".." || source.starts_with("./") || source.starts_with("../")
}

/// The `paths` entry matching `source` with the longest prefix (exact patterns win).
fn best_pattern<'p>(paths: &'p PathPatterns, source: &str) -> Option<&'p (String, Vec<String>)> {
    paths
        .iter()
        .filter(|(pattern, _)| wildcard_match(pattern, source).is_some())
        .max_by_key(|(pattern, _)| match pattern.find('*') {
            Some(star) => star,
            None => usize::MAX,
        })
}

/// What `*` matched when `source` matches `pattern` (`""` for an exact pattern).
fn wildcard_match<'s>(pattern: &str, source: &'s str) -> Option<&'s str> {
    match pattern.split_once('*') {
        Some((prefix, suffix)) => source
            .strip_prefix(prefix)?
            .strip_suffix(suffix)
            .filter(|middle| middle.len() + prefix.len() + suffix.len() == source.len()),
        None => (pattern == source).then_some(""),
    }
}

/// The file `base` names, trying extensions, TypeScript sources of `.js` names and `index`.
fn file<'a>(resolver: &Resolver<'a>, base: &str, prefer_ts: bool) -> Option<&'a str> {
    let mut candidate = String::with_capacity(base.len() + 12);
    let mut with_extension = |stem: &str, extension: &str| {
        candidate.clear();
        candidate.push_str(stem);
        candidate.push_str(extension);
        resolver.file(&candidate)
    };
    let ts_source = |with_extension: &mut dyn FnMut(&str, &str) -> Option<&'a str>| {
        TS_FOR_JS.iter().find_map(|(js, ts_extensions)| {
            let stem = base.strip_suffix(js)?;
            ts_extensions
                .iter()
                .find_map(|extension| with_extension(stem, extension))
        })
    };
    if prefer_ts && let Some(found) = ts_source(&mut with_extension) {
        return Some(found);
    }
    if let Some(found) = resolver.file(base) {
        return Some(found);
    }
    if !prefer_ts && let Some(found) = ts_source(&mut with_extension) {
        return Some(found);
    }
    if let Some(found) = EXTENSIONS
        .iter()
        .find_map(|extension| with_extension(base, extension))
    {
        return Some(found);
    }
    let index = child(base, "index");
    EXTENSIONS
        .iter()
        .find_map(|extension| with_extension(&index, extension))
}

/// A workspace package import (`@acme/ui` or `@acme/ui/button`).
fn workspace_package<'a>(
    resolver: &Resolver<'a>,
    source: &str,
    prefer_ts: bool,
) -> Option<&'a str> {
    let package = resolver.config.js_packages().iter().find(|package| {
        source == package.name
            || source
                .strip_prefix(&package.name)
                .is_some_and(|rest| rest.starts_with('/'))
    })?;
    let rest = source[package.name.len()..].trim_start_matches('/');
    if rest.is_empty() {
        let declared = package
            .entry
            .as_deref()
            .and_then(|entry| file(resolver, entry, prefer_ts));
        return declared
            .or_else(|| file(resolver, &child(&package.dir, "src/index"), prefer_ts))
            .or_else(|| file(resolver, &child(&package.dir, "index"), prefer_ts));
    }
    file(resolver, &child(&package.dir, rest), prefer_ts).or_else(|| {
        file(
            resolver,
            &child(&package.dir, &format!("src/{rest}")),
            prefer_ts,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_capture_the_middle() {
        assert_eq!(wildcard_match("@/*", "@/lib/x"), Some("lib/x"));
        assert_eq!(wildcard_match("~*.js", "~a.js"), Some("a"));
        assert_eq!(wildcard_match("exact", "exact"), Some(""));
        assert_eq!(wildcard_match("@/*", "react"), None);
    }

    #[test]
    fn the_longest_prefix_wins() {
        let paths = vec![
            ("@/*".to_string(), vec!["src/*".to_string()]),
            ("@/ui/*".to_string(), vec!["packages/ui/*".to_string()]),
        ];
        assert_eq!(
            best_pattern(&paths, "@/ui/button").map(|(p, _)| p.as_str()),
            Some("@/ui/*")
        );
        assert_eq!(
            best_pattern(&paths, "@/lib").map(|(p, _)| p.as_str()),
            Some("@/*")
        );
    }
}
