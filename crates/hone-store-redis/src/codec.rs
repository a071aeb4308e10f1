//! The JSON values stored in the namespace's hashes.

use std::collections::BTreeSet;

use hone_index::analysis::Edge;
use hone_index::{FileKind, FileMetrics, FileOutline, FileRecord, Language, SymbolRole};
use serde::{Deserialize, Serialize};

/// A file's record as the namespace shares it: what its contents are, not when one clone
/// saw them (that is its [`Stamp`]).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct StoredRecord {
    size: u64,
    hash: String,
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    language: Option<Language>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    target: Option<String>,
    #[serde(default)]
    errors: bool,
}

impl StoredRecord {
    /// The shared part of `record`.
    pub(crate) fn of(record: &FileRecord) -> Self {
        let (kind, language, target) = match &record.kind {
            FileKind::Source(language) => ("source", Some(*language), None),
            FileKind::Text => ("text", None, None),
            FileKind::Binary => ("binary", None, None),
            FileKind::NonUtf8 => ("non_utf8", None, None),
            FileKind::TooLarge => ("too_large", None, None),
            FileKind::Symlink { target } => ("symlink", None, Some(target.clone())),
        };
        Self {
            size: record.size,
            hash: record.hash.clone(),
            kind: kind.to_string(),
            language,
            target,
            errors: record.has_errors,
        }
    }

    /// The record of `path` with `mtime_ns`, or `None` when the kind is unknown.
    pub(crate) fn into_record(self, path: String, stamp: Option<Stamp>) -> Option<FileRecord> {
        let kind = match self.kind.as_str() {
            "source" => FileKind::Source(self.language?),
            "text" => FileKind::Text,
            "binary" => FileKind::Binary,
            "non_utf8" => FileKind::NonUtf8,
            "too_large" => FileKind::TooLarge,
            "symlink" => FileKind::Symlink {
                target: self.target?,
            },
            _ => return None,
        };
        // The clone's own time only while the shared record is still what it saw; else the
        // untrusted time, so the indexer reads and hashes the file again.
        let (size, mtime_ns) = match stamp {
            Some(Stamp(size, mtime, hash)) if hash == self.hash => (size, mtime),
            _ => (self.size, UNTRUSTED_MTIME),
        };
        Some(FileRecord {
            path,
            size,
            mtime_ns,
            hash: self.hash,
            kind,
            has_errors: self.errors,
        })
    }

    /// Whether the file is parsed source.
    pub(crate) fn language(&self) -> Option<Language> {
        (self.kind == "source").then_some(self.language).flatten()
    }

    /// Whether parsing reported syntax errors.
    pub(crate) fn has_errors(&self) -> bool {
        self.errors
    }
}

/// The modification time the indexer never matches (its own "racily clean" value).
const UNTRUSTED_MTIME: i64 = -1;

/// One clone's view of a file: size, modification time and the content hash it had then.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Stamp(pub(crate) u64, pub(crate) i64, pub(crate) String);

impl Stamp {
    /// The stamp of `record`.
    pub(crate) fn of(record: &FileRecord) -> Self {
        Self(record.size, record.mtime_ns, record.hash.clone())
    }
}

/// A file's metrics with its numbers of definitions and references.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct StoredMetrics {
    pub(crate) metrics: FileMetrics,
    pub(crate) definitions: usize,
    pub(crate) references: usize,
}

/// The distinct names a file defines and refers to, so a later write can take the file out
/// of their sets.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Names {
    pub(crate) defines: Vec<String>,
    pub(crate) refers: Vec<String>,
}

/// An outline ready to write: its JSON, metrics and names.
#[derive(Debug)]
pub(crate) struct PendingOutline {
    pub(crate) json: String,
    pub(crate) metrics: String,
    pub(crate) names: Names,
}

impl PendingOutline {
    /// `outline` encoded.
    pub(crate) fn new(outline: &FileOutline) -> Result<Self, serde_json::Error> {
        let mut defines = BTreeSet::new();
        let mut refers = BTreeSet::new();
        let mut definitions = 0;
        for symbol in &outline.symbols {
            match symbol.role {
                SymbolRole::Definition => {
                    definitions += 1;
                    defines.insert(symbol.name.as_str());
                }
                SymbolRole::Reference => {
                    refers.insert(symbol.name.as_str());
                }
            }
        }
        let metrics = StoredMetrics {
            metrics: outline.metrics,
            definitions,
            references: outline.symbols.len() - definitions,
        };
        let owned = |names: BTreeSet<&str>| names.into_iter().map(str::to_string).collect();
        Ok(Self {
            json: serde_json::to_string(outline)?,
            metrics: serde_json::to_string(&metrics)?,
            names: Names {
                defines: owned(defines),
                refers: owned(refers),
            },
        })
    }
}

/// One import edge as stored under its importing file: `[to, source, line]`.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct StoredEdge(String, String, u32);

/// The edges of the file `from` as stored.
pub(crate) fn encode_edges<'e>(edges: impl Iterator<Item = &'e Edge>) -> String {
    let stored: Vec<StoredEdge> = edges
        .map(|edge| StoredEdge(edge.to.clone(), edge.source.clone(), edge.line))
        .collect();
    serde_json::to_string(&stored).unwrap_or_else(|_| "[]".to_string())
}

/// The edges stored for `from`.
pub(crate) fn decode_edges(from: &str, json: &str) -> Result<Vec<Edge>, serde_json::Error> {
    let stored: Vec<StoredEdge> = serde_json::from_str(json)?;
    Ok(stored
        .into_iter()
        .map(|StoredEdge(to, source, line)| Edge {
            from: from.to_string(),
            to,
            source,
            line,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(kind: FileKind) -> FileRecord {
        FileRecord {
            path: "src/a.rs".to_string(),
            size: 12,
            mtime_ns: 99,
            hash: "abc".to_string(),
            kind,
            has_errors: true,
        }
    }

    #[test]
    fn records_round_trip_with_the_clones_own_stamp() {
        for kind in [
            FileKind::Source(Language::Rust),
            FileKind::Text,
            FileKind::Binary,
            FileKind::NonUtf8,
            FileKind::TooLarge,
            FileKind::Symlink {
                target: "../b".to_string(),
            },
        ] {
            let original = record(kind);
            let json = serde_json::to_string(&StoredRecord::of(&original)).unwrap();
            let stored: StoredRecord = serde_json::from_str(&json).unwrap();
            let back = stored
                .into_record(original.path.clone(), Some(Stamp::of(&original)))
                .unwrap();
            assert_eq!(back, original);
        }
    }

    #[test]
    fn a_stamp_of_other_contents_or_none_makes_the_time_untrusted() {
        let original = record(FileKind::Text);
        let stale = Stamp(12, 99, "older".to_string());
        let back = StoredRecord::of(&original)
            .into_record("a".to_string(), Some(stale))
            .unwrap();
        assert_eq!(back.mtime_ns, UNTRUSTED_MTIME);
        let none = StoredRecord::of(&original)
            .into_record("a".to_string(), None)
            .unwrap();
        assert_eq!(none.mtime_ns, UNTRUSTED_MTIME);
        assert_eq!(none.hash, "abc");
    }

    #[test]
    fn edges_round_trip() {
        let edges = [Edge {
            from: "a.ts".to_string(),
            to: "b.ts".to_string(),
            source: "./b".to_string(),
            line: 3,
        }];
        let json = encode_edges(edges.iter());
        assert_eq!(decode_edges("a.ts", &json).unwrap(), edges);
        assert!(decode_edges("a.ts", "{").is_err());
    }
}
