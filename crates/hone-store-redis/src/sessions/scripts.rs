//! The Lua scripts that make each session update one atomic step on the server (a script
//! runs whole or not at all, and no other command runs in between).
//!
//! Key and argument order is given above each script; `S` is the session's hash.

/// Appends a message. KEYS: session, messages. ARGV: message JSON, now, title (or ""),
/// `1` when the message is the model's answer. Returns the new position, 0 without the
/// session.
pub(crate) const APPEND_MESSAGE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local seq = redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[1], 'updated_ms', ARGV[2])
if ARGV[3] ~= '' and (redis.call('HGET', KEYS[1], 'title') or '') == '' then
  redis.call('HSET', KEYS[1], 'title', ARGV[3])
end
if ARGV[4] == '1' then redis.call('HSET', KEYS[1], 'answered', '1') end
local id = redis.call('HGET', KEYS[1], 'id')
redis.call('ZADD', KEYS[3], ARGV[2], id)
return seq
";

/// Sets fields of an existing session. KEYS: session. ARGV: field, value, … Returns 1, or
/// 0 without the session.
pub(crate) const SET_FIELDS: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
";

/// Marks a session failed unless it was answered. KEYS: session. Returns whether marked.
pub(crate) const MARK_FAILED: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HGET', KEYS[1], 'answered') == '1' then return 0 end
redis.call('HSET', KEYS[1], 'failed', '1')
return 1
";

/// Adds to a session's totals. KEYS: session, by-activity set. ARGV: now, then field,
/// increment, … Returns 1, or 0 without the session.
pub(crate) const ADD_STATS: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 2, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('HSET', KEYS[1], 'updated_ms', ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[1], redis.call('HGET', KEYS[1], 'id'))
return 1
";

/// Copies a session. KEYS: source, copy, source messages, copy messages, by-activity
/// set, ids set. ARGV: copy id, now, source id. Returns 1, or 0 without the source.
pub(crate) const FORK: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local f = redis.call('HMGET', KEYS[1], 'project', 'title', 'provider', 'model', 'context', 'answered')
redis.call('HSET', KEYS[2], 'id', ARGV[1], 'project', f[1] or '', 'created_ms', ARGV[2],
  'updated_ms', ARGV[2], 'title', f[2] or '', 'provider', f[3] or '', 'model', f[4] or '',
  'forked_from', ARGV[3], 'answered', f[6] or '0')
if f[5] then redis.call('HSET', KEYS[2], 'context', f[5]) end
local messages = redis.call('LRANGE', KEYS[3], 0, -1)
for i = 1, #messages do redis.call('RPUSH', KEYS[4], messages[i]) end
redis.call('ZADD', KEYS[5], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[6], 0, ARGV[1])
return 1
";

/// Deletes a session with its messages and journal entries. KEYS: session, messages,
/// by-activity set, ids set, the session's journal set, journal, journal meta. ARGV: id,
/// the namespace's key prefix. Returns whether there was a session.
pub(crate) const DELETE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
for _, seq in ipairs(redis.call('SMEMBERS', KEYS[5])) do
  local meta = redis.call('HGET', KEYS[7], seq)
  if meta then
    local project = string.match(meta, '^%S+ %S+ %S+ (.*)$')
    redis.call('ZREM', ARGV[2] .. 'journal:' .. project, seq)
  end
  redis.call('HDEL', KEYS[6], seq)
  redis.call('HDEL', KEYS[7], seq)
end
redis.call('DEL', KEYS[5])
return 1
";

/// Adds to the input history unless it repeats the latest entry. KEYS: the project's
/// history. ARGV: text, cap. Returns whether added.
pub(crate) const PUSH_INPUT: &str = r"
if redis.call('LINDEX', KEYS[1], 0) == ARGV[1] then return 0 end
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
return 1
";

/// Records a journal entry. KEYS: counter, journal, journal meta, the project's journal,
/// the session's journal set. ARGV: edit JSON, meta (`STATE MS SESSION PROJECT`).
/// Returns the entry's position.
pub(crate) const INSERT_EDIT: &str = r"
local seq = redis.call('INCR', KEYS[1])
redis.call('HSET', KEYS[2], seq, ARGV[1])
redis.call('HSET', KEYS[3], seq, ARGV[2])
redis.call('ZADD', KEYS[4], seq, seq)
redis.call('SADD', KEYS[5], seq)
return seq
";

/// Sets the state of journal entries. KEYS: journal meta. ARGV: state, now or "" (keep the
/// time), positions… Returns the project of the last entry found, or false.
pub(crate) const SET_EDIT_STATE: &str = r"
local project = false
for i = 3, #ARGV do
  local meta = redis.call('HGET', KEYS[1], ARGV[i])
  if meta then
    local _, ms, session, p = string.match(meta, '^(%S+) (%S+) (%S+) (.*)$')
    if ARGV[2] ~= '' then ms = ARGV[2] end
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[1] .. ' ' .. ms .. ' ' .. session .. ' ' .. p)
    project = p
  end
end
return project
";

/// Deletes journal entries. KEYS: journal, journal meta. ARGV: the namespace's key prefix,
/// positions…
pub(crate) const DROP_EDITS: &str = r"
for i = 2, #ARGV do
  local meta = redis.call('HGET', KEYS[2], ARGV[i])
  if meta then
    local _, _, session, project = string.match(meta, '^(%S+) (%S+) (%S+) (.*)$')
    redis.call('ZREM', ARGV[1] .. 'journal:' .. project, ARGV[i])
    redis.call('SREM', ARGV[1] .. 'journal_of:' .. session, ARGV[i])
  end
  redis.call('HDEL', KEYS[1], ARGV[i])
  redis.call('HDEL', KEYS[2], ARGV[i])
end
return 1
";

/// Keeps a project's newest `keep` undoable entries and drops every older one. KEYS: the
/// project's journal, journal, journal meta. ARGV: keep, the namespace's key prefix.
pub(crate) const PRUNE: &str = r"
local keep = tonumber(ARGV[1])
local seqs = redis.call('ZREVRANGE', KEYS[1], 0, -1)
local kept, oldest = 0, nil
for _, seq in ipairs(seqs) do
  local meta = redis.call('HGET', KEYS[3], seq)
  if meta and string.sub(meta, 1, 7) ~= 'undone ' then
    kept = kept + 1
    oldest = tonumber(seq)
    if kept >= keep then break end
  end
end
if not oldest then return 0 end
for _, seq in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. oldest)) do
  local meta = redis.call('HGET', KEYS[3], seq)
  if meta then
    local _, _, session = string.match(meta, '^(%S+) (%S+) (%S+) (.*)$')
    redis.call('SREM', ARGV[2] .. 'journal_of:' .. session, seq)
  end
  redis.call('ZREM', KEYS[1], seq)
  redis.call('HDEL', KEYS[2], seq)
  redis.call('HDEL', KEYS[3], seq)
end
return 1
";
