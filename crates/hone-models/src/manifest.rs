//! `manifest.json`: what was downloaded and verified, so that loading needs no re-hash.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use crate::error::ModelError;

/// The manifest's file name in the models directory.
pub const MANIFEST_FILE: &str = "manifest.json";

/// Format version written to the manifest.
const VERSION: u32 = 1;

/// One verified model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// Catalog name.
    pub name: String,
    /// The downloaded file's name.
    pub file: String,
    /// The downloaded file's size in bytes.
    pub size: u64,
    /// The downloaded file's SHA-256 (hex).
    pub sha256: String,
    /// Where it came from: `huggingface`, `pip` or `local file`.
    pub source: String,
    /// The file made from it for loading, when the model is converted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub converted: Option<ConvertedFile>,
    /// Modification time (nanoseconds since the epoch) of the stored file when it was last
    /// verified; a different time means the file must be hashed again.
    pub modified_ns: u64,
}

/// A file converted from the download (e.g. to Q8_0).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConvertedFile {
    /// File name in the models directory.
    pub file: String,
    /// Size in bytes.
    pub size: u64,
    /// SHA-256 (hex) of the converted file, computed after conversion.
    pub sha256: String,
    /// Target format (`q8_0`).
    pub format: String,
}

impl ManifestEntry {
    /// The file the local provider loads: the conversion when there is one.
    pub fn stored_file(&self) -> &str {
        self.converted
            .as_ref()
            .map_or(self.file.as_str(), |converted| converted.file.as_str())
    }

    /// Size of [`ManifestEntry::stored_file`].
    pub fn stored_size(&self) -> u64 {
        self.converted
            .as_ref()
            .map_or(self.size, |converted| converted.size)
    }

    /// SHA-256 of [`ManifestEntry::stored_file`].
    pub fn stored_sha256(&self) -> &str {
        self.converted
            .as_ref()
            .map_or(self.sha256.as_str(), |converted| converted.sha256.as_str())
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct ManifestFile {
    version: u32,
    #[serde(default)]
    models: BTreeMap<String, ManifestEntry>,
}

/// The manifest of one models directory.
#[derive(Debug, Clone)]
pub(crate) struct Manifest {
    path: PathBuf,
}

impl Manifest {
    pub(crate) fn new(dir: &Path) -> Self {
        Self {
            path: dir.join(MANIFEST_FILE),
        }
    }

    /// Every entry; an absent manifest is empty.
    pub(crate) fn entries(&self) -> Result<BTreeMap<String, ManifestEntry>, ModelError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(BTreeMap::new());
            }
            Err(error) => return Err(ModelError::io("cannot read", &self.path, error)),
        };
        let file: ManifestFile =
            serde_json::from_str(&text).map_err(|error| ModelError::Manifest {
                path: self.path.clone(),
                detail: error.to_string(),
            })?;
        Ok(file.models)
    }

    /// The entry for `name`, if any. An unreadable manifest counts as empty here: every
    /// file is then verified by hashing, which is safe.
    pub(crate) fn get(&self, name: &str) -> Option<ManifestEntry> {
        match self.entries() {
            Ok(mut entries) => entries.remove(name),
            Err(error) => {
                tracing::warn!("{error}");
                None
            }
        }
    }

    /// Adds or replaces `entry`.
    pub(crate) fn put(&self, entry: ManifestEntry) -> Result<(), ModelError> {
        let mut entries = self.entries().unwrap_or_default();
        entries.insert(entry.name.clone(), entry);
        self.write(entries)
    }

    /// Removes the entry for `name`.
    pub(crate) fn remove(&self, name: &str) -> Result<(), ModelError> {
        let mut entries = self.entries().unwrap_or_default();
        if entries.remove(name).is_some() {
            self.write(entries)?;
        }
        Ok(())
    }

    /// Writes atomically: a temporary file in the same directory, then a rename.
    fn write(&self, models: BTreeMap<String, ManifestEntry>) -> Result<(), ModelError> {
        let file = ManifestFile {
            version: VERSION,
            models,
        };
        let text = serde_json::to_string_pretty(&file).map_err(|error| ModelError::Manifest {
            path: self.path.clone(),
            detail: error.to_string(),
        })?;
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)
            .map_err(|error| ModelError::io("cannot create", dir, error))?;
        hone_fs::write_atomically(&self.path, text.as_bytes(), None)
            .map_err(|error| ModelError::io("cannot write", &self.path, error))
    }
}

/// Modification time of `path` in nanoseconds since the epoch (0 when unknown).
pub(crate) fn modified_ns(metadata: &std::fs::Metadata) -> u64 {
    metadata
        .modified()
        .ok()
        .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str) -> ManifestEntry {
        ManifestEntry {
            name: name.to_string(),
            file: format!("{name}.gguf"),
            size: 3,
            sha256: "ab".repeat(32),
            source: "pip".to_string(),
            converted: None,
            modified_ns: 7,
        }
    }

    #[test]
    fn entries_round_trip_and_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = Manifest::new(dir.path());
        assert!(manifest.entries().unwrap().is_empty());
        manifest.put(entry("a")).unwrap();
        let mut converted = entry("b");
        converted.converted = Some(ConvertedFile {
            file: "b.q8.gguf".into(),
            size: 9,
            sha256: "cd".repeat(32),
            format: "q8_0".into(),
        });
        manifest.put(converted.clone()).unwrap();
        assert_eq!(manifest.get("b"), Some(converted.clone()));
        assert_eq!(converted.stored_file(), "b.q8.gguf");
        assert_eq!(converted.stored_size(), 9);
        assert_eq!(entry("a").stored_sha256(), "ab".repeat(32));
        manifest.remove("a").unwrap();
        assert_eq!(manifest.entries().unwrap().len(), 1);
        let text = std::fs::read_to_string(dir.path().join(MANIFEST_FILE)).unwrap();
        assert!(text.contains("\"version\": 1"), "{text}");
    }

    #[test]
    fn a_corrupt_manifest_is_reported_and_treated_as_empty() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(MANIFEST_FILE), "{not json").unwrap();
        let manifest = Manifest::new(dir.path());
        let message = manifest.entries().unwrap_err().to_string();
        assert!(message.contains("delete it"), "{message}");
        assert_eq!(manifest.get("a"), None);
        manifest.put(entry("a")).unwrap();
        assert!(manifest.get("a").is_some());
    }
}
