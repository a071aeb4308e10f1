//! Compaction: stubbing stale tool results, summarising older turns with the model (the
//! request is built here, sent by the caller) or by rules when that fails.

use std::collections::{BTreeMap, HashMap};

use hone_protocol::{ChatRequest, ContentBlock, Message, Role};

use crate::history::{
    FILE_CONTENT_TOOLS, call_for, call_path, command_failed, cut, first_line, is_request,
    request_text, turn_of_each,
};
use crate::tracked;

/// The system prompt of a summary request.
pub const COMPACTION_PROMPT: &str = "You compact the conversation of a coding agent so that it \
can continue its work within a limited context window. Summarise the conversation you are \
given (and the previous summary, if there is one) for the agent itself.\n\n\
Keep: every request and constraint of the user; decisions made and why; files read, created \
and changed (with paths); commands run and their outcome; errors met and whether they were \
fixed; what remains to do.\n\
Drop: file contents, long command output, pleasantries.\n\n\
Write short bullet points under the headings Requests, Decisions, Files, Commands, Errors and \
Open items (leave out empty ones). Write in the language the user writes in. Do not continue \
the task and do not call tools: answer with the summary only.";

/// Characters of a user or assistant message kept in the transcript sent for summarising.
const TRANSCRIPT_TEXT_CHARS: usize = 2_000;
/// Characters of a tool result kept in that transcript.
const TRANSCRIPT_RESULT_CHARS: usize = 400;
/// Characters of tool-call arguments kept in that transcript.
const TRANSCRIPT_ARGUMENT_CHARS: usize = 300;
/// Results shorter than this are not worth stubbing.
const MIN_STALE_BYTES: usize = 300;
/// Items of each list in a rule-based summary.
const RULE_LIST_ITEMS: usize = 20;

pub use hone_api::CompactionMethod;

/// What to summarise and, when it fits, the request asking the model to do it.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryPlan {
    /// History index where the kept turns start; everything before it gets summarised.
    pub end: usize,
    /// The summary request, or `None` when it would not fit the window itself (use
    /// [`crate::ContextManager::rule_summary`] then).
    pub request: Option<ChatRequest>,
}

/// Tool results from `start` on that hold file contents, are longer than a few lines, are
/// not stubbed yet, and whose file has not been mentioned (in text or tool arguments) for
/// `stale_after` turns; mapped to their stubs.
pub(crate) fn stale_results(
    history: &[Message],
    start: usize,
    stubbed: &BTreeMap<String, String>,
    stale_after: usize,
) -> BTreeMap<String, String> {
    let turns = turn_of_each(history);
    let Some(current) = turns.last().copied() else {
        return BTreeMap::new();
    };
    let mut candidates: Vec<(String, String, String, usize, usize)> = Vec::new();
    for (index, message) in history.iter().enumerate().skip(start) {
        for block in &message.content {
            let ContentBlock::ToolResult(result) = block else {
                continue;
            };
            if stubbed.contains_key(&result.call_id)
                || result.is_error
                || result.content.len() < MIN_STALE_BYTES
                || !FILE_CONTENT_TOOLS.contains(&result.name.as_str())
            {
                continue;
            }
            let Some(path) = call_for(history, index, &result.call_id).and_then(call_path) else {
                continue;
            };
            let lines = result.content.lines().count();
            candidates.push((
                result.call_id.clone(),
                result.name.clone(),
                path,
                turns[index],
                lines,
            ));
        }
    }
    if candidates.is_empty() {
        return BTreeMap::new();
    }
    let mut last_mention: HashMap<&str, usize> = HashMap::new();
    for (index, message) in history.iter().enumerate().skip(start) {
        for (_, _, path, _, _) in &candidates {
            if mentions(message, path) {
                last_mention.insert(path.as_str(), turns[index]);
            }
        }
    }
    candidates
        .iter()
        .filter(|(_, _, path, turn, _)| {
            let last = last_mention.get(path.as_str()).copied().unwrap_or(*turn);
            current.saturating_sub(last.max(*turn)) >= stale_after
        })
        .map(|(call_id, tool, path, turn, lines)| {
            let stub = format!(
                "[hone] Removed to save context: the output of {tool} for `{path}` ({lines} \
                 lines, turn {}), unused for {} turns. Call {tool} again if you need it.",
                turn + 1,
                current - turn
            );
            (call_id.clone(), stub)
        })
        .collect()
}

/// Whether `message` mentions `path` in its text or in a tool call's arguments (tool
/// results, whose listings mention many paths, do not count; nor do snapshots).
fn mentions(message: &Message, path: &str) -> bool {
    message.content.iter().any(|block| match block {
        ContentBlock::Text { text } => !tracked::is_snapshot(text) && text.contains(path),
        ContentBlock::ToolCall(call) => call.arguments.contains(path),
        _ => false,
    })
}

