//! The model's chat template (`tokenizer.chat_template`), rendered with minijinja the way
//! Hugging Face `transformers` renders it, so the model sees the format it was trained on.

use hone_protocol::{ChatRequest, ContentBlock, Role, ToolCall, ToolSpec};
use minijinja::value::{Kwargs, Value};
use minijinja::{Environment, Error, ErrorKind};
use serde::Serialize;

use crate::LocalError;

const TEMPLATE_NAME: &str = "chat";

/// Said in place of an image, which the local model cannot see.
const IMAGE_PLACEHOLDER: &str = "[an image was attached here; this model cannot see images]";

/// A compiled chat template.
pub struct ChatTemplate {
    env: Environment<'static>,
    bos_token: String,
    eos_token: String,
}

/// One message in the shape chat templates expect (`role`, `content`, `tool_calls`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TemplateMessage {
    /// `system`, `user`, `assistant` or `tool`.
    pub role: &'static str,
    /// The text.
    pub content: String,
    /// Tool calls of an assistant message.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<TemplateToolCall>,
    /// The tool a `tool` message answers for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A tool call in the OpenAI shape: `{"type": "function", "function": {…}}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TemplateToolCall {
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The call.
    pub function: TemplateFunction,
}

/// Name and arguments of a call; arguments are an object when they parse as one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TemplateFunction {
    /// The tool's name.
    pub name: String,
    /// A JSON object, or the raw text when the model's arguments were not one.
    pub arguments: serde_json::Value,
}

/// A tool in the OpenAI shape: `{"type": "function", "function": {name, description, parameters}}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TemplateTool {
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The tool.
    pub function: TemplateToolFunction,
}

/// Name, description and JSON schema of a tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TemplateToolFunction {
    /// The tool's name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// JSON schema of its arguments.
    pub parameters: serde_json::Value,
}

impl ChatTemplate {
    /// Compiles `source`; `bos_token` and `eos_token` are offered to the template as variables.
    pub fn new(source: &str, bos_token: &str, eos_token: &str) -> Result<Self, LocalError> {
        let mut env = Environment::new();
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env.add_filter("tojson", tojson);
        env.add_function("raise_exception", raise_exception);
        // Python's string and dict methods, which newer templates call (Qwen3's
        // `content.split('</think>')`, `message.content.startswith(…)`).
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_template_owned(TEMPLATE_NAME, source.to_owned())
            .map_err(|error| LocalError::Template(describe(&error)))?;
        Ok(Self {
            env,
            bos_token: bos_token.to_owned(),
            eos_token: eos_token.to_owned(),
        })
    }

    /// The prompt for `request`, ending with the start of the assistant's turn.
    ///
    /// A template that refuses an assistant message with several tool calls (Llama 3's:
    /// "only supports single tool-calls at once") gets each call as an assistant message
    /// of its own.
    pub fn render(&self, request: &ChatRequest) -> Result<String, LocalError> {
        let messages = template_messages(request);
        let tools = template_tools(&request.tools);
        match self.render_parts(&messages, &tools) {
            Err(error) if messages.iter().any(|message| message.tool_calls.len() > 1) => self
                .render_parts(&one_call_per_message(messages), &tools)
                .map_err(|_| error),
            result => result,
        }
    }

    /// The prompt of `request`'s system message alone (with the tools), when it has one:
    /// the start every request of a conversation shares, up to where its first other
    /// message begins.
    pub fn render_system(&self, request: &ChatRequest) -> Result<Option<String>, LocalError> {
        let messages = template_messages(request);
        match messages.first() {
            Some(first) if first.role == "system" => self
                .render_parts(&messages[..1], &template_tools(&request.tools))
                .map(Some),
            _ => Ok(None),
        }
    }

    /// Renders already mapped messages and tools.
    pub fn render_parts(
        &self,
        messages: &[TemplateMessage],
        tools: &[TemplateTool],
    ) -> Result<String, LocalError> {
        let template = self
            .env
            .get_template(TEMPLATE_NAME)
            .map_err(|error| LocalError::Template(describe(&error)))?;
        let tools = if tools.is_empty() {
            Value::from(())
        } else {
            Value::from_serialize(tools)
        };
        let context = minijinja::context! {
            messages => Value::from_serialize(messages),
            tools => tools,
            add_generation_prompt => true,
            // Qwen3 answers directly instead of thinking first (slow on a CPU, and the
            // agent gives no room for it): its template then writes an empty thought.
            enable_thinking => false,
            bos_token => &self.bos_token,
            eos_token => &self.eos_token,
        };
        template
            .render(context)
            .map_err(|error| LocalError::Template(describe(&error)))
    }
}

