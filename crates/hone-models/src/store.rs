//! The models directory: what is there, whether it is verified, removing models.

use std::path::{Path, PathBuf};

use crate::catalog::{CATALOG, CatalogEntry, catalog_entry, catalog_names};
use crate::error::ModelError;
use crate::hash::sha256_file;
use crate::manifest::{Manifest, ManifestEntry, modified_ns};

/// Suffix of a download in progress; such a file is never loaded.
pub const PART_SUFFIX: &str = ".part";

/// A directory of downloaded models with its manifest.
#[derive(Debug, Clone)]
pub struct ModelStore {
    dir: PathBuf,
}

/// The state of one catalog model in a store, as `hone model list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelState {
    /// Downloaded and verified; the manifest matches the file on disk.
    Verified {
        /// Where it came from (`huggingface`, `pip`, `local file`).
        source: String,
    },
    /// A file is present but not (or no longer) recorded as verified; loading it hashes it
    /// first.
    Unverified,
    /// A download was interrupted; `hone model pull` resumes it.
    Partial {
        /// Bytes downloaded so far.
        bytes: u64,
    },
    /// Nothing downloaded.
    Missing,
}

/// A catalog model and its state in a store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelStatus {
    /// The catalog entry.
    pub entry: &'static CatalogEntry,
    /// Its state.
    pub state: ModelState,
    /// The file the local provider loads (present or not).
    pub path: PathBuf,
}

/// What a model setting (`model = "…"`) names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResolvedModel {
    /// A verified catalog model.
    Catalog {
        /// The catalog entry.
        entry: &'static CatalogEntry,
        /// The verified file.
        path: PathBuf,
    },
    /// A GGUF file given by path; it has no known checksum and is loaded as is.
    File(PathBuf),
}

impl ResolvedModel {
    /// The file to load.
    pub fn path(&self) -> &Path {
        match self {
            Self::Catalog { path, .. } | Self::File(path) => path,
        }
    }
}

impl ModelStore {
    /// A store in `dir` (created when a model is pulled).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The store under hone's data directory: `$HONE_DATA_DIR/models`, else
    /// `~/.local/share/hone/models` (the platform's data directory).
    pub fn open_default() -> Result<Self, ModelError> {
        hone_config::data_dir()
            .map(|dir| Self::new(dir.join("models")))
            .ok_or(ModelError::NoDataDir)
    }

