-- Schema version 1: sessions, their messages, the input history and the undo journal.

-- One row per conversation.
CREATE TABLE sessions (
    -- Sortable unique id (26 Crockford base32 characters, time first).
    id TEXT PRIMARY KEY,
    -- Canonical project root.
    project TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    -- Last activity: a message, stats or a fork.
    updated_ms INTEGER NOT NULL,
    -- The first user message, trimmed; empty until there is one.
    title TEXT NOT NULL DEFAULT '',
    provider TEXT NOT NULL DEFAULT '',
    model TEXT NOT NULL DEFAULT '',
    -- The session this one was forked from.
    forked_from TEXT,
    tokens_in INTEGER NOT NULL DEFAULT 0,
    tokens_out INTEGER NOT NULL DEFAULT 0,
    cached_tokens INTEGER NOT NULL DEFAULT 0,
    duration_ms INTEGER NOT NULL DEFAULT 0,
    turns INTEGER NOT NULL DEFAULT 0,
    tool_calls INTEGER NOT NULL DEFAULT 0,
    edits_applied INTEGER NOT NULL DEFAULT 0,
    edits_rejected INTEGER NOT NULL DEFAULT 0,
    -- Opaque JSON owned by the context manager.
    context_state TEXT
);
CREATE INDEX sessions_by_project ON sessions (project, updated_ms);

-- The conversation, in order.
CREATE TABLE messages (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    -- 1-based position in the session.
    seq INTEGER NOT NULL,
    -- user | assistant
    role TEXT NOT NULL,
    -- JSON array of content blocks.
    content TEXT NOT NULL,
    -- JSON MessageStats (usage, model).
    stats TEXT NOT NULL DEFAULT '{}',
    created_ms INTEGER NOT NULL,
    PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;

-- What the user typed, per project, for recall with the arrow keys.
CREATE TABLE input_history (
    id INTEGER PRIMARY KEY,
    project TEXT NOT NULL,
    text TEXT NOT NULL,
    created_ms INTEGER NOT NULL
);
CREATE INDEX input_history_by_project ON input_history (project, id);

-- Applied edits, per project, newest last; undo takes them back.
CREATE TABLE undo_journal (
    seq INTEGER PRIMARY KEY,
    project TEXT NOT NULL,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    summary TEXT NOT NULL,
    -- JSON AppliedEdit: every change with its before state (content, hash) and after content.
    edit TEXT NOT NULL,
    -- pending (recorded before writing) | applied | undone
    state TEXT NOT NULL,
    applied_ms INTEGER NOT NULL,
    undone_ms INTEGER
);
CREATE INDEX undo_journal_by_project ON undo_journal (project, seq);
CREATE INDEX undo_journal_by_session ON undo_journal (session_id);
