//! Reading a file that may hold secrets (`hone_policy::SecretFiles`): the tool has read it,
//! but its content reaches the model only once the user approves, in every mode (or the
//! file was granted for the session); without a terminal to ask, it is refused.

use hone_api::{ApprovalDecision, ApprovedBy};
use hone_policy::{Action, Decision};
use hone_protocol::ToolCall;
use hone_tools::{SecretRead, ToolOutput};
use tokio_util::sync::CancellationToken;

use crate::calls::Question;
use crate::session::Agent;

impl Agent {
    /// The output of `read` once the policy or the user lets the model see it, else why not.
    pub(crate) async fn show_secret_read(
        &mut self,
        call: &ToolCall,
        read: SecretRead,
        cancel: &CancellationToken,
    ) -> ToolOutput {
        let action = Action::ReadSecret { path: &read.path };
        match self.permissions.decide(&call.name, &action) {
            Decision::Allow => {}
            Decision::Ask { .. } if !self.interactive => {
                return self.denied(
                    call,
                    &format!(
                        "`{}` may hold secrets, so reading it needs the user's approval in every \
                         mode, and hone is running without a terminal to ask",
                        read.path
                    ),
                );
            }
            Decision::Ask { reason } => {
                let question = Question {
                    summary: format!("read {}", read.path),
                    reason,
                    diff: None,
                    command: None,
                    content: None,
                };
                match self.ask(call, question, cancel).await {
                    None => return ToolOutput::error("not read: the user cancelled the turn"),
                    Some(ApprovalDecision::Approve) => {}
                    Some(ApprovalDecision::AlwaysForSession) => {
                        self.permissions.grant_secret_file(&read.path);
                    }
                    Some(ApprovalDecision::Deny { message }) => {
                        return self.denied_by_user(call, message);
                    }
                    Some(ApprovalDecision::Edit { .. }) => {
                        return self.denied_by_user(
                            call,
                            Some("a file's content cannot be edited before it is read".into()),
                        );
                    }
                }
                self.approved(call, ApprovedBy::User);
            }
            Decision::Deny { reason } => return self.denied(call, &reason),
        }
        self.context.reads().record(&read.path, &read.hash);
        read.output
    }
}