    /// The models directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub(crate) fn manifest(&self) -> Manifest {
        Manifest::new(&self.dir)
    }

    /// The state of every catalog model, without hashing anything.
    pub fn list(&self) -> Vec<ModelStatus> {
        CATALOG.iter().map(|entry| self.status(entry)).collect()
    }

    /// The state of `entry`, without hashing anything.
    pub fn status(&self, entry: &'static CatalogEntry) -> ModelStatus {
        let path = self.dir.join(entry.stored_file());
        let state = match std::fs::metadata(&path) {
            Ok(metadata) => match self.manifest().get(entry.name) {
                Some(recorded) if matches_record(&recorded, entry, &metadata) => {
                    ModelState::Verified {
                        source: recorded.source,
                    }
                }
                _ => ModelState::Unverified,
            },
            Err(_) => {
                let part = self.dir.join(format!("{}{PART_SUFFIX}", entry.file));
                let downloaded = self.dir.join(entry.file);
                match (std::fs::metadata(&downloaded), std::fs::metadata(&part)) {
                    (Ok(_), _) => ModelState::Unverified,
                    (Err(_), Ok(metadata)) => ModelState::Partial {
                        bytes: metadata.len(),
                    },
                    (Err(_), Err(_)) => ModelState::Missing,
                }
            }
        };
        ModelStatus { entry, state, path }
    }

    /// The verified file of catalog model `name`.
    ///
    /// The manifest vouches for a file whose size and modification time are unchanged;
    /// otherwise the file is hashed and checked against the catalog (or, for a converted
    /// file, against the checksum recorded after conversion) and the manifest updated.
    /// A file that fails is never returned.
    pub fn path_of(&self, name: &str) -> Result<PathBuf, ModelError> {
        let entry = catalog_entry(name).ok_or_else(|| unknown(name, ""))?;
        self.path_of_entry(entry)
    }

    /// [`ModelStore::path_of`] for any entry, including models outside [`CATALOG`].
    pub fn path_of_entry(&self, entry: &'static CatalogEntry) -> Result<PathBuf, ModelError> {
        self.verified_path(entry, &mut |_, _| {})
    }

    /// Like [`ModelStore::path_of`] with the hashing progress (`done`, `total` bytes).
    pub(crate) fn verified_path(
        &self,
        entry: &'static CatalogEntry,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<PathBuf, ModelError> {
        let path = self.dir.join(entry.stored_file());
        let Ok(metadata) = std::fs::metadata(&path) else {
            return Err(ModelError::NotDownloaded {
                name: entry.name.to_string(),
                size: human_bytes(entry.size),
            });
        };
        let recorded = self.manifest().get(entry.name);
        if let Some(recorded) = &recorded
            && matches_record(recorded, entry, &metadata)
        {
            return Ok(path);
        }
        let unverified = |reason: String| ModelError::Unverified {
            name: entry.name.to_string(),
            path: path.clone(),
            reason,
        };
        let (expected_size, expected_sha) = match (&recorded, entry.convert_to_q8_0) {
            (Some(recorded), true) if recorded.converted.is_some() => {
                (recorded.stored_size(), recorded.stored_sha256().to_string())
            }
            (_, true) => {
                return Err(unverified(
                    "there is no record of its conversion".to_string(),
                ));
            }
            (_, false) => (entry.size, entry.sha256.to_string()),
        };
        if metadata.len() != expected_size {
            return Err(unverified(format!(
                "{} bytes, expected {expected_size}",
                metadata.len()
            )));
        }
        let total = metadata.len();
        let actual = sha256_file(&path, &mut |done| progress(done, total))
            .map_err(|error| ModelError::io("cannot read", &path, error))?;
        if actual != expected_sha {
            return Err(unverified(format!(
                "sha256 {actual}, expected {expected_sha}"
            )));
        }
        let mut updated = recorded.unwrap_or_else(|| ManifestEntry {
            name: entry.name.to_string(),
            file: entry.file.to_string(),
            size: entry.size,
            sha256: entry.sha256.to_string(),
            source: "local file".to_string(),
            converted: None,
            modified_ns: 0,
        });
        updated.modified_ns = modified_ns(&metadata);
        self.manifest().put(updated)?;
        Ok(path)
    }

    /// What `model` names: a catalog model (verified, see [`ModelStore::path_of`]) or an
    /// existing GGUF file.
    pub fn resolve(&self, model: &str) -> Result<ResolvedModel, ModelError> {
        if let Some(entry) = catalog_entry(model) {
            let path = self.path_of(entry.name)?;
            return Ok(ResolvedModel::Catalog { entry, path });
        }
        let path = hone_config::expand_home(model);
        if path.is_file() {
            return Ok(ResolvedModel::File(path));
        }
        Err(unknown(model, " or a path to a .gguf file"))
    }

    /// Removes catalog model `name`: its files, any partial download and its manifest
    /// entry. Returns the files removed (empty when nothing was there).
    pub fn remove(&self, name: &str) -> Result<Vec<PathBuf>, ModelError> {
        let entry = catalog_entry(name).ok_or_else(|| unknown(name, ""))?;
        self.remove_entry(entry)
    }

    /// [`ModelStore::remove`] for any entry, including models outside [`CATALOG`].
    pub fn remove_entry(&self, entry: &CatalogEntry) -> Result<Vec<PathBuf>, ModelError> {
        let stored = entry.stored_file();
        let candidates = [
            stored.clone(),
            format!("{stored}{PART_SUFFIX}"),
            entry.file.to_string(),
            format!("{}{PART_SUFFIX}", entry.file),
            crate::pull::pip_part_name(entry),
        ];
        let mut removed = Vec::new();
        for file in candidates {
            let path = self.dir.join(file);
            match std::fs::remove_file(&path) {
                Ok(()) => {
                    if !removed.contains(&path) {
                        removed.push(path);
                    }
                }
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                Err(error) => return Err(ModelError::io("cannot remove", path, error)),
            }
        }
        self.manifest().remove(entry.name)?;
        Ok(removed)
    }
}

/// Whether the manifest's record still describes the file on disk.
fn matches_record(
    recorded: &ManifestEntry,
    entry: &CatalogEntry,
    metadata: &std::fs::Metadata,
) -> bool {
    recorded.stored_file() == entry.stored_file()
        && recorded.sha256 == entry.sha256
        && recorded.converted.is_some() == entry.convert_to_q8_0
        && recorded.stored_size() == metadata.len()
        && recorded.modified_ns == modified_ns(metadata)
        && recorded.modified_ns != 0
}

pub(crate) fn unknown(name: &str, path_hint: &'static str) -> ModelError {
    ModelError::UnknownModel {
        name: name.to_string(),
        known: catalog_names().join(", "),
        path_hint,
    }
}

/// `1117320768` as `1.0 GiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_naturally() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(1_117_320_768), "1.0 GiB");
        assert_eq!(human_bytes(491_400_064), "468.6 MiB");
    }

    #[test]
    fn home_paths_expand() {
        assert_eq!(
            hone_config::expand_home("/a/b.gguf"),
            PathBuf::from("/a/b.gguf")
        );
        if let Some(home) = std::env::home_dir() {
            assert_eq!(hone_config::expand_home("~/m.gguf"), home.join("m.gguf"));
        }
    }
}
