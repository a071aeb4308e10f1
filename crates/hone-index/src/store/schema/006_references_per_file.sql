-- Schema version 6: references are stored per file instead of as rows of `symbols`. A first
-- index of a large project wrote hundreds of thousands of reference rows (nine in ten symbols)
-- and sorted every one into the name index at its commit; now each file's references are one
-- JSON value, and a lookup by name finds the files referring to it through `reference_names`,
-- which holds each name a file refers to once. `symbols` keeps the definitions.

-- Each parsed file's references in order: a JSON array of `[position, name, kind, line,
-- column]`, the position being the occurrence's index among all of the file's symbols (the
-- definitions in `symbols` hold the other positions, as their ids' low bits).
CREATE TABLE file_references (
    file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
    json TEXT NOT NULL
);

-- The names each file refers to, each once. Like a symbol's, a row's id is its file's id
-- times 2^24 plus its position, so a file's names are one range of the table.
CREATE TABLE reference_names (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    name TEXT NOT NULL
);

INSERT INTO file_references (file_id, json)
SELECT file_id,
       json_group_array(json_array(id - file_id * 16777216, name, kind, line, col) ORDER BY id)
FROM symbols
WHERE role = 'reference' AND file_id IN (SELECT id FROM files)
GROUP BY file_id;

INSERT INTO reference_names (id, file_id, name)
SELECT file_id * 16777216 + row_number() OVER (PARTITION BY file_id ORDER BY name) - 1,
       file_id, name
FROM (SELECT DISTINCT file_id, name FROM symbols WHERE role = 'reference');

CREATE INDEX reference_names_by_name ON reference_names(name);

DELETE FROM symbols WHERE role = 'reference';
