//! The conversation of a session: appending messages as they happen, loading them back.

use hone_protocol::{ContentBlock, Message, Role, Usage};
use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};

use crate::error::MemoryError;
use crate::id::now_ms;
use crate::store::SqliteSessions;

/// Longest title kept, in characters.
const TITLE_CHARS: usize = 80;

/// What is known about one message besides its content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageStats {
    /// Token usage of the model request that produced an assistant message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// The model that wrote an assistant message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// One stored message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredMessage {
    /// 1-based position in the session.
    pub seq: u64,
    /// The message.
    pub message: Message,
    /// Usage and model.
    pub stats: MessageStats,
    /// When it was stored, milliseconds since the Unix epoch.
    pub created_ms: i64,
}

impl SqliteSessions {
    /// Appends `message` to session `id` in one transaction (and makes the first user text
    /// the session's title); returns its position.
    pub fn append_message(
        &mut self,
        id: &str,
        message: &Message,
        stats: &MessageStats,
    ) -> Result<u64, MemoryError> {
        let content = serde_json::to_string(&message.content)
            .map_err(|error| self.decode(format!("message for session {id}"), &error))?;
        let stats = serde_json::to_string(stats)
            .map_err(|error| self.decode(format!("message stats for session {id}"), &error))?;
        let title = match message.role {
            Role::User => title_of(message),
            Role::Assistant => None,
        };
        let now = now_ms();
        let path = self.path.clone();
        let database = |error| MemoryError::database(&path, error);
        let transaction = self.connection.transaction().map_err(database)?;
        let seq: Option<i64> = transaction
            .query_row(
                "SELECT COALESCE(MAX(m.seq), 0) + 1 FROM sessions s \
                 LEFT JOIN messages m ON m.session_id = s.id WHERE s.id = ?1 GROUP BY s.id",
                [id],
                |row| row.get(0),
            )
            .optional()
            .map_err(database)?;
        let Some(seq) = seq else {
            return Err(MemoryError::NotFound { id: id.to_string() });
        };
        transaction
            .execute(
                "INSERT INTO messages (session_id, seq, role, content, stats, created_ms) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![id, seq, role_name(message.role), content, stats, now],
            )
            .map_err(database)?;
        transaction
            .execute(
                "UPDATE sessions SET updated_ms = ?2, \
                 title = CASE WHEN title = '' AND ?3 IS NOT NULL THEN ?3 ELSE title END \
                 WHERE id = ?1",
                params![id, now, title],
            )
            .map_err(database)?;
        transaction.commit().map_err(database)?;
        Ok(u64::try_from(seq).unwrap_or(0))
    }

    /// Deletes the messages of session `id` after the first `keep`, in one transaction.
    pub fn truncate_messages(&mut self, id: &str, keep: u64) -> Result<(), MemoryError> {
        let keep = i64::try_from(keep).unwrap_or(i64::MAX);
        let path = self.path.clone();
        let database = |error| MemoryError::database(&path, error);
        let transaction = self.connection.transaction().map_err(database)?;
        let updated = transaction
            .execute(
                "UPDATE sessions SET updated_ms = ?2 WHERE id = ?1",
                params![id, now_ms()],
            )
            .map_err(database)?;
        if updated == 0 {
            return Err(MemoryError::NotFound { id: id.to_string() });
        }
        transaction
            .execute(
                "DELETE FROM messages WHERE session_id = ?1 AND seq > ?2",
                params![id, keep],
            )
            .map_err(database)?;
        transaction.commit().map_err(database)
    }

    /// Every message of session `id`, in order.
    pub fn messages(&self, id: &str) -> Result<Vec<StoredMessage>, MemoryError> {
        let mut statement = self
            .connection
            .prepare_cached(
                "SELECT seq, role, content, stats, created_ms FROM messages \
                 WHERE session_id = ?1 ORDER BY seq",
            )
            .map_err(|error| self.database(error))?;
        let rows: Vec<(i64, String, String, String, i64)> = statement
            .query_map([id], |row| {
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
            .map(|(seq, role, content, stats, created_ms)| {
                let what = || format!("message {seq} of session {id}");
                let role = role_from_name(&role).ok_or_else(|| MemoryError::Decode {
                    path: self.path.clone(),
                    what: what(),
                    detail: format!("unknown role `{role}`"),
                })?;
                let content: Vec<ContentBlock> =
                    serde_json::from_str(&content).map_err(|error| self.decode(what(), &error))?;
                let stats: MessageStats =
                    serde_json::from_str(&stats).map_err(|error| self.decode(what(), &error))?;
                Ok(StoredMessage {
                    seq: u64::try_from(seq).unwrap_or(0),
                    message: Message { role, content },
                    stats,
                    created_ms,
                })
            })
            .collect()
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

fn role_from_name(name: &str) -> Option<Role> {
    match name {
        "user" => Some(Role::User),
        "assistant" => Some(Role::Assistant),
        _ => None,
    }
}

/// Prefix of the notes hone itself adds to the conversation as user messages.
const HONE_NOTE: &str = "[hone]";

/// The first non-empty line of a user message's own text (not hone's notes in it, such as
/// located code), cut to [`TITLE_CHARS`]; `None` for messages without such text (tool
/// results, hone's notes).
pub(crate) fn title_of(message: &Message) -> Option<String> {
    let line = message.content.iter().find_map(|block| match block {
        ContentBlock::Text { text } if !text.trim_start().starts_with(HONE_NOTE) => {
            text.lines().map(str::trim).find(|line| !line.is_empty())
        }
        _ => None,
    })?;
    if line.chars().count() <= TITLE_CHARS {
        return Some(line.to_string());
    }
    let cut: String = line.chars().take(TITLE_CHARS - 1).collect();
    Some(format!("{}…", cut.trim_end()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_the_first_line_cut_short() {
        assert_eq!(
            title_of(&Message::user("\n  fix the bug \nin add")).as_deref(),
            Some("fix the bug")
        );
        let long = title_of(&Message::user("x".repeat(200))).unwrap();
        assert_eq!(long.chars().count(), TITLE_CHARS);
        assert!(long.ends_with('…'));
        assert_eq!(title_of(&Message::user("   ")), None);
        assert_eq!(title_of(&Message::user("[hone] The user undid…")), None);
    }

    #[test]
    fn titles_skip_the_located_code_hone_put_before_the_request() {
        let message = Message {
            role: Role::User,
            content: vec![
                ContentBlock::Text {
                    text: "[hone] Code from the project …\n1│ fn add() {}".to_string(),
                },
                ContentBlock::Text {
                    text: "Fix add".to_string(),
                },
            ],
        };
        assert_eq!(title_of(&message).as_deref(), Some("Fix add"));
    }
}
