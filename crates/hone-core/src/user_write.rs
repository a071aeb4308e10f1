//! `Request::WriteFile`: a file the front end wrote for the user (the terminal UI's
//! `/init` and its `AGENTS.md`), planned by `write_file` and then shown, decided by the
//! policy (and the user), applied and journaled like the model's edits.

use std::sync::Arc;
use std::time::Instant;

use hone_api::Event;
use hone_protocol::ToolCall;
use hone_tools::{Plan, ToolOutput};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::session::Agent;

/// The tool that plans the write.
const WRITE_TOOL: &str = "write_file";

impl Agent {
    /// Proposes writing `content` to `path` on the user's behalf. The current file counts
    /// as read (the user asked to replace it; the diff shows what goes). Ends with
    /// `tool.completed` whose output says what happened.
    pub(crate) async fn write_for_user(&mut self, path: String, content: String) {
        let started = Instant::now();
        let call = ToolCall {
            id: format!("user_write_{}", self.request_id.clone().unwrap_or_default()),
            name: WRITE_TOOL.to_string(),
            arguments: json!({"path": path, "content": content}).to_string(),
        };
        self.emit(Event::ToolRequested {
            call_id: call.id.clone(),
            name: call.name.clone(),
            arguments: crate::api::arguments(&call.arguments),
        });
        let output = match self.registry.resolve(WRITE_TOOL) {
            Ok(tool) => {
                let context = Arc::clone(&self.context);
                let arguments = json!({"path": path, "content": content});
                let planned = tokio::task::spawn_blocking(move || {
                    if let Ok(resolved) = context.guard().resolve_write(&path)
                        && let Ok(bytes) = std::fs::read(&resolved.absolute)
                    {
                        context
                            .reads()
                            .record(&resolved.relative, &hone_tools::files::hash_bytes(&bytes));
                    }
                    tool.plan(&context, &arguments)
                })
                .await;
                match planned {
                    Ok(Ok(Plan::Edit(plan))) => {
                        self.run_edit(&call, WRITE_TOOL, plan, &CancellationToken::new())
                            .await
                    }
                    Ok(Ok(_)) => ToolOutput::error("write_file planned no edit".to_string()),
                    Ok(Err(error)) => ToolOutput::error(error.message),
                    Err(error) => ToolOutput::error(format!("the tool crashed: {error}")),
                }
            }
            Err(message) => ToolOutput::error(message),
        };
        self.finish(&call, output, started);
    }
}
