//! The undo journal: every edit written to a project, with what undo needs to take it back.
//!
//! An edit is recorded as *pending* right before it is written and marked *applied* once
//! written, so a process killed between the two leaves a pending entry that
//! [`crate::undo_latest`] resolves by looking at the files. Undone entries stay listed
//! until newer edits push them out.

use hone_tools::edit::AppliedEdit;
use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};

use crate::error::MemoryError;
use crate::id::now_ms;
use crate::store::SqliteSessions;

/// Where an edit stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EditState {
    /// Recorded before writing; the write may or may not have happened.
    Pending,
    /// Written to disk.
    Applied,
    /// Taken back.
    Undone,
}

impl EditState {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Applied => "applied",
            Self::Undone => "undone",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<Self> {
        match name {
            "pending" => Some(Self::Pending),
            "applied" => Some(Self::Applied),
            "undone" => Some(Self::Undone),
            _ => None,
        }
    }
}

/// One journal entry with the full edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalEntry {
    /// Position in the journal (grows with every edit, across projects).
    pub seq: i64,
    /// The session that made the edit.
    pub session_id: String,
    /// The edit, with the before state of every file and what was written.
    pub edit: AppliedEdit,
    /// Where it stands.
    pub state: EditState,
    /// When it was recorded, milliseconds since the Unix epoch.
    pub applied_ms: i64,
}

impl JournalEntry {
    /// The light view front ends list.
    pub fn entry(&self) -> UndoEntry {
        UndoEntry {
            seq: self.seq,
            summary: self.edit.summary.clone(),
            paths: self
                .edit
                .changes
                .iter()
                .map(|change| match &change.rename_to {
                    Some(to) => format!("{} → {to}", change.path),
                    None => change.path.clone(),
                })
                .collect(),
            session_id: self.session_id.clone(),
            applied_ms: self.applied_ms,
        }
    }
}

pub use hone_api::UndoEntry;

impl SqliteSessions {
    /// Records an edit in state `state`; returns its journal position.
    pub fn insert_edit(
        &mut self,
        project: &str,
        session_id: &str,
        edit: &AppliedEdit,
        state: EditState,
    ) -> Result<i64, MemoryError> {
        let json = serde_json::to_string(edit)
            .map_err(|error| self.decode(format!("edit `{}`", edit.summary), &error))?;
        self.connection
            .execute(
                "INSERT INTO undo_journal (project, session_id, summary, edit, state, applied_ms) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    project,
                    session_id,
                    edit.summary,
                    json,
                    state.as_str(),
                    now_ms()
                ],
            )
            .map_err(|error| self.database(error))?;
        Ok(self.connection.last_insert_rowid())
    }

    /// Marks a pending edit as written, keeping the project's newest `keep` undoable entries.
    pub fn mark_applied(&mut self, seq: i64, keep: usize) -> Result<(), MemoryError> {
        let project: Option<String> = self
            .connection
            .query_row(
                "UPDATE undo_journal SET state = 'applied', applied_ms = ?2 WHERE seq = ?1 \
                 RETURNING project",
                params![seq, now_ms()],
                |row| row.get(0),
            )
            .optional()
            .map_err(|error| self.database(error))?;
        match project {
            Some(project) => self.prune_journal(&project, keep),
            None => Ok(()),
        }
    }

    /// Drops journal entries (a pending edit that was never written).
    pub fn discard_edit(&mut self, seq: i64) -> Result<(), MemoryError> {
        self.connection
            .execute("DELETE FROM undo_journal WHERE seq = ?1", [seq])
            .map_err(|error| self.database(error))?;
        Ok(())
    }

    /// Marks entries as undone, in one transaction.
    pub fn mark_undone(&mut self, seqs: &[i64]) -> Result<(), MemoryError> {
        let now = now_ms();
        let path = self.path.clone();
        let database = |error| MemoryError::database(&path, error);
        let transaction = self.connection.transaction().map_err(database)?;
        for seq in seqs {
            transaction
                .execute(
                    "UPDATE undo_journal SET state = 'undone', undone_ms = ?2 WHERE seq = ?1",
                    params![seq, now],
                )
                .map_err(database)?;
        }
        transaction.commit().map_err(database)
    }

    /// The project's undoable edits (applied or pending), newest first, at most `depth`.
    pub fn undo_stack(
        &self,
        project: &str,
        depth: usize,
    ) -> Result<Vec<JournalEntry>, MemoryError> {
        let depth = i64::try_from(depth).unwrap_or(i64::MAX);
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT seq, session_id, edit, state, applied_ms FROM undo_journal \
                 WHERE project = ?1 AND state != 'undone' ORDER BY seq DESC LIMIT ?2",
            )
            .map_err(|error| self.database(error))?;
        let rows: Vec<(i64, String, String, String, i64)> = statement
            .query_map(params![project, depth], |row| {
                Ok((
                    row.get(0)?,
                    row.get(1)?,
                    row.get(2)?,
                    row.get(3)?,
                    row.get(4)?,
                ))
            })
            .and_then(Iterator::collect)
            .map_err(|error| self.database(error))?;
        rows.into_iter()
            .map(|(seq, session_id, edit, state, applied_ms)| {
                let what = || format!("undo journal entry {seq}");
                let edit: AppliedEdit =
                    serde_json::from_str(&edit).map_err(|error| self.decode(what(), &error))?;
                let state = EditState::from_name(&state).ok_or_else(|| MemoryError::Decode {
                    path: self.path.clone(),
                    what: what(),
                    detail: format!("unknown state `{state}`"),
                })?;
                Ok(JournalEntry {
                    seq,
                    session_id,
                    edit,
                    state,
                    applied_ms,
                })
            })
            .collect()
    }

    /// Deletes the project's entries older than its newest `keep` undoable ones (undone
    /// entries among those older ones included).
    pub fn prune_journal(&mut self, project: &str, keep: usize) -> Result<(), MemoryError> {
        let keep = i64::try_from(keep.max(1)).unwrap_or(i64::MAX);
        self.connection
            .execute(
                "DELETE FROM undo_journal WHERE project = ?1 AND seq < (\
                 SELECT MIN(seq) FROM (SELECT seq FROM undo_journal \
                 WHERE project = ?1 AND state != 'undone' ORDER BY seq DESC LIMIT ?2))",
                params![project, keep],
            )
            .map_err(|error| self.database(error))?;
        Ok(())
    }
}
