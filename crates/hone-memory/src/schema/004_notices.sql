-- Schema version 4: notices for the next session of a project, such as a command that
-- changed an instruction file where the sandbox could not keep its changes on a copy.
-- Each is shown once, when the next session starts, and then deleted.
CREATE TABLE notices (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project TEXT NOT NULL,
    session_id TEXT NOT NULL,
    text TEXT NOT NULL,
    created_ms INTEGER NOT NULL
);
CREATE INDEX notices_by_project ON notices (project, id);
