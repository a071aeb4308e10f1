//! Running a command call: the authorize step (the policy, the question, what "always"
//! grants), then the command.

use hone_policy::Action;
use hone_protocol::{ToolCall, ToolEffect};
use hone_tools::{CommandPlan, Invocation, ToolOutput};
use tokio_util::sync::CancellationToken;

use crate::authorize::{Authorization, Question};
use crate::command_changes::Asking;
use crate::session::Agent;

impl Agent {
    /// Approves and runs `plan`; the output declares the command.
    pub(crate) async fn run_command(
        &mut self,
        call: &ToolCall,
        tool: &str,
        plan: CommandPlan,
        cancel: &CancellationToken,
    ) -> ToolOutput {
        let effect = ToolEffect::command(plan.display.clone());
        self.execute_command(call, tool, plan, cancel)
            .await
            .with_effect(effect)
    }

    async fn execute_command(
        &mut self,
        call: &ToolCall,
        tool: &str,
        mut plan: CommandPlan,
        cancel: &CancellationToken,
    ) -> ToolOutput {
        let shown = plan.display.clone();
        // An argv call (a tool running a fixed program) is judged as a change by the tool.
        let action = match &plan.invocation {
            Invocation::Shell(command) => Action::Command { command },
            Invocation::Argv(_) => Action::Write { destructive: false },
        };
        let question = Question {
            summary: shown.clone(),
            reason: None,
            diff: None,
            command: Some(shown),
            content: None,
        };
        let by = match self.authorize(call, tool, &action, question, cancel).await {
            Authorization::Allowed { by, edited } => {
                if let Some(replacement) = edited {
                    plan.display.clone_from(&replacement);
                    plan.invocation = Invocation::Shell(replacement);
                }
                by
            }
            Authorization::Denied(reason) => return self.denied(call, &reason),
            Authorization::Unanswerable(reason) => return self.cannot_ask(call, &reason),
            Authorization::Refused(message) => return self.denied_by_user(call, message),
            Authorization::Cancelled => {
                return ToolOutput::error("not run: the user cancelled the turn");
            }
        };
        self.approved(call, by);
        self.audit.command_script(&plan.display);
        let full = hone_tools::command::execute_full(&self.context, &plan, cancel).await;
        let mut output = full.output;
        if let Some(changes) = full.changes {
            let report = self
                .settle_command_changes(call, changes, Asking::ByPolicy, cancel)
                .await;
            output.content.push_str(&report);
        }
        output
    }
}
