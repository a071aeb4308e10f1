//! Rendering checked against `transformers`' own renderer (Python jinja2), see
//! `tests/fixtures/make_fixtures.py`.

use hone_protocol::{ContentBlock, Message, ToolResult};
use serde_json::Value as Json;

use super::*;

const FIXTURE: &str = include_str!("../../tests/fixtures/chat_template.json");

fn fixture() -> Json {
    serde_json::from_str(FIXTURE).unwrap()
}

fn text(value: &Json) -> String {
    value.as_str().unwrap_or_default().to_owned()
}

/// The hone request a fixture conversation stands for: tool messages become tool results
/// in a user message (an `Error: ` prefix marks a failure), assistant calls become calls.
fn request_for(case: &Json) -> ChatRequest {
    let mut request = ChatRequest::default();
    for message in case["messages"].as_array().unwrap() {
        let content = text(&message["content"]);
        match message["role"].as_str().unwrap() {
            "system" => request.system = Some(content),
            "user" => request.messages.push(Message::user(content)),
            "assistant" => {
                let mut blocks = Vec::new();
                if !content.is_empty() {
                    blocks.push(ContentBlock::Text { text: content });
                }
                for (index, call) in message["tool_calls"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .enumerate()
                {
                    let arguments = match &call["function"]["arguments"] {
                        Json::String(raw) => raw.clone(),
                        object => object.to_string(),
                    };
                    blocks.push(ContentBlock::ToolCall(ToolCall {
                        id: format!("call_{index}"),
                        name: text(&call["function"]["name"]),
                        arguments,
                    }));
                }
                request.messages.push(Message {
                    role: Role::Assistant,
                    content: blocks,
                });
            }
            "tool" => {
                let (is_error, content) = match content.strip_prefix("Error: ") {
                    Some(rest) => (true, rest.to_owned()),
                    None => (false, content),
                };
                let result = ContentBlock::ToolResult(ToolResult {
                    call_id: "call".into(),
                    name: text(&message["name"]),
                    content,
                    is_error,
                    effect: Default::default(),
                });
                match request.messages.last_mut() {
                    Some(last)
                        if last.role == Role::User
                            && matches!(last.content.last(), Some(ContentBlock::ToolResult(_))) =>
                    {
                        last.content.push(result);
                    }
                    _ => request.messages.push(Message {
                        role: Role::User,
                        content: vec![result],
                    }),
                }
            }
            other => panic!("unexpected role {other}"),
        }
    }
    for tool in case["tools"].as_array().unwrap() {
        request.tools.push(ToolSpec {
            name: text(&tool["function"]["name"]),
            description: text(&tool["function"]["description"]),
            parameters: tool["function"]["parameters"].clone(),
        });
    }
    request
}

#[test]
fn every_fixture_renders_exactly_like_transformers() {
    let fixture = fixture();
    let cases = fixture["cases"].as_array().unwrap();
    assert!(cases.len() >= 12, "both templates, six conversations each");
    for case in cases {
        let source = text(&fixture["templates"][text(&case["template"])]);
        let template = ChatTemplate::new(&source, "<|endoftext|>", "<|im_end|>").unwrap();
        let rendered = template.render(&request_for(case)).unwrap();
        assert_eq!(
            rendered,
            text(&case["expected"]),
            "case {} with {}",
            case["name"],
            case["template"]
        );
    }
}

#[test]
fn qwen3_and_llama3_templates_render_exactly_like_transformers() {
    // Rendered by Python jinja2 as transformers sets it up, see
    // `tests/fixtures/make_template_fixtures.py`: Python string methods, `[::-1]`,
    // `enable_thinking`, `tojson(indent=4)`, several calls split for Llama 3.
    let fixture: Json =
        serde_json::from_str(include_str!("../../tests/fixtures/chat_template_more.json")).unwrap();
    let cases = fixture["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 12, "two templates, six conversations each");
    for case in cases {
        let source = text(&fixture["templates"][text(&case["template"])]);
        let template = ChatTemplate::new(
            &source,
            &text(&case["bos_token"]),
            &text(&case["eos_token"]),
        )
        .unwrap();
        let rendered = template.render(&request_for(case)).unwrap();
        assert_eq!(
            rendered,
            text(&case["expected"]),
            "case {} with {}",
            case["name"],
            case["template"]
        );
    }
}

#[test]
fn several_calls_become_one_message_each_only_for_a_template_that_refuses_them() {
    let call = |name: &str| {
        ContentBlock::ToolCall(ToolCall {
            id: name.into(),
            name: name.into(),
            arguments: "{}".into(),
        })
    };
    let mut request = ChatRequest::new("", "go");
    request.messages.push(Message {
        role: Role::Assistant,
        content: vec![
            ContentBlock::Text {
                text: "Both.".into(),
            },
            call("a"),
            call("b"),
        ],
    });
    let source = "{% for m in messages %}{% if m.tool_calls %}{% if m.tool_calls|length != 1 %}\
                  {{ raise_exception('one call only') }}{% endif %}[{{ m.content }}:\
                  {{ m.tool_calls[0].function.name }}]{% endif %}{% endfor %}";
    let refusing = ChatTemplate::new(source, "", "").unwrap();
    assert_eq!(refusing.render(&request).unwrap(), "[Both.:a][:b]");
    let accepting = ChatTemplate::new(
        "{% for m in messages %}{% if m.tool_calls %}{{ m.tool_calls|length }}{% endif %}{% endfor %}",
        "",
        "",
    )
    .unwrap();
    assert_eq!(accepting.render(&request).unwrap(), "2");
    // A refusal for any other reason is reported as it was.
    let failing = ChatTemplate::new("{{ raise_exception('no') }}", "", "").unwrap();
    assert!(
        failing
            .render(&request)
            .unwrap_err()
            .to_string()
            .contains("no")
    );
}

#[test]
fn mapped_messages_have_the_shape_the_templates_expect() {
    let fixture = fixture();
    for case in fixture["cases"].as_array().unwrap() {
        let mapped = serde_json::to_value(template_messages(&request_for(case))).unwrap();
        assert_eq!(mapped, case["messages"], "case {}", case["name"]);
    }
}

#[test]
fn a_tool_call_renders_as_the_model_writes_it() {
    let fixture = fixture();
    let case = fixture["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|case| case["name"] == "tools_calls_and_results")
        .unwrap();
    let source = text(&fixture["templates"][text(&case["template"])]);
    let template = ChatTemplate::new(&source, "", "").unwrap();
    let rendered = template.render(&request_for(case)).unwrap();
    assert!(rendered.contains(
        "<|im_start|>assistant\nLet me look.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/lib.rs\"}}\n</tool_call><|im_end|>\n"
    ));
    assert!(rendered.contains("<|im_start|>user\n<tool_response>\npub fn add"));
    assert!(rendered.contains("{\"type\": \"function\", \"function\": {\"name\": \"read_file\""));
    assert!(rendered.ends_with("<|im_start|>assistant\n"));
}

#[test]
fn images_and_thinking_do_not_reach_the_prompt_as_data() {
    let request = ChatRequest {
        messages: vec![
            Message {
                role: Role::User,
                content: vec![
                    ContentBlock::Text {
                        text: "What is this?".into(),
                    },
                    ContentBlock::Image(hone_protocol::ImageRef::Url {
                        url: "https://example.com/a.png".into(),
                    }),
                ],
            },
            Message {
                role: Role::Assistant,
                content: vec![
                    ContentBlock::Thinking {
                        text: "secret".into(),
                        signature: None,
                    },
                    ContentBlock::Text {
                        text: "A cat.".into(),
                    },
                ],
            },
        ],
        ..ChatRequest::default()
    };
    let messages = template_messages(&request);
    assert_eq!(messages.len(), 2);
    assert!(messages[0].content.contains("cannot see images"));
    assert!(!messages[0].content.contains("example.com"));
    assert_eq!(messages[1].content, "A cat.");
}

#[test]
fn template_errors_are_reported_not_panicked() {
    assert!(matches!(
        ChatTemplate::new("{% for %}", "", ""),
        Err(LocalError::Template(_))
    ));
    let raising = ChatTemplate::new("{{ raise_exception('no system role') }}", "", "").unwrap();
    let error = raising.render(&ChatRequest::new("", "hi")).unwrap_err();
    assert!(error.to_string().contains("no system role"), "{error}");
}

#[test]
fn tojson_matches_python_json_dumps() {
    let template = ChatTemplate::new(
        "{{ messages[0].content | tojson }}|{{ messages | tojson(indent=2) }}",
        "",
        "",
    )
    .unwrap();
    let request = ChatRequest::new("", "é <b> & 'q' \"x\"\n");
    let rendered = template.render(&request).unwrap();
    let (compact, pretty) = rendered.split_once('|').unwrap();
    assert_eq!(compact, "\"é <b> & 'q' \\\"x\\\"\\n\"");
    assert!(
        pretty.starts_with("[\n  {\n    \"role\": \"user\",\n    \"content\": "),
        "{pretty}"
    );
}
