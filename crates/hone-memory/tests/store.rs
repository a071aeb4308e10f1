//! The session store against real database files: migrations, reopening, and the cases of
//! the shared suite (`suite/mod.rs`) on SQLite in memory.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod suite;

use hone_memory::{MemoryError, MessageStats, SCHEMA_VERSION, SessionStore};
use hone_protocol::Message;
use suite::new_session;

session_suite!(Some(((), SessionStore::open_in_memory().unwrap())));

#[test]
fn a_new_file_is_migrated_and_reopened() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/dir/sessions.db");
    let mut store = SessionStore::open(&path).unwrap();
    let session = store.create(&new_session("/p")).unwrap();
    drop(store);
    let store = SessionStore::open(&path).unwrap();
    assert_eq!(store.get(&session.id).unwrap().unwrap(), session);
    let connection = rusqlite::Connection::open(&path).unwrap();
    let version: i64 = connection
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap();
    assert_eq!(version, SCHEMA_VERSION);
}

#[test]
fn an_empty_file_becomes_a_store_and_garbage_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.db");
    std::fs::write(&empty, b"").unwrap();
    let mut store = SessionStore::open(&empty).unwrap();
    store.create(&new_session("/p")).unwrap();
    let garbage = dir.path().join("garbage.db");
    std::fs::write(&garbage, vec![b'x'; 4096]).unwrap();
    let error = SessionStore::open(&garbage).unwrap_err();
    assert!(matches!(error, MemoryError::Corrupt { .. }), "{error}");
    assert!(error.to_string().contains("mv "), "{error}");
}

#[test]
fn failed_unanswered_sessions_older_than_a_day_are_deleted_by_the_next_create() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    let mut store = SessionStore::open(&path).unwrap();
    let mut unanswered = |text: &str, fail: bool| {
        let session = store.create(&new_session("/a")).unwrap();
        store
            .append_message(&session.id, &Message::user(text), &MessageStats::default())
            .unwrap();
        if fail {
            store.mark_failed_if_unanswered(&session.id).unwrap();
        }
        session.id
    };
    let stale = unanswered("failed long ago", true);
    let recent = unanswered("failed just now", true);
    let killed = unanswered("killed mid-reply", false);
    let old = hone_memory::UNANSWERED_KEPT_MS + 60_000;
    let connection = rusqlite::Connection::open(&path).unwrap();
    connection
        .execute(
            "UPDATE sessions SET updated_ms = updated_ms - ?1 WHERE id IN (?2, ?3)",
            rusqlite::params![old, stale, killed],
        )
        .unwrap();
    store.create(&new_session("/b")).unwrap();
    assert!(
        store.get(&stale).unwrap().is_none(),
        "the failed run is gone"
    );
    assert!(store.get(&recent).unwrap().is_some(), "a recent one stays");
    assert!(
        store.get(&killed).unwrap().is_some(),
        "a run that did not fail (killed mid-reply) stays resumable"
    );
}
