//! Rewriting a request for a model without native tool calling.

use hone_protocol::{ChatRequest, ContentBlock};

use crate::render::{render_tool_call, render_tool_result, render_tools_prompt};

/// The request with its tools moved into the system prompt and its history made plain text.
///
/// * `tools` is emptied; the `# Tools` section of [`render_tools_prompt`] is appended
///   to the system prompt (after a blank line), or becomes it.
/// * In every message, tool calls become [`render_tool_call`] text and tool results
///   [`render_tool_result`] text, thinking blocks are dropped, images are kept, and
///   adjacent text is merged into one block (a rendered call or result goes on its
///   own line; two original text blocks are joined as they are). A message left
///   with nothing (only thinking) keeps an empty content list.
/// * A request without tools whose history holds no tool call or result is
///   returned unchanged.
pub fn rewrite_request(request: &ChatRequest) -> ChatRequest {
    let has_tool_history = request.messages.iter().any(|message| {
        message.content.iter().any(|block| {
            matches!(
                block,
                ContentBlock::ToolCall(_) | ContentBlock::ToolResult(_)
            )
        })
    });
    if request.tools.is_empty() && !has_tool_history {
        return request.clone();
    }
    let mut rewritten = request.clone();
    rewritten.tools = Vec::new();
    if !request.tools.is_empty() {
        let section = render_tools_prompt(&request.tools);
        rewritten.system = Some(match request.system.as_deref() {
            Some(system) if !system.trim().is_empty() => {
                format!("{}\n\n{section}", system.trim_end())
            }
            _ => section,
        });
    }
    for message in &mut rewritten.messages {
        message.content = plain_blocks(std::mem::take(&mut message.content));
    }
    rewritten
}

/// Content blocks with calls and results rendered as text, thinking dropped and
/// adjacent text merged.
fn plain_blocks(blocks: Vec<ContentBlock>) -> Vec<ContentBlock> {
    let mut plain: Vec<ContentBlock> = Vec::with_capacity(blocks.len());
    let mut last_was_rendered = false;
    for block in blocks {
        let (text, rendered) = match block {
            ContentBlock::Text { text } => (text, false),
            ContentBlock::ToolCall(call) => (render_tool_call(&call.name, &call.arguments), true),
            ContentBlock::ToolResult(result) => (render_tool_result(&result), true),
            ContentBlock::Thinking { .. } => continue,
            image @ ContentBlock::Image(_) => {
                plain.push(image);
                last_was_rendered = false;
                continue;
            }
        };
        match plain.last_mut() {
            Some(ContentBlock::Text { text: previous }) => {
                let needs_newline = (rendered || last_was_rendered)
                    && !previous.is_empty()
                    && !previous.ends_with('\n');
                if needs_newline {
                    previous.push('\n');
                }
                previous.push_str(&text);
            }
            _ => plain.push(ContentBlock::Text { text }),
        }
        last_was_rendered = rendered;
    }
    plain
}

#[cfg(test)]
mod tests {
    use hone_protocol::{ImageRef, Message, Role, ToolCall, ToolResult, ToolSpec};

    use super::*;

