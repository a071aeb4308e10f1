//! A resumed conversation, shown as it looked: messages, compact tool lines, answers.

use hone_protocol::{ContentBlock, Message, Role};

use crate::tool_line;
use crate::transcript::{Entry, NoticeKind, ToolEntry, ToolState, Transcript};

/// Notes hone itself added to the history start with this.
const HONE_NOTE: &str = "[hone]";

/// Adds `history` to `transcript`.
pub(super) fn show(transcript: &mut Transcript, history: &[Message]) {
    for message in history {
        for block in &message.content {
            match (message.role, block) {
                (Role::User, ContentBlock::Text { text }) if text.starts_with(HONE_NOTE) => {
                    transcript.push(Entry::Notice(NoticeKind::Info, text.clone()));
                }
                (Role::User, ContentBlock::Text { text }) => {
                    transcript.push(Entry::User(text.clone()))
                }
                (_, ContentBlock::Text { text }) if !text.trim().is_empty() => {
                    transcript.push(Entry::Assistant {
                        text: text.clone(),
                        streaming: false,
                    });
                }
                (_, ContentBlock::Thinking { text, .. }) => transcript.push(Entry::Thinking {
                    text: text.clone(),
                    streaming: false,
                }),
                (_, ContentBlock::ToolCall(call)) => transcript.push(Entry::Tool(ToolEntry {
                    call_id: call.id.clone(),
                    line: tool_line::describe(&call.name, &call.arguments, 160),
                    state: ToolState::Running,
                    output: String::new(),
                })),
                (_, ContentBlock::ToolResult(result)) => {
                    transcript.update_tool(&result.call_id, |tool| {
                        tool.state = ToolState::Done {
                            is_error: result.is_error,
                            duration_ms: None,
                        };
                        tool.output = result.content.clone();
                    });
                }
                _ => {}
            }
        }
    }
    transcript.finish_streams();
}
