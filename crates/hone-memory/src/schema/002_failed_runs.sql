-- Schema version 2: a turn that failed before the session's first answer marks the session,
-- which lists leave out until an answer is stored.
ALTER TABLE sessions ADD COLUMN failed_unanswered INTEGER NOT NULL DEFAULT 0;
