//! Sessions on Redis (`[store] backend = "redis"`): [`RedisSessions`] implements
//! [`SessionBackend`], so every clone and machine pointed at one namespace lists and
//! resumes the same sessions.
//!
//! | key (after `hone:{NAMESPACE}:`) | type | holds |
//! | --- | --- | --- |
//! | `session:ID` | hash | the session's facts, totals, flags and context state |
//! | `messages:ID` | list | the messages, in order (JSON) |
//! | `sessions:active` | sorted set | ids by last activity |
//! | `sessions:ids` | sorted set | ids, for lookups by prefix |
//! | `history:PROJECT` | list | the input history, newest first |
//! | `notices:PROJECT` | list | notices for the project's next session |
//! | `journal`, `journal_meta` | hashes | position → edit; position → `STATE MS SESSION PROJECT` |
//! | `journal_seq` | string | the last journal position |
//! | `journal:PROJECT`, `journal_of:ID` | sorted set, set | positions by project, by session |
//!
//! Every update is one Lua script or MULTI/EXEC: a reader never sees half of it. A
//! connection found lost is opened again and the update retried a few times, with a
//! growing pause, before the error reaches the caller.

mod journal;
mod read;
mod scripts;

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use hone_memory::{
    MemoryError, MessageStats, NewSession, SessionBackend, SessionInfo, SessionStats,
    StoredMessage, UNANSWERED_KEPT_MS, new_session_id, now_ms, session_title,
};
use hone_protocol::{Message, Role};
use redis::{Client, Connection, RedisError};

use crate::{RedisTarget, client_for, connect, lost};

/// The layout version of a namespace's sessions this build reads and writes.
pub const SESSIONS_SCHEMA_VERSION: i64 = 1;

/// Pauses before each new attempt after a lost connection.
const RETRY_PAUSES: [Duration; 3] = [
    Duration::from_millis(200),
    Duration::from_millis(600),
    Duration::from_millis(1500),
];

/// The keys of one namespace's sessions.
#[derive(Debug, Clone)]
pub(crate) struct SessionKeys {
    pub(crate) prefix: String,
}

impl SessionKeys {
    fn key(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }
    pub(crate) fn session(&self, id: &str) -> String {
        self.key(&format!("session:{id}"))
    }
    pub(crate) fn messages(&self, id: &str) -> String {
        self.key(&format!("messages:{id}"))
    }
    pub(crate) fn active(&self) -> String {
        self.key("sessions:active")
    }
    pub(crate) fn ids(&self) -> String {
        self.key("sessions:ids")
    }
    pub(crate) fn history(&self, project: &str) -> String {
        self.key(&format!("history:{project}"))
    }
    pub(crate) fn notices(&self, project: &str) -> String {
        self.key(&format!("notices:{project}"))
    }
    pub(crate) fn journal(&self) -> String {
        self.key("journal")
    }
    pub(crate) fn journal_meta(&self) -> String {
        self.key("journal_meta")
    }
    pub(crate) fn journal_seq(&self) -> String {
        self.key("journal_seq")
    }
    pub(crate) fn project_journal(&self, project: &str) -> String {
        self.key(&format!("journal:{project}"))
    }
    pub(crate) fn session_journal(&self, id: &str) -> String {
        self.key(&format!("journal_of:{id}"))
    }
    fn meta(&self) -> String {
        self.key("meta")
    }
}

/// A session store on a Redis server. See the module documentation.
pub struct RedisSessions {
    target: RedisTarget,
    client: Client,
    connection: Mutex<Connection>,
    pub(crate) keys: SessionKeys,
    shown: String,
}

impl std::fmt::Debug for RedisSessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSessions")
            .field("store", &self.shown)
            .finish_non_exhaustive()
    }
}

