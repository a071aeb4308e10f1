//! Asking for a check command: through the policy like any command, labelled for what it
//! is (the tests before the change, or a check after edits), and asked once per session:
//! a command the user allowed runs unasked after that.

use hone_api::ApprovedBy;
use hone_policy::Action;
use hone_protocol::ToolCall;
use tokio_util::sync::CancellationToken;

use crate::authorize::Authorization;
use crate::session::Agent;

impl Agent {
    /// The command to run after the authorize step (the user may edit it), or why it is
    /// skipped.
    pub(super) async fn allow_check(
        &mut self,
        command: &str,
        cancel: &CancellationToken,
    ) -> Result<String, String> {
        if self.checks.allowed_by_user.contains(command) {
            return Ok(command.to_string());
        }
        self.checks.checks_numbered += 1;
        let call = ToolCall {
            id: format!("check_{}", self.checks.checks_numbered),
            name: "check".to_string(),
            arguments: serde_json::json!({ "command": command }).to_string(),
        };
        let question = crate::authorize::Question {
            summary: check_summary(self.checks.before_change, command),
            reason: None,
            diff: None,
            command: Some(command.to_string()),
            content: None,
        };
        let action = Action::Check { command };
        match self
            .authorize(&call, "check", &action, question, cancel)
            .await
        {
            Authorization::Allowed { by, edited } => {
                let chosen = edited.unwrap_or_else(|| command.to_string());
                if by == ApprovedBy::User {
                    // The command as asked and as the user wrote it both stand allowed.
                    self.checks.allowed_by_user.insert(command.to_string());
                    self.checks.allowed_by_user.insert(chosen.clone());
                }
                Ok(chosen)
            }
            Authorization::Denied(reason) => Err(format!("denied by the policy: {reason}")),
            Authorization::Unanswerable(reason) => Err(format!(
                "needs approval ({reason}) and there is no terminal to ask; allow it under \
                 [permissions] allow, or give commands the sandbox's namespaces (see \
                 `hone doctor`) so that auto-edit runs hone's checks unasked"
            )),
            Authorization::Cancelled => Err("the turn was cancelled".to_string()),
            Authorization::Refused(_) => Err("the user denied it".to_string()),
        }
    }
}

/// What the approval question says the command is for.
fn check_summary(before_change: bool, command: &str) -> String {
    if before_change {
        format!("run the tests before the change, to see what fails: {command}")
    } else {
        format!("check after edits: {command}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_question_says_what_the_command_is_for() {
        assert_eq!(
            check_summary(true, "npm test"),
            "run the tests before the change, to see what fails: npm test"
        );
        assert_eq!(
            check_summary(false, "npm test"),
            "check after edits: npm test"
        );
    }
}
