//! Notices for a project's next session: something the user must hear about when they next
//! start hone there, such as a command that changed an instruction file, which that session's
//! prompt will carry. Each notice is shown once: [`crate::SessionStore::take_notices`] returns and
//! deletes them in one transaction.

use rusqlite::params;

use crate::error::MemoryError;
use crate::id::now_ms;
use crate::store::SqliteSessions;

/// Notices kept per project (the oldest are dropped beyond it).
const NOTICES_KEPT: i64 = 50;

/// A notice left for a project's next session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The session that left it.
    pub session_id: String,
    /// What to tell the user.
    pub text: String,
    /// When it was left (milliseconds since the Unix epoch).
    pub created_ms: i64,
}

impl SqliteSessions {
    /// Leaves `text` for the next session of `project`, from session `session_id`.
    pub fn push_notice(
        &mut self,
        project: &str,
        session_id: &str,
        text: &str,
    ) -> Result<(), MemoryError> {
        let path = self.path.clone();
        let database = |error| MemoryError::database(&path, error);
        let transaction = self.connection.transaction().map_err(database)?;
        transaction
            .execute(
                "INSERT INTO notices (project, session_id, text, created_ms) \
                 VALUES (?1, ?2, ?3, ?4)",
                params![project, session_id, text, now_ms()],
            )
            .map_err(database)?;
        transaction
            .execute(
                "DELETE FROM notices WHERE project = ?1 AND id < (\
                 SELECT MIN(id) FROM (SELECT id FROM notices WHERE project = ?1 \
                 ORDER BY id DESC LIMIT ?2))",
                params![project, NOTICES_KEPT],
            )
            .map_err(database)?;
        transaction.commit().map_err(database)
    }

    /// The notices left for `project`, oldest first, deleted as they are returned: a notice
    /// is shown to one session only.
    pub fn take_notices(&mut self, project: &str) -> Result<Vec<Notice>, MemoryError> {
        let path = self.path.clone();
        let database = |error| MemoryError::database(&path, error);
        let transaction = self.connection.transaction().map_err(database)?;
        let notices = {
            let mut statement = transaction
                .prepare(
                    "SELECT session_id, text, created_ms FROM notices WHERE project = ?1 \
                     ORDER BY id",
                )
                .map_err(database)?;
            statement
                .query_map([project], |row| {
                    Ok(Notice {
                        session_id: row.get(0)?,
                        text: row.get(1)?,
                        created_ms: row.get(2)?,
                    })
                })
                .and_then(Iterator::collect::<Result<Vec<_>, _>>)
                .map_err(database)?
        };
        transaction
            .execute("DELETE FROM notices WHERE project = ?1", [project])
            .map_err(database)?;
        transaction.commit().map_err(database)?;
        Ok(notices)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SessionStore;

    #[test]
    fn a_notice_is_taken_once_by_its_own_project() {
        let mut store = SessionStore::open_in_memory().unwrap();
        store.push_notice("/a", "s1", "first").unwrap();
        store.push_notice("/b", "s2", "other project").unwrap();
        store.push_notice("/a", "s3", "second").unwrap();
        let taken = store.take_notices("/a").unwrap();
        let texts: Vec<_> = taken.iter().map(|notice| notice.text.as_str()).collect();
        assert_eq!(texts, ["first", "second"]);
        assert_eq!(taken[0].session_id, "s1");
        assert!(store.take_notices("/a").unwrap().is_empty());
        assert_eq!(store.take_notices("/b").unwrap().len(), 1);
    }

    #[test]
    fn only_the_newest_notices_are_kept() {
        let mut store = SessionStore::open_in_memory().unwrap();
        for number in 0..NOTICES_KEPT + 5 {
            store.push_notice("/a", "s", &number.to_string()).unwrap();
        }
        let taken = store.take_notices("/a").unwrap();
        assert_eq!(taken.len(), usize::try_from(NOTICES_KEPT).unwrap());
        assert_eq!(taken[0].text, "5");
    }
}