impl RedisSessions {
    /// Connects to `target`, marking a namespace without sessions with this build's schema
    /// and refusing one written with another.
    pub fn open(target: &RedisTarget) -> Result<Self, MemoryError> {
        let shown = format!("{} (namespace `{}`)", target.url, target.namespace);
        let client = client_for(target).map_err(|error| MemoryError::Remote {
            store: shown.clone(),
            reason: format!("the URL cannot be used: {error}"),
        })?;
        let connection = connect(&client).map_err(|error| unreachable(&shown, &error))?;
        let store = Self {
            target: target.clone(),
            client,
            connection: Mutex::new(connection),
            keys: SessionKeys {
                prefix: format!("hone:{{{}}}:", target.namespace),
            },
            shown,
        };
        store.check_schema()?;
        Ok(store)
    }

    fn check_schema(&self) -> Result<(), MemoryError> {
        let meta = self.keys.meta();
        let (_, found): (i64, Option<String>) = self.run(|connection| {
            redis::pipe()
                .cmd("HSETNX")
                .arg(&meta)
                .arg("sessions_schema")
                .arg(SESSIONS_SCHEMA_VERSION)
                .cmd("HGET")
                .arg(&meta)
                .arg("sessions_schema")
                .query(connection)
        })?;
        let found = found.unwrap_or_default();
        if found == SESSIONS_SCHEMA_VERSION.to_string() {
            return Ok(());
        }
        Err(self.failure(format!(
            "the namespace holds sessions of schema version {found:?}, and this hone reads \
             version {SESSIONS_SCHEMA_VERSION}: choose another `[store] namespace`"
        )))
    }

    /// Runs `query`; a connection found lost is opened again and the query retried after
    /// each of [`RETRY_PAUSES`]. Each query is one script or transaction, applied whole or
    /// not at all.
    pub(crate) fn run<T>(
        &self,
        mut query: impl FnMut(&mut Connection) -> redis::RedisResult<T>,
    ) -> Result<T, MemoryError> {
        let mut connection = self.lock()?;
        let mut last = match query(&mut connection) {
            Ok(value) => return Ok(value),
            Err(error) if lost(&error) => error,
            Err(error) => return Err(self.failure(error.to_string())),
        };
        for pause in RETRY_PAUSES {
            std::thread::sleep(pause);
            match connect(&self.client) {
                Ok(fresh) => *connection = fresh,
                Err(error) => {
                    last = error;
                    continue;
                }
            }
            match query(&mut connection) {
                Ok(value) => return Ok(value),
                Err(error) if lost(&error) => last = error,
                Err(error) => return Err(self.failure(error.to_string())),
            }
        }
        Err(unreachable(&self.shown, &last))
    }

    /// Runs a Lua script with `keys` and `args`.
    pub(crate) fn script<T: redis::FromRedisValue>(
        &self,
        script: &str,
        keys: &[String],
        args: &[String],
    ) -> Result<T, MemoryError> {
        self.run(|connection| {
            redis::cmd("EVAL")
                .arg(script)
                .arg(keys.len())
                .arg(keys)
                .arg(args)
                .query(connection)
        })
    }

    fn lock(&self) -> Result<MutexGuard<'_, Connection>, MemoryError> {
        self.connection
            .lock()
            .map_err(|_| self.failure("a previous query panicked".to_string()))
    }

    /// An error of this store.
    pub(crate) fn failure(&self, reason: String) -> MemoryError {
        MemoryError::Remote {
            store: self.shown.clone(),
            reason,
        }
    }

    /// A stored value that cannot be decoded.
    pub(crate) fn decode(&self, what: String, detail: impl std::fmt::Display) -> MemoryError {
        MemoryError::Decode {
            path: self.shown.clone().into(),
            what,
            detail: detail.to_string(),
        }
    }

    /// Deletes sessions marked failed, never answered and idle since before `cutoff`.
    fn delete_stale_failures(&mut self, cutoff: i64) -> Result<(), MemoryError> {
        let active = self.keys.active();
        let old: Vec<String> = self.run(|connection| {
            redis::cmd("ZRANGEBYSCORE")
                .arg(&active)
                .arg("-inf")
                .arg(format!("({cutoff}"))
                .query(connection)
        })?;
        for info in self.infos(&old)?.into_iter().flatten() {
            if info.listed {
                continue;
            }
            SessionBackend::delete(self, &info.info.id)?;
        }
        Ok(())
    }
}

