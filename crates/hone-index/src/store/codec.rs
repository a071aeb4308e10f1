//! Column encodings of the index's enums. Names match the model's serde names so the database
//! reads the same as the JSON outlines.

use crate::model::{Language, SymbolKind, SymbolRole};
use crate::scan::FileKind;

/// The `kind`, `language` and `symlink_target` columns of a file.
pub(crate) fn file_kind_columns(
    kind: &FileKind,
) -> (&'static str, Option<&'static str>, Option<&str>) {
    match kind {
        FileKind::Source(language) => ("source", Some(language.as_str()), None),
        FileKind::Text => ("text", None, None),
        FileKind::Binary => ("binary", None, None),
        FileKind::NonUtf8 => ("non_utf8", None, None),
        FileKind::TooLarge => ("too_large", None, None),
        FileKind::Symlink { target } => ("symlink", None, Some(target.as_str())),
    }
}

/// The file kind stored in those columns, if they are consistent.
pub(crate) fn file_kind(
    kind: &str,
    language: Option<&str>,
    symlink_target: Option<String>,
) -> Option<FileKind> {
    Some(match kind {
        "source" => FileKind::Source(language_from_name(language?)?),
        "text" => FileKind::Text,
        "binary" => FileKind::Binary,
        "non_utf8" => FileKind::NonUtf8,
        "too_large" => FileKind::TooLarge,
        "symlink" => FileKind::Symlink {
            target: symlink_target?,
        },
        _ => return None,
    })
}

/// The language named by [`Language::as_str`].
pub(crate) fn language_from_name(name: &str) -> Option<Language> {
    Language::ALL
        .into_iter()
        .find(|language| language.as_str() == name)
}

/// The stored name of a symbol kind.
pub(crate) fn symbol_kind_name(kind: SymbolKind) -> &'static str {
    match kind {
        SymbolKind::Function => "function",
        SymbolKind::Method => "method",
        SymbolKind::Class => "class",
        SymbolKind::Struct => "struct",
        SymbolKind::Interface => "interface",
        SymbolKind::Trait => "trait",
        SymbolKind::Enum => "enum",
        SymbolKind::Type => "type",
        SymbolKind::Variable => "variable",
        SymbolKind::Module => "module",
        SymbolKind::Property => "property",
    }
}

/// The symbol kind with a stored name.
pub(crate) fn symbol_kind_from_name(name: &str) -> Option<SymbolKind> {
    Some(match name {
        "function" => SymbolKind::Function,
        "method" => SymbolKind::Method,
        "class" => SymbolKind::Class,
        "struct" => SymbolKind::Struct,
        "interface" => SymbolKind::Interface,
        "trait" => SymbolKind::Trait,
        "enum" => SymbolKind::Enum,
        "type" => SymbolKind::Type,
        "variable" => SymbolKind::Variable,
        "module" => SymbolKind::Module,
        "property" => SymbolKind::Property,
        _ => return None,
    })
}

/// The stored name of a symbol role.
pub(crate) fn role_name(role: SymbolRole) -> &'static str {
    match role {
        SymbolRole::Definition => "definition",
        SymbolRole::Reference => "reference",
    }
}

/// The symbol role with a stored name.
pub(crate) fn role_from_name(name: &str) -> Option<SymbolRole> {
    match name {
        "definition" => Some(SymbolRole::Definition),
        "reference" => Some(SymbolRole::Reference),
        _ => None,
    }
}

/// `text` with SQL `LIKE` wildcards escaped by `\`.
pub(crate) fn escape_like(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

/// Symbol ids a file's range holds: a symbol's id is its file's id times this plus its
/// position in the file (schema version 5).
pub(crate) const SYMBOLS_PER_FILE: i64 = 1 << 24;

/// The first and last symbol id of the file with id `file_id`.
pub(crate) fn symbol_range(file_id: i64) -> (i64, i64) {
    let first = file_id.saturating_mul(SYMBOLS_PER_FILE);
    (first, first.saturating_add(SYMBOLS_PER_FILE - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_encoding_round_trips() {
        for language in Language::ALL {
            let kind = FileKind::Source(language);
            let (name, language, target) = file_kind_columns(&kind);
            assert_eq!(
                file_kind(name, language, target.map(str::to_string)),
                Some(kind)
            );
        }
        for kind in [
            FileKind::Text,
            FileKind::Binary,
            FileKind::NonUtf8,
            FileKind::TooLarge,
            FileKind::Symlink {
                target: "../x".to_string(),
            },
        ] {
            let (name, language, target) = file_kind_columns(&kind);
            assert_eq!(
                file_kind(name, language, target.map(str::to_string)),
                Some(kind)
            );
        }
        for role in [SymbolRole::Definition, SymbolRole::Reference] {
            assert_eq!(role_from_name(role_name(role)), Some(role));
        }
        for kind in [
            SymbolKind::Function,
            SymbolKind::Method,
            SymbolKind::Class,
            SymbolKind::Struct,
            SymbolKind::Interface,
            SymbolKind::Trait,
            SymbolKind::Enum,
            SymbolKind::Type,
            SymbolKind::Variable,
            SymbolKind::Module,
            SymbolKind::Property,
        ] {
            let serde_name = serde_json::to_value(kind).unwrap();
            assert_eq!(serde_name.as_str(), Some(symbol_kind_name(kind)));
            assert_eq!(symbol_kind_from_name(symbol_kind_name(kind)), Some(kind));
        }
    }

    #[test]
    fn like_wildcards_are_escaped() {
        assert_eq!(escape_like(r"a_b%c\d"), r"a\_b\%c\\d");
    }
}
