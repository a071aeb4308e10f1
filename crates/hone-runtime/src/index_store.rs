//! The store `[store]` chooses for the code index: the embedded SQLite database, or a Redis
//! server shared by a team (`hone_store_redis`), and what `hone doctor` says about it.

use std::fmt::Write as _;
use std::path::Path;

use hone_config::{StoreBackend, StoreSettings};
use hone_index::{IndexOptions, Indexer};
use hone_protocol::HoneError;
use hone_store_redis::{RedisStore, RedisTarget};

use crate::error::index_error;

/// The index of the project at `root` in the store `store` names (SQLite: where `options`
/// say).
pub(crate) fn open_indexer(
    root: &Path,
    options: &IndexOptions,
    store: &StoreSettings,
) -> Result<Indexer, HoneError> {
    match store.backend {
        StoreBackend::Sqlite => Indexer::open(root, options).map_err(index_error),
        StoreBackend::Redis => {
            let redis = RedisStore::open(&redis_target(root, store)?).map_err(index_error)?;
            Indexer::with_store(root, options, Box::new(redis)).map_err(index_error)
        }
    }
}

/// The local SQLite index a session uses when its Redis store could not be opened
/// (`error`) and `[store] fallback = "sqlite"` allows it, with the warning to show; `None`
/// when there is no fallback or it fails too.
pub(crate) fn fall_back(
    root: &Path,
    settings: &hone_config::IndexSettings,
    error: &HoneError,
) -> Option<(Indexer, String)> {
    let store = &settings.store;
    if store.backend != StoreBackend::Redis || !store.fallback_sqlite {
        return None;
    }
    let options = crate::index::index_options(root, settings).ok()?;
    let indexer = Indexer::open(root, &options).ok()?;
    let warning = format!(
        "{}; this session uses the local SQLite index instead ([store] fallback = \"sqlite\"), \
         which other clones do not share",
        error.message
    );
    Some((indexer, warning))
}

/// Where the Redis store of the project at `root` is: the URL, the password from its
/// variable, the namespace, and this clone's name (from the host and the project's path,
/// so two clones on one machine keep their modification times apart).
pub fn redis_target(root: &Path, store: &StoreSettings) -> Result<RedisTarget, HoneError> {
    let url = store.url.clone().ok_or_else(|| {
        HoneError::config(
            "`[store] backend = \"redis\"` needs `url` (e.g. \"redis://127.0.0.1:6379/0\"), or \
             give `hone index --store URL`",
        )
    })?;
    let password = store.password().map_err(HoneError::config)?;
    let canonical = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .unwrap_or_default();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let bytes = host
        .trim()
        .as_bytes()
        .iter()
        .chain([0u8].iter())
        .chain(canonical.as_os_str().as_encoded_bytes().iter());
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    Ok(RedisTarget {
        url,
        password,
        namespace: store.namespace_for(&canonical),
        clone_id: format!("{hash:016x}"),
    })
}

/// `hone doctor`'s lines about the index store of the project at `root`.
pub(crate) fn doctor_lines(root: &Path, store: &StoreSettings, out: &mut String) {
    let _ = writeln!(out, "\ncode index store: {}", store.backend);
    if store.backend == StoreBackend::Sqlite {
        let _ = writeln!(
            out,
            "  embedded database per project (see [index] database)"
        );
        return;
    }
    let opened =
        redis_target(root, store).and_then(|target| RedisStore::open(&target).map_err(index_error));
    let store = match opened {
        Ok(store) => store,
        Err(error) => {
            let _ = writeln!(out, "  problem: {}", error.message);
            return;
        }
    };
    let _ = writeln!(out, "  server: {}", store.describe());
    match store.server_report() {
        Ok(report) => {
            let _ = writeln!(
                out,
                "  reachable: redis {}, {} files indexed in the namespace",
                report.version, report.files
            );
            if !report.append_only {
                let _ = writeln!(
                    out,
                    "  warning: the server does not keep an append-only file; a restart loses \
                     the index since its last snapshot (set appendonly yes, appendfsync \
                     everysec)"
                );
            }
        }
        Err(error) => {
            let _ = writeln!(out, "  problem: {error}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redis_store_needs_a_url_and_names_the_clone_by_host_and_path() {
        let dir = tempfile::tempdir().unwrap();
        let redis = StoreSettings {
            backend: StoreBackend::Redis,
            ..StoreSettings::default()
        };
        let error = redis_target(dir.path(), &redis).unwrap_err();
        assert!(error.message.contains("needs `url`"), "{}", error.message);
        let with_url = StoreSettings {
            url: Some("redis://127.0.0.1:1/0".to_string()),
            namespace: Some("team".to_string()),
            ..redis
        };
        let target = redis_target(dir.path(), &with_url).unwrap();
        assert_eq!(target.namespace, "team");
        assert_eq!(target.password, None);
        let other = tempfile::tempdir().unwrap();
        let elsewhere = redis_target(other.path(), &with_url).unwrap();
        assert_ne!(target.clone_id, elsewhere.clone_id);
        assert_eq!(
            target.clone_id,
            redis_target(dir.path(), &with_url).unwrap().clone_id
        );
    }

    #[test]
    fn doctor_names_an_unreachable_server_without_failing() {
        let dir = tempfile::tempdir().unwrap();
        let closed = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let store = StoreSettings {
            backend: StoreBackend::Redis,
            url: Some(format!("redis://127.0.0.1:{closed}/0")),
            ..StoreSettings::default()
        };
        let mut out = String::new();
        doctor_lines(dir.path(), &store, &mut out);
        assert!(
            out.contains("problem: cannot reach the index store"),
            "{out}"
        );
        let mut sqlite = String::new();
        doctor_lines(dir.path(), &StoreSettings::default(), &mut sqlite);
        assert!(sqlite.contains("code index store: sqlite"), "{sqlite}");
    }
}