/// The fields a session's hash holds for its totals.
const STAT_FIELDS: [&str; 8] = [
    "tokens_in",
    "tokens_out",
    "cached_tokens",
    "duration_ms",
    "turns",
    "tool_calls",
    "edits_applied",
    "edits_rejected",
];

fn stat_values(stats: &SessionStats) -> [u64; 8] {
    [
        stats.tokens_in,
        stats.tokens_out,
        stats.cached_tokens,
        stats.duration_ms,
        stats.turns,
        stats.tool_calls,
        stats.edits_applied,
        stats.edits_rejected,
    ]
}

fn not_found(id: &str) -> MemoryError {
    MemoryError::NotFound { id: id.to_string() }
}

impl SessionBackend for RedisSessions {
    fn describe(&self) -> String {
        self.shown.clone()
    }

    fn reopen(&self) -> Result<Box<dyn SessionBackend>, MemoryError> {
        Ok(Box::new(Self::open(&self.target)?))
    }

    fn create(&mut self, new: &NewSession) -> Result<SessionInfo, MemoryError> {
        let now = now_ms();
        self.delete_stale_failures(now - UNANSWERED_KEPT_MS)?;
        let id = new_session_id(now);
        let session = self.keys.session(&id);
        let (active, ids) = (self.keys.active(), self.keys.ids());
        self.run(|connection| {
            redis::pipe()
                .atomic()
                .hset_multiple(
                    &session,
                    &[
                        ("id", id.as_str()),
                        ("project", new.project.as_str()),
                        ("created_ms", &now.to_string()),
                        ("updated_ms", &now.to_string()),
                        ("title", ""),
                        ("provider", new.provider.as_str()),
                        ("model", new.model.as_str()),
                    ],
                )
                .ignore()
                .zadd(&active, &id, now)
                .ignore()
                .zadd(&ids, &id, 0)
                .ignore()
                .query::<()>(connection)
        })?;
        self.get(&id)?.ok_or_else(|| not_found(&id))
    }

    fn get(&self, id: &str) -> Result<Option<SessionInfo>, MemoryError> {
        Ok(self
            .infos(&[id.to_string()])?
            .into_iter()
            .flatten()
            .next()
            .map(|found| found.info))
    }

    fn find_prefix(&self, prefix: &str, limit: usize) -> Result<Vec<SessionInfo>, MemoryError> {
        let ids_key = self.keys.ids();
        let ids: Vec<String> = self.run(|connection| {
            redis::cmd("ZRANGEBYLEX")
                .arg(&ids_key)
                .arg(format!("[{prefix}"))
                .arg(format!("({prefix}\u{7f}"))
                .arg("LIMIT")
                .arg(0)
                .arg(limit)
                .query(connection)
        })?;
        Ok(self
            .infos(&ids)?
            .into_iter()
            .flatten()
            .map(|found| found.info)
            .collect())
    }

    fn mark_failed_if_unanswered(&mut self, id: &str) -> Result<bool, MemoryError> {
        let marked: i64 = self.script(scripts::MARK_FAILED, &[self.keys.session(id)], &[])?;
        Ok(marked == 1)
    }

    fn list(&self, project: Option<&str>, limit: usize) -> Result<Vec<SessionInfo>, MemoryError> {
        self.newest(limit, |found| {
            found.listed && project.is_none_or(|project| found.info.project == project)
        })
    }

    fn mark_conversation(&mut self, id: &str) -> Result<bool, MemoryError> {
        let args = ["conversation".to_string(), "1".to_string()];
        let set: i64 = self.script(scripts::SET_FIELDS, &[self.keys.session(id)], &args)?;
        Ok(set == 1)
    }

