//! The SQLite store: opening it, and the session records.

use std::path::{Path, PathBuf};

use hone_sqlite::Setup;
use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};

use crate::error::MemoryError;
use crate::id::{new_id, now_ms};
use crate::migrations::MIGRATIONS;

/// The database file under hone's data directory.
pub const DB_FILE: &str = "sessions.db";

/// A session whose turn failed before the model's first answer
/// ([`crate::SessionStore::mark_failed_if_unanswered`]) and that has no answer since. Such sessions
/// are left out of lists, and deleted once they are [`UNANSWERED_KEPT_MS`] old.
const UNANSWERED: &str = "(s.failed_unanswered = 1 AND \
     NOT EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id AND m.role = 'assistant'))";

/// How long a failed, unanswered session is kept (one day) before [`crate::SessionStore::create`]
/// deletes it.
pub const UNANSWERED_KEPT_MS: i64 = 24 * 60 * 60 * 1000;

/// Columns of a session query, in the order [`session_from_row`] decodes them.
pub(crate) const SESSION_COLUMNS: &str = "SELECT s.id, s.project, s.created_ms, s.updated_ms, \
     s.title, s.provider, s.model, s.forked_from, s.tokens_in, s.tokens_out, s.cached_tokens, \
     s.duration_ms, s.turns, s.tool_calls, s.edits_applied, s.edits_rejected, \
     (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) FROM sessions s";

/// Totals of a session, summed over its turns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionStats {
    /// Prompt tokens, including cached ones.
    pub tokens_in: u64,
    /// Generated tokens.
    pub tokens_out: u64,
    /// Prompt tokens served from the provider's cache.
    pub cached_tokens: u64,
    /// Wall time of the turns, in milliseconds.
    pub duration_ms: u64,
    /// Turns run.
    pub turns: u64,
    /// Tool calls made.
    pub tool_calls: u64,
    /// Edits written to disk.
    pub edits_applied: u64,
    /// Proposed edits that were not written (denied, failed or cancelled).
    pub edits_rejected: u64,
}

/// What a new session starts with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewSession {
    /// The project's key ([`crate::project_key`]).
    pub project: String,
    /// Provider instance name.
    pub provider: String,
    /// Model.
    pub model: String,
}

/// A stored session, without its messages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionInfo {
    /// Sortable unique id.
    pub id: String,
    /// The project's key ([`crate::project_key`]).
    pub project: String,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// Last activity, milliseconds since the Unix epoch.
    pub updated_ms: i64,
    /// The first user message, trimmed (empty until there is one).
    pub title: String,
    /// Provider instance last used.
    pub provider: String,
    /// Model last used.
    pub model: String,
    /// The session this one was forked from.
    pub forked_from: Option<String>,
    /// Number of stored messages.
    pub messages: u64,
    /// Totals.
    pub stats: SessionStats,
}

/// The SQLite session store: one database (WAL journal) holding every project's sessions,
/// messages, input history and undo journal. Each write is one transaction, so a killed
/// process loses at most the write it was making.
#[derive(Debug)]
pub(crate) struct SqliteSessions {
    pub(crate) connection: Connection,
    pub(crate) path: PathBuf,
}

impl SqliteSessions {
    /// Opens (creating it and its directory if needed) the store at `path` and brings its
    /// schema up to date.
    pub(crate) fn open(path: &Path) -> Result<Self, MemoryError> {
        let connection = hone_sqlite::open(path, &Setup::new(MIGRATIONS))?;
        Ok(Self {
            connection,
            path: path.to_path_buf(),
        })
    }

    /// A fresh store in memory.
    pub(crate) fn open_in_memory() -> Result<Self, MemoryError> {
        let connection = hone_sqlite::open_in_memory(&Setup::new(MIGRATIONS))?;
        Ok(Self {
            connection,
            path: PathBuf::from(":memory:"),
        })
    }

    pub(crate) fn database(&self, error: rusqlite::Error) -> MemoryError {
        MemoryError::database(&self.path, error)
    }

    pub(crate) fn decode(&self, what: String, error: &serde_json::Error) -> MemoryError {
        MemoryError::Decode {
            path: self.path.clone(),
            what,
            detail: error.to_string(),
        }
    }

