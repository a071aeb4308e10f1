//! Reading a file that may hold secrets (`hone_policy::SecretFiles`): the tool has read it,
//! but its content reaches the model only once the user approves, in every mode (or the
//! file was granted for the session); without a terminal to ask, it is refused.

use hone_api::ApprovedBy;
use hone_policy::Action;
use hone_protocol::ToolCall;
use hone_tools::{SecretRead, ToolOutput};
use tokio_util::sync::CancellationToken;

use crate::authorize::{Authorization, Question};
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
        let question = Question {
            summary: format!("read {}", read.path),
            reason: None,
            diff: None,
            command: None,
            content: None,
        };
        match self
            .authorize(call, &call.name, &action, question, cancel)
            .await
        {
            Authorization::Allowed {
                by: ApprovedBy::Policy | ApprovedBy::SessionGrant,
                edited: None,
            } => {}
            Authorization::Allowed {
                by: ApprovedBy::User,
                edited: None,
            } => self.approved(call, ApprovedBy::User),
            Authorization::Allowed {
                edited: Some(_), ..
            } => {
                return self.denied_by_user(
                    call,
                    Some("a file's content cannot be edited before it is read".into()),
                );
            }
            Authorization::Denied(reason) => return self.denied(call, &reason),
            Authorization::Unanswerable(_) => {
                return self.denied(
                    call,
                    &format!(
                        "`{}` may hold secrets, so reading it needs the user's approval in every \
                         mode, and hone is running without a terminal to ask",
                        read.path
                    ),
                );
            }
            Authorization::Refused(message) => return self.denied_by_user(call, message),
            Authorization::Cancelled => {
                return ToolOutput::error("not read: the user cancelled the turn");
            }
        }
        self.context.reads().record(&read.path, &read.hash);
        read.output
    }
}
