-- Schema version 4: the repo map's ranking graph, cached between changes.
--
-- `meta.generation` counts the writes that changed outlines, symbols or edges (each bumps it
-- and empties this table); a graph is stored with the generation it was built at and read
-- only while that is still the current one.

CREATE TABLE rank_cache (
    generation INTEGER PRIMARY KEY,
    -- The graph in the encoding of the repo map (`repomap::stored`).
    graph BLOB NOT NULL
);
