-- Schema version 2: each parsed file's definition and reference counts, so index totals are
-- sums over one row per file instead of scans of the symbols table.

ALTER TABLE file_metrics ADD COLUMN definition_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE file_metrics ADD COLUMN reference_count INTEGER NOT NULL DEFAULT 0;

UPDATE file_metrics SET
    definition_count = (
        SELECT count(*) FROM symbols s
        WHERE s.file_id = file_metrics.file_id AND s.role = 'definition'
    ),
    reference_count = (
        SELECT count(*) FROM symbols s
        WHERE s.file_id = file_metrics.file_id AND s.role = 'reference'
    );
