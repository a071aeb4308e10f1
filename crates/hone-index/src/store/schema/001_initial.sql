-- Schema version 1: files, outlines, symbols, per-file metrics, import edges.

-- Key/value facts about the index (`last_indexed_ms`).
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- One row per indexed file (regular files and symlinks).
CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    -- Hex SHA-256 of the contents (of the target for symlinks; empty when never read).
    hash TEXT NOT NULL,
    -- source | text | binary | non_utf8 | too_large | symlink
    kind TEXT NOT NULL,
    -- Set for kind = 'source'.
    language TEXT,
    -- Set for kind = 'symlink'.
    symlink_target TEXT,
    has_errors INTEGER NOT NULL DEFAULT 0
);

-- The serialised FileOutline of each parsed source file (TODOs, classes, imports... live here).
CREATE TABLE outlines (
    file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
    json TEXT NOT NULL
);

-- Definitions and references, for name lookups without loading outlines.
CREATE TABLE symbols (
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    -- definition | reference
    role TEXT NOT NULL,
    line INTEGER NOT NULL,
    col INTEGER NOT NULL
);
CREATE INDEX symbols_by_name ON symbols(name, role);
CREATE INDEX symbols_by_file ON symbols(file_id);

-- FileMetrics of each parsed source file, queryable without loading outlines. Project-level
-- analysis metrics (fan-in, rank, ...) belong in a table of their own added by a later migration.
CREATE TABLE file_metrics (
    file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
    lines INTEGER NOT NULL,
    loc INTEGER NOT NULL,
    max_nesting INTEGER NOT NULL,
    import_count INTEGER NOT NULL,
    complexity INTEGER NOT NULL,
    todos INTEGER NOT NULL
);

-- Imports resolved to project files; replaced as a whole after each analysis.
CREATE TABLE edges (
    from_path TEXT NOT NULL,
    to_path TEXT NOT NULL,
    source TEXT NOT NULL,
    line INTEGER NOT NULL
);
CREATE INDEX edges_by_from ON edges(from_path, line);
CREATE INDEX edges_by_to ON edges(to_path, from_path);
