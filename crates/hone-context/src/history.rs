//! Reading a conversation: turns, trimmable units, tool call/result pairing, and what the
//! tool calls touched.

use std::collections::HashSet;
use std::ops::Range;

use hone_protocol::{ContentBlock, Message, Role, ToolCall, ToolResult};
use serde_json::Value;

use crate::tracked;

/// Text blocks hone adds to the conversation itself (round-limit notes, trimming notes)
/// start with this; they never start a turn.
pub const HONE_NOTE_PREFIX: &str = "[hone]";

/// Tools whose results hold file contents (dropped first when they go stale).
pub(crate) const FILE_CONTENT_TOOLS: &[&str] =
    &["read_file", "get_function", "get_class", "get_outline"];

/// Whether `message` is a user request: a user message with text of the user's own (not
/// only tool results, tracked-file snapshots or hone's notes).
pub fn is_request(message: &Message) -> bool {
    message.role == Role::User
        && !message
            .content
            .iter()
            .any(|block| matches!(block, ContentBlock::ToolResult(_)))
        && message.content.iter().any(|block| match block {
            ContentBlock::Text { text } => {
                !text.starts_with(HONE_NOTE_PREFIX) && !tracked::is_snapshot(text)
            }
            _ => false,
        })
}

/// The user's own text of a request (snapshots and notes left out).
pub fn request_text(message: &Message) -> String {
    message
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text { text }
                if !text.starts_with(HONE_NOTE_PREFIX) && !tracked::is_snapshot(text) =>
            {
                Some(text.as_str())
            }
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Indices of the messages that start a turn (user requests), oldest first.
pub fn turn_starts(messages: &[Message]) -> Vec<usize> {
    messages
        .iter()
        .enumerate()
        .filter(|(_, message)| is_request(message))
        .map(|(index, _)| index)
        .collect()
}

/// The turn number (0-based, counted by requests) of every message; messages before the
/// first request belong to turn 0.
pub(crate) fn turn_of_each(messages: &[Message]) -> Vec<usize> {
    let mut turn = 0usize;
    let mut seen_request = false;
    messages
        .iter()
        .map(|message| {
            if is_request(message) {
                if seen_request {
                    turn += 1;
                }
                seen_request = true;
            }
            turn
        })
        .collect()
}

fn has_calls(message: &Message) -> bool {
    message.role == Role::Assistant && message.tool_calls().next().is_some()
}

fn has_results(message: &Message) -> bool {
    message
        .content
        .iter()
        .any(|block| matches!(block, ContentBlock::ToolResult(_)))
}

/// The conversation cut into units that can be dropped without breaking call/result pairs:
/// an assistant message with tool calls together with the results message after it, or a
/// single message.
pub fn units(messages: &[Message]) -> Vec<Range<usize>> {
    let mut units = Vec::new();
    let mut index = 0;
    while index < messages.len() {
        let end = if has_calls(&messages[index]) && messages.get(index + 1).is_some_and(has_results)
        {
            index + 2
        } else {
            index + 1
        };
        units.push(index..end);
        index = end;
    }
    units
}

/// Makes every tool call/result pair valid: a results message keeps only results answering
/// the calls of the assistant message right before it, and every call gets a result (a
/// placeholder when it has none). Empty messages are dropped.
pub fn repair_pairs(messages: Vec<Message>) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::with_capacity(messages.len());
    for mut message in messages {
        if message.role == Role::User {
            let open: HashSet<String> = out
                .last()
                .filter(|previous| has_calls(previous))
                .map(|previous| previous.tool_calls().map(|call| call.id.clone()).collect())
                .unwrap_or_default();
            message.content.retain(|block| match block {
                ContentBlock::ToolResult(result) => open.contains(&result.call_id),
                _ => true,
            });
        }
        if let Some(previous) = out.last()
            && has_calls(previous)
        {
            let missing: Vec<ToolCall> = previous
                .tool_calls()
                .filter(|call| !answers(&message, &call.id))
                .cloned()
                .collect();
            if !missing.is_empty() {
                if message.role == Role::User {
                    let at = first_non_result(&message);
                    for (offset, call) in missing.iter().enumerate() {
                        message
                            .content
                            .insert(at + offset, placeholder_result(call));
                    }
                } else {
                    out.push(placeholder_results(&missing));
                }
            }
        }
        if !message.content.is_empty() {
            out.push(message);
        }
    }
    if let Some(last) = out.last()
        && has_calls(last)
    {
        let calls: Vec<ToolCall> = last.tool_calls().cloned().collect();
        out.push(placeholder_results(&calls));
    }
    out
}

fn answers(message: &Message, call_id: &str) -> bool {
    message.role == Role::User
        && message.content.iter().any(
            |block| matches!(block, ContentBlock::ToolResult(result) if result.call_id == call_id),
        )
}

fn first_non_result(message: &Message) -> usize {
    message
        .content
        .iter()
        .position(|block| !matches!(block, ContentBlock::ToolResult(_)))
        .unwrap_or(message.content.len())
}

