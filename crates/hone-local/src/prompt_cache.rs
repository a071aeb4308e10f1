//! Prompt starts kept on disk: the keys and values of a prompt's stable start (the system
//! prompt with the tools and the repository map), so a new process — each `hone exec` —
//! reads them back instead of computing them again.
//!
//! One directory per model file (named after its path, size and modification time, so a
//! replaced file never meets an old cache), one file per stored start, named after the
//! SHA-256 of its tokens. A file is the header `HONEKV01`, four little-endian `u32`s
//! (layers, key/value heads, head size, tokens), the tokens, then the keys and the values
//! as native `f32`s in the order `(layers, tokens, kv_heads, head_dim)`. Files are written
//! whole under a temporary name and renamed; the least recently used ones are removed
//! when the directory grows past its budget.

use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use sha2::{Digest, Sha256};

/// The first bytes of every cache file (the format's version is the last two).
const MAGIC: &[u8; 8] = b"HONEKV01";
/// The header: the magic and four `u32`s.
const HEADER_BYTES: u64 = 8 + 4 * 4;
/// File name extension of stored prompt starts.
const EXTENSION: &str = "kv";

/// The stored prompt starts of one model.
#[derive(Debug)]
pub(crate) struct PromptCache {
    dir: PathBuf,
    /// `(layers, kv_heads, head_dim)` of the model's cache.
    geometry: [usize; 3],
    /// Most bytes the directory keeps.
    budget: u64,
}

/// A stored prompt start that shares tokens with a prompt.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Match {
    /// The file.
    pub(crate) path: PathBuf,
    /// Tokens it shares with the prompt, from the first.
    pub(crate) shared: usize,
}

impl PromptCache {
    /// The cache of the model file `model` under `root` (created when missing), for a
    /// model whose cached positions have `geometry`, keeping at most `budget` bytes.
    pub(crate) fn open(
        root: &Path,
        model: &Path,
        geometry: [usize; 3],
        budget: u64,
    ) -> io::Result<Self> {
        let dir = root.join(model_key(model)?);
        fs::create_dir_all(&dir)?;
        Ok(Self {
            dir,
            geometry,
            budget,
        })
    }

    /// The stored start sharing the most tokens with `prompt`, if any shares one.
    pub(crate) fn best_match(&self, prompt: &[u32]) -> Option<Match> {
        let entries = fs::read_dir(&self.dir).ok()?;
        let mut best: Option<Match> = None;
        for entry in entries.flatten() {
            let path = entry.path();
            if path
                .extension()
                .is_none_or(|extension| extension != EXTENSION)
            {
                continue;
            }
            let tokens = match self.read_tokens(&path) {
                Ok(tokens) => tokens,
                Err(error) => {
                    tracing::warn!(path = %path.display(), %error, "removing an unreadable prompt cache file");
                    let _ = fs::remove_file(&path);
                    continue;
                }
            };
            let shared = crate::engine::common_prefix(&tokens, prompt);
            if shared > 0 && best.as_ref().is_none_or(|best| shared > best.shared) {
                best = Some(Match { path, shared });
            }
        }
        best
    }

    /// Keys and values of the first `len` positions stored in `path`.
    pub(crate) fn read(&self, path: &Path, len: usize) -> io::Result<(Vec<f32>, Vec<f32>)> {
        let mut file = File::open(path)?;
        let stored = self.read_header(&mut file)?;
        if len > stored {
            return Err(invalid(format!(
                "{len} positions asked for, {stored} stored"
            )));
        }
        let [layers, heads, head_dim] = self.geometry;
        let row = heads * head_dim;
        let tokens_bytes = 4 * stored as u64;
        let part_bytes = (layers * stored * row * 4) as u64;
        let mut read_part = |part: u64| -> io::Result<Vec<f32>> {
            let mut floats = Vec::with_capacity(layers * len * row);
            let mut bytes = vec![0u8; len * row * 4];
            for layer in 0..layers {
                let offset = HEADER_BYTES
                    + tokens_bytes
                    + part * part_bytes
                    + (layer * stored * row * 4) as u64;
                file.seek(SeekFrom::Start(offset))?;
                file.read_exact(&mut bytes)?;
                floats.extend(
                    bytes
                        .chunks_exact(4)
                        .map(|b| f32::from_ne_bytes([b[0], b[1], b[2], b[3]])),
                );
            }
            Ok(floats)
        };
        let keys = read_part(0)?;
        let values = read_part(1)?;
        touch(path);
        Ok((keys, values))
    }

    /// Whether the start `tokens` is stored (its use is recorded, for eviction).
    pub(crate) fn contains(&self, tokens: &[u32]) -> bool {
        let path = self.path_of(tokens);
        let exists = path.is_file();
        if exists {
            touch(&path);
        }
        exists
    }

