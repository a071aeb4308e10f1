//! The `agent` tool: one hone turn in the project, its answer and its changes. The session
//! is not interactive, so a call that would need approval is refused at once (the model is
//! told), never left waiting for an answer the client cannot give.

use std::future::Future;
use std::pin::Pin;

use hone_api::{Event, EventFrame, Request, TurnEnd};
use hone_core::SessionHandle;
use rmcp::RoleServer;
use rmcp::model::{
    CallToolResult, ContentBlock, ProgressNotificationParam, ProgressToken, Tool as McpToolSpec,
};
use rmcp::service::RequestContext;
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedReceiver;

/// The tool's name.
pub(crate) const NAME: &str = "agent";

/// A session and its events.
pub type AgentSession = (SessionHandle, UnboundedReceiver<EventFrame>);

/// Starts sessions for the `agent` tool (the front end builds them: provider, policy,
/// tools). Sessions must not be interactive.
pub trait AgentSessions: Send + Sync {
    /// A new session in the project, or why there is none.
    fn start(&self) -> Pin<Box<dyn Future<Output = Result<AgentSession, String>> + Send + '_>>;
}

/// The tool's description and schema.
pub(crate) fn spec() -> McpToolSpec {
    let schema = json!({
        "type": "object",
        "properties": {
            "prompt": {
                "type": "string",
                "description": "What hone should do or answer, as you would ask a colleague."
            }
        },
        "required": ["prompt"]
    });
    let Value::Object(schema) = schema else {
        return McpToolSpec::new(NAME, "", serde_json::Map::new());
    };
    McpToolSpec::new(
        NAME,
        "Runs one hone agent turn in the project (reads, edits and commands as hone's approval \
         mode allows; calls that would need approval are refused) and returns the answer and \
         the changes made as unified diffs.",
        schema,
    )
}

/// Runs one turn for `arguments`, reporting progress to `progress` when the client gave a
/// token, and cancelling the turn when the client cancels the call.
pub(crate) async fn run(
    sessions: &dyn AgentSessions,
    arguments: &Value,
    progress: Option<ProgressToken>,
    context: &RequestContext<RoleServer>,
) -> CallToolResult {
    let Some(prompt) = arguments
        .get("prompt")
        .and_then(Value::as_str)
        .filter(|text| !text.trim().is_empty())
    else {
        return failure("give `prompt`: what hone should do, as text");
    };
    let (handle, mut events) = match sessions.start().await {
        Ok(session) => session,
        Err(why) => return failure(&format!("could not start a hone session: {why}")),
    };
    handle.send(Request::user_message(prompt));
    let mut turn = Turn::default();
    let mut step = 0.0;
    let outcome = loop {
        let event = tokio::select! {
            () = context.ct.cancelled() => {
                handle.send(Request::Cancel);
                handle.send(Request::Shutdown);
                break Err("cancelled by the client".to_string());
            }
            event = events.recv() => event,
        };
        let Some(EventFrame { event, .. }) = event else {
            break Err("the session ended without finishing the turn".to_string());
        };
        if let (Some(token), Some(message)) = (&progress, progress_message(&event)) {
            step += 1.0;
            let mut param = ProgressNotificationParam::new(token.clone(), step);
            param.message = Some(message);
            let _ = context.peer.notify_progress(param).await;
        }
        if let Some(outcome) = turn.record(event) {
            break outcome;
        }
    };
    handle.send(Request::Shutdown);
    match outcome {
        Ok(end) => CallToolResult::success(vec![ContentBlock::text(turn.report(end))]),
        Err(why) => failure(&format!(
            "the turn did not finish: {why}\n{}",
            turn.report_so_far()
        )),
    }
}

fn failure(message: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.to_string())])
}

/// A line for the client's progress display.
fn progress_message(event: &Event) -> Option<String> {
    match event {
        Event::ToolRequested { name, .. } => Some(format!("calling {name}")),
        Event::DiffApplied { paths, .. } => Some(format!("changed {}", paths.join(", "))),
        Event::ToolDenied { reason, .. } => Some(format!("refused: {reason}")),
        Event::MessageCompleted { .. } => Some("the model answered".to_string()),
        _ => None,
    }
}

/// What a turn produced so far.
#[derive(Default)]
struct Turn {
    answer: String,
    diffs: Vec<String>,
    refused: Vec<String>,
}

impl Turn {
    /// Takes one event; the turn's end when it ended.
    fn record(&mut self, event: Event) -> Option<Result<String, String>> {
        match event {
            Event::MessageCompleted { text } => {
                self.answer = text;
                None
            }
            Event::DiffApplied { diff, .. } => {
                self.diffs.push(diff);
                None
            }
            Event::ToolDenied { reason, .. } => {
                self.refused.push(reason);
                None
            }
            Event::TurnCompleted { end, .. } => Some(Ok(end_text(end))),
            Event::TurnFailed { error, .. } => Some(Err(error.message)),
            Event::TurnCancelled { .. } => Some(Err("cancelled".to_string())),
            _ => None,
        }
    }

    fn report(&self, end: String) -> String {
        format!("{}\n({end})", self.report_so_far())
    }

    fn report_so_far(&self) -> String {
        let mut text = if self.answer.trim().is_empty() {
            "(no answer)".to_string()
        } else {
            self.answer.trim().to_string()
        };
        if self.diffs.is_empty() {
            text.push_str("\n\nNo files were changed.");
        } else {
            text.push_str("\n\nChanges:\n");
            text.push_str(&self.diffs.join("\n"));
        }
        for reason in &self.refused {
            text.push_str(&format!("\nRefused: {reason}"));
        }
        text
    }
}

fn end_text(end: TurnEnd) -> String {
    match end {
        TurnEnd::Answered => "the turn ended with an answer".to_string(),
        TurnEnd::RoundLimit => "the turn reached the round limit".to_string(),
        TurnEnd::RepeatedFailure => "the turn stopped after repeated failures".to_string(),
        TurnEnd::Skipped => "the turn was skipped".to_string(),
        TurnEnd::ChecksFailed => "the turn ended with failing checks".to_string(),
        TurnEnd::Unverified => "the turn ended with a change no check could verify".to_string(),
        TurnEnd::NoChange => {
            "the turn changed no file, although a change was asked for".to_string()
        }
        TurnEnd::NotApplied => "the turn's change was denied or could not be written".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_reports_answer_changes_and_refusals() {
        let mut turn = Turn::default();
        assert!(
            turn.record(Event::MessageCompleted {
                text: "done".to_string()
            })
            .is_none()
        );
        turn.record(Event::ToolDenied {
            call_id: "1".to_string(),
            reason: "read-only mode".to_string(),
        });
        let text = turn.report("ended".to_string());
        assert!(text.starts_with("done"), "{text}");
        assert!(text.contains("No files were changed"), "{text}");
        assert!(text.contains("Refused: read-only mode"), "{text}");
    }
}