    /// Creates a session; its id sorts after every id created earlier. Unanswered sessions
    /// older than [`UNANSWERED_KEPT_MS`] (runs that failed before the model's first answer)
    /// are deleted first.
    pub fn create(&mut self, new: &NewSession) -> Result<SessionInfo, MemoryError> {
        let now = now_ms();
        self.connection
            .execute(
                &format!("DELETE FROM sessions AS s WHERE s.updated_ms < ?1 AND {UNANSWERED}"),
                [now - UNANSWERED_KEPT_MS],
            )
            .map_err(|error| self.database(error))?;
        let id = new_id(now);
        self.connection
            .execute(
                "INSERT INTO sessions (id, project, created_ms, updated_ms, provider, model) \
                 VALUES (?1, ?2, ?3, ?3, ?4, ?5)",
                params![id, new.project, now, new.provider, new.model],
            )
            .map_err(|error| self.database(error))?;
        self.get(&id)?.ok_or(MemoryError::NotFound { id })
    }

    /// The session `id`, if stored.
    pub fn get(&self, id: &str) -> Result<Option<SessionInfo>, MemoryError> {
        let sql = format!("{SESSION_COLUMNS} WHERE s.id = ?1");
        self.connection
            .query_row(&sql, [id], session_from_row)
            .optional()
            .map_err(|error| self.database(error))
    }

    /// Up to `limit` sessions whose id starts with `prefix` (normalised), in id order.
    pub fn find_prefix(&self, prefix: &str, limit: usize) -> Result<Vec<SessionInfo>, MemoryError> {
        let sql =
            format!("{SESSION_COLUMNS} WHERE s.id >= ?1 AND s.id < ?2 ORDER BY s.id LIMIT ?3");
        let upper = format!("{prefix}\u{7f}");
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut statement = self
            .connection
            .prepare_cached(&sql)
            .map_err(|error| self.database(error))?;
        statement
            .query_map(params![prefix, upper, limit], session_from_row)
            .and_then(Iterator::collect)
            .map_err(|error| self.database(error))
    }

    /// Marks session `id` as a run that failed before the model's first answer, unless it
    /// has an answer; returns whether it was marked. Lists leave it out from then on (until an
    /// answer is stored), and [`crate::SessionStore::create`] deletes it a day later.
    pub fn mark_failed_if_unanswered(&mut self, id: &str) -> Result<bool, MemoryError> {
        let marked = self
            .connection
            .execute(
                "UPDATE sessions SET failed_unanswered = 1 WHERE id = ?1 AND NOT EXISTS \
                 (SELECT 1 FROM messages m WHERE m.session_id = ?1 AND m.role = 'assistant')",
                [id],
            )
            .map_err(|error| self.database(error))?;
        Ok(marked > 0)
    }