    /// Stores the start `tokens` with its keys and values (flattened as
    /// `(layers, tokens, kv_heads, head_dim)`), then removes the least recently used files
    /// beyond the budget.
    pub(crate) fn write(&self, tokens: &[u32], keys: &[f32], values: &[f32]) -> io::Result<()> {
        let [layers, heads, head_dim] = self.geometry;
        let expected = layers * tokens.len() * heads * head_dim;
        if keys.len() != expected || values.len() != expected {
            return Err(invalid(format!(
                "{} keys and {} values for {expected} cached numbers",
                keys.len(),
                values.len()
            )));
        }
        let path = self.path_of(tokens);
        let temporary = self
            .dir
            .join(format!(".{}.{}.tmp", std::process::id(), tokens.len()));
        let written = (|| {
            let mut out = io::BufWriter::new(File::create(&temporary)?);
            out.write_all(MAGIC)?;
            for number in [layers, heads, head_dim, tokens.len()] {
                out.write_all(&u32::try_from(number).map_err(invalid)?.to_le_bytes())?;
            }
            for token in tokens {
                out.write_all(&token.to_le_bytes())?;
            }
            for number in keys.iter().chain(values) {
                out.write_all(&number.to_ne_bytes())?;
            }
            out.into_inner()
                .map_err(io::IntoInnerError::into_error)?
                .sync_all()?;
            fs::rename(&temporary, &path)
        })();
        if written.is_err() {
            let _ = fs::remove_file(&temporary);
        }
        written?;
        self.evict();
        Ok(())
    }

    fn path_of(&self, tokens: &[u32]) -> PathBuf {
        let mut hash = Sha256::new();
        for token in tokens {
            hash.update(token.to_le_bytes());
        }
        let digest = hash.finalize();
        let name: String = digest[..16]
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        self.dir.join(format!("{name}.{EXTENSION}"))
    }

    /// Reads and checks the header; the number of stored positions.
    fn read_header(&self, file: &mut File) -> io::Result<usize> {
        let mut header = [0u8; HEADER_BYTES as usize];
        file.read_exact(&mut header)?;
        if &header[..8] != MAGIC {
            return Err(invalid("not a prompt cache file of this version"));
        }
        let number = |index: usize| {
            let at = 8 + index * 4;
            u32::from_le_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
                as usize
        };
        if [number(0), number(1), number(2)] != self.geometry {
            return Err(invalid("made for a model of another shape"));
        }
        let stored = number(3);
        let [layers, heads, head_dim] = self.geometry;
        let size =
            HEADER_BYTES + 4 * stored as u64 + 2 * (layers * stored * heads * head_dim * 4) as u64;
        if file.metadata()?.len() != size {
            return Err(invalid("truncated or padded"));
        }
        Ok(stored)
    }

    fn read_tokens(&self, path: &Path) -> io::Result<Vec<u32>> {
        let mut file = File::open(path)?;
        let stored = self.read_header(&mut file)?;
        let mut bytes = vec![0u8; stored * 4];
        file.read_exact(&mut bytes)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }

    /// Removes the least recently used files until the directory fits the budget.
    fn evict(&self) {
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return;
        };
        let mut files: Vec<(SystemTime, u64, PathBuf)> = entries
            .flatten()
            .filter_map(|entry| {
                let path = entry.path();
                let metadata = entry.metadata().ok()?;
                if path.extension()? != EXTENSION {
                    return None;
                }
                Some((metadata.modified().ok()?, metadata.len(), path))
            })
            .collect();
        let mut total: u64 = files.iter().map(|(_, size, _)| size).sum();
        files.sort();
        for (_, size, path) in files {
            if total <= self.budget {
                break;
            }
            if fs::remove_file(&path).is_ok() {
                total -= size;
            }
        }
    }
}

/// The directory name of a model file: a hash of its canonical path, size and
/// modification time.
fn model_key(model: &Path) -> io::Result<String> {
    let metadata = fs::metadata(model)?;
    let modified = metadata
        .modified()?
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|since| since.as_nanos())
        .unwrap_or_default();
    let mut hash = Sha256::new();
    hash.update(model.to_string_lossy().as_bytes());
    hash.update(metadata.len().to_le_bytes());
    hash.update(modified.to_le_bytes());
    let digest = hash.finalize();
    let stem = model
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    let short: String = digest[..8]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    Ok(format!("{stem}-{short}"))
}

/// Records a use of `path` (its modification time), for least-recently-used eviction.
fn touch(path: &Path) {
    if let Ok(file) = File::options().append(true).open(path) {
        let _ = file.set_modified(SystemTime::now());
    }
}

