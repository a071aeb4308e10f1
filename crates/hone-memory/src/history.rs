//! The input history: what the user typed, per project, for recall with the arrow keys.

use rusqlite::{OptionalExtension, params};

use crate::error::MemoryError;
use crate::id::now_ms;
use crate::store::SqliteSessions;

/// Entries kept per project by default.
pub const DEFAULT_INPUT_HISTORY_CAP: usize = 1000;

impl SqliteSessions {
    /// Adds `text` to the project's input history unless it repeats the latest entry or is
    /// blank; keeps the newest `cap` entries. Returns whether it was added.
    pub fn push_input(
        &mut self,
        project: &str,
        text: &str,
        cap: usize,
    ) -> Result<bool, MemoryError> {
        if text.trim().is_empty() {
            return Ok(false);
        }
        let path = self.path.clone();
        let database = |error| MemoryError::database(&path, error);
        let transaction = self.connection.transaction().map_err(database)?;
        let latest: Option<String> = transaction
            .query_row(
                "SELECT text FROM input_history WHERE project = ?1 ORDER BY id DESC LIMIT 1",
                [project],
                |row| row.get(0),
            )
            .optional()
            .map_err(database)?;
        if latest.as_deref() == Some(text) {
            return Ok(false);
        }
        transaction
            .execute(
                "INSERT INTO input_history (project, text, created_ms) VALUES (?1, ?2, ?3)",
                params![project, text, now_ms()],
            )
            .map_err(database)?;
        let cap = i64::try_from(cap.max(1)).unwrap_or(i64::MAX);
        transaction
            .execute(
                "DELETE FROM input_history WHERE project = ?1 AND id < (\
                 SELECT MIN(id) FROM (SELECT id FROM input_history WHERE project = ?1 \
                 ORDER BY id DESC LIMIT ?2))",
                params![project, cap],
            )
            .map_err(database)?;
        transaction.commit().map_err(database)?;
        Ok(true)
    }

    /// The project's input history, newest first, at most `limit` entries.
    pub fn input_history(&self, project: &str, limit: usize) -> Result<Vec<String>, MemoryError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT text FROM input_history WHERE project = ?1 ORDER BY id DESC LIMIT ?2",
            )
            .map_err(|error| self.database(error))?;
        statement
            .query_map(params![project, limit], |row| row.get(0))
            .and_then(Iterator::collect)
            .map_err(|error| self.database(error))
    }
}
