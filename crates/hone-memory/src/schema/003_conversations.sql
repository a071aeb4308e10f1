-- Schema version 3: sessions a person held in the terminal UI (not one-shot `hone exec`
-- runs), which `hone --continue` resumes.
ALTER TABLE sessions ADD COLUMN conversation INTEGER NOT NULL DEFAULT 0;
