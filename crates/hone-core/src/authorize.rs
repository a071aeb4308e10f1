//! The one authorize step every call hone runs goes through (the model's writes, commands,
//! outside tools and reads of files that may hold secrets, and hone's own checks): the
//! policy's decision, the question to the user when it asks (refused when no one can
//! answer), and what an "always for this session" answer grants
//! ([`hone_policy::Permissions::grant_for_session`], the one rule).

use std::time::Instant;

use hone_api::{ApprovalDecision, ApprovedBy, Event};
use hone_policy::{Action, Decision};
use hone_protocol::ToolCall;
use tokio_util::sync::CancellationToken;

use crate::session::Agent;

/// What an approval request shows.
pub(crate) struct Question {
    pub(crate) summary: String,
    /// Why approval is needed, when the call knows better than the policy (a change that
    /// removes most of a file); `None`: the policy's reason.
    pub(crate) reason: Option<String>,
    pub(crate) diff: Option<String>,
    /// The command line the call runs: an edit of it is a command, decided again.
    pub(crate) command: Option<String>,
    pub(crate) content: Option<String>,
}

/// How the authorize step ended.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Authorization {
    /// Go ahead: the policy allowed it, or the user approved it (`edited`: what the user
    /// wrote instead, a command already decided again).
    Allowed {
        by: ApprovedBy,
        edited: Option<String>,
    },
    /// The policy refuses it (or the command the user wrote instead); why.
    Denied(String),
    /// It needs the user's approval and there is no terminal to ask; the policy's reason.
    Unanswerable(String),
    /// The user said no, with what they said.
    Refused(Option<String>),
    /// The turn was cancelled (or the front end went away) while asking.
    Cancelled,
}

impl Agent {
    /// Decides `action` by `tool` for `call`, asking `question` when the policy asks and
    /// someone can answer. An "always for this session" answer grants what the policy's
    /// one rule says and allows the call; an edit is allowed as written (a command only
    /// when the policy does not deny the new line).
    pub(crate) async fn authorize(
        &mut self,
        call: &ToolCall,
        tool: &str,
        action: &Action<'_>,
        question: Question,
        cancel: &CancellationToken,
    ) -> Authorization {
        let reason = match self.permissions.decide(tool, action) {
            Decision::Allow => {
                return Authorization::Allowed {
                    by: ApprovedBy::Policy,
                    edited: None,
                };
            }
            Decision::Deny { reason } => return Authorization::Denied(reason),
            Decision::Ask { reason } if !self.interactive => {
                return Authorization::Unanswerable(reason);
            }
            Decision::Ask { reason } => reason,
        };
        let is_command = question.command.is_some();
        let question = Question {
            reason: Some(question.reason.clone().unwrap_or(reason)),
            ..question
        };
        let user = |edited| Authorization::Allowed {
            by: ApprovedBy::User,
            edited,
        };
        match self.ask(call, question, cancel).await {
            None => Authorization::Cancelled,
            Some(ApprovalDecision::Approve) => user(None),
            Some(ApprovalDecision::AlwaysForSession) => {
                self.permissions.grant_for_session(tool, action);
                user(None)
            }
            Some(ApprovalDecision::Deny { message }) => Authorization::Refused(message),
            Some(ApprovalDecision::Edit { replacement }) if is_command => {
                let edited = Action::Command {
                    command: &replacement,
                };
                match self.permissions.decide(tool, &edited) {
                    Decision::Deny { reason } => Authorization::Denied(reason),
                    Decision::Allow | Decision::Ask { .. } => user(Some(replacement)),
                }
            }
            Some(ApprovalDecision::Edit { replacement }) => user(Some(replacement)),
        }
    }

    /// Asks the front end; `None` when the turn was cancelled or the front end went away.
    async fn ask(
        &mut self,
        call: &ToolCall,
        question: Question,
        cancel: &CancellationToken,
    ) -> Option<ApprovalDecision> {
        self.emit(Event::ApprovalNeeded {
            call_id: call.id.clone(),
            name: call.name.clone(),
            summary: question.summary,
            reason: question.reason.unwrap_or_default(),
            diff: question.diff,
            command: question.command,
            content: question.content,
        });
        let asked = Instant::now();
        let answer = loop {
            tokio::select! {
                biased;
                () = cancel.cancelled() => break None,
                answer = self.approvals.recv() => match answer {
                    Some((call_id, decision)) if call_id == call.id => break Some(decision),
                    Some(_) => {}
                    None => break None,
                },
            }
        };
        self.user_wait += asked.elapsed();
        answer
    }
}