    fn latest_conversation(&self, project: &str) -> Result<Option<SessionInfo>, MemoryError> {
        Ok(self
            .newest(1, |found| {
                found.listed && found.conversation && found.info.project == project
            })?
            .into_iter()
            .next())
    }

    fn delete(&mut self, id: &str) -> Result<bool, MemoryError> {
        let keys = [
            self.keys.session(id),
            self.keys.messages(id),
            self.keys.active(),
            self.keys.ids(),
            self.keys.session_journal(id),
            self.keys.journal(),
            self.keys.journal_meta(),
        ];
        let args = [id.to_string(), self.keys.prefix.clone()];
        let deleted: i64 = self.script(scripts::DELETE, &keys, &args)?;
        Ok(deleted == 1)
    }

    fn fork(&mut self, id: &str) -> Result<SessionInfo, MemoryError> {
        let now = now_ms();
        let new = new_session_id(now);
        let keys = [
            self.keys.session(id),
            self.keys.session(&new),
            self.keys.messages(id),
            self.keys.messages(&new),
            self.keys.active(),
            self.keys.ids(),
        ];
        let args = [new.clone(), now.to_string(), id.to_string()];
        let forked: i64 = self.script(scripts::FORK, &keys, &args)?;
        if forked == 0 {
            return Err(not_found(id));
        }
        self.get(&new)?.ok_or_else(|| not_found(&new))
    }

    fn add_stats(&mut self, id: &str, delta: &SessionStats) -> Result<(), MemoryError> {
        let mut args = vec![now_ms().to_string()];
        for (field, value) in STAT_FIELDS.iter().zip(stat_values(delta)) {
            args.push((*field).to_string());
            args.push(i64::try_from(value).unwrap_or(i64::MAX).to_string());
        }
        let keys = [self.keys.session(id), self.keys.active()];
        let _: i64 = self.script(scripts::ADD_STATS, &keys, &args)?;
        Ok(())
    }

    fn set_model(&mut self, id: &str, provider: &str, model: &str) -> Result<(), MemoryError> {
        let args = [
            "provider".to_string(),
            provider.to_string(),
            "model".to_string(),
            model.to_string(),
        ];
        let _: i64 = self.script(scripts::SET_FIELDS, &[self.keys.session(id)], &args)?;
        Ok(())
    }

    fn context_state(&self, id: &str) -> Result<Option<serde_json::Value>, MemoryError> {
        let session = self.keys.session(id);
        let text: Option<String> = self.run(|connection| {
            redis::cmd("HGET")
                .arg(&session)
                .arg("context")
                .query(connection)
        })?;
        text.map(|text| {
            serde_json::from_str(&text)
                .map_err(|error| self.decode(format!("context state of session {id}"), error))
        })
        .transpose()
    }

    fn set_context_state(
        &mut self,
        id: &str,
        state: &serde_json::Value,
    ) -> Result<(), MemoryError> {
        let args = ["context".to_string(), state.to_string()];
        let set: i64 = self.script(scripts::SET_FIELDS, &[self.keys.session(id)], &args)?;
        if set == 0 {
            return Err(not_found(id));
        }
        Ok(())
    }

    fn append_message(
        &mut self,
        id: &str,
        message: &Message,
        stats: &MessageStats,
    ) -> Result<u64, MemoryError> {
        let now = now_ms();
        let stored = read::encode_message(message, stats, now)
            .map_err(|error| self.decode(format!("message for session {id}"), error))?;
        let title = match message.role {
            Role::User => session_title(message).unwrap_or_default(),
            Role::Assistant => String::new(),
        };
        let answered = if message.role == Role::Assistant {
            "1"
        } else {
            "0"
        };
        let keys = [
            self.keys.session(id),
            self.keys.messages(id),
            self.keys.active(),
        ];
        let args = [stored, now.to_string(), title, answered.to_string()];
        let seq: u64 = self.script(scripts::APPEND_MESSAGE, &keys, &args)?;
        if seq == 0 {
            return Err(not_found(id));
        }
        Ok(seq)
    }