/// The summary request for `messages` (the turns to summarise) after `previous`.
pub(crate) fn summary_request(
    model: &str,
    previous: Option<&str>,
    messages: &[Message],
    max_tokens: u32,
) -> ChatRequest {
    let mut text = String::new();
    if let Some(previous) = previous {
        text.push_str(&format!(
            "<previous_summary>\n{}\n</previous_summary>\n\n",
            previous.trim()
        ));
    }
    text.push_str(&format!(
        "<conversation>\n{}</conversation>\n\nWrite the summary now.",
        transcript(messages)
    ));
    ChatRequest {
        model: model.to_string(),
        system: Some(COMPACTION_PROMPT.to_string()),
        messages: vec![Message::user(text)],
        tools: Vec::new(),
        max_tokens: Some(max_tokens),
        temperature: None,
        ..ChatRequest::default()
    }
}

/// The conversation as compact text: one entry per message or tool call, long parts cut.
pub(crate) fn transcript(messages: &[Message]) -> String {
    let mut out = String::new();
    for message in messages {
        for block in &message.content {
            let line = match (message.role, block) {
                (_, ContentBlock::Text { text }) if tracked::is_snapshot(text) => format!(
                    "[snapshot of tracked file {}]",
                    tracked::snapshot_path(text).unwrap_or("?")
                ),
                (Role::User, ContentBlock::Text { text }) => {
                    format!("User: {}", cut(text.trim(), TRANSCRIPT_TEXT_CHARS))
                }
                (Role::Assistant, ContentBlock::Text { text }) => {
                    format!("Assistant: {}", cut(text.trim(), TRANSCRIPT_TEXT_CHARS))
                }
                (_, ContentBlock::ToolCall(call)) => format!(
                    "Assistant called {} {}",
                    call.name,
                    cut(&call.arguments, TRANSCRIPT_ARGUMENT_CHARS)
                ),
                (_, ContentBlock::ToolResult(result)) => format!(
                    "Result of {}{}: {}",
                    result.name,
                    if result.is_error { " (error)" } else { "" },
                    cut(result.content.trim(), TRANSCRIPT_RESULT_CHARS)
                ),
                (_, ContentBlock::Image(_)) => "[image]".to_string(),
                (_, ContentBlock::Thinking { .. }) => continue,
            };
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// A summary of `messages` written by rules: requests, commands, changed files, errors,
/// answers and decisions.
pub(crate) fn rule_summary(messages: &[Message]) -> String {
    let mut requests = Vec::new();
    let mut commands = Vec::new();
    let mut files: Vec<String> = Vec::new();
    let mut errors = Vec::new();
    let mut answers = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        if is_request(message) {
            requests.push(first_line(&request_text(message), 200));
            continue;
        }
        if message.role == Role::Assistant && message.tool_calls().next().is_none() {
            let text = message.text();
            if !text.trim().is_empty() {
                answers.push(first_line(&text, 200));
            }
            continue;
        }
        for block in &message.content {
            let ContentBlock::ToolResult(result) = block else {
                continue;
            };
            let Some(call) = call_for(messages, index, &result.call_id) else {
                continue;
            };
            if let Some(command) = &result.effect.command {
                let outcome = if command_failed(result) {
                    "failed"
                } else {
                    "ok"
                };
                commands.push(format!(
                    "`{}` → {outcome} ({})",
                    cut(command, 120),
                    first_line(&result.content, 80)
                ));
            } else if result.is_error {
                errors.push(format!(
                    "{}: {}",
                    call.name,
                    first_line(&result.content, 160)
                ));
            } else {
                for path in &result.effect.written {
                    if !files.contains(path) {
                        files.push(path.clone());
                    }
                }
            }
        }
    }
    let mut out = String::from("Summary of older turns (written by rules):\n");
    let mut section = |title: &str, items: &[String]| {
        if items.is_empty() {
            return;
        }
        let skipped = items.len().saturating_sub(RULE_LIST_ITEMS);
        out.push_str(&format!("{title}:\n"));
        if skipped > 0 {
            out.push_str(&format!("- … {skipped} earlier\n"));
        }
        for item in &items[skipped..] {
            out.push_str(&format!("- {item}\n"));
        }
    };
    section("Requests", &requests);
    section("Commands run", &commands);
    section("Files changed", &files);
    section("Errors", &errors);
    section("Answers and decisions", &answers);
    out
}

/// `previous` followed by `new`, cut from the oldest end to `max_chars`.
pub(crate) fn append_summary(previous: Option<&str>, new: &str, max_chars: usize) -> String {
    let joined = match previous {
        Some(previous) => format!("{}\n\n{}", previous.trim_end(), new.trim()),
        None => new.trim().to_string(),
    };
    let count = joined.chars().count();
    if count <= max_chars {
        return joined;
    }
    let tail: String = joined.chars().skip(count - max_chars).collect();
    let start = tail.find('\n').map_or(0, |index| index + 1);
    format!("[… older summary cut …]\n{}", &tail[start..])
}

#[cfg(test)]
mod tests {
    use hone_protocol::{ToolCall, ToolEffect, ToolResult};

    use super::*;

    fn round(id: &str, name: &str, arguments: serde_json::Value, output: &str) -> Vec<Message> {
        round_with(id, name, arguments, output, ToolEffect::default())
    }

    fn round_with(
        id: &str,
        name: &str,
        arguments: serde_json::Value,
        output: &str,
        effect: ToolEffect,
    ) -> Vec<Message> {
        vec![
            Message {
                role: Role::Assistant,
                content: vec![ContentBlock::ToolCall(ToolCall {
                    id: id.into(),
                    name: name.into(),
                    arguments: arguments.to_string(),
                })],
            },
            Message {
                role: Role::User,
                content: vec![ContentBlock::ToolResult(ToolResult {
                    call_id: id.into(),
                    name: name.into(),
                    content: output.into(),
                    is_error: false,
                    effect,
                })],
            },
        ]
    }

    fn conversation(turns: usize) -> Vec<Message> {
        let mut history = vec![Message::user("read src/a.rs")];
        history.extend(round(
            "r1",
            "read_file",
            serde_json::json!({"path": "src/a.rs"}),
            &"let a = 1;\n".repeat(100),
        ));
        history.push(Message::assistant("Read it."));
        for turn in 1..turns {
            history.push(Message::user(format!("question {turn}")));
            history.push(Message::assistant("answer"));
        }
        history
    }

    #[test]
    fn file_contents_go_stale_after_turns_without_mention() {
        let stubbed = BTreeMap::new();
        assert!(stale_results(&conversation(5), 0, &stubbed, 5).is_empty());
        let stale = stale_results(&conversation(6), 0, &stubbed, 5);
        assert_eq!(stale.len(), 1);
        assert!(
            stale["r1"].contains("read_file for `src/a.rs` (100 lines"),
            "{stale:?}"
        );
        let mut mentioned = conversation(6);
        mentioned.insert(5, Message::user("look at src/a.rs again"));
        assert!(stale_results(&mentioned, 0, &stubbed, 5).is_empty());
    }

    #[test]
    fn rules_summarise_commands_files_errors_and_answers() {
        let mut history = vec![Message::user("fix the tests\nplease")];
        history.extend(round_with(
            "c1",
            "run_tests",
            serde_json::json!({}),
            "exit code 1 · 0.2s\nFAIL",
            ToolEffect::command("cargo test"),
        ));
        history.extend(round_with(
            "e1",
            "edit_file",
            serde_json::json!({"path": "./src/a.rs"}),
            "applied: edit src/a.rs",
            ToolEffect::written(["src/a.rs".to_string()]),
        ));
        // A result without a declared effect is neither a command nor a write, whatever
        // the tool's name.
        history.extend(round(
            "w1",
            "write_file",
            serde_json::json!({"path": "src/b.rs"}),
            "applied: write src/b.rs",
        ));
        history.push(Message::assistant("Fixed the off-by-one.\nDetails…"));
        let summary = rule_summary(&history);
        assert_eq!(
            summary,
            "Summary of older turns (written by rules):\nRequests:\n- fix the tests\nCommands \
             run:\n- `cargo test` → failed (exit code 1 · 0.2s)\nFiles changed:\n- src/a.rs\n\
             Answers and decisions:\n- Fixed the off-by-one.\n"
        );
    }

    #[test]
    fn transcripts_cut_long_results() {
        let history = round(
            "r",
            "read_file",
            serde_json::json!({"path": "a"}),
            &"x".repeat(5_000),
        );
        let text = transcript(&history);
        assert!(
            text.starts_with("Assistant called read_file {\"path\":\"a\"}\nResult of read_file: x")
        );
        assert!(text.len() < 1_000);
    }

    #[test]
    fn appended_summaries_keep_the_newest_part() {
        assert_eq!(append_summary(None, " new ", 100), "new");
        assert_eq!(append_summary(Some("old"), "new", 100), "old\n\nnew");
        let long = append_summary(Some(&"line\n".repeat(100)), "newest", 50);
        assert!(long.starts_with("[… older summary cut …]\n") && long.ends_with("newest"));
    }
}
