//! The choices the app offers when the core waits on the user: retry, skip or abort a
//! failed request, resolve an edit conflict, resend a failed message.

use hone_api::{ConflictChoice, ErrorChoice};
use hone_protocol::{ErrorCategory, HoneError};

use super::App;
use super::core_events::error_text;
use crate::modal::{Choice, ChoiceAction, ChoiceModal, Modal};
use crate::transcript::{Entry, NoticeKind};

impl App {
    /// The core waits after a failed model request, or a session store that failed to
    /// save: retry, skip or abort.
    pub(super) fn offer_core_choices(&mut self, error: &HoneError, choices: &[ErrorChoice]) {
        let storage = error.category == ErrorCategory::Storage;
        let choices: Vec<Choice> = choices
            .iter()
            .map(|choice| {
                let (key, label) = match choice {
                    ErrorChoice::Retry if storage => ('r', "retry saving"),
                    ErrorChoice::Retry => ('r', "retry"),
                    ErrorChoice::Skip if storage => ('s', "skip (go on without saving it)"),
                    ErrorChoice::Skip => ('s', "skip (end the turn, keep the conversation)"),
                    ErrorChoice::Abort => ('a', "abort"),
                };
                Choice {
                    key,
                    label: label.into(),
                    action: ChoiceAction::Answer(*choice),
                }
            })
            .collect();
        if choices.is_empty() {
            return;
        }
        let title = if storage {
            "the session could not be saved"
        } else {
            "the model request failed"
        };
        self.open_modal(Modal::Choice(ChoiceModal::new(
            title.into(),
            error_text(error),
            choices,
        )));
    }

    /// The core waits after an edit conflict: apply anyway, skip or regenerate.
    pub(super) fn offer_conflict_choices(&mut self, message: String, choices: &[ConflictChoice]) {
        let choices: Vec<Choice> = choices
            .iter()
            .map(|choice| {
                let (key, label) = match choice {
                    ConflictChoice::ApplyAnyway => {
                        ('a', "apply anyway (over the file as it is now)")
                    }
                    ConflictChoice::Skip => ('s', "skip this change"),
                    ConflictChoice::Regenerate => {
                        ('r', "regenerate (the model reads the file again)")
                    }
                };
                Choice {
                    key,
                    label: label.into(),
                    action: ChoiceAction::Conflict(*choice),
                }
            })
            .collect();
        if choices.is_empty() {
            return;
        }
        self.transcript.push(Entry::Notice(
            NoticeKind::Warning,
            format!("edit conflict: {message}"),
        ));
        self.open_modal(Modal::Choice(ChoiceModal::new(
            "the file changed on disk".into(),
            message,
            choices,
        )));
    }

    /// After a failed turn: retry (send the message again), or leave it.
    pub(super) fn offer_retry(&mut self, error: &HoneError) {
        let Some(message) = self.last_message.clone() else {
            return;
        };
        if !error.is_retryable() {
            return;
        }
        let choices = vec![
            Choice {
                key: 'r',
                label: "retry (send the message again)".into(),
                action: ChoiceAction::Resend(message),
            },
            Choice {
                key: 'd',
                label: "dismiss".into(),
                action: ChoiceAction::Dismiss,
            },
        ];
        self.open_modal(Modal::Choice(ChoiceModal::new(
            "the model request failed".into(),
            error_text(error),
            choices,
        )));
    }

    pub(super) fn open_modal(&mut self, modal: Modal) {
        self.popup = None;
        if self.modal.is_some() {
            self.waiting.push_back(modal);
        } else {
            self.modal = Some(modal);
        }
    }
}
