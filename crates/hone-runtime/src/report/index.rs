//! The code index as `hone index`, `hone index status`, `--watch`, `hone symbols`,
//! `hone deps` and `hone map` show it: JSON summaries and their text form.

use std::path::Path;

use hone_config::IndexSettings;
use hone_index::repomap::RepoMapRequest;
use hone_index::{IndexReport, IndexStats, Indexer, SymbolLocation};
use hone_protocol::{HoneError, Language};
use serde_json::{Map, Value, json};

use crate::index::index_options;

/// Whether the project's index database exists (where `[index] database` puts it), so
/// that looking creates nothing for a project never indexed.
pub fn index_exists(root: &Path, settings: &IndexSettings) -> Result<bool, HoneError> {
    if settings.store.backend == hone_config::StoreBackend::Redis {
        // A shared store is looked at where it is: an empty namespace reports zeros.
        return Ok(true);
    }
    let options = index_options(root, settings)?;
    let path = options
        .db_path
        .unwrap_or_else(|| root.join(hone_index::indexer::DEFAULT_DB_PATH));
    Ok(path.exists())
}

fn languages<'a>(counts: impl IntoIterator<Item = (&'a Language, &'a usize)>) -> Value {
    let map: Map<String, Value> = counts
        .into_iter()
        .map(|(language, count)| (language.as_str().to_string(), json!(count)))
        .collect();
    Value::Object(map)
}

/// `hone index status` of a project without an index: all zero.
pub fn empty_status() -> Value {
    json!({
        "files": 0,
        "by_language": {},
        "definitions": 0,
        "references": 0,
        "edges": 0,
        "parse_errors": 0,
        "last_indexed_ms": null,
        "scope": null,
    })
}

/// `hone index status`: what the index holds.
pub fn status(stats: &IndexStats, scope: Option<&str>) -> Value {
    json!({
        "files": stats.files,
        "by_language": languages(&stats.by_language),
        "definitions": stats.definitions,
        "references": stats.references,
        "edges": stats.edges,
        "parse_errors": stats.parse_errors,
        "last_indexed_ms": stats.last_indexed_ms,
        "scope": scope,
    })
}

/// `hone index`: what an update did.
pub fn update(report: &IndexReport, scope: Option<&str>) -> Value {
    json!({
        "files": report.files_total,
        "parsed": report.files_parsed,
        "deleted": report.files_deleted,
        "by_language": languages(&report.by_language),
        "definitions": report.symbols,
        "edges": report.edges,
        "parse_errors": report.parse_errors,
        "duration_ms": millis(report),
        "scope": scope,
    })
}

fn millis(report: &IndexReport) -> u64 {
    u64::try_from(report.duration.as_millis()).unwrap_or(u64::MAX)
}

/// A summary from [`status`] or [`update`] as lines of text (`seconds`: the update's time).
pub fn summary_text(summary: &Value, seconds: Option<f64>) -> String {
    let languages = summary["by_language"]
        .as_object()
        .map(|map| {
            map.iter()
                .map(|(language, count)| format!("{language} {count}"))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default();
    let mut out = format!("files: {} ({languages})\n", summary["files"]);
    if let Some(parsed) = summary.get("parsed") {
        out.push_str(&format!(
            "parsed: {parsed}, removed: {}\n",
            summary["deleted"]
        ));
    }
    out.push_str(&format!(
        "symbols: {} definitions\nimport edges: {}\nfiles with parse errors: {}\n",
        summary["definitions"], summary["edges"], summary["parse_errors"]
    ));
    if let Some(scope) = summary.get("scope").and_then(Value::as_str) {
        out.push_str(&format!(
            "scope: {scope} only (`hone index --scope .` indexes the whole project)\n"
        ));
    }
    if let Some(seconds) = seconds {
        out.push_str(&format!("time: {seconds:.2}s\n"));
    }
    out
}

/// `hone index --watch`'s line for one update of `paths` (none: a full update after lost
/// events or an ignore-file change).
pub fn watch_line(paths: &[String], report: &IndexReport, as_json: bool) -> String {
    let files = if paths.is_empty() {
        report.files_total
    } else {
        paths.len()
    };
    let millis = millis(report);
    if as_json {
        return json!({
            "updated": files,
            "parsed": report.files_parsed,
            "deleted": report.files_deleted,
            "files": report.files_total,
            "duration_ms": millis,
        })
        .to_string();
    }
    format!(
        "updated {files} files (parsed {}, removed {}) in {millis} ms",
        report.files_parsed, report.files_deleted
    )
}

/// `hone symbols`: one `path:line:column  Kind name` line per definition.
pub fn symbol_lines(found: &[SymbolLocation]) -> String {
    found
        .iter()
        .map(|site| {
            format!(
                "{}:{}:{}  {:?} {}\n",
                site.path, site.line, site.column, site.kind, site.name
            )
        })
        .collect()
}

/// `hone deps PATH [--reverse]`: the files `path` imports (or that import it), one line each.
pub fn dependency_lines(indexer: &Indexer, path: &str, reverse: bool) -> Result<String, HoneError> {
    let path = path.trim_start_matches("./");
    if !indexer.files().contains_key(path) {
        return Err(HoneError::validation(format!(
            "`{path}` is not in the index; give a path relative to the project root"
        )));
    }
    let store = indexer.store();
    let edges = if reverse {
        store.dependents(path)
    } else {
        store.dependencies(path)
    }
    .map_err(HoneError::from)?;
    Ok(edges
        .iter()
        .map(|edge| {
            let other = if reverse { &edge.from } else { &edge.to };
            format!("{other}  (line {}: {})\n", edge.line, edge.source)
        })
        .collect())
}

/// `hone map --focus NAME…`: names with a `/` or a `.` are files, the rest identifiers.
pub fn map_request(focus: &[String], budget_tokens: usize) -> RepoMapRequest {
    let (focus_files, focus_identifiers) = focus
        .iter()
        .cloned()
        .partition(|item: &String| item.contains('/') || item.contains('.'));
    RepoMapRequest {
        focus_files,
        focus_identifiers,
        budget_tokens,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_status_reads_as_zero_files_without_a_time() {
        let text = summary_text(&empty_status(), None);
        assert_eq!(
            text,
            "files: 0 ()\nsymbols: 0 definitions\nimport edges: 0\nfiles with parse errors: 0\n"
        );
    }

    #[test]
    fn an_update_names_its_scope_and_time() {
        let summary = json!({
            "files": 3, "parsed": 2, "deleted": 1, "by_language": {"rust": 2, "python": 1},
            "definitions": 9, "edges": 4, "parse_errors": 0, "scope": "src",
        });
        let text = summary_text(&summary, Some(1.234));
        assert!(
            text.starts_with("files: 3 (rust 2, python 1)\nparsed: 2, removed: 1\n"),
            "{text}"
        );
        assert!(text.contains("scope: src only"), "{text}");
        assert!(text.ends_with("time: 1.23s\n"), "{text}");
    }

    #[test]
    fn focus_names_split_into_files_and_identifiers() {
        let request = map_request(&["src/lib.rs".into(), "Store".into(), "a.py".into()], 500);
        assert_eq!(request.focus_files, ["src/lib.rs", "a.py"]);
        assert_eq!(request.focus_identifiers, ["Store"]);
        assert_eq!(request.budget_tokens, 500);
    }
}
