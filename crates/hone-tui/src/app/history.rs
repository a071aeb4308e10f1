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
                // The live view never showed hone's notes to the model (located code, repair
                // notes): one line says one was sent.
                (Role::User, ContentBlock::Text { text }) if text.starts_with(HONE_NOTE) => {
                    transcript.push(Entry::Notice(NoticeKind::Info, note_line(text)));
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

/// Characters of a note's first line shown in a resumed conversation.
const NOTE_SHOWN: usize = 100;

/// One line for a note hone sent the model: its first line, shortened.
fn note_line(note: &str) -> String {
    let first = note
        .trim_start_matches(HONE_NOTE)
        .trim_start()
        .lines()
        .next()
        .unwrap_or_default();
    let mut shown: String = first.chars().take(NOTE_SHOWN).collect();
    if shown.len() < first.len() || note.trim_end().lines().nth(1).is_some() {
        shown.push('…');
    }
    format!("note to the model: {shown}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_to_the_model_is_one_line_and_the_user_s_code_keeps_its_lines() {
        let history = [
            Message::user(
                "[hone] Code from the project, found by hone:\n\nsrc/a.py:\n```py\ndef a():\n    return 1\n```",
            ),
            Message::user("fix this:\n```py\ndef b():\n    return 2\n```"),
        ];
        let mut transcript = Transcript::default();
        show(&mut transcript, &history);
        let text: Vec<String> = transcript
            .all_lines(100)
            .iter()
            .map(|line| {
                line.spans
                    .iter()
                    .map(|span| span.content.as_ref())
                    .collect()
            })
            .collect();
        let joined = text.join("\n");
        assert!(
            joined.contains("note to the model: Code from the project, found by hone:…"),
            "{joined}"
        );
        assert!(!joined.contains("return 1"), "{joined}");
        assert!(
            text.iter()
                .any(|line| line.trim_end().ends_with("return 2")),
            "{joined}"
        );
        assert_eq!(note_line("[hone] short"), "note to the model: short");
    }
}