    fn messages(&self, id: &str) -> Result<Vec<StoredMessage>, MemoryError> {
        let key = self.keys.messages(id);
        let stored: Vec<String> = self.run(|connection| {
            redis::cmd("LRANGE")
                .arg(&key)
                .arg(0)
                .arg(-1)
                .query(connection)
        })?;
        stored
            .iter()
            .zip(1_u64..)
            .map(|(text, seq)| {
                read::decode_message(text, seq)
                    .map_err(|error| self.decode(format!("message {seq} of session {id}"), error))
            })
            .collect()
    }

    fn truncate_messages(&mut self, id: &str, keep: u64) -> Result<(), MemoryError> {
        if self.get(id)?.is_none() {
            return Err(not_found(id));
        }
        let key = self.keys.messages(id);
        // LTRIM 0 -1 keeps everything, so keeping none is a delete.
        match i64::try_from(keep).unwrap_or(i64::MAX).checked_sub(1) {
            Some(last) if last >= 0 => self.run(|connection| {
                redis::cmd("LTRIM")
                    .arg(&key)
                    .arg(0)
                    .arg(last)
                    .query::<()>(connection)
            }),
            _ => self.run(|connection| redis::cmd("DEL").arg(&key).query::<()>(connection)),
        }
    }

    fn push_input(&mut self, project: &str, text: &str, cap: usize) -> Result<bool, MemoryError> {
        let args = [text.to_string(), cap.max(1).to_string()];
        let added: i64 = self.script(scripts::PUSH_INPUT, &[self.keys.history(project)], &args)?;
        Ok(added == 1)
    }

    fn input_history(&self, project: &str, limit: usize) -> Result<Vec<String>, MemoryError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let key = self.keys.history(project);
        let last = i64::try_from(limit).unwrap_or(i64::MAX) - 1;
        self.run(|connection| {
            redis::cmd("LRANGE")
                .arg(&key)
                .arg(0)
                .arg(last)
                .query(connection)
        })
    }

    fn push_notice(
        &mut self,
        project: &str,
        session_id: &str,
        text: &str,
    ) -> Result<(), MemoryError> {
        journal::push_notice(self, project, session_id, text)
    }

    fn take_notices(&mut self, project: &str) -> Result<Vec<hone_memory::Notice>, MemoryError> {
        journal::take_notices(self, project)
    }

    fn insert_edit(
        &mut self,
        project: &str,
        session_id: &str,
        edit: &hone_tools::edit::AppliedEdit,
        state: hone_memory::EditState,
    ) -> Result<i64, MemoryError> {
        journal::insert_edit(self, project, session_id, edit, state)
    }

    fn prune_journal(&mut self, project: &str, keep: usize) -> Result<(), MemoryError> {
        journal::prune(self, project, keep)
    }

    fn mark_applied(&mut self, seq: i64, keep: usize) -> Result<(), MemoryError> {
        journal::mark_applied(self, seq, keep)
    }

    fn discard_edit(&mut self, seq: i64) -> Result<(), MemoryError> {
        journal::drop_edits(self, &[seq])
    }

    fn mark_undone(&mut self, seqs: &[i64]) -> Result<(), MemoryError> {
        journal::mark_undone(self, seqs)
    }

    fn undo_stack(
        &self,
        project: &str,
        depth: usize,
    ) -> Result<Vec<hone_memory::JournalEntry>, MemoryError> {
        journal::undo_stack(self, project, depth)
    }
}

fn unreachable(shown: &str, error: &RedisError) -> MemoryError {
    MemoryError::Unreachable {
        store: shown.to_string(),
        reason: error.to_string(),
    }
}