    /// Sessions by last activity, newest first: the project's, or every project's when
    /// `project` is `None`; at most `limit`. Runs that failed before the model's first
    /// answer are left out; `find` still finds them.
    pub fn list(
        &self,
        project: Option<&str>,
        limit: usize,
    ) -> Result<Vec<SessionInfo>, MemoryError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let sql = format!(
            "{SESSION_COLUMNS} WHERE (?1 IS NULL OR s.project = ?1) AND NOT {UNANSWERED} \
             ORDER BY s.updated_ms DESC, s.id DESC LIMIT ?2"
        );
        let mut statement = self
            .connection
            .prepare_cached(&sql)
            .map_err(|error| self.database(error))?;
        statement
            .query_map(params![project, limit], session_from_row)
            .and_then(Iterator::collect)
            .map_err(|error| self.database(error))
    }

    /// Marks session `id` as a conversation (held in the terminal UI, not a one-shot run);
    /// false when there is no such session.
    pub fn mark_conversation(&mut self, id: &str) -> Result<bool, MemoryError> {
        let marked = self
            .connection
            .execute("UPDATE sessions SET conversation = 1 WHERE id = ?1", [id])
            .map_err(|error| self.database(error))?;
        Ok(marked > 0)
    }

    /// The project's most recently active conversation ([`crate::SessionStore::mark_conversation`]),
    /// leaving out one-shot runs.
    pub fn latest_conversation(&self, project: &str) -> Result<Option<SessionInfo>, MemoryError> {
        let sql = format!(
            "{SESSION_COLUMNS} WHERE s.project = ?1 AND s.conversation = 1 AND NOT {UNANSWERED} \
             ORDER BY s.updated_ms DESC, s.id DESC LIMIT 1"
        );
        self.connection
            .query_row(&sql, [project], session_from_row)
            .optional()
            .map_err(|error| self.database(error))
    }

    /// Deletes a session with its messages and undo journal; false when there was none.
    pub fn delete(&mut self, id: &str) -> Result<bool, MemoryError> {
        let deleted = self
            .connection
            .execute("DELETE FROM sessions WHERE id = ?1", [id])
            .map_err(|error| self.database(error))?;
        Ok(deleted > 0)
    }

    /// Copies session `id` and its messages (and context state) into a new session; the
    /// original is unchanged. Returns the copy.
    pub fn fork(&mut self, id: &str) -> Result<SessionInfo, MemoryError> {
        let source = self
            .get(id)?
            .ok_or_else(|| MemoryError::NotFound { id: id.to_string() })?;
        let now = now_ms();
        let new = new_id(now);
        let path = self.path.clone();
        let database = |error| MemoryError::database(&path, error);
        let transaction = self.connection.transaction().map_err(database)?;
        transaction
            .execute(
                "INSERT INTO sessions (id, project, created_ms, updated_ms, title, provider, \
                 model, forked_from, context_state) \
                 SELECT ?2, project, ?3, ?3, title, provider, model, id, context_state \
                 FROM sessions WHERE id = ?1",
                params![source.id, new, now],
            )
            .map_err(database)?;
        transaction
            .execute(
                "INSERT INTO messages (session_id, seq, role, content, stats, created_ms) \
                 SELECT ?2, seq, role, content, stats, created_ms FROM messages \
                 WHERE session_id = ?1",
                params![source.id, new],
            )
            .map_err(database)?;
        transaction.commit().map_err(database)?;
        self.get(&new)?.ok_or(MemoryError::NotFound { id: new })
    }

    /// Adds `delta` to the session's totals and marks it active now.
    pub fn add_stats(&mut self, id: &str, delta: &SessionStats) -> Result<(), MemoryError> {
        let value = |count: u64| i64::try_from(count).unwrap_or(i64::MAX);
        self.connection
            .execute(
                "UPDATE sessions SET tokens_in = tokens_in + ?2, tokens_out = tokens_out + ?3, \
                 cached_tokens = cached_tokens + ?4, duration_ms = duration_ms + ?5, \
                 turns = turns + ?6, tool_calls = tool_calls + ?7, \
                 edits_applied = edits_applied + ?8, edits_rejected = edits_rejected + ?9, \
                 updated_ms = ?10 WHERE id = ?1",
                params![
                    id,
                    value(delta.tokens_in),
                    value(delta.tokens_out),
                    value(delta.cached_tokens),
                    value(delta.duration_ms),
                    value(delta.turns),
                    value(delta.tool_calls),
                    value(delta.edits_applied),
                    value(delta.edits_rejected),
                    now_ms()
                ],
            )
            .map_err(|error| self.database(error))?;
        Ok(())
    }

    /// Records the provider and model the session now uses (a resumed session may switch).
    pub fn set_model(&mut self, id: &str, provider: &str, model: &str) -> Result<(), MemoryError> {
        self.connection
            .execute(
                "UPDATE sessions SET provider = ?2, model = ?3 WHERE id = ?1",
                params![id, provider, model],
            )
            .map_err(|error| self.database(error))?;
        Ok(())
    }

    /// The context manager's saved state for the session (`None` when never set).
    pub fn context_state(&self, id: &str) -> Result<Option<serde_json::Value>, MemoryError> {
        let text: Option<Option<String>> = self
            .connection
            .query_row(
                "SELECT context_state FROM sessions WHERE id = ?1",
                [id],
                |row| row.get(0),
            )
            .optional()
            .map_err(|error| self.database(error))?;
        match text.flatten() {
            None => Ok(None),
            Some(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|error| self.decode(format!("context state of session {id}"), &error)),
        }
    }

    /// Replaces the context manager's saved state for the session.
    pub fn set_context_state(
        &mut self,
        id: &str,
        state: &serde_json::Value,
    ) -> Result<(), MemoryError> {
        let updated = self
            .connection
            .execute(
                "UPDATE sessions SET context_state = ?2 WHERE id = ?1",
                params![id, state.to_string()],
            )
            .map_err(|error| self.database(error))?;
        if updated == 0 {
            return Err(MemoryError::NotFound { id: id.to_string() });
        }
        Ok(())
    }
}

/// Decodes a row of [`SESSION_COLUMNS`].
pub(crate) fn session_from_row(row: &Row<'_>) -> rusqlite::Result<SessionInfo> {
    let count = |index: usize| -> rusqlite::Result<u64> {
        Ok(u64::try_from(row.get::<_, i64>(index)?).unwrap_or(0))
    };
    Ok(SessionInfo {
        id: row.get(0)?,
        project: row.get(1)?,
        created_ms: row.get(2)?,
        updated_ms: row.get(3)?,
        title: row.get(4)?,
        provider: row.get(5)?,
        model: row.get(6)?,
        forked_from: row.get(7)?,
        stats: SessionStats {
            tokens_in: count(8)?,
            tokens_out: count(9)?,
            cached_tokens: count(10)?,
            duration_ms: count(11)?,
            turns: count(12)?,
            tool_calls: count(13)?,
            edits_applied: count(14)?,
            edits_rejected: count(15)?,
        },
        messages: count(16)?,
    })
}
