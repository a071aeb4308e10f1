//! Modal dialogs over the conversation: approvals, error choices and information panels.

mod approval;
mod choice;
mod info;
mod sessions;

use hone_api::ApprovalDecision;
use ratatui::Frame;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;

pub(crate) use approval::{ApprovalModal, Proposal};
pub(crate) use choice::{Choice, ChoiceAction, ChoiceModal};
pub(crate) use info::InfoModal;
pub(crate) use sessions::SessionsModal;

/// What a key pressed in a modal leads to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ModalAction {
    /// Stay open.
    Stay,
    /// Close without doing anything.
    Close,
    /// Close and answer an approval.
    Decide {
        /// The call answered.
        call_id: String,
        /// The answer.
        decision: ApprovalDecision,
    },
    /// Open the proposal in the external editor; the modal stays until it returns.
    ExternalEdit {
        /// The call.
        call_id: String,
        /// The proposed content.
        content: String,
    },
    /// Close and act on an error choice.
    Chose(ChoiceAction),
    /// Close and load this saved session.
    LoadSession(String),
    /// Delete this saved session (the list is shown again).
    DeleteSession(String),
}

/// A dialog in front of everything else.
pub(crate) enum Modal {
    /// Approve, deny, edit or always-allow one call.
    Approval(Box<ApprovalModal>),
    /// Pick how to go on after an error.
    Choice(ChoiceModal),
    /// Read-only text (help, status, diffs).
    Info(InfoModal),
    /// Saved sessions to load or delete.
    Sessions(SessionsModal),
}

impl Modal {
    /// Handles a key.
    pub(crate) fn key(&mut self, key: KeyEvent) -> ModalAction {
        match self {
            Modal::Approval(modal) => modal.key(key),
            Modal::Choice(modal) => modal.key(key),
            Modal::Info(modal) => modal.key(key),
            Modal::Sessions(modal) => modal.key(key),
        }
    }

    /// Handles pasted text (only text fields take it).
    pub(crate) fn paste(&mut self, text: &str) {
        if let Modal::Approval(modal) = self {
            modal.paste(text);
        }
    }

    /// Scrolls the body (mouse wheel).
    pub(crate) fn scroll(&mut self, down: bool, lines: usize) {
        match self {
            Modal::Approval(modal) => modal.scroll(down, lines),
            Modal::Info(modal) => modal.scroll(down, lines),
            Modal::Choice(_) | Modal::Sessions(_) => {}
        }
    }

    /// For an approval, the rows it needs on a screen `width` columns wide; other
    /// dialogs are drawn over the conversation and input.
    pub(crate) fn approval_height(&mut self, width: u16) -> Option<u16> {
        match self {
            Modal::Approval(modal) => Some(modal.wanted_height(width)),
            Modal::Choice(_) | Modal::Info(_) | Modal::Sessions(_) => None,
        }
    }

    /// Draws the modal over `area`.
    pub(crate) fn render(&mut self, frame: &mut Frame<'_>, area: Rect) {
        match self {
            Modal::Approval(modal) => modal.render(frame, area),
            Modal::Choice(modal) => modal.render(frame, area),
            Modal::Info(modal) => modal.render(frame, area),
            Modal::Sessions(modal) => modal.render(frame, area),
        }
    }
}

/// A `width`×`height` rectangle centred in `area` (clipped to it).
pub(crate) fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    )
}

/// Moves a scroll offset by `lines`, keeping it within `0..=max`.
pub(crate) fn scrolled(offset: usize, down: bool, lines: usize, max: usize) -> usize {
    if down {
        (offset + lines).min(max)
    } else {
        offset.saturating_sub(lines)
    }
}
