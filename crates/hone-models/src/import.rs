//! `hone model import FILE`: a model file the user downloaded themselves, checked against
//! the catalog and registered as if it had been pulled.

use std::path::{Path, PathBuf};

use crate::catalog::{CATALOG, CatalogEntry, catalog_entry};
use crate::error::ModelError;
use crate::pull::{ProgressFn, Source};
use crate::store::{ModelStore, PART_SUFFIX};

impl ModelStore {
    /// Copies `file` into the store as catalog model `name` (or, without a name, the
    /// catalog model of the same size), checks its size and SHA-256 against the catalog,
    /// converts it when the catalog says so, records it in the manifest and returns the file
    /// the local provider loads. `file` itself is left as it is; a file that does not match
    /// is not kept.
    pub async fn import(
        &self,
        file: &Path,
        name: Option<&str>,
        progress: ProgressFn,
    ) -> Result<PathBuf, ModelError> {
        let metadata =
            std::fs::metadata(file).map_err(|error| ModelError::io("cannot read", file, error))?;
        if !metadata.is_file() {
            return Err(ModelError::io(
                "cannot import",
                file,
                std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file"),
            ));
        }
        let entry = match name {
            Some(name) => catalog_entry(name).ok_or_else(|| crate::store::unknown(name, ""))?,
            None => same_size(metadata.len()).ok_or_else(|| ModelError::NotCatalogFile {
                path: file.to_path_buf(),
                expected: "any catalog model".to_string(),
                detail: format!("{} bytes, no catalog model has that size", metadata.len()),
            })?,
        };
        self.import_entry(entry, file, progress).await
    }

    /// [`ModelStore::import`] for any entry, including models outside [`crate::CATALOG`].
    pub async fn import_entry(
        &self,
        entry: &'static CatalogEntry,
        file: &Path,
        progress: ProgressFn,
    ) -> Result<PathBuf, ModelError> {
        std::fs::create_dir_all(self.dir())
            .map_err(|error| ModelError::io("cannot create", self.dir(), error))?;
        let _lock = self.lock(entry)?;
        let part = self
            .dir()
            .join(format!("{}.import{PART_SUFFIX}", entry.file));
        let copied = {
            let (file, part) = (file.to_path_buf(), part.clone());
            tokio::task::spawn_blocking(move || std::fs::copy(&file, &part))
                .await
                .map_err(|error| ModelError::Task(error.to_string()))?
        };
        if let Err(error) = copied {
            let _ = std::fs::remove_file(&part);
            return Err(ModelError::io("cannot copy", file, error));
        }
        self.accept(entry, &part, Source::File, &progress)
            .await
            .map_err(|error| match error {
                ModelError::Corrupt { detail, .. } => ModelError::NotCatalogFile {
                    path: file.to_path_buf(),
                    expected: format!("catalog model `{}`", entry.name),
                    detail,
                },
                other => other,
            })?;
        let download = self.dir().join(entry.file);
        self.register(entry, &download, Source::File.as_str(), &progress)
            .await
    }
}

/// The catalog model whose file has `size` bytes.
fn same_size(size: u64) -> Option<&'static CatalogEntry> {
    CATALOG.iter().find(|entry| entry.size == size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_matched_to_the_catalog_by_size() {
        let first = &CATALOG[0];
        assert_eq!(
            same_size(first.size).map(|entry| entry.name),
            Some(first.name)
        );
        assert!(same_size(7).is_none());
    }
}
