//! `workspace/symbol` from the code index: hone-server's `index.symbols` answers
//! (`{name, location: "kind path:line"}`) as LSP symbols.

use std::path::Path;

use serde_json::Value;
use tower_lsp_server::ls_types::{Location, Position, Range, SymbolInformation, SymbolKind, Uri};

/// The LSP symbol of one `index.symbols` entry; `None` when its location does not parse.
pub(crate) fn to_lsp(root: &Path, symbol: &Value) -> Option<SymbolInformation> {
    let name = symbol["name"].as_str()?;
    let (kind, place) = symbol["location"].as_str()?.rsplit_once(' ')?;
    let (path, line) = place.rsplit_once(':')?;
    let line: u32 = line.parse().ok()?;
    let uri = Uri::from_file_path(root.join(path))?;
    let start = Position::new(line.saturating_sub(1), 0);
    #[allow(deprecated)]
    Some(SymbolInformation {
        name: name.to_string(),
        kind: kind_of(kind),
        tags: None,
        deprecated: None,
        location: Location::new(uri, Range::new(start, start)),
        container_name: None,
    })
}

/// The LSP kind of an index kind (`function`, `struct`, …).
fn kind_of(kind: &str) -> SymbolKind {
    match kind {
        "function" => SymbolKind::FUNCTION,
        "method" => SymbolKind::METHOD,
        "struct" => SymbolKind::STRUCT,
        "class" => SymbolKind::CLASS,
        "enum" => SymbolKind::ENUM,
        "trait" | "interface" => SymbolKind::INTERFACE,
        "const" | "constant" | "static" => SymbolKind::CONSTANT,
        "field" => SymbolKind::FIELD,
        "module" | "mod" => SymbolKind::MODULE,
        "macro" => SymbolKind::FUNCTION,
        "type" | "typealias" => SymbolKind::TYPE_PARAMETER,
        _ => SymbolKind::VARIABLE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn index_entries_become_symbols_at_their_line() {
        let symbol = to_lsp(
            Path::new("/p"),
            &json!({"name": "area", "location": "function src/geo.rs:12"}),
        )
        .unwrap();
        assert_eq!(symbol.name, "area");
        assert_eq!(symbol.kind, SymbolKind::FUNCTION);
        assert_eq!(symbol.location.range.start, Position::new(11, 0));
        assert!(symbol.location.uri.as_str().ends_with("/p/src/geo.rs"));
        assert!(to_lsp(Path::new("/p"), &json!({"name": "x", "location": "bad"})).is_none());
    }
}
