//! Error recovery: a failed model request, or a session store that failed to save, in an
//! interactive session asks the front end whether to retry, skip or abort.

use hone_protocol::{ErrorCategory, HoneError};
use tokio_util::sync::CancellationToken;

use crate::session::Agent;
use crate::turn::Ending;
use hone_api::{ErrorChoice, Event};

/// What the turn does after a failed model request.
pub(crate) enum Recovery {
    /// Send the request again.
    Retry,
    /// End the turn without an answer.
    Skip,
    /// Fail the turn with this error.
    Abort(HoneError),
    /// The user cancelled while the choice was pending.
    Cancelled,
}

impl Agent {
    /// Decides what to do about `error`: non-interactive sessions (and cancellations) fail
    /// at once; interactive ones emit [`Event::TurnError`] and wait for the front end's
    /// [`hone_api::Request::ErrorChoice`].
    pub(crate) async fn recover(
        &mut self,
        error: HoneError,
        cancel: &CancellationToken,
    ) -> Recovery {
        if !self.interactive || error.category == ErrorCategory::Cancelled {
            return Recovery::Abort(error);
        }
        // A choice sent when no error was pending must not answer this one.
        while self.error_choices.try_recv().is_ok() {}
        self.emit(Event::TurnError {
            error: crate::api::error_info(error.clone()),
            choices: ErrorChoice::ALL.to_vec(),
        });
        tokio::select! {
            biased;
            () = cancel.cancelled() => Recovery::Cancelled,
            choice = self.error_choices.recv() => match choice {
                Some(ErrorChoice::Retry) => Recovery::Retry,
                Some(ErrorChoice::Skip) => Recovery::Skip,
                Some(ErrorChoice::Abort) | None => Recovery::Abort(error),
            },
        }
    }

    /// Before a model request: when the session store failed since the last one, the
    /// user chooses to save what was held back again (until it works or they choose
    /// otherwise), to go on without it, or to end the turn; a headless turn ends.
    /// `None` lets the request go.
    pub(crate) async fn settle_storage(&mut self, cancel: &CancellationToken) -> Option<Ending> {
        while let Some(failure) = self.unsettled_storage() {
            let error = HoneError::storage(format!(
                "could not save the session: {failure}. Retry saves what is missing; skip goes \
                 on without it (the session may not resume as it was); abort ends the turn"
            ));
            match self.recover(error, cancel).await {
                Recovery::Retry => {
                    if let Err(again) = self.save_held() {
                        tracing::warn!(%again, "saving the session failed again");
                    }
                }
                Recovery::Skip => self.drop_held(),
                Recovery::Abort(error) => return Some(Ending::Failed(error)),
                Recovery::Cancelled => return Some(Ending::Cancelled),
            }
        }
        None
    }
}
