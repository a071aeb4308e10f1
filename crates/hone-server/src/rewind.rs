//! `session.rewind_points` and `session.rewind`: the running session's prompts, and going
//! back to before one of them (in place, or in a fork the client then runs).

use hone_api::rpc::{RpcError, SessionEvent};
use hone_api::{Event, EventFrame};
use hone_protocol::HoneError;
use hone_runtime::SessionChoice;
use hone_runtime::rewind::{RewindFiles, RewindOptions, RewindTarget};

use crate::answer::{Answer, failed, result, runtime_failed, session_request};
use crate::client::Connection;

impl Connection {
    /// The running session's saved id, or why there is none.
    fn saved_target(
        &self,
        session: Option<&str>,
    ) -> Result<(std::sync::Arc<crate::live::LiveSession>, String), RpcError> {
        let live = self.target(session)?;
        let saved = live.saved_id().ok_or_else(|| {
            failed(HoneError::config(
                "an unsaved session cannot be rewound (it keeps no journal of its prompts)",
            ))
        })?;
        Ok((live, saved))
    }

    /// Answers `session.rewind_points`.
    pub(crate) fn rewind_points(
        &self,
        id: &str,
        session: Option<&str>,
    ) -> Result<Answer, RpcError> {
        let (live, saved) = self.saved_target(session)?;
        let points = live.runtime.rewind_points(&saved).map_err(runtime_failed)?;
        Ok(Answer::Now(
            result(Some(&live.key), id, Event::RewindPoints { points }),
            Vec::new(),
        ))
    }

    /// Answers `session.rewind`: the result is `session.rewound`, followed by the
    /// `session.started` of the session that goes on.
    pub(crate) async fn rewind(
        &self,
        id: &str,
        session: Option<&str>,
        prompt: u32,
        fork: bool,
        keep_files: bool,
    ) -> Result<Answer, RpcError> {
        let (live, saved) = self.saved_target(session)?;
        let options = RewindOptions {
            files: if keep_files {
                RewindFiles::Keep
            } else {
                RewindFiles::Restore
            },
            target: if fork {
                RewindTarget::Fork
            } else {
                RewindTarget::InPlace
            },
        };
        let rewound = live
            .runtime
            .rewind(&saved, prompt, options)
            .map_err(runtime_failed)?;
        let resume = session_request(SessionChoice::Resume(rewound.session_id.clone()), None);
        let mut follow = Vec::new();
        let key = if fork {
            let runtime = std::sync::Arc::clone(&live.runtime);
            if let Answer::Now(_, warnings) = self.open(id, runtime, resume).await? {
                follow = warnings;
            }
            rewound.session_id.clone()
        } else {
            // The same session goes on from the messages kept.
            let started = live
                .runtime
                .start_session(resume)
                .await
                .map_err(runtime_failed)?;
            live.replace(&self.server, started);
            live.key.clone()
        };
        if let Some(running) = self.server.session(&key) {
            follow.insert(
                0,
                SessionEvent {
                    session: Some(key.clone()),
                    frame: EventFrame::new(Some(id.to_string()), running.started_event()),
                },
            );
        }
        let event = Event::Rewound {
            session_id: rewound.session_id,
            forked_from: rewound.forked_from,
            text: rewound.text,
            undone: rewound.undone,
        };
        Ok(Answer::Now(result(Some(&key), id, event), follow))
    }
}