/// hone's conversation as chat-template messages: the system prompt first; user text;
/// tool results as `tool` messages (failures prefixed with `Error:`); assistant text
/// (without trailing whitespace when calls follow) with its calls as `tool_calls`.
/// Thinking is dropped; images become a short note.
pub fn template_messages(request: &ChatRequest) -> Vec<TemplateMessage> {
    let mut messages = Vec::with_capacity(request.messages.len() + 1);
    if let Some(system) = request.system.as_deref().filter(|s| !s.trim().is_empty()) {
        messages.push(plain("system", system.to_owned()));
    }
    for message in &request.messages {
        let mut text = String::new();
        let mut calls = Vec::new();
        for block in &message.content {
            match block {
                ContentBlock::Text { text: piece } => text.push_str(piece),
                ContentBlock::Image(_) => {
                    if !text.is_empty() && !text.ends_with('\n') {
                        text.push('\n');
                    }
                    text.push_str(IMAGE_PLACEHOLDER);
                }
                ContentBlock::ToolCall(call) => calls.push(template_call(call)),
                ContentBlock::ToolResult(result) => {
                    let content = if result.is_error {
                        format!("Error: {}", result.content)
                    } else {
                        result.content.clone()
                    };
                    messages.push(TemplateMessage {
                        role: "tool",
                        content,
                        tool_calls: Vec::new(),
                        name: Some(result.name.clone()),
                    });
                }
                ContentBlock::Thinking { .. } => {}
            }
        }
        match message.role {
            Role::User if !text.is_empty() => messages.push(plain("user", text)),
            Role::User => {}
            Role::Assistant => messages.push(TemplateMessage {
                role: "assistant",
                // The template puts each call on a new line after the text; the model wrote
                // the text's line break itself, so keeping it would double it.
                content: if calls.is_empty() {
                    text
                } else {
                    text.trim_end().to_owned()
                },
                tool_calls: calls,
                name: None,
            }),
        }
    }
    messages
}

/// Tools in the OpenAI shape the templates expect.
pub fn template_tools(tools: &[ToolSpec]) -> Vec<TemplateTool> {
    tools
        .iter()
        .map(|tool| TemplateTool {
            kind: "function",
            function: TemplateToolFunction {
                name: tool.name.clone(),
                description: tool.description.clone(),
                parameters: tool.parameters.clone(),
            },
        })
        .collect()
}

/// Each assistant message with several calls as consecutive assistant messages with one
/// call each (the first keeps the text).
fn one_call_per_message(messages: Vec<TemplateMessage>) -> Vec<TemplateMessage> {
    let mut out = Vec::with_capacity(messages.len());
    for message in messages {
        if message.tool_calls.len() < 2 {
            out.push(message);
            continue;
        }
        let mut content = message.content;
        for call in message.tool_calls {
            out.push(TemplateMessage {
                role: message.role,
                content: std::mem::take(&mut content),
                tool_calls: vec![call],
                name: None,
            });
        }
    }
    out
}

fn plain(role: &'static str, content: String) -> TemplateMessage {
    TemplateMessage {
        role,
        content,
        tool_calls: Vec::new(),
        name: None,
    }
}

fn template_call(call: &ToolCall) -> TemplateToolCall {
    let arguments = match call.parse_arguments() {
        Ok(value @ serde_json::Value::Object(_)) => value,
        _ => serde_json::Value::String(call.arguments.clone()),
    };
    TemplateToolCall {
        kind: "function",
        function: TemplateFunction {
            name: call.name.clone(),
            arguments,
        },
    }
}

/// `tojson` as `transformers` defines it: Python's `json.dumps(value, ensure_ascii=False)`,
/// so `", "` and `": "` separators, keys in their original order, non-ASCII kept, no HTML
/// escaping; `indent=n` pretty-prints.
fn tojson(value: &Value, kwargs: Kwargs) -> Result<Value, Error> {
    let indent: Option<usize> = kwargs.get("indent")?;
    let mut out = Vec::new();
    let written = match indent {
        Some(indent) => {
            let spaces = " ".repeat(indent);
            let formatter = serde_json::ser::PrettyFormatter::with_indent(spaces.as_bytes());
            value.serialize(&mut serde_json::Serializer::with_formatter(
                &mut out, formatter,
            ))
        }
        None => value.serialize(&mut serde_json::Serializer::with_formatter(
            &mut out,
            PythonFormatter,
        )),
    };
    written.map_err(|error| {
        Error::new(ErrorKind::InvalidOperation, "cannot serialize to JSON").with_source(error)
    })?;
    let text = String::from_utf8(out).map_err(|error| {
        Error::new(ErrorKind::InvalidOperation, "JSON is not UTF-8").with_source(error)
    })?;
    Ok(Value::from_safe_string(text))
}

fn raise_exception(message: String) -> Result<Value, Error> {
    Err(Error::new(ErrorKind::InvalidOperation, message))
}

/// JSON with Python's default separators.
struct PythonFormatter;

impl serde_json::ser::Formatter for PythonFormatter {
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
    ) -> std::io::Result<()> {
        writer.write_all(b": ")
    }
}

/// An error with the template's own explanation and where it happened.
fn describe(error: &Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests;
