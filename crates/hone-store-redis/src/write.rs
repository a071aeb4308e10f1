//! Writing: changes are collected (encoded as they come) and sent as one MULTI/EXEC at the
//! commit, under WATCH of `meta`, which every write changes: when another process wrote in
//! between, the server drops the transaction and it is built again on the new state.

use std::collections::{BTreeMap, HashMap};
use std::time::{SystemTime, UNIX_EPOCH};

use hone_index::{EdgeUpdate, FileUpdate, IndexError, IndexWrite, OutlineChange};
use redis::{Connection, Pipeline};

use crate::RedisStore;
use crate::codec::{Names, PendingOutline, Stamp, StoredRecord, encode_edges};

/// What happens to one file's outline.
enum OutlineAction {
    Keep,
    Remove,
    Store(PendingOutline),
}

/// One change, encoded.
enum Change {
    Upsert {
        path: String,
        record: String,
        stamp: String,
        outline: OutlineAction,
    },
    Delete(String),
    /// Every edge (`All`), or the edges of these files: importing path → encoded edges.
    Edges {
        replace_all: bool,
        cleared: Vec<String>,
        by_file: BTreeMap<String, String>,
    },
}

/// An open write on a [`RedisStore`]: nothing reaches the server before the commit, so
/// dropping it uncommitted discards every change.
pub(crate) struct RedisWrite<'s> {
    store: &'s RedisStore,
    changes: Vec<Change>,
    graph_changed: bool,
}

impl<'s> RedisWrite<'s> {
    pub(crate) fn new(store: &'s RedisStore) -> Self {
        Self {
            store,
            changes: Vec::new(),
            graph_changed: false,
        }
    }

    /// The paths whose stored names the transaction needs (to take them out of name sets).
    fn touched_paths(&self) -> Vec<&str> {
        let mut paths: Vec<&str> = self
            .changes
            .iter()
            .filter_map(|change| match change {
                Change::Upsert {
                    outline: OutlineAction::Keep,
                    ..
                }
                | Change::Edges { .. } => None,
                Change::Upsert { path, .. } | Change::Delete(path) => Some(path.as_str()),
            })
            .collect();
        paths.sort_unstable();
        paths.dedup();
        paths
    }

    /// Reads the touched files' names, then queues the whole transaction on `pipe`.
    fn queue(
        &self,
        connection: &mut Connection,
        pipe: &mut Pipeline,
        touched: &[&str],
    ) -> redis::RedisResult<()> {
        let keys = &self.store.keys;
        let mut names: HashMap<&str, Names> = HashMap::new();
        if !touched.is_empty() {
            let stored: Vec<Option<String>> = redis::cmd("HMGET")
                .arg(&keys.names)
                .arg(touched)
                .query(connection)?;
            for (path, json) in touched.iter().zip(stored) {
                // Unreadable names are dropped: the file's sets then keep a stale entry,
                // which queries skip, rather than failing every later update.
                let decoded = json.and_then(|json| serde_json::from_str(&json).ok());
                names.insert(path, decoded.unwrap_or_default());
            }
        }
        for change in &self.changes {
            match change {
                Change::Upsert {
                    path,
                    record,
                    stamp,
                    outline,
                } => {
                    pipe.hset(&keys.files, path, record).ignore();
                    pipe.hset(&keys.stamps, path, stamp).ignore();
                    match outline {
                        OutlineAction::Keep => {}
                        OutlineAction::Remove => {
                            remove_outline(self.store, pipe, path, names.remove(path.as_str()));
                        }
                        OutlineAction::Store(pending) => {
                            remove_outline(self.store, pipe, path, names.remove(path.as_str()));
                            add_outline(self.store, pipe, path, pending);
                        }
                    }
                }
                Change::Delete(path) => {
                    remove_outline(self.store, pipe, path, names.remove(path.as_str()));
                    pipe.hdel(&keys.files, path).ignore();
                    pipe.hdel(&keys.stamps, path).ignore();
                }
                Change::Edges {
                    replace_all,
                    cleared,
                    by_file,
                } => {
                    if *replace_all {
                        pipe.del(&keys.edges).ignore();
                    } else if !cleared.is_empty() {
                        pipe.hdel(&keys.edges, cleared).ignore();
                    }
                    for (from, json) in by_file {
                        pipe.hset(&keys.edges, from, json).ignore();
                    }
                }
            }
        }
        if self.graph_changed {
            pipe.hincr(&keys.meta, "generation", 1).ignore();
            pipe.del(&keys.rank).ignore();
        }
        let now_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_millis());
        pipe.hset(&keys.meta, "last_indexed_ms", now_ms.to_string())
            .ignore();
        Ok(())
    }
}

