//! A `redis-server` for one test, with helpers to open stores on it.
#![allow(dead_code)] // each test binary uses part of it

use hone_memory::SessionStore;
use hone_store_redis::test_server::RedisServer;
use hone_store_redis::{RedisSessions, RedisStore, RedisTarget};
use tempfile::TempDir;

/// A running server and its data directory.
#[derive(Debug)]
pub struct Redis {
    pub server: RedisServer,
    _dir: TempDir,
}

impl Redis {
    /// A fresh server, or `None` (with a note) without `redis-server`.
    pub fn start() -> Option<Self> {
        let dir = tempfile::tempdir().unwrap();
        let server = RedisServer::start(dir.path())?;
        Some(Self { server, _dir: dir })
    }

    /// Where the store of `namespace`, as clone `clone`, lives.
    pub fn target(&self, namespace: &str, clone: &str) -> RedisTarget {
        RedisTarget {
            url: self.server.url(),
            password: None,
            namespace: namespace.to_string(),
            clone_id: clone.to_string(),
        }
    }

    /// The store of `namespace`, as clone `clone`.
    pub fn store(&self, namespace: &str, clone: &str) -> RedisStore {
        RedisStore::open(&self.target(namespace, clone)).unwrap()
    }

    /// The session store of `namespace`.
    pub fn sessions(&self, namespace: &str) -> SessionStore {
        SessionStore::with_backend(Box::new(
            RedisSessions::open(&self.target(namespace, "c1")).unwrap(),
        ))
    }
}
