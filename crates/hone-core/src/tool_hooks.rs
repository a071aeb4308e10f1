//! PreToolUse and PostToolUse hooks around one tool call (see the `hooks` module).

use hone_protocol::HookEvent;
use hone_tools::ToolOutput;
use serde_json::{Map, json};
use tokio_util::sync::CancellationToken;

use crate::calls::Prepared;
use crate::session::Agent;

impl Agent {
    /// Runs a prepared call between its PreToolUse hooks (which may block it: their reason
    /// is then its result) and its PostToolUse hooks (which see its result and may add to
    /// it).
    pub(crate) async fn run_hooked(
        &mut self,
        prepared: Prepared,
        cancel: &CancellationToken,
    ) -> ToolOutput {
        if !self.hooks.watches_tools() {
            return self.plan_and_run(prepared, cancel).await;
        }
        let name = prepared.tool.name().to_string();
        let input = prepared.arguments.clone();
        let mut fields = Map::from_iter([
            ("tool_name".to_string(), json!(name)),
            ("tool_input".to_string(), input.clone()),
        ]);
        let pre = self
            .run_hooks(
                HookEvent::PreToolUse,
                Some((&name, &input)),
                fields.clone(),
                cancel,
            )
            .await;
        if let Some(reason) = pre.blocked {
            return ToolOutput::error(format!("blocked by a PreToolUse hook: {reason}"));
        }
        let mut output = self.plan_and_run(prepared, cancel).await;
        fields.insert(
            "tool_response".to_string(),
            json!({"content": output.content, "is_error": output.is_error}),
        );
        let post = self
            .run_hooks(
                HookEvent::PostToolUse,
                Some((&name, &input)),
                fields,
                cancel,
            )
            .await;
        let mut notes: Vec<String> = pre.context.into_iter().chain(post.context).collect();
        if let Some(reason) = post.blocked {
            notes.push(format!("a PostToolUse hook objected: {reason}"));
        }
        output.content = crate::hooks::with_context(output.content, &notes);
        output
    }
}
