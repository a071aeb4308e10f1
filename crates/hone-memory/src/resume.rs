//! Turning a stored conversation back into a history every provider accepts.
//!
//! A process killed mid-round leaves an assistant message whose tool calls have no results
//! (results are stored after the round). Providers reject such a history, so resuming
//! answers each unanswered call with an "interrupted" result, and drops results that answer
//! no call.

use std::collections::HashSet;

use hone_protocol::{ContentBlock, Message, Role, ToolResult};

use crate::messages::StoredMessage;

/// What an unanswered call is answered with.
pub const INTERRUPTED_RESULT: &str = "not finished: hone was stopped while this call ran, so its \
     result is unknown; check the current state (e.g. read the file again) before retrying";

/// The stored messages as a valid history (see [`repair_history`]).
pub fn resume_history(stored: Vec<StoredMessage>) -> Vec<Message> {
    repair_history(stored.into_iter().map(|stored| stored.message).collect())
}

/// Makes `messages` valid for providers: every tool call is answered in the next (user)
/// message, results come first in it, and results answering no call are dropped (with
/// messages left empty).
pub fn repair_history(messages: Vec<Message>) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::with_capacity(messages.len() + 1);
    let mut open_calls: Vec<(String, String)> = Vec::new();
    for mut message in messages {
        match message.role {
            Role::Assistant => {
                close_calls(&mut out, &mut open_calls, None);
                open_calls = message
                    .tool_calls()
                    .map(|call| (call.id.clone(), call.name.clone()))
                    .collect();
                out.push(message);
            }
            Role::User => {
                let answerable: HashSet<&str> =
                    open_calls.iter().map(|(id, _)| id.as_str()).collect();
                message.content.retain(|block| match block {
                    ContentBlock::ToolResult(result) => {
                        answerable.contains(result.call_id.as_str())
                    }
                    _ => true,
                });
                close_calls(&mut out, &mut open_calls, Some(message));
            }
        }
    }
    close_calls(&mut out, &mut open_calls, None);
    out
}

/// Pushes `next` (a user message, or nothing) after answering every call still open in it.
fn close_calls(out: &mut Vec<Message>, open: &mut Vec<(String, String)>, next: Option<Message>) {
    let mut message = next.unwrap_or(Message {
        role: Role::User,
        content: Vec::new(),
    });
    if !open.is_empty() {
        let answered: HashSet<String> = message
            .content
            .iter()
            .filter_map(|block| match block {
                ContentBlock::ToolResult(result) => Some(result.call_id.clone()),
                _ => None,
            })
            .collect();
        let missing =
            open.drain(..)
                .filter(|(id, _)| !answered.contains(id))
                .map(|(call_id, name)| {
                    ContentBlock::ToolResult(ToolResult {
                        call_id,
                        name,
                        content: INTERRUPTED_RESULT.to_string(),
                        is_error: true,
                        effect: Default::default(),
                    })
                });
        let (mut results, rest): (Vec<ContentBlock>, Vec<ContentBlock>) = message
            .content
            .into_iter()
            .partition(|block| matches!(block, ContentBlock::ToolResult(_)));
        results.extend(missing);
        results.extend(rest);
        message.content = results;
    }
    if !message.content.is_empty() {
        out.push(message);
    }
}

#[cfg(test)]
mod tests {
    use hone_protocol::ToolCall;

    use super::*;

    fn calls(ids: &[&str]) -> Message {
        Message {
            role: Role::Assistant,
            content: ids
                .iter()
                .map(|id| {
                    ContentBlock::ToolCall(ToolCall {
                        id: (*id).into(),
                        name: "read_file".into(),
                        arguments: "{}".into(),
                    })
                })
                .collect(),
        }
    }

    fn results(ids: &[&str]) -> Message {
        Message {
            role: Role::User,
            content: ids
                .iter()
                .map(|id| {
                    ContentBlock::ToolResult(ToolResult {
                        call_id: (*id).into(),
                        name: "read_file".into(),
                        content: "ok".into(),
                        is_error: false,
                        effect: Default::default(),
                    })
                })
                .collect(),
        }
    }

    fn result_ids(message: &Message) -> Vec<(String, bool)> {
        message
            .content
            .iter()
            .filter_map(|block| match block {
                ContentBlock::ToolResult(result) => {
                    Some((result.call_id.clone(), result.content == INTERRUPTED_RESULT))
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_complete_history_is_unchanged() {
        let history = vec![
            Message::user("hi"),
            calls(&["a"]),
            results(&["a"]),
            Message::assistant("done"),
        ];
        assert_eq!(repair_history(history.clone()), history);
    }

    #[test]
    fn trailing_unanswered_calls_get_interrupted_results() {
        let repaired = repair_history(vec![Message::user("hi"), calls(&["a", "b"])]);
        assert_eq!(repaired.len(), 3);
        assert_eq!(repaired[2].role, Role::User);
        assert_eq!(
            result_ids(&repaired[2]),
            [("a".to_string(), true), ("b".to_string(), true)]
        );
    }

    #[test]
    fn partial_results_are_completed_and_orphans_dropped() {
        let mut next = results(&["a", "zzz"]);
        next.content.push(ContentBlock::Text {
            text: "note".into(),
        });
        let repaired = repair_history(vec![calls(&["a", "b"]), next, results(&["c"])]);
        assert_eq!(repaired.len(), 2, "{repaired:?}");
        assert_eq!(
            result_ids(&repaired[1]),
            [("a".to_string(), false), ("b".to_string(), true)]
        );
        assert!(matches!(repaired[1].content[2], ContentBlock::Text { .. }));
    }

    #[test]
    fn a_user_message_right_after_calls_receives_the_results() {
        let repaired = repair_history(vec![calls(&["a"]), Message::user("go on")]);
        assert_eq!(repaired.len(), 2);
        assert_eq!(result_ids(&repaired[1]), [("a".to_string(), true)]);
        assert_eq!(repaired[1].text(), "go on");
    }
}
