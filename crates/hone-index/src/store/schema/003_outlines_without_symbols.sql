-- Schema version 3: outlines are stored without their symbols, which the symbols table
-- already holds (they were most of each outline's JSON).

UPDATE outlines SET json = json_remove(json, '$.symbols');