/// Queues the removal of `path`'s outline, metrics and name-set entries.
fn remove_outline(store: &RedisStore, pipe: &mut Pipeline, path: &str, names: Option<Names>) {
    let keys = &store.keys;
    pipe.hdel(&keys.outlines, path).ignore();
    pipe.hdel(&keys.metrics, path).ignore();
    pipe.hdel(&keys.names, path).ignore();
    let Some(names) = names else { return };
    for name in &names.defines {
        pipe.srem(keys.definers(name), path).ignore();
        pipe.hincr(&keys.defnames, name, -1).ignore();
    }
    for name in &names.refers {
        pipe.srem(keys.referrers(name), path).ignore();
    }
}

/// Queues storing `pending` as `path`'s outline.
fn add_outline(store: &RedisStore, pipe: &mut Pipeline, path: &str, pending: &PendingOutline) {
    let keys = &store.keys;
    pipe.hset(&keys.outlines, path, &pending.json).ignore();
    pipe.hset(&keys.metrics, path, &pending.metrics).ignore();
    let names = serde_json::to_string(&pending.names).unwrap_or_default();
    pipe.hset(&keys.names, path, names).ignore();
    for name in &pending.names.defines {
        pipe.sadd(keys.definers(name), path).ignore();
        pipe.hincr(&keys.defnames, name, 1).ignore();
    }
    for name in &pending.names.refers {
        pipe.sadd(keys.referrers(name), path).ignore();
    }
}

impl IndexWrite for RedisWrite<'_> {
    fn upsert(&mut self, update: &FileUpdate) -> Result<(), IndexError> {
        let record = &update.record;
        let invalid = |reason: String| IndexError::InvalidRecord {
            path: record.path.clone(),
            reason,
        };
        // The SQLite store's limit, kept so both accept the same records.
        if i64::try_from(record.size).is_err() {
            return Err(invalid(format!("size {} is too large", record.size)));
        }
        let outline = match &update.outline {
            OutlineChange::Keep => OutlineAction::Keep,
            OutlineChange::Remove => OutlineAction::Remove,
            OutlineChange::Replace(outline) => OutlineAction::Store(
                PendingOutline::new(outline)
                    .map_err(|error| invalid(format!("outline cannot be serialised: {error}")))?,
            ),
            OutlineChange::Prepared(prepared) => {
                let outline = prepared.to_outline().map_err(&invalid)?;
                OutlineAction::Store(
                    PendingOutline::new(&outline).map_err(|error| {
                        invalid(format!("outline cannot be serialised: {error}"))
                    })?,
                )
            }
        };
        self.graph_changed |= !matches!(outline, OutlineAction::Keep);
        self.changes.push(Change::Upsert {
            path: record.path.clone(),
            record: json(&StoredRecord::of(record)).map_err(&invalid)?,
            stamp: json(&Stamp::of(record)).map_err(&invalid)?,
            outline,
        });
        Ok(())
    }

    fn delete(&mut self, path: &str) -> Result<(), IndexError> {
        self.graph_changed = true;
        self.changes.push(Change::Delete(path.to_string()));
        Ok(())
    }

    fn edges(&mut self, update: &EdgeUpdate) -> Result<(), IndexError> {
        self.graph_changed = true;
        let (replace_all, cleared, edges) = match update {
            EdgeUpdate::All(edges) => (true, Vec::new(), edges),
            EdgeUpdate::From { files, edges } => (false, files.clone(), edges),
        };
        let mut grouped: BTreeMap<&str, Vec<&hone_index::analysis::Edge>> = BTreeMap::new();
        for edge in edges {
            grouped.entry(edge.from.as_str()).or_default().push(edge);
        }
        let by_file = grouped
            .into_iter()
            .map(|(from, edges)| (from.to_string(), encode_edges(edges.into_iter())))
            .collect();
        self.changes.push(Change::Edges {
            replace_all,
            cleared,
            by_file,
        });
        Ok(())
    }

    fn commit(self: Box<Self>) -> Result<(), IndexError> {
        let touched = self.touched_paths();
        self.store.run(|connection| {
            redis::transaction(connection, &[&self.store.keys.meta], |connection, pipe| {
                self.queue(connection, pipe, &touched)?;
                pipe.query::<Option<()>>(connection)
            })
        })
    }
}

/// `value` as JSON, the error in words.
fn json<T: serde::Serialize>(value: &T) -> Result<String, String> {
    serde_json::to_string(value).map_err(|error| error.to_string())
}
