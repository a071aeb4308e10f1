//! Reading sessions back: a session's hash decoded, lists in activity order, and the
//! messages' stored form.

use std::collections::HashMap;

use hone_memory::{MemoryError, MessageStats, SessionInfo, SessionStats, StoredMessage};
use hone_protocol::{ContentBlock, Message, Role};
use serde::{Deserialize, Serialize};

use super::{RedisSessions, STAT_FIELDS};

/// Sessions read per round trip when listing.
const PAGE: usize = 100;

/// A session as read, with the flags lists filter on.
pub(crate) struct Found {
    pub(crate) info: SessionInfo,
    /// Not a run that failed before its first answer.
    pub(crate) listed: bool,
    /// Held in the terminal UI.
    pub(crate) conversation: bool,
}

/// A message as stored in a session's list (its position is its place in the list).
#[derive(Serialize, Deserialize)]
struct Stored {
    role: Role,
    content: Vec<ContentBlock>,
    stats: MessageStats,
    created_ms: i64,
}

/// The stored form of a message.
pub(crate) fn encode_message(
    message: &Message,
    stats: &MessageStats,
    created_ms: i64,
) -> Result<String, serde_json::Error> {
    serde_json::to_string(&Stored {
        role: message.role,
        content: message.content.clone(),
        stats: stats.clone(),
        created_ms,
    })
}

/// A stored message at position `seq`.
pub(crate) fn decode_message(text: &str, seq: u64) -> Result<StoredMessage, serde_json::Error> {
    let stored: Stored = serde_json::from_str(text)?;
    Ok(StoredMessage {
        seq,
        message: Message {
            role: stored.role,
            content: stored.content,
        },
        stats: stored.stats,
        created_ms: stored.created_ms,
    })
}

impl RedisSessions {
    /// The sessions `ids` (`None` for those not stored), in one round trip.
    pub(crate) fn infos(&self, ids: &[String]) -> Result<Vec<Option<Found>>, MemoryError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let replies: Vec<(HashMap<String, String>, u64)> = self.run(|connection| {
            let mut pipe = redis::pipe();
            for id in ids {
                pipe.hgetall(self.keys.session(id))
                    .llen(self.keys.messages(id));
            }
            let flat: Vec<redis::Value> = pipe.query(connection)?;
            flat.chunks(2)
                .map(|pair| {
                    let fields = redis::from_redis_value(pair[0].clone())?;
                    let count = redis::from_redis_value(pair[1].clone())?;
                    Ok((fields, count))
                })
                .collect()
        })?;
        replies
            .into_iter()
            .map(|(fields, messages)| {
                if fields.is_empty() {
                    return Ok(None);
                }
                self.found(&fields, messages).map(Some)
            })
            .collect()
    }

    fn found(&self, fields: &HashMap<String, String>, messages: u64) -> Result<Found, MemoryError> {
        let text = |name: &str| fields.get(name).cloned().unwrap_or_default();
        let id = text("id");
        let number = |name: &str| -> Result<i64, MemoryError> {
            match fields.get(name) {
                None => Ok(0),
                Some(value) => value
                    .parse()
                    .map_err(|error| self.decode(format!("{name} of session {id}"), error)),
            }
        };
        let count = |name: &str| number(name).map(|value| u64::try_from(value).unwrap_or(0));
        let mut totals = [0_u64; 8];
        for (slot, field) in totals.iter_mut().zip(STAT_FIELDS) {
            *slot = count(field)?;
        }
        let [
            tokens_in,
            tokens_out,
            cached_tokens,
            duration_ms,
            turns,
            tool_calls,
            edits_applied,
            edits_rejected,
        ] = totals;
        let flag = |name: &str| fields.get(name).is_some_and(|value| value == "1");
        Ok(Found {
            listed: !flag("failed") || flag("answered"),
            conversation: flag("conversation"),
            info: SessionInfo {
                project: text("project"),
                created_ms: number("created_ms")?,
                updated_ms: number("updated_ms")?,
                title: text("title"),
                provider: text("provider"),
                model: text("model"),
                forked_from: fields.get("forked_from").cloned(),
                messages,
                stats: SessionStats {
                    tokens_in,
                    tokens_out,
                    cached_tokens,
                    duration_ms,
                    turns,
                    tool_calls,
                    edits_applied,
                    edits_rejected,
                },
                id,
            },
        })
    }

    /// Up to `limit` sessions that `keep` accepts, newest activity first (ties: the later
    /// id first).
    pub(crate) fn newest(
        &self,
        limit: usize,
        keep: impl Fn(&Found) -> bool,
    ) -> Result<Vec<SessionInfo>, MemoryError> {
        let active = self.keys.active();
        let mut out = Vec::new();
        let mut start = 0_usize;
        while out.len() < limit {
            let stop = start + PAGE - 1;
            let ids: Vec<String> = self.run(|connection| {
                redis::cmd("ZREVRANGE")
                    .arg(&active)
                    .arg(start)
                    .arg(stop)
                    .query(connection)
            })?;
            if ids.is_empty() {
                break;
            }
            for found in self.infos(&ids)?.into_iter().flatten() {
                if out.len() < limit && keep(&found) {
                    out.push(found.info);
                }
            }
            start += PAGE;
        }
        Ok(out)
    }
}
