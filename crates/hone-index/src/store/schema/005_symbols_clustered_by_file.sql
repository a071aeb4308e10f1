-- Schema version 5: symbols clustered by file. A symbol's id is its file's id times 2^24 plus
-- its position in the file, so a file's symbols are one range of the table, in order: no
-- index by file and no foreign-key check per inserted row (the writer deletes a file's range
-- with the file). A first index inserts hundreds of thousands of symbols; this makes each
-- row one table append and one name index entry instead of three B-tree inserts.

CREATE TABLE symbols_by_position (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    -- definition | reference
    role TEXT NOT NULL,
    line INTEGER NOT NULL,
    col INTEGER NOT NULL
);

INSERT INTO symbols_by_position (id, file_id, name, kind, role, line, col)
SELECT file_id * 16777216 + row_number() OVER (PARTITION BY file_id ORDER BY rowid) - 1,
       file_id, name, kind, role, line, col
FROM symbols;

DROP TABLE symbols;
ALTER TABLE symbols_by_position RENAME TO symbols;
CREATE INDEX symbols_by_name ON symbols(name, role);
