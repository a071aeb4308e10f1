//! `rediss://` (TLS) URLs: accepted, and a server that does not speak TLS, or no server at
//! all, is a clear error naming the URL. No test needs a TLS server or the internet.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod support;

use hone_index::IndexError;
use hone_memory::MemoryError;
use hone_store_redis::{RedisSessions, RedisStore, RedisTarget};
use support::Redis;

fn target(url: &str) -> RedisTarget {
    RedisTarget {
        url: url.to_string(),
        password: None,
        namespace: "tls".to_string(),
        clone_id: "c1".to_string(),
    }
}

#[test]
fn a_rediss_url_to_a_server_without_tls_fails_naming_the_url() {
    let Some(redis) = Redis::start() else { return };
    let url = redis.server.url().replace("redis://", "rediss://");
    let error = RedisStore::open(&target(&url)).unwrap_err();
    assert!(
        matches!(error, IndexError::Unreachable { .. }),
        "a TLS failure is a connection failure: {error}"
    );
    assert!(error.to_string().contains(&url), "{error}");
    let error = RedisSessions::open(&target(&url)).unwrap_err();
    assert!(matches!(error, MemoryError::Unreachable { .. }), "{error}");
    assert!(error.to_string().contains(&url), "{error}");
}

#[test]
fn a_rediss_url_with_nothing_listening_is_unreachable() {
    let port = std::net::TcpListener::bind(("127.0.0.1", 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("rediss://127.0.0.1:{port}/0");
    let error = RedisSessions::open(&target(&url)).unwrap_err();
    assert!(matches!(error, MemoryError::Unreachable { .. }), "{error}");
    assert!(error.to_string().contains(&url), "{error}");
    assert_eq!(error.category(), hone_protocol::ErrorCategory::Network);
}