fn invalid(reason: impl ToString) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, reason.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GEOMETRY: [usize; 3] = [2, 1, 2];

    fn numbers(tokens: usize, start: f32) -> Vec<f32> {
        (0..2 * tokens * 2).map(|i| start + i as f32).collect()
    }

    fn open_cache(root: &Path, budget: u64) -> PromptCache {
        let model = root.join("model.gguf");
        fs::write(&model, b"weights").unwrap();
        PromptCache::open(&root.join("cache"), &model, GEOMETRY, budget).unwrap()
    }

    #[test]
    fn a_stored_start_is_found_and_read_back_in_part() {
        let root = tempfile::tempdir().unwrap();
        let cache = open_cache(root.path(), u64::MAX);
        assert_eq!(cache.best_match(&[1, 2, 3]), None);
        let (keys, values) = (numbers(3, 0.0), numbers(3, 100.0));
        cache.write(&[1, 2, 3], &keys, &values).unwrap();
        assert!(cache.contains(&[1, 2, 3]));
        assert!(!cache.contains(&[1, 2]));

        let found = cache.best_match(&[1, 2, 9, 9]).unwrap();
        assert_eq!(found.shared, 2);
        let (read_keys, read_values) = cache.read(&found.path, 2).unwrap();
        // Layer 0 positions 0..2, then layer 1 positions 0..2 (each position 2 numbers).
        assert_eq!(read_keys, vec![0.0, 1.0, 2.0, 3.0, 6.0, 7.0, 8.0, 9.0]);
        assert_eq!(read_values[0], 100.0);
        assert!(cache.read(&found.path, 4).is_err());
    }

    #[test]
    fn the_longest_shared_start_wins() {
        let root = tempfile::tempdir().unwrap();
        let cache = open_cache(root.path(), u64::MAX);
        cache
            .write(&[1, 2], &numbers(2, 0.0), &numbers(2, 0.0))
            .unwrap();
        cache
            .write(&[1, 2, 3, 4], &numbers(4, 0.0), &numbers(4, 0.0))
            .unwrap();
        cache
            .write(&[7, 8, 9], &numbers(3, 0.0), &numbers(3, 0.0))
            .unwrap();
        assert_eq!(cache.best_match(&[1, 2, 3, 5]).unwrap().shared, 3);
        assert_eq!(cache.best_match(&[5]), None);
    }

    #[test]
    fn damaged_or_foreign_files_are_removed_not_used() {
        let root = tempfile::tempdir().unwrap();
        let cache = open_cache(root.path(), u64::MAX);
        cache
            .write(&[1, 2], &numbers(2, 0.0), &numbers(2, 0.0))
            .unwrap();
        let path = cache.best_match(&[1, 2]).unwrap().path;
        let bytes = fs::read(&path).unwrap();
        fs::write(&path, &bytes[..bytes.len() - 4]).unwrap();
        assert_eq!(cache.best_match(&[1, 2]), None);
        assert!(!path.exists());

        let other = PromptCache {
            geometry: [3, 1, 2],
            ..open_cache(root.path(), u64::MAX)
        };
        cache
            .write(&[1, 2], &numbers(2, 0.0), &numbers(2, 0.0))
            .unwrap();
        assert_eq!(other.best_match(&[1, 2]), None);
        assert!(
            cache
                .write(&[1, 2], &numbers(1, 0.0), &numbers(2, 0.0))
                .is_err()
        );
    }

    #[test]
    fn the_least_recently_used_files_go_beyond_the_budget() {
        let root = tempfile::tempdir().unwrap();
        let one_file = HEADER_BYTES + 4 * 2 + 2 * 2 * 2 * 2 * 4;
        let cache = open_cache(root.path(), 2 * one_file);
        cache
            .write(&[1, 1], &numbers(2, 0.0), &numbers(2, 0.0))
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        cache
            .write(&[2, 2], &numbers(2, 0.0), &numbers(2, 0.0))
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(cache.contains(&[1, 1]));
        std::thread::sleep(std::time::Duration::from_millis(20));
        cache
            .write(&[3, 3], &numbers(2, 0.0), &numbers(2, 0.0))
            .unwrap();
        assert!(cache.contains(&[1, 1]));
        assert!(!cache.contains(&[2, 2]));
        assert!(cache.contains(&[3, 3]));
    }

    #[test]
    fn a_replaced_model_file_gets_a_new_directory() {
        let root = tempfile::tempdir().unwrap();
        let model = root.path().join("model.gguf");
        fs::write(&model, b"weights").unwrap();
        let first = model_key(&model).unwrap();
        fs::write(&model, b"other weights").unwrap();
        assert_ne!(model_key(&model).unwrap(), first);
        assert!(first.starts_with("model-"));
    }
}
