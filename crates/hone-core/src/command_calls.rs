//! Running a command call: the policy's decision, the question to the user (and what an
//! answer grants for the rest of the session), then the command.

use hone_api::{ApprovalDecision, ApprovedBy};
use hone_policy::{Action, Decision};
use hone_protocol::{ToolCall, ToolEffect};
use hone_tools::{CommandPlan, Invocation, ToolOutput};
use tokio_util::sync::CancellationToken;

use crate::calls::Question;
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
        let mut by = ApprovedBy::Policy;
        let reason = match self.command_decision(tool, &plan) {
            Decision::Allow => None,
            Decision::Ask { reason } if !self.interactive => return self.cannot_ask(call, &reason),
            Decision::Ask { reason } => Some(reason),
            Decision::Deny { reason } => return self.denied(call, &reason),
        };
        if let Some(reason) = reason {
            let question = Question {
                summary: plan.display.clone(),
                reason,
                diff: None,
                command: Some(plan.display.clone()),
                content: None,
            };
            match self.ask(call, question, cancel).await {
                None => return ToolOutput::error("not run: the user cancelled the turn"),
                Some(ApprovalDecision::Approve) => by = ApprovedBy::User,
                Some(ApprovalDecision::AlwaysForSession) => {
                    match &plan.invocation {
                        Invocation::Shell(command) => {
                            let prefix = self.asking_prefix(command);
                            self.permissions.grant_command_prefix(&prefix);
                        }
                        Invocation::Argv(_) => self.permissions.grant_tool(tool),
                    }
                    by = ApprovedBy::User;
                }
                Some(ApprovalDecision::Deny { message }) => {
                    return self.denied_by_user(call, message);
                }
                Some(ApprovalDecision::Edit { replacement }) => {
                    plan.display = replacement.clone();
                    plan.invocation = Invocation::Shell(replacement);
                    if let Decision::Deny { reason } = self.command_decision(tool, &plan) {
                        return self.denied(call, &reason);
                    }
                    by = ApprovedBy::User;
                }
            }
        }
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

    /// The prefix "always for this session" grants: that of the first sub-command that
    /// asks (so `cd x && cargo test` grants `cargo test`, not `cd x`).
    fn asking_prefix(&self, command: &str) -> String {
        let policy = self.permissions.commands();
        let verdict = policy.classify(command);
        let asking = verdict
            .sub_commands
            .iter()
            .find(|sub| policy.classify(sub).class == hone_policy::CommandClass::Ask)
            .map_or(command, String::as_str);
        command_prefix(asking)
    }

    fn command_decision(&self, tool: &str, plan: &CommandPlan) -> Decision {
        match &plan.invocation {
            Invocation::Shell(command) => {
                self.permissions.decide(tool, &Action::Command { command })
            }
            Invocation::Argv(_) => self
                .permissions
                .decide(tool, &Action::Write { destructive: false }),
        }
    }
}

/// Programs whose first argument is a subcommand worth keeping in a grant
/// (`cargo test` is granted, not every `cargo …`).
const SUBCOMMAND_PROGRAMS: &[&str] = &[
    "cargo", "npm", "pnpm", "yarn", "npx", "git", "go", "pip", "pip3", "poetry", "uv", "docker",
    "kubectl", "make", "bundle", "rake", "dotnet", "mvn", "gradle", "deno", "bun",
];

/// The words granted by "always for this session": the program and, for programs with
/// subcommands, the subcommand.
fn command_prefix(command: &str) -> String {
    let words: Vec<&str> = command.split_whitespace().take(2).collect();
    match words.as_slice() {
        [program, sub] if !sub.starts_with('-') && SUBCOMMAND_PROGRAMS.contains(program) => {
            format!("{program} {sub}")
        }
        [program, ..] => (*program).to_string(),
        [] => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_prefixes_keep_the_subcommand() {
        assert_eq!(command_prefix("cargo test --all"), "cargo test");
        assert_eq!(command_prefix("ls -la"), "ls");
        assert_eq!(command_prefix("touch one"), "touch");
        assert_eq!(command_prefix("make"), "make");
    }
}