fn placeholder_result(call: &ToolCall) -> ContentBlock {
    ContentBlock::ToolResult(ToolResult {
        call_id: call.id.clone(),
        name: call.name.clone(),
        content: "[hone] this result was removed from the context".to_string(),
        is_error: true,
        effect: Default::default(),
    })
}

fn placeholder_results(calls: &[ToolCall]) -> Message {
    Message {
        role: Role::User,
        content: calls.iter().map(placeholder_result).collect(),
    }
}

/// Whether every tool result answers a call of the message right before it and every call
/// is answered by the message right after it.
pub fn pairs_are_valid(messages: &[Message]) -> bool {
    messages.iter().enumerate().all(|(index, message)| {
        let calls_answered = !has_calls(message)
            || messages
                .get(index + 1)
                .is_some_and(|next| message.tool_calls().all(|call| answers(next, &call.id)));
        let results_paired = message.content.iter().all(|block| match block {
            ContentBlock::ToolResult(result) => {
                index > 0 && {
                    let previous = &messages[index - 1];
                    previous.tool_calls().any(|call| call.id == result.call_id)
                }
            }
            _ => true,
        });
        calls_answered && results_paired
    })
}

/// The call a result answers, looked up in the message before `index`.
pub(crate) fn call_for<'a>(
    messages: &'a [Message],
    index: usize,
    call_id: &str,
) -> Option<&'a ToolCall> {
    let previous = messages.get(index.checked_sub(1)?)?;
    previous.tool_calls().find(|call| call.id == call_id)
}

/// The `path` (or `file`) argument of a call, if any.
pub(crate) fn call_path(call: &ToolCall) -> Option<String> {
    let arguments = call.parse_arguments().ok()?;
    ["path", "file"]
        .iter()
        .find_map(|key| arguments.get(*key).and_then(Value::as_str))
        .map(|path| path.trim_start_matches("./").to_string())
}

/// Whether a command result reports failure (an error result or a non-zero exit code).
pub(crate) fn command_failed(result: &ToolResult) -> bool {
    if result.is_error {
        return true;
    }
    let first = result.content.lines().next().unwrap_or("");
    first
        .strip_prefix("exit code ")
        .and_then(|rest| rest.split_whitespace().next())
        .is_some_and(|code| code != "0")
}

/// The first non-empty line of `text`, cut to `limit` characters.
pub(crate) fn first_line(text: &str, limit: usize) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("");
    cut(line, limit)
}

/// `text` cut to `limit` characters with an ellipsis.
pub(crate) fn cut(text: &str, limit: usize) -> String {
    if text.chars().count() <= limit {
        return text.to_string();
    }
    let kept: String = text.chars().take(limit.saturating_sub(1)).collect();
    format!("{kept}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    fn calls(ids: &[&str]) -> Message {
        Message {
            role: Role::Assistant,
            content: ids
                .iter()
                .map(|id| ContentBlock::ToolCall(call(id, "read_file", "{}")))
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
                        content: "x".into(),
                        is_error: false,
                        effect: Default::default(),
                    })
                })
                .collect(),
        }
    }

    #[test]
    fn turns_start_at_user_requests_only() {
        let messages = vec![
            Message::user("fix it"),
            calls(&["a"]),
            results(&["a"]),
            Message::user("[hone] You have used all 25 tool rounds"),
            Message::assistant("done"),
            Message::user("thanks"),
        ];
        assert_eq!(turn_starts(&messages), [0, 5]);
        assert_eq!(turn_of_each(&messages), [0, 0, 0, 0, 0, 1]);
        assert_eq!(units(&messages), [0..1, 1..3, 3..4, 4..5, 5..6]);
    }

    #[test]
    fn repair_drops_orphan_results_and_answers_open_calls() {
        let messages = vec![
            results(&["gone"]),
            Message::user("hi"),
            calls(&["a", "b"]),
            results(&["b"]),
            calls(&["c"]),
        ];
        assert!(!pairs_are_valid(&messages));
        let repaired = repair_pairs(messages);
        assert!(pairs_are_valid(&repaired), "{repaired:#?}");
        assert_eq!(repaired.len(), 5);
        assert_eq!(repaired[0], Message::user("hi"));
        let ContentBlock::ToolResult(first) = &repaired[2].content[0] else {
            panic!("a result")
        };
        assert_eq!(first.call_id, "b");
        assert_eq!(repaired[2].content.len(), 2);
    }

    #[test]
    fn command_failures_are_recognised() {
        let result = |content: &str, is_error| ToolResult {
            call_id: "c".into(),
            name: "run_command".into(),
            content: content.into(),
            is_error,
            effect: hone_protocol::ToolEffect::command("cargo test"),
        };
        assert!(command_failed(&result("exit code 1 · 0.2s\nFAIL", false)));
        assert!(!command_failed(&result("exit code 0 · 0.2s\nok", false)));
        assert!(command_failed(&result("not run: denied", true)));
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(first_line("\n  x y \nz", 10), "x y");
    }
}
