//! Notices that outlive a turn: a command that wrote an instruction file or one of hone's own
//! files straight to the project (where no copy-on-write view could hold its changes for
//! approval) is named at the end of the turn and again when the project's next session
//! starts, since that session's prompt carries what the command wrote.

use hone_api::Event;

use crate::session::Agent;

/// How many characters of the leaving session's id a notice shows.
const SESSION_ID_SHOWN: usize = 8;

impl Agent {
    /// Names, at the end of a turn, the protected files its commands wrote straight, and
    /// leaves the same notice for the project's next session.
    pub(crate) fn announce_protected_changes(&self) {
        for notice in self.changes.take_protected() {
            let notice = self.audit.redactor().redact(&notice).into_owned();
            if let Some(recorder) = &self.recorder
                && let Err(error) = recorder.leave_notice(&notice)
            {
                self.storage_failed(&error);
            }
            self.emit(Event::Warning { message: notice });
        }
    }

    /// Shows, at the start of a session, the notices earlier sessions of the project left.
    pub(crate) fn show_notices(&self) {
        let Some(recorder) = &self.recorder else {
            return;
        };
        let notices = match recorder.take_notices() {
            Ok(notices) => notices,
            Err(error) => {
                self.storage_failed(&error);
                return;
            }
        };
        for notice in notices {
            let session: String = notice.session_id.chars().take(SESSION_ID_SHOWN).collect();
            self.emit(Event::Warning {
                message: format!("in an earlier session ({session}), {}", notice.text),
            });
        }
    }
}
