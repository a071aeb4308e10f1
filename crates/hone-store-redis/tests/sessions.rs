//! The session store's shared suite (hone-memory's `tests/suite`) on Redis: every case on a
//! real `redis-server` started for it (skipped with a note when it is not installed,
//! unless `HONE_REQUIRE_REDIS=1`), plus what only a shared server shows: two connections
//! seeing each other's sessions, the schema check, and a server restarted mid-session.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod support;
#[macro_use]
#[path = "../../hone-memory/tests/suite/mod.rs"]
mod suite;

use hone_memory::{MemoryError, MessageStats, SessionStore};
use hone_protocol::Message;
use hone_store_redis::RedisSessions;
use suite::new_session;
use support::Redis;

/// A fresh server and a session store on it.
fn redis_store() -> Option<(Redis, SessionStore)> {
    let redis = Redis::start()?;
    let store = redis.sessions("suite");
    Some((redis, store))
}

session_suite!(redis_store());

#[test]
fn two_connections_on_one_namespace_share_sessions_and_others_do_not() {
    let Some(redis) = Redis::start() else { return };
    let mut first = redis.sessions("team");
    let second = redis.sessions("team");
    let elsewhere = redis.sessions("other-team");
    let session = first.create(&new_session("team")).unwrap();
    first
        .append_message(
            &session.id,
            &Message::user("fix add"),
            &MessageStats::default(),
        )
        .unwrap();
    let seen = second.find(&session.id[..12]).unwrap();
    assert_eq!(seen.title, "fix add");
    assert_eq!(second.messages(&session.id).unwrap().len(), 1);
    assert!(elsewhere.list(None, 10).unwrap().is_empty());
    let copy = first.reopen().unwrap();
    assert_eq!(copy.list(Some("team"), 10).unwrap().len(), 1);
}

#[test]
fn a_namespace_of_another_session_schema_is_refused() {
    let Some(redis) = Redis::start() else { return };
    drop(redis.sessions("old"));
    let mut raw = redis::Client::open(redis.server.url())
        .unwrap()
        .get_connection()
        .unwrap();
    redis::cmd("HSET")
        .arg("hone:{old}:meta")
        .arg("sessions_schema")
        .arg(99)
        .exec(&mut raw)
        .unwrap();
    let error = RedisSessions::open(&redis.target("old", "c1")).unwrap_err();
    assert!(matches!(error, MemoryError::Remote { .. }), "{error}");
    assert!(error.to_string().contains("\"99\""), "{error}");
}

#[test]
fn a_server_restarted_mid_session_is_reconnected_and_keeps_whole_updates() {
    let Some(mut redis) = Redis::start() else {
        return;
    };
    let mut store = redis.sessions("crash");
    let session = store.create(&new_session("crash")).unwrap();
    for message in [Message::user("one"), Message::assistant("two")] {
        store
            .append_message(&session.id, &message, &MessageStats::default())
            .unwrap();
    }
    redis.server.kill();
    redis.server.restart();
    // The lost connection is opened again and the update retried.
    store
        .append_message(
            &session.id,
            &Message::user("three"),
            &MessageStats::default(),
        )
        .unwrap();
    let messages = store.messages(&session.id).unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(store.get(&session.id).unwrap().unwrap().messages, 3);
}

#[test]
fn a_server_gone_for_good_is_a_network_error_naming_the_url() {
    let Some(mut redis) = Redis::start() else {
        return;
    };
    let mut store = redis.sessions("gone");
    let session = store.create(&new_session("gone")).unwrap();
    redis.server.kill();
    let error = store
        .append_message(
            &session.id,
            &Message::user("lost"),
            &MessageStats::default(),
        )
        .unwrap_err();
    assert!(matches!(error, MemoryError::Unreachable { .. }), "{error}");
    assert!(error.to_string().contains(&redis.server.url()), "{error}");
    assert_eq!(error.category(), hone_protocol::ErrorCategory::Network);
    redis.server.restart();
    let store = redis.sessions("gone");
    assert!(store.get(&session.id).unwrap().is_some());
    assert_eq!(
        store.messages(&session.id).unwrap().len(),
        0,
        "nothing half-written"
    );
}