    fn tool(name: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: format!("The {name} tool"),
            parameters: serde_json::json!({"type": "object"}),
        }
    }

    fn history() -> Vec<Message> {
        vec![
            Message::user("Fix main.rs"),
            Message {
                role: Role::Assistant,
                content: vec![
                    ContentBlock::Thinking {
                        text: "hmm".into(),
                        signature: None,
                    },
                    ContentBlock::Text {
                        text: "Reading it.".into(),
                    },
                    ContentBlock::ToolCall(ToolCall {
                        id: "call_0".into(),
                        name: "read_file".into(),
                        arguments: "{\"path\": \"main.rs\"}".into(),
                    }),
                ],
            },
            Message {
                role: Role::User,
                content: vec![
                    ContentBlock::ToolResult(ToolResult {
                        call_id: "call_0".into(),
                        name: "read_file".into(),
                        content: "fn main() {}".into(),
                        is_error: false,
                        effect: Default::default(),
                    }),
                    ContentBlock::ToolResult(ToolResult {
                        call_id: "call_1".into(),
                        name: "grep".into(),
                        content: "boom".into(),
                        is_error: true,
                        effect: Default::default(),
                    }),
                    ContentBlock::Image(ImageRef::Url {
                        url: "https://example.com/a.png".into(),
                    }),
                    ContentBlock::Text {
                        text: "Also look at this.".into(),
                    },
                ],
            },
        ]
    }

    #[test]
    fn tools_move_into_the_system_prompt_after_the_existing_one() {
        let request = ChatRequest {
            system: Some("You are hone.\n".into()),
            tools: vec![tool("read_file"), tool("edit_file")],
            max_tokens: Some(100),
            thinking: Some(hone_protocol::Thinking::Budget(10)),
            ..ChatRequest::new("m", "hi")
        };
        let rewritten = rewrite_request(&request);
        assert!(rewritten.tools.is_empty());
        let system = rewritten.system.unwrap();
        assert!(system.starts_with("You are hone.\n\n# Tools\n"), "{system}");
        assert!(
            system.contains("{\"name\": \"edit_file\", \"description\": \"The edit_file tool\"")
        );
        assert_eq!(rewritten.messages, request.messages);
        assert_eq!(rewritten.max_tokens, Some(100));
        assert_eq!(rewritten.thinking, request.thinking);
    }

    #[test]
    fn without_a_system_prompt_the_tools_section_becomes_it() {
        let request = ChatRequest {
            tools: vec![tool("read_file")],
            ..ChatRequest::new("m", "hi")
        };
        assert!(
            rewrite_request(&request)
                .system
                .unwrap()
                .starts_with("# Tools\n")
        );
    }

    #[test]
    fn a_request_without_tools_or_tool_history_is_unchanged() {
        let mut request = ChatRequest::new("m", "hi");
        request.messages.push(Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::Thinking {
                    text: "t".into(),
                    signature: Some("s".into()),
                },
                ContentBlock::Text { text: "a".into() },
                ContentBlock::Text { text: "b".into() },
            ],
        });
        assert_eq!(rewrite_request(&request), request);
    }

    #[test]
    fn tool_history_becomes_plain_text_even_without_tools() {
        let request = ChatRequest {
            messages: history(),
            ..ChatRequest::default()
        };
        let rewritten = rewrite_request(&request);
        assert_eq!(rewritten.system, None);
        assert_eq!(rewritten.messages[0], request.messages[0]);
        assert_eq!(
            rewritten.messages[1].content,
            vec![ContentBlock::Text {
                text: "Reading it.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"main.rs\"}}\n</tool_call>"
                    .into()
            }]
        );
        let user = &rewritten.messages[2].content;
        assert_eq!(user.len(), 3);
        assert_eq!(
            user[0],
            ContentBlock::Text {
                text: "<tool_response>\n{\"name\": \"read_file\", \"content\": \"fn main() {}\"}\n</tool_response>\n\
                       <tool_response>\n{\"name\": \"grep\", \"content\": \"boom\", \"error\": true}\n</tool_response>"
                    .into()
            }
        );
        assert!(matches!(user[1], ContentBlock::Image(_)));
        assert_eq!(
            user[2],
            ContentBlock::Text {
                text: "Also look at this.".into()
            }
        );
    }

    #[test]
    fn adjacent_plain_text_blocks_are_joined_as_they_are() {
        let mut request = ChatRequest::new("m", "hi");
        request.tools.push(tool("read_file"));
        request.messages[0].content.push(ContentBlock::Text {
            text: " there".into(),
        });
        let rewritten = rewrite_request(&request);
        assert_eq!(rewritten.messages[0], Message::user("hi there"));
    }

    #[test]
    fn a_rendered_history_parses_back_into_the_same_calls() {
        let request = ChatRequest {
            messages: history(),
            ..ChatRequest::default()
        };
        let rewritten = rewrite_request(&request);
        let mut parser = crate::ToolCallParser::new(["read_file"]);
        let mut parsed = parser.push(&rewritten.messages[1].text());
        parsed.extend(parser.finish());
        assert_eq!(
            parsed,
            vec![
                crate::Parsed::Text("Reading it.\n".into()),
                crate::Parsed::Call {
                    name: "read_file".into(),
                    arguments: "{\"path\":\"main.rs\"}".into()
                },
            ]
        );
    }
}
