//! A saved conversation as the protocol's [`HistoryEntry`]s.

use hone_api::HistoryEntry;
use hone_protocol::{ContentBlock, Message, Role};

/// `messages` as entries a face shows again, oldest first (images are left out).
pub fn history_entries(messages: &[Message]) -> Vec<HistoryEntry> {
    let mut entries = Vec::new();
    for message in messages {
        for block in &message.content {
            let entry = match block {
                ContentBlock::Text { text } if text.is_empty() => continue,
                ContentBlock::Text { text } => match message.role {
                    Role::User => HistoryEntry::User { text: text.clone() },
                    Role::Assistant => HistoryEntry::Assistant { text: text.clone() },
                },
                ContentBlock::Thinking { text, .. } => {
                    HistoryEntry::Thinking { text: text.clone() }
                }
                ContentBlock::ToolCall(call) => HistoryEntry::ToolCall {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    arguments: call
                        .parse_arguments()
                        .unwrap_or_else(|_| serde_json::Value::String(call.arguments.clone())),
                },
                ContentBlock::ToolResult(result) => HistoryEntry::ToolResult {
                    call_id: result.call_id.clone(),
                    output: result.content.clone(),
                    is_error: result.is_error,
                },
                ContentBlock::Image(_) => continue,
            };
            entries.push(entry);
        }
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use hone_protocol::ToolCall;

    #[test]
    fn text_calls_and_results_keep_their_order() {
        let messages = vec![
            Message::user("fix it"),
            Message {
                role: Role::Assistant,
                content: vec![
                    ContentBlock::Text {
                        text: "reading".into(),
                    },
                    ContentBlock::ToolCall(ToolCall {
                        id: "c1".into(),
                        name: "read_file".into(),
                        arguments: r#"{"path":"a.rs"}"#.into(),
                    }),
                ],
            },
        ];
        let entries = history_entries(&messages);
        assert_eq!(entries.len(), 3);
        assert_eq!(
            entries[0],
            HistoryEntry::User {
                text: "fix it".into()
            }
        );
        assert!(matches!(
            &entries[2],
            HistoryEntry::ToolCall { arguments, .. } if arguments["path"] == "a.rs"
        ));
    }

    #[test]
    fn arguments_that_are_not_json_stay_text() {
        let messages = vec![Message {
            role: Role::Assistant,
            content: vec![ContentBlock::ToolCall(ToolCall {
                id: "c1".into(),
                name: "run".into(),
                arguments: "{oops".into(),
            })],
        }];
        assert!(matches!(
            &history_entries(&messages)[0],
            HistoryEntry::ToolCall { arguments, .. } if arguments == "{oops"
        ));
    }
}
